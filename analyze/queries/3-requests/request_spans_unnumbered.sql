-- request_spans_unnumbered: request_spans of a run with spans the source left
-- unnumbered: span_times put side by side, row by row, with the attempt of
-- every span in idx order (attempt_list), which a POSITIONAL JOIN does
-- keeping span_times' order. The pairing runs on one thread, so a run whose
-- source numbered every span reads span_times alone (request_spans).
CREATE OR REPLACE VIEW request_spans AS
SELECT span_times.* REPLACE (coalesce(span_times.attempt, attempt_list.attempt) AS attempt)
FROM span_times POSITIONAL JOIN attempt_list;
