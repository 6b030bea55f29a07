-- memory: what DuckDB holds in memory and has spilled, for --debug.
SELECT sum(memory_usage_bytes), sum(temporary_storage_bytes) FROM duckdb_memory();
