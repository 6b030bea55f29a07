-- join_raw: the spans of a run that holds a gateway's and an engine's spans, with
-- their row numbers and roles, for join_pairs and join_spans. Path of
-- spans.parquet (the variable spans_path), $gateway: the gateway sources,
-- $engine: the engine sources.
CREATE OR REPLACE TABLE raw_spans AS
SELECT * EXCLUDE (file_row_number), file_row_number AS idx, source IN $gateway AS is_gw, source IN $engine AS is_en
FROM read_parquet(getvariable('spans_path'), file_row_number = true, hive_partitioning = false);
