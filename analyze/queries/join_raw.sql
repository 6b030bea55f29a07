-- join_raw: the spans of a run that holds a gateway's and an engine's spans, with
-- their row numbers and roles, for join_pairs and join_spans. $1: path of
-- spans.parquet, $2: the gateway sources, $3: the engine sources.
CREATE OR REPLACE TABLE raw_spans AS
SELECT * EXCLUDE (file_row_number), file_row_number AS idx, source IN $2 AS is_gw, source IN $3 AS is_en
FROM read_parquet($1, file_row_number = true, hive_partitioning = false);
