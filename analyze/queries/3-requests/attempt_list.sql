-- attempt_list: after number_attempts, the attempt of every span, a row per
-- span in idx order (span_times' order), for request_spans_unnumbered, which
-- takes the attempts the source left out from it by position (POSITIONAL
-- JOIN). Not a lookup by idx: a join does not keep its input's order, and a
-- list of every span's attempt, in a variable or a one-row table joined to
-- every row, is copied into each vector that reads it (at 10 M spans, 37 s of
-- request_values' time). The spans table is stored in no particular order,
-- so its attempts are sorted by idx here.
CREATE OR REPLACE TABLE attempt_list AS
SELECT attempt FROM spans ORDER BY idx;
