-- win_tokens: the one mechanism that prorates quantities into windows. An interval
-- [a, b] with b > a gives each window qty · overlap / (b − a) of its part inside the
-- run extent; a zero-length or inverted one is a point at a, counted like an event.
-- Shares are summed as DECIMAL so the sums do not depend on thread scheduling,
-- and kept as DECIMAL: run_tokens adds the windows' up for the whole run.
--
-- Most shares are whole: a point's, and that of an interval inside one window
-- and the extent, qty · (b − a) / (b − a) = qty exactly. They are summed as
-- integers (whole), which costs a fraction of converting each to DECIMAL; only
-- the intervals cut by a window bound or the extent (parts) have fractional
-- shares. The sums are the same: DECIMAL addition is exact. Points and whole
-- intervals are one reader of quantities (a CASE, not a UNION ALL of two), and
-- the cut intervals the other: each reader scans the spans.
CREATE OR REPLACE TABLE win_tokens AS
WITH whole AS (
    SELECT CASE WHEN hi_us <= lo_us THEN least(lo_us // params.width, params.last)
                ELSE lo_us // params.width END AS window_index, kind, ok, delivered, qty
    FROM quantities, params
    WHERE CASE WHEN hi_us <= lo_us THEN lo_us BETWEEN params.t0 AND params.t1
               ELSE lo_us >= params.t0 AND hi_us <= params.t1 AND lo_us // params.width = (hi_us - 1) // params.width END
), cut AS (
    SELECT kind, ok, delivered, qty, lo_us, hi_us,
           greatest(lo_us, params.t0) AS ca, least(hi_us, params.t1) AS cb
    FROM quantities, params
    WHERE hi_us > lo_us AND hi_us > params.t0 AND lo_us < params.t1
      AND NOT (lo_us >= params.t0 AND hi_us <= params.t1 AND lo_us // params.width = (hi_us - 1) // params.width)
), spread AS (
    SELECT kind, ok, delivered, qty, lo_us, hi_us, ca, cb,
           unnest(range(ca // params.width, (cb - 1) // params.width + 1)) AS window_index
    FROM cut, params
), parts AS (
    SELECT window_index, kind, ok, delivered,
           qty * ((least(cb, (window_index + 1) * params.width) - greatest(ca, window_index * params.width)) / (hi_us - lo_us)::DOUBLE) AS share
    FROM spread, params
), sums AS (
    SELECT window_index, kind, ok, delivered, sum(qty)::DECIMAL(38, 18) AS share FROM whole GROUP BY ALL
    UNION ALL
    SELECT window_index, kind, ok, delivered, sum(share::DECIMAL(38, 18)) FROM parts GROUP BY ALL
)
SELECT window_index,
    coalesce(sum(share) FILTER (WHERE kind = 'out'), 0) AS generated_tokens,
    coalesce(sum(share) FILTER (WHERE kind = 'out' AND ok), 0) AS output_tokens,
    coalesce(sum(share) FILTER (WHERE kind = 'out' AND delivered), 0) AS delivered_tokens,
    coalesce(sum(share) FILTER (WHERE kind = 'in' AND ok), 0) AS input_tokens
FROM sums GROUP BY window_index;
