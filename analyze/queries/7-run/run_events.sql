-- run_events: win_events of the whole run (params with whole = true) from the rows
-- win_events holds for the windows: every event counts in exactly one window,
-- so the run's counts and its request_total_us are the windows' sums, exactly.
CREATE OR REPLACE TABLE win_events AS
SELECT params.last AS window_index,
    coalesce(sum(attempts), 0)::BIGINT AS attempts,
    coalesce(sum(successful_attempts), 0)::BIGINT AS successful_attempts,
    coalesce(sum(retry_attempts), 0)::BIGINT AS retry_attempts,
    coalesce(sum(arrivals), 0)::BIGINT AS arrivals,
    coalesce(sum(completed_arrivals), 0)::BIGINT AS completed_arrivals,
    sum(request_total_us)::HUGEINT AS request_total_us,
    coalesce(sum(requests), 0)::BIGINT AS requests,
    coalesce(sum(succeeded_requests), 0)::BIGINT AS succeeded_requests
FROM win_events, params
GROUP BY params.last;
