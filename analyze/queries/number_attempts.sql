-- number_attempts: a span the source did not number gets row_number() − 1 over the
-- spans of its request ordered by queued_at (NULLs last), span_id, then input
-- order (docs/metrics.md "Attempt numbers"); spans that have a number keep it.
-- Only requests with such a span pay for the window.
UPDATE spans SET attempt = u.n
FROM (
    SELECT idx,
           (row_number() OVER (PARTITION BY request_id ORDER BY q NULLS LAST, span_id, idx) - 1)::INTEGER AS n
    FROM spans
    WHERE request_id IN (SELECT request_id FROM spans WHERE attempt IS NULL)
) u
WHERE spans.idx = u.idx AND spans.attempt IS NULL;
