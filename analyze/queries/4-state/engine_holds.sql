-- engine_holds: the held values of the engines' own gauges (docs/metrics.md
-- "Engine state"): each sample with a KV-cache usage (kv) or a reported
-- prefix-cache hit rate (hr) holds on [lo, hi) = [ts, min(next ts, ts + 2m)),
-- the last of its replica on [ts, ts + m), m the replica's median sampling
-- interval over all its samples (whole µs, rounded down), as sample_segments
-- holds the scheduler's state. Samples of one replica at one instant are
-- ordered as the oracle orders them; only the last holds past it.
CREATE OR REPLACE TABLE engine_holds AS
WITH o AS (
    SELECT rep, ts, kv_cache_usage AS kv, prefix_cache_hit_rate AS hr,
           lead(ts) OVER (PARTITION BY rep ORDER BY ts, in_flight NULLS FIRST, queue_depth NULLS FIRST, cap NULLS FIRST,
                          kv_cache_usage NULLS FIRST) AS nts
    FROM samples
), m AS (
    SELECT rep, floor(quantile_cont(nts - ts, 0.5))::BIGINT AS med
    FROM o WHERE nts IS NOT NULL GROUP BY rep
), h AS (
    SELECT o.rep, o.ts AS lo,
           CASE WHEN o.nts IS NULL THEN o.ts + m.med ELSE least(o.nts, o.ts + 2 * m.med) END AS hi, o.kv, o.hr
    FROM o JOIN m USING (rep)
    WHERE o.kv IS NOT NULL OR o.hr IS NOT NULL
)
SELECT rep, lo, hi, kv, hr FROM h WHERE hi > lo;
