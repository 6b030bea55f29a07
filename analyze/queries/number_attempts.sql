-- number_attempts: a span the source did not number gets row_number() − 1 over the
-- spans of its request ordered by queued_at (NULLs last), span_id, then input
-- order (docs/metrics.md "Attempt numbers"); spans that have a number keep it.
-- Only requests with such a span pay for the window, and for their span_ids,
-- which the spans table leaves out (load_spans) and span_src has.
UPDATE spans SET attempt = u.n
FROM (
    SELECT s.idx,
           (row_number() OVER (PARTITION BY s.request_id ORDER BY s.q NULLS LAST, src.span_id, s.idx) - 1)::INTEGER AS n
    FROM spans s JOIN span_src src ON src.idx = s.idx
    WHERE s.request_id IN (SELECT request_id FROM spans WHERE attempt IS NULL)
) u
WHERE spans.idx = u.idx AND spans.attempt IS NULL;
