-- pool_sweep_bins: the pool's steps (span_steps) counted by bins of $bucket
-- µs, in order, from which the sweep in Go cuts its slices of time
-- (pool_sweep.go). Bin b holds the instants in [b·$bucket, (b + 1)·$bucket):
-- // rounds toward zero, so a negative instant not on a bound is a bin lower.
-- arrivals counts the engine arrivals strictly inside a wait: with the
-- steps they bound the attribution's rows in a bin (gap_steps), whose
-- every instant is then in some bin, so the attribution's sweep in Go cuts
-- its slices from these bins too (gap_sweep.go).
WITH t AS (
    SELECT at_us, 1 AS step FROM span_steps
    UNION ALL
    SELECT arrived_us, 0 FROM spans WHERE queued_us < arrived_us AND arrived_us < admitted_us
)
SELECT at_us // $bucket - CASE WHEN at_us % $bucket < 0 THEN 1 ELSE 0 END AS bin,
       sum(step)::BIGINT AS steps, count(*) - sum(step)::BIGINT AS arrivals
FROM t GROUP BY bin ORDER BY bin;
