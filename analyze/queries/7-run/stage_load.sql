-- stage_load: the run's stages (stages.parquet, $path) in µs, as the
-- disaggregation steps read them: attempt 0 where the source gave none (the
-- request's only attempt, as number_attempts numbers spans), role '' for the
-- gateway's and the router's stages and rep '' for a stage with no replica
-- (docs/metrics.md "Disaggregated serving").
CREATE OR REPLACE TABLE stage_rows AS
SELECT request_id, coalesce(attempt, 0) AS attempt, stage, coalesce(role, '') AS role,
    coalesce(replica, '') AS rep, epoch_us(started_at) AS s, epoch_us(ended_at) AS e, bytes
FROM read_parquet($path, hive_partitioning = false);
