-- pool_sweep_bins: the pool's steps (span_steps) counted by bins of $bucket
-- µs, in order, from which the sweep in Go cuts its slices of time
-- (pool_sweep.go). Bin b holds the instants in [b·$bucket, (b + 1)·$bucket):
-- // rounds toward zero, so a negative instant not on a bound is a bin lower.
SELECT at_us // $bucket - CASE WHEN at_us % $bucket < 0 THEN 1 ELSE 0 END AS bin, count(*) AS steps
FROM span_steps GROUP BY bin ORDER BY bin;
