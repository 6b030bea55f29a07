-- spans_file: spans.parquet (the variable spans_path) with its row numbers
-- (file_row_number), as span_src and join_raw read it. Hive partitioning
-- off: a run under a key=value folder (dt=2026-11-20/, run=NAME/) must not
-- grow columns.
CREATE OR REPLACE VIEW spans_file AS
SELECT * FROM read_parquet(getvariable('spans_path'), file_row_number = true, hive_partitioning = false);
