-- curve_conc_large: curve_conc of a large run, the same rows, from an ASOF
-- join partitioned by the hour of the instant (h = hour_of(µs), below; any
-- bucketing that never decreases with the instant gives the same rows).
-- Unpartitioned, the join sorts every midpoint and every segment as one part,
-- externally at 100 M spans, and merges them on one thread; by the hour each
-- part sorts in memory and the parts join on every core. A midpoint's segment
-- may have started in an earlier hour: each hour's part also holds the last
-- segment that started before it (carried, with its own bounds), so a segment
-- of the hour at its first µs still comes after it and wins the ASOF join. In
-- a run that fits in memory the partitions cost more than they save
-- (BENCHMARKS.md), so such a run reads curve_conc.
-- hour_of: the hour an instant (µs) falls in; every side of the join must
-- bucket the same way.
CREATE OR REPLACE MACRO hour_of(us) AS us // 3600000000;
CREATE OR REPLACE VIEW curve_conc AS
WITH mid AS MATERIALIZED (
    -- read twice (the hours that have a midpoint, the join), computed once
    SELECT t, stream_tps FROM curve_mids
), hours AS (
    -- the last segment to start in each hour that has one
    SELECT hour_of(lo) AS h, max(lo) AS lo, max_by(hi, lo) AS hi, max_by(inf, lo) AS inf
    FROM pool_segments GROUP BY h
), carried AS (
    SELECT mh.h, hours.lo, hours.hi, hours.inf
    FROM (SELECT DISTINCT hour_of(t) AS h FROM mid) mh ASOF JOIN hours ON mh.h > hours.h
), segs AS (
    SELECT hour_of(lo) AS h, lo, hi, inf FROM pool_segments
    UNION ALL
    SELECT h, lo, hi, inf FROM carried
)
SELECT state_at(mid.t, segs.hi, segs.inf) AS in_flight, mid.stream_tps
FROM mid ASOF LEFT JOIN segs ON hour_of(mid.t) = segs.h AND mid.t >= segs.lo;
