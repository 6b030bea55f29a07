-- win_sampled: the same measures from the samples' held state, over known time only.
CREATE OR REPLACE TABLE win_sampled AS
WITH s AS (
    SELECT greatest(lo, params.t0) AS lo, least(hi, params.t1) AS hi, in_flight, queue_depth, sample_segments.cap
    FROM sample_segments, params WHERE sample_segments.hi > params.t0 AND sample_segments.lo < params.t1
), x AS (
    SELECT unnest(range(lo // params.width, (hi - 1) // params.width + 1)) AS window_index, lo, hi, in_flight, queue_depth, s.cap FROM s, params
), y AS (
    SELECT window_index, least(hi, (window_index + 1) * params.width) - greatest(lo, window_index * params.width) AS len, in_flight, queue_depth, x.cap
    FROM x, params
)
SELECT window_index,
    sum(len)::BIGINT AS sampled_us,
    coalesce(sum(len) FILTER (WHERE queue_depth > 0), 0)::BIGINT AS backlog_us,
    coalesce(sum(len) FILTER (WHERE in_gap(in_flight, queue_depth, cap)), 0)::BIGINT AS gap_us,
    sum(len * in_flight)::HUGEINT AS in_flight_us,
    sum(len * queue_depth)::HUGEINT AS queue_us
FROM y GROUP BY window_index;
