-- win_engine: the engines' own state per window (docs/metrics.md "Engine
-- state"), as sums the run adds up (run_engine): the holds of engine_holds
-- clipped to the window ∩ extent, their length (µs) and length-weighted
-- values, the largest kv held; and the counters' increases between
-- consecutive samples of a replica that both carry the counter (a smaller
-- value is a restart: the increase is the value), in the window that holds
-- the later sample's instant (the last window also holds t1), as events are
-- counted. The length-weighted sums add in a fixed order (by replica and
-- instant): a float sum in DuckDB's parallel order would differ in the last
-- bit from run to run.
CREATE OR REPLACE TABLE win_engine AS
WITH s AS (
    SELECT rep, greatest(lo, params.t0) AS lo, least(hi, params.t1) AS hi, kv, hr
    FROM engine_holds, params WHERE hi > params.t0 AND lo < params.t1
), y AS (
    SELECT window_index, rep, lo, least(hi, (window_index + 1) * params.width) - greatest(lo, window_index * params.width) AS len, kv, hr
    FROM (SELECT unnest(range(lo // params.width, (hi - 1) // params.width + 1)) AS window_index, rep, lo, hi, kv, hr FROM s, params), params
), holds AS (
    SELECT window_index,
        sum(len) FILTER (WHERE kv IS NOT NULL) AS kv_us, sum(len * kv ORDER BY rep, lo) AS kv_sum, max(kv) AS kv_max,
        sum(len) FILTER (WHERE hr IS NOT NULL) AS hr_us, sum(len * hr ORDER BY rep, lo) AS hr_sum
    FROM y WHERE len > 0 GROUP BY window_index
), c AS (
    SELECT rep, ts, k, v FROM samples
    UNPIVOT (v FOR k IN (preemptions, prefix_cache_queries, prefix_cache_hits, spec_draft_tokens, spec_accepted_tokens))
), d AS (
    SELECT k, ts, CASE WHEN v >= pv THEN v - pv ELSE v END AS inc
    FROM (SELECT k, ts, v, lag(v) OVER (PARTITION BY rep, k ORDER BY ts, v) AS pv FROM c)
    WHERE pv IS NOT NULL
), counters AS (
    SELECT least(ts // params.width, params.last) AS window_index,
        sum(inc) FILTER (WHERE k = 'preemptions') AS preemptions,
        sum(inc) FILTER (WHERE k = 'prefix_cache_queries') AS prefix_queries,
        sum(inc) FILTER (WHERE k = 'prefix_cache_hits') AS prefix_hits,
        sum(inc) FILTER (WHERE k = 'spec_draft_tokens') AS spec_draft,
        sum(inc) FILTER (WHERE k = 'spec_accepted_tokens') AS spec_accepted
    FROM d, params WHERE ts BETWEEN params.t0 AND params.t1 GROUP BY ALL
)
SELECT window_index, holds.kv_us, holds.kv_sum, holds.kv_max, holds.hr_us, holds.hr_sum,
    counters.preemptions, counters.prefix_queries, counters.prefix_hits, counters.spec_draft, counters.spec_accepted
FROM holds FULL JOIN counters USING (window_index);
