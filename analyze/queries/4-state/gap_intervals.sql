-- gap_intervals: the intervals behind the pool's attribution state
-- (gap_events), unsorted, one row each with its kind: the pool's gap (0:
-- queue_depth > 0 and in_flight < $pool_cap, from pool_segments), the
-- replicas that hold requests (1: engine queue not empty with a free slot,
-- from gap_replica), the replicas with requests at the gateway on their way
-- to them (2), and the waits without a location (3: spans whose
-- engine_arrived_at is unknown or out of order, or whose replica is not the
-- pool's). They are a table of their own, not sorted here, because DuckDB's
-- sort of a UNION ALL runs out of memory once it spills (on 10 M spans under
-- a 150 MB limit; at 100 M spans under 2.5 GB) where the sort of a table of
-- the same rows does not.
CREATE OR REPLACE TABLE gap_intervals AS
WITH held AS (
    SELECT lo, hi FROM gap_replica WHERE eq > 0 AND in_flight < cap
), gated AS (
    SELECT lo, hi FROM gap_replica WHERE gq > 0
), gap AS (
    SELECT lo, hi FROM pool_segments WHERE in_gap(in_flight, queue_depth, $pool_cap::BIGINT)
), unloc AS (
    SELECT queued_us AS lo, admitted_us AS hi FROM spans
    WHERE queued_us < admitted_us
      AND NOT coalesce(arrived_us BETWEEN queued_us AND admitted_us AND rid IN (SELECT rid FROM pool_rids), false)
), iv AS (
    SELECT lo, hi, 0::TINYINT AS kind FROM gap
    UNION ALL SELECT lo, hi, 1 FROM held
    UNION ALL SELECT lo, hi, 2 FROM gated
    UNION ALL SELECT lo, hi, 3 FROM unloc
)
SELECT * FROM iv;
