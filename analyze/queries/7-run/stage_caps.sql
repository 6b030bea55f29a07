-- stage_caps: each worker's cap from samples.parquet ($path): the largest
-- its samples report.
CREATE OR REPLACE TABLE stage_caps AS
SELECT coalesce(replica, '') AS rep, max(cap)::BIGINT AS cap
FROM read_parquet($path, hive_partitioning = false)
WHERE cap IS NOT NULL
GROUP BY ALL;
