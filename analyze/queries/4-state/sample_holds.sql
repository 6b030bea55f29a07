-- sample_holds: each sample's hold (docs/metrics.md "Sampled state"): it holds
-- on [ts, hend), hend = min(next ts, ts + 2m), the last of its replica
-- [ts, ts + m), m the replica's median sampling interval (whole µs, rounded
-- down); a replica of one sample holds nothing. Samples of one replica at one
-- instant are ordered as the oracle orders them; only the last holds past it.
-- sample_segments (the scheduler's state) and engine_holds (the engines'
-- gauges) read it.
CREATE OR REPLACE TABLE sample_holds AS
WITH o AS (
    SELECT *, lead(ts) OVER (PARTITION BY rep ORDER BY ts, in_flight NULLS FIRST, queue_depth NULLS FIRST,
                              cap NULLS FIRST, kv_cache_usage NULLS FIRST) AS nts
    FROM samples
), m AS (
    SELECT rep, floor(quantile_cont(nts - ts, 0.5))::BIGINT AS med
    FROM o WHERE nts IS NOT NULL GROUP BY rep
)
SELECT o.rep, o.ts,
       CASE WHEN o.nts IS NULL THEN o.ts + m.med ELSE least(o.nts, o.ts + 2 * m.med) END AS hend,
       o.in_flight AS in_flight, o.queue_depth AS queue_depth, o.cap, o.kv_cache_usage AS kv, o.prefix_cache_hit_rate AS hr
FROM o JOIN m USING (rep);
