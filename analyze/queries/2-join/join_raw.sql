-- join_raw: the spans of a run that holds a gateway's and an engine's spans, with
-- their row numbers and roles, for join_pairs and join_spans. From spans_file;
-- $gateway: the gateway sources, $engine: the engine sources.
CREATE OR REPLACE TABLE raw_spans AS
SELECT * EXCLUDE (file_row_number), file_row_number AS idx, source IN $gateway AS is_gw, source IN $engine AS is_en
FROM spans_file;
