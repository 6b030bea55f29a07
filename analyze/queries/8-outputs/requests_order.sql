-- requests_order: whether DuckDB wrote requests_added ($path) in spans.parquet's
-- row order, as the splice needs (NULL when empty).
SELECT bool_and(idx = file_row_number) FROM read_parquet($path, file_row_number = true, hive_partitioning = false);
