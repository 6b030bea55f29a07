-- load_samples: scheduler samples as analysed ($path: of samples.parquet).
CREATE OR REPLACE TABLE samples AS
SELECT coalesce(replica, '') AS rep, epoch_us(ts) AS ts, in_flight, queue_depth, cap, kv_cache_usage
FROM read_parquet($path, hive_partitioning = false);
