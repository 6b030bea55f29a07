-- request_spans: the spans request_values reads, in input order, in a run
-- whose source numbered every span: span_times as it is (a plain scan keeps
-- the order). request_spans_unnumbered otherwise.
CREATE OR REPLACE VIEW request_spans AS
SELECT * FROM span_times;
