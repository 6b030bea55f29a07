-- win_state: exact measures of the pool's state per window, from its segments
-- clipped to the run extent (µs; integrals in request·µs).
--
-- One scan of the segments, grouped by the window each starts in: a segment
-- inside one window (most of them) is summed into it there; the few that
-- cross a bound (at most one a bound: the segments do not overlap) are kept
-- in their group's list (crossing) and spread over their windows from it. A
-- scan for each kind would read a large run's segments from its database
-- file twice, and decompress them twice.
CREATE OR REPLACE TABLE win_state AS
WITH s AS (
    SELECT greatest(lo, params.t0) AS lo, least(hi, params.t1) AS hi, in_flight, queue_depth, params.width AS width, params.cap AS cap
    FROM pool_segments, params WHERE hi > params.t0 AND lo < params.t1
), starts AS MATERIALIZED (
    SELECT lo // width AS window_index,
        sum(hi - lo) FILTER (WHERE inside AND queue_depth > 0) AS backlog_us,
        sum(hi - lo) FILTER (WHERE inside AND in_gap(in_flight, queue_depth, cap)) AS gap_us,
        sum(hi - lo) FILTER (WHERE inside AND over_cap(in_flight, cap)) AS over_cap_us,
        sum((hi - lo) * in_flight) FILTER (WHERE inside) AS in_flight_us,
        sum((hi - lo) * queue_depth) FILTER (WHERE inside) AS queue_us,
        list({'lo': lo, 'hi': hi, 'in_flight': in_flight, 'queue_depth': queue_depth}) FILTER (WHERE NOT inside) AS crossing
    FROM (SELECT *, lo // width = (hi - 1) // width AS inside FROM s)
    GROUP BY window_index
), crossing AS (
    SELECT c.lo, c.hi, c.in_flight, c.queue_depth FROM (SELECT unnest(crossing) AS c FROM starts)
), parts AS (
    SELECT unnest(range(lo // params.width, (hi - 1) // params.width + 1)) AS window_index, lo, hi, in_flight, queue_depth, params.width AS width, params.cap AS cap
    FROM crossing, params
), y AS (
    SELECT window_index, backlog_us, gap_us, over_cap_us, in_flight_us, queue_us FROM starts
    UNION ALL
    SELECT window_index,
        sum(len) FILTER (WHERE queue_depth > 0), sum(len) FILTER (WHERE in_gap(in_flight, queue_depth, cap)), sum(len) FILTER (WHERE over_cap(in_flight, cap)),
        sum(len * in_flight), sum(len * queue_depth)
    FROM (SELECT window_index, least(hi, (window_index + 1) * width) - greatest(lo, window_index * width) AS len, in_flight, queue_depth, cap FROM parts)
    GROUP BY window_index
)
SELECT window_index,
    coalesce(sum(backlog_us), 0)::BIGINT AS backlog_us,
    coalesce(sum(gap_us), 0)::BIGINT AS gap_us,
    coalesce(sum(over_cap_us), 0)::BIGINT AS over_cap_us,
    sum(in_flight_us)::HUGEINT AS in_flight_us,
    sum(queue_us)::HUGEINT AS queue_us
FROM y GROUP BY window_index;
