-- request_facts: one row per request: the release of its last span (rc, NULL
-- while none has a release), whether any span succeeded, and its delivered span
-- (docs/metrics.md): the first successful span by released_at (NULLs last), ties
-- by span_id, then input order; NULL without a successful span. One pass over the
-- spans gives both the logical requests and the delivered spans.
CREATE OR REPLACE TEMP TABLE request_facts AS
SELECT request_id,
       max(r) AS rc,
       bool_or(ok) AS any_ok,
       arg_min(idx, (coalesce(r, 9223372036854775807), r IS NULL, span_id, idx)) FILTER (WHERE ok) AS delivered_idx
FROM spans
GROUP BY request_id;
