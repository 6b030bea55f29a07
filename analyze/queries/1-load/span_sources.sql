-- span_sources: how many spans of spans.parquet ($path) come from a gateway
-- ($gateway: its formats) and from an engine ($engine): with both, analyze
-- joins them per attempt (join_*.sql); and whether the file has the column
-- engine_arrived_at (spans_file_legacy when not).
SELECT count(*) FILTER (source IN $gateway), count(*) FILTER (source IN $engine), count(*),
    (SELECT count(*) > 0 FROM parquet_schema($path) WHERE name = 'engine_arrived_at')
FROM read_parquet($path, hive_partitioning = false);
