-- span_src_joined: the spans as analysed, in a run with a gateway-engine
-- join: the joined spans (join_spans.sql), with the same columns as span_src.sql.
CREATE OR REPLACE VIEW span_src AS
SELECT * FROM joined_spans;
