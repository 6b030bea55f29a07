-- span_sources: how many spans of spans.parquet ($path) come from a gateway
-- ($gateway: its formats) and from an engine ($engine): with both, analyze
-- joins them per attempt (join_*.sql).
SELECT count(*) FILTER (source IN $gateway), count(*) FILTER (source IN $engine), count(*)
FROM read_parquet($path, hive_partitioning = false);
