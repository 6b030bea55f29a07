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
-- shares. The sums are the same: DECIMAL addition is exact.
CREATE OR REPLACE TABLE win_tokens AS
WITH whole AS (
    SELECT least(a // p.width, p.last) AS k, kind, ok, delivered, qty
    FROM quantities, p
    WHERE b <= a AND a BETWEEN p.t0 AND p.t1
    UNION ALL
    SELECT a // p.width AS k, kind, ok, delivered, qty
    FROM quantities, p
    WHERE b > a AND a >= p.t0 AND b <= p.t1 AND a // p.width = (b - 1) // p.width
), cut AS (
    SELECT kind, ok, delivered, qty, a, b,
           greatest(a, p.t0) AS ca, least(b, p.t1) AS cb
    FROM quantities, p
    WHERE b > a AND b > p.t0 AND a < p.t1
      AND NOT (a >= p.t0 AND b <= p.t1 AND a // p.width = (b - 1) // p.width)
), spread AS (
    SELECT kind, ok, delivered, qty, a, b, ca, cb,
           unnest(range(ca // p.width, (cb - 1) // p.width + 1)) AS k
    FROM cut, p
), parts AS (
    SELECT k, kind, ok, delivered,
           qty * ((least(cb, (k + 1) * p.width) - greatest(ca, k * p.width)) / (b - a)::DOUBLE) AS share
    FROM spread, p
), sums AS (
    SELECT k, kind, ok, delivered, sum(qty)::DECIMAL(38, 18) AS share FROM whole GROUP BY ALL
    UNION ALL
    SELECT k, kind, ok, delivered, sum(share::DECIMAL(38, 18)) FROM parts GROUP BY ALL
)
SELECT k,
    coalesce(sum(share) FILTER (WHERE kind = 'out'), 0) AS generated_tokens,
    coalesce(sum(share) FILTER (WHERE kind = 'out' AND ok), 0) AS output_tokens,
    coalesce(sum(share) FILTER (WHERE kind = 'out' AND delivered), 0) AS delivered_tokens,
    coalesce(sum(share) FILTER (WHERE kind = 'in' AND ok), 0) AS input_tokens
FROM sums GROUP BY k;
