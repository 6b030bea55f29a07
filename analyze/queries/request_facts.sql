-- request_facts: one row per request: the release of its last span (rc, NULL
-- while none has a release), whether any span succeeded, whether it has a first
-- attempt (has_first) and how many retries (attempt > 0), for quality's
-- unlinked retries, and its delivered span (docs/metrics.md): the first
-- successful span by released_at (NULLs last), ties by span_id, then input
-- order; NULL without a successful span. One pass over the spans, after
-- number_attempts, gives the logical requests, the delivered spans and the
-- retry links.
--
-- Ranking by (released_at, span_id, idx) costs a sort key with a string per
-- span, and only a request with two or more successful spans (n_ok > 1) has a
-- choice to make: the one successful span of any other is its delivered span.
-- request_ties ranks the spans of the requests with a choice.
CREATE OR REPLACE TABLE request_facts AS
SELECT request_id,
       max(r) AS rc,
       bool_or(ok) AS any_ok,
       coalesce(bool_or(attempt = 0), false) AS has_first,
       count(*) FILTER (WHERE attempt > 0) AS retries,
       count(*) FILTER (WHERE ok) AS n_ok,
       CASE WHEN count(*) FILTER (WHERE ok) = 1 THEN any_value(idx) FILTER (WHERE ok) END AS delivered_idx
FROM spans
GROUP BY request_id;
