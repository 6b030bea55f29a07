-- load_latencies: latencies.parquet's rows for compare ($path), the
-- completion as µs since the epoch, in the file's order.
SELECT epoch_us(completed_at), ttft_req, tpot_req, e2e_req
FROM read_parquet($path, hive_partitioning = false);
