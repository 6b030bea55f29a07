-- win_state: exact measures of the pool's state per window, from its segments
-- clipped to the run extent (µs; integrals in request·µs).
CREATE OR REPLACE TABLE win_state AS
WITH s AS (
    SELECT greatest(lo, params.t0) AS lo, least(hi, params.t1) AS hi, inf, qd
    FROM pool_segments, params WHERE hi > params.t0 AND lo < params.t1
), x AS (
    SELECT unnest(range(lo // params.width, (hi - 1) // params.width + 1)) AS window_index, lo, hi, inf, qd FROM s, params
    WHERE lo // params.width < (hi - 1) // params.width
), y AS (
    SELECT window_index, least(hi, (window_index + 1) * params.width) - greatest(lo, window_index * params.width) AS len, inf, qd, params.cap
    FROM x, params
    UNION ALL
    -- A segment inside one window (most of them) takes it directly: unnesting a
    -- one-element range per row costs more than the rest of the query.
    SELECT lo // params.width AS window_index, hi - lo AS len, inf, qd, params.cap
    FROM s, params
    WHERE lo // params.width = (hi - 1) // params.width
)
SELECT window_index,
    coalesce(sum(len) FILTER (WHERE qd > 0), 0)::BIGINT AS backlog_us,
    coalesce(sum(len) FILTER (WHERE qd > 0 AND inf < cap), 0)::BIGINT AS gap_us,
    coalesce(sum(len) FILTER (WHERE inf > cap), 0)::BIGINT AS over_cap_us,
    sum(len * inf)::HUGEINT AS in_flight_us,
    sum(len * qd)::HUGEINT AS queue_us
FROM y GROUP BY window_index;
