-- curve_conc: each successful stream in the run extent with its stream_tps
-- and the pool's in_flight at the middle of its stream (curve_mids): that of the
-- segment of pool_segments that holds the midpoint, 0 between segments (the
-- sweep leaves out those where the state is 0). A view, read by curves.
CREATE OR REPLACE VIEW curve_conc AS
SELECT state_at(mid.t, pool_segments.hi, pool_segments.inf) AS in_flight, mid.stream_tps
FROM curve_mids mid ASOF LEFT JOIN pool_segments ON mid.t >= pool_segments.lo;
