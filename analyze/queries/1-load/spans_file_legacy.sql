-- spans_file_legacy: spans_file for a spans.parquet written before the column
-- engine_arrived_at existed: the column is NULL (where requests waited is
-- unknown, so their idle time is unattributed_gap).
CREATE OR REPLACE VIEW spans_file AS
SELECT *, NULL::TIMESTAMPTZ AS engine_arrived_at
FROM read_parquet(getvariable('spans_path'), file_row_number = true, hive_partitioning = false);
