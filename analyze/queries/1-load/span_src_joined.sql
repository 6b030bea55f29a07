-- span_src_joined: the spans as analysed, in a run with a gateway-engine
-- join: the joined spans (join_spans.sql), written to a Parquet file
-- (joined_file.sql, the variable joined_path), with the same columns as
-- span_src.sql, in idx order.
CREATE OR REPLACE VIEW span_src AS
SELECT * FROM read_parquet(getvariable('joined_path'), hive_partitioning = false);
