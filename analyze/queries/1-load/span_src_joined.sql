-- span_src_joined: the spans as analysed, in a run with a gateway-engine
-- join: the joined spans, written to a Parquet file (join.go joinedFile, the
-- variable joined_path) in input order, with their row numbers as idx, in the
-- columns of span_src.sql.
CREATE OR REPLACE VIEW span_src AS
SELECT * EXCLUDE (file_row_number, gw), file_row_number AS idx, gw
FROM read_parquet(getvariable('joined_path'), file_row_number = true, hive_partitioning = false);
