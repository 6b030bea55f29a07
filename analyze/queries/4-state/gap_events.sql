-- gap_events: the steps of the pool's attribution state, by instant: the
-- pool's gap (gap: queue_depth > 0 and in_flight < $pool_cap, from
-- pool_segments), the replicas that hold requests (h: engine queue not empty
-- with a free slot, from gap_replica), the replicas with requests at the
-- gateway on their way to them (g), and the waits without a location (u:
-- spans whose engine_arrived_at is unknown or out of order, or whose replica
-- is not the pool's). Each count is the number of such intervals holding t.
CREATE OR REPLACE TABLE gap_events AS
WITH held AS (
    SELECT lo, hi FROM gap_replica WHERE eq > 0 AND inf < cap
), gated AS (
    SELECT lo, hi FROM gap_replica WHERE gq > 0
), gap AS (
    SELECT lo, hi FROM pool_segments WHERE qd > 0 AND inf < $pool_cap::BIGINT
), unloc AS (
    SELECT queued_us AS lo, admitted_us AS hi FROM spans
    WHERE queued_us < admitted_us
      AND NOT coalesce(arrived_us BETWEEN queued_us AND admitted_us AND rid IN (SELECT rid FROM pool_rids), false)
), st AS (
    SELECT lo AS at_us, 1 AS dgap, 0 AS dh, 0 AS dg, 0 AS du FROM gap
    UNION ALL SELECT hi, -1, 0, 0, 0 FROM gap
    UNION ALL SELECT lo, 0, 1, 0, 0 FROM held
    UNION ALL SELECT hi, 0, -1, 0, 0 FROM held
    UNION ALL SELECT lo, 0, 0, 1, 0 FROM gated
    UNION ALL SELECT hi, 0, 0, -1, 0 FROM gated
    UNION ALL SELECT lo, 0, 0, 0, 1 FROM unloc
    UNION ALL SELECT hi, 0, 0, 0, -1 FROM unloc
)
SELECT at_us, dgap::TINYINT AS dgap, dh::TINYINT AS dh, dg::TINYINT AS dg, du::TINYINT AS du
FROM st ORDER BY at_us;
