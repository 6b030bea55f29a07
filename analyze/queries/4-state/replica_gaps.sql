-- replica_gaps: each pool replica's gap_time over the run extent ($t0, $t1,
-- µs) by where its waiting requests were (docs/metrics.md "Where the idle
-- time comes from"): in its engine's queue, else at the gateway, else of
-- unknown location; from gap_replica.
CREATE OR REPLACE TABLE replica_gaps AS
WITH c AS (
    SELECT rid, least(hi, $t1::BIGINT) - greatest(lo, $t0::BIGINT) AS len,
        CASE WHEN eq > 0 THEN 1 WHEN gq > 0 THEN 2 ELSE 4 END AS cause
    FROM gap_replica WHERE in_flight < cap AND hi > $t0::BIGINT AND lo < $t1::BIGINT
)
SELECT rep,
    coalesce(sum(len) FILTER (WHERE cause = 1), 0)::BIGINT AS engine_us,
    coalesce(sum(len) FILTER (WHERE cause = 2), 0)::BIGINT AS admission_us,
    coalesce(sum(len) FILTER (WHERE cause = 4), 0)::BIGINT AS unattributed_us
FROM c JOIN replica_ids USING (rid) GROUP BY rep;
