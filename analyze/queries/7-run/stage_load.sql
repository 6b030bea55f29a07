-- stage_load: the run's stages (stages.parquet, $path) in µs, as the
-- disaggregation steps read them: attempt 0 where the source gave none (the
-- request's only attempt, as number_attempts numbers spans), role '' for the
-- gateway's and the router's stages and rep '' for a stage with no replica
-- (docs/metrics.md "Disaggregated serving"). In a joined run, an attempt
-- whose stages log no gateway stage gets one from its request's receipt at
-- the gateway (stage_gateways) to its first stage's start, when the receipt
-- comes first.
CREATE OR REPLACE TABLE stage_rows AS
WITH logged AS (
    SELECT request_id, coalesce(attempt, 0) AS attempt, stage, coalesce(role, '') AS role,
        coalesce(replica, '') AS rep, epoch_us(started_at) AS s, epoch_us(ended_at) AS e, bytes::BIGINT AS bytes
    FROM read_parquet($path, hive_partitioning = false)
), received AS (
    SELECT l.request_id, l.attempt, 'gateway' AS stage, '' AS role, '' AS rep, g.queued_us AS s, min(l.s) AS e, NULL::BIGINT AS bytes
    FROM logged l JOIN stage_gateways g USING (request_id)
    GROUP BY l.request_id, l.attempt, g.queued_us
    HAVING NOT bool_or(l.stage = 'gateway') AND g.queued_us <= min(l.s)
)
SELECT * FROM logged
UNION ALL
SELECT * FROM received;
