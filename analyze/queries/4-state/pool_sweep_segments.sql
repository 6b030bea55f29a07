-- pool_sweep_segments: pool_segments (pool_segments.sql) from the sweep in Go
-- of the pool's steps (pool_sweep.go), the Arrow stream pool_sweep, in the
-- order it makes them: by time.
CREATE OR REPLACE TABLE pool_segments AS
SELECT lo, hi, in_flight, queue_depth FROM pool_sweep;
