-- win_events: events counted in the window that holds their instant (the last
-- window also holds the instant t1): attempts at released_at, arrivals (attempt 0)
-- at queued_at, logical requests at the release of their last span.
--
-- An arrival completes with its request (logical_requests, joined by a
-- request_id that is not NULL, req in the spans table). A solo span
-- (load_spans) is its request, so only the first attempts of requests of
-- several spans are joined to their facts (multi_facts): at 10 M spans about
-- 0.6 M rows instead of 10 M.
CREATE OR REPLACE TABLE win_events AS
WITH att AS (
    SELECT least(released_us // params.width, params.last) AS window_index,
           count(*) AS attempts,
           count(*) FILTER (WHERE ok) AS successful_attempts,
           count(*) FILTER (WHERE attempt > 0) AS retry_attempts
    FROM spans, params WHERE released_us BETWEEN params.t0 AND params.t1 GROUP BY ALL
), arr AS (
    SELECT least(s.queued_us // params.width, params.last) AS window_index,
           count(*) AS arrivals,
           count(s.rc) AS completed_arrivals,
           sum(s.rc - s.queued_us) AS request_total_us
    FROM (
        SELECT queued_us, CASE WHEN req IS NOT NULL THEN released_us END AS rc
        FROM spans WHERE solo AND attempt = 0
        UNION ALL
        SELECT s.queued_us, lr.rc
        FROM spans s LEFT JOIN multi_facts lr USING (req)
        WHERE NOT s.solo AND s.attempt = 0
    ) s, params
    WHERE s.queued_us BETWEEN params.t0 AND params.t1 GROUP BY ALL
), req AS (
    SELECT least(rc // params.width, params.last) AS window_index,
           count(*) AS requests,
           count(*) FILTER (WHERE any_ok) AS succeeded_requests
    FROM logical_requests, params WHERE rc BETWEEN params.t0 AND params.t1 GROUP BY ALL
)
SELECT window_index,
    coalesce(attempts, 0) AS attempts,
    coalesce(successful_attempts, 0) AS successful_attempts,
    coalesce(retry_attempts, 0) AS retry_attempts,
    coalesce(arrivals, 0) AS arrivals,
    coalesce(completed_arrivals, 0) AS completed_arrivals,
    request_total_us,
    coalesce(requests, 0) AS requests,
    coalesce(succeeded_requests, 0) AS succeeded_requests
FROM att FULL JOIN arr USING (window_index) FULL JOIN req USING (window_index);
