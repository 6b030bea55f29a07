-- run_state: win_state of the whole run (params with whole = true) from the rows
-- win_state holds for the windows: the windows split each segment at their
-- bounds, so the run's measures (integers, µs) are the windows' sums, exactly.
CREATE OR REPLACE TABLE win_state AS
SELECT params.last AS window_index,
    sum(backlog_us)::BIGINT AS backlog_us,
    sum(gap_us)::BIGINT AS gap_us,
    sum(over_cap_us)::BIGINT AS over_cap_us,
    sum(in_flight_us)::HUGEINT AS in_flight_us,
    sum(queue_us)::HUGEINT AS queue_us
FROM win_state, params
GROUP BY params.last;
