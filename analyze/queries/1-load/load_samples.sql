-- load_samples: scheduler samples as analysed ($path: of samples.parquet).
-- The union by name with a typed empty row gives a samples.parquet written
-- before the engine counters existed those columns, NULL.
CREATE OR REPLACE TABLE samples AS
SELECT coalesce(replica, '') AS rep, epoch_us(ts) AS ts, in_flight, queue_depth, cap, kv_cache_usage,
    preemptions, prefix_cache_queries, prefix_cache_hits, spec_draft_tokens, spec_accepted_tokens, prefix_cache_hit_rate
FROM (
    SELECT * FROM read_parquet($path, hive_partitioning = false)
    UNION ALL BY NAME
    SELECT NULL::BIGINT AS preemptions, NULL::BIGINT AS prefix_cache_queries, NULL::BIGINT AS prefix_cache_hits,
        NULL::BIGINT AS spec_draft_tokens, NULL::BIGINT AS spec_accepted_tokens, NULL::DOUBLE AS prefix_cache_hit_rate
    WHERE false
);
