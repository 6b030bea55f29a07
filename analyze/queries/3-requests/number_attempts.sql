-- number_attempts: a span the source did not number gets row_number() − 1 over the
-- spans of its request ordered by queued_at (NULLs last), span_id, then input
-- order (docs/metrics.md "Attempt numbers"); spans that have a number keep it.
-- Only requests with such a span pay for the window, and for their span_ids,
-- which the spans table leaves out (load_spans) and span_src has. The spans
-- table is written anew rather than UPDATEd: an UPDATE of rows scattered over
-- the table took 5.6 s for 1 M spans, the copy a fraction of that.
CREATE OR REPLACE TABLE spans AS
SELECT spans.* REPLACE (coalesce(spans.attempt, u.n) AS attempt)
FROM spans LEFT JOIN (
    SELECT s.idx,
           (row_number() OVER (PARTITION BY s.req ORDER BY s.queued_us NULLS LAST, src.span_id, s.idx) - 1)::INTEGER AS n
    FROM spans s JOIN span_src src ON src.idx = s.idx
    WHERE s.req IN (SELECT req FROM spans WHERE attempt IS NULL)
) u ON u.idx = spans.idx;
