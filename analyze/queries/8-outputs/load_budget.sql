-- load_budget: the rows of an analysed run's budget.parquet ($1), instants as µs.
SELECT epoch_us(window_start), epoch_us(window_end), part, n, p50, p90, p95, p99, mean, max
FROM read_parquet($1, hive_partitioning = false)
