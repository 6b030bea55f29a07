-- win_tokens: the one mechanism that prorates quantities into windows. An interval
-- [a, b] with b > a gives each window qty · overlap / (b − a) of its part inside the
-- run extent; a zero-length or inverted one is a point at a, counted like an event.
-- Shares are summed as DECIMAL so the sums do not depend on thread scheduling.
CREATE OR REPLACE TEMP TABLE win_tokens AS
WITH pts AS (
    SELECT least(a // p.width, p.last) AS k, kind, ok, delivered, qty::DOUBLE AS share
    FROM quantities, p
    WHERE b <= a AND a BETWEEN p.t0 AND p.t1
), ivs AS (
    SELECT kind, ok, delivered, qty, a, b,
           greatest(a, p.t0) AS ca, least(b, p.t1) AS cb
    FROM quantities, p
    WHERE b > a AND b > p.t0 AND a < p.t1
), spread AS (
    SELECT kind, ok, delivered, qty, a, b, ca, cb,
           unnest(range(ca // p.width, (cb - 1) // p.width + 1)) AS k
    FROM ivs, p
    WHERE ca // p.width < (cb - 1) // p.width
), shares AS (
    SELECT k, kind, ok, delivered,
           qty * ((least(cb, (k + 1) * p.width) - greatest(ca, k * p.width)) / (b - a)::DOUBLE) AS share
    FROM spread, p
    UNION ALL
    -- Most intervals lie in one window (all of them in the run's): building and
    -- unnesting a one-element range per row costs more than the rest of the
    -- query, so they take their window directly. Their overlap is [ca, cb]
    -- itself, the same share the general case computes.
    SELECT ca // p.width AS k, kind, ok, delivered,
           qty * ((cb - ca) / (b - a)::DOUBLE) AS share
    FROM ivs, p
    WHERE ca // p.width = (cb - 1) // p.width
), allshares AS (
    SELECT k, kind, ok, delivered, share::DECIMAL(38, 18) AS share FROM shares
    UNION ALL
    SELECT k, kind, ok, delivered, share::DECIMAL(38, 18) FROM pts
)
SELECT k,
    coalesce(sum(share) FILTER (WHERE kind = 'out'), 0)::DOUBLE AS generated_tokens,
    coalesce(sum(share) FILTER (WHERE kind = 'out' AND ok), 0)::DOUBLE AS output_tokens,
    coalesce(sum(share) FILTER (WHERE kind = 'out' AND delivered), 0)::DOUBLE AS delivered_tokens,
    coalesce(sum(share) FILTER (WHERE kind = 'in' AND ok), 0)::DOUBLE AS input_tokens
FROM allshares GROUP BY k;
