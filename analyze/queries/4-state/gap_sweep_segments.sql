-- gap_sweep_segments: the sweep in Go of the attribution's steps
-- (gap_sweep.go), the Arrow stream gap_sweep, stored: each pool replica's
-- (rid) segments [lo, hi) with requests queued, as gap_replica has them
-- before its cap is known (gap_replica_swept joins it), in order of time.
CREATE OR REPLACE TABLE gap_segments AS
SELECT rid, lo, hi, in_flight, queue_depth, eq, gq FROM gap_sweep;
