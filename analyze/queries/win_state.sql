-- win_state: exact measures of the pool's state per window, from its segments
-- clipped to the run extent (µs; integrals in request·µs).
CREATE OR REPLACE TABLE win_state AS
WITH s AS (
    SELECT greatest(lo, p.t0) AS lo, least(hi, p.t1) AS hi, inf, qd
    FROM seg, p WHERE hi > p.t0 AND lo < p.t1
), x AS (
    SELECT unnest(range(lo // p.width, (hi - 1) // p.width + 1)) AS k, lo, hi, inf, qd FROM s, p
    WHERE lo // p.width < (hi - 1) // p.width
), y AS (
    SELECT k, least(hi, (k + 1) * p.width) - greatest(lo, k * p.width) AS len, inf, qd, p.cap
    FROM x, p
    UNION ALL
    -- A segment inside one window (most of them) takes it directly: unnesting a
    -- one-element range per row costs more than the rest of the query.
    SELECT lo // p.width AS k, hi - lo AS len, inf, qd, p.cap
    FROM s, p
    WHERE lo // p.width = (hi - 1) // p.width
)
SELECT k,
    coalesce(sum(len) FILTER (WHERE qd > 0), 0)::BIGINT AS backlog_us,
    coalesce(sum(len) FILTER (WHERE qd > 0 AND inf < cap), 0)::BIGINT AS gap_us,
    coalesce(sum(len) FILTER (WHERE inf > cap), 0)::BIGINT AS over_cap_us,
    sum(len * inf)::HUGEINT AS in_flight_us,
    sum(len * qd)::HUGEINT AS queue_us
FROM y GROUP BY k;
