-- span_src: the spans as analysed, in a run without a gateway-engine join:
-- spans.parquet (the variable spans_path) with its row numbers as idx, the
-- key by which every later statement finds a span. gw (the gateway's total
-- time of a joined span) is NULL. Hive partitioning off: a run under a
-- key=value folder (dt=2026-11-20/, run=NAME/) must not grow columns.
CREATE OR REPLACE VIEW span_src AS
SELECT * EXCLUDE (file_row_number), file_row_number AS idx, NULL::BIGINT AS gw
FROM read_parquet(getvariable('spans_path'), file_row_number = true, hive_partitioning = false);
