-- request_facts: one row per request (req, load_spans' key for its
-- request_id): the release of its last span (rc, NULL while none has a
-- release), its first arrival (first_queued_us: the earliest queued_at of
-- its spans), whether any span succeeded, whether it has a first attempt
-- (has_first) and how many retries (attempt > 0), for quality's unlinked
-- retries, and its delivered span (docs/metrics.md): the first
-- successful span by released_at (NULLs last), ties by span_id, then input
-- order; NULL without a successful span. After number_attempts, it gives the
-- logical requests, the delivered spans and the retry links.
--
-- The requests of two or more spans (multi_requests) are aggregated into the
-- table multi_facts; a solo span (load_spans) is its request's facts by itself,
-- read from the spans table when request_facts is: a view.
--
-- Ranking by (released_at, span_id, idx) costs a sort key with a string per
-- span, and only a request with two or more successful spans (n_ok > 1) has a
-- choice to make: the one successful span of any other is its delivered span.
-- request_ties ranks the spans of the requests with a choice.
CREATE OR REPLACE TABLE multi_facts AS
SELECT req,
       max(released_us) AS rc,
       bool_or(ok) AS any_ok,
       coalesce(bool_or(attempt = 0), false) AS has_first,
       count(*) FILTER (WHERE attempt > 0) AS retries,
       count(*) FILTER (WHERE ok) AS n_ok,
       CASE WHEN count(*) FILTER (WHERE ok) = 1 THEN any_value(idx) FILTER (WHERE ok) END AS delivered_idx,
       min(queued_us) AS first_queued_us
FROM spans WHERE NOT solo
GROUP BY req;
CREATE OR REPLACE VIEW request_facts AS
SELECT * FROM multi_facts
UNION ALL
SELECT req, released_us, ok, coalesce(attempt = 0, false), (attempt > 0 IS TRUE)::BIGINT, (ok IS TRUE)::BIGINT,
       CASE WHEN ok THEN idx END, queued_us
FROM spans WHERE solo;
