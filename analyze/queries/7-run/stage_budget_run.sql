-- stage_budget_run: the distribution of each part of the budget, and of
-- the extent, in seconds, over the attempts of stage_budget: per window
-- (the window of the attempt's end, clamped to the extent's windows, as
-- params numbers them) or, with $whole, over the run as one window. count,
-- the quantiles 0.5, 0.9, 0.95, 0.99 (quantile_cont, as every percentile
-- object), mean and max; the rows of budget.parquet.
WITH placed AS (
    SELECT *, CASE WHEN $whole THEN 0
                   ELSE least(last_us // $width, CASE WHEN $t1 > $t0 THEN ($t1 - 1) // $width ELSE $t0 // $width END) END AS w
    FROM stage_budget
), parts AS (
    UNPIVOT placed ON extent_us, gateway, router, prefill_queue, prefill, kv_transfer, decode_queue, decode, unaccounted
    INTO NAME part VALUE v
), dists AS (
    SELECT w, CASE part WHEN 'extent_us' THEN 'extent' ELSE part END AS part, count(*) AS n,
        quantile_cont(v::DOUBLE, [0.5, 0.9, 0.95, 0.99]) AS qs, avg(v::DOUBLE) AS mean, max(v)::DOUBLE AS mx
    FROM parts
    GROUP BY ALL
)
SELECT make_timestamptz(CASE WHEN $whole THEN $t0 ELSE greatest(w * $width, $t0) END) AS window_start,
    make_timestamptz(CASE WHEN $whole THEN $t1 ELSE least((w + 1) * $width, $t1) END) AS window_end,
    part, n, qs[1] / 1e6 AS p50, qs[2] / 1e6 AS p90, qs[3] / 1e6 AS p95, qs[4] / 1e6 AS p99, mean / 1e6 AS mean, mx / 1e6 AS max
FROM dists
ORDER BY w, array_position(['extent', 'gateway', 'router', 'prefill_queue', 'prefill', 'kv_transfer', 'decode_queue', 'decode', 'unaccounted'], part)
