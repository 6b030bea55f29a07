-- curve_conc: each successful stream in the run extent with its stream_tps
-- and the pool's in_flight at the middle of its stream (curve_mids): that of the
-- segment of pool_segments that holds the midpoint, the latest to start at or
-- before it (the ASOF join), while it lasts (t < hi); 0 between segments (the
-- sweep leaves out those where the state is 0) and before the first. A view,
-- read by curves. A build with DuckDB's Arrow interface merges the two in
-- Go instead, to the same values (curve_merge.go, curve_conc_merged).
CREATE OR REPLACE VIEW curve_conc AS
SELECT CASE WHEN mid.t < pool_segments.hi THEN pool_segments.in_flight ELSE 0 END AS in_flight, mid.stream_tps
FROM curve_mids mid ASOF LEFT JOIN pool_segments ON mid.t >= pool_segments.lo;
