-- empty_samples: the samples table of a dataset without samples.parquet.
CREATE OR REPLACE TABLE samples (
    rep VARCHAR, ts BIGINT, in_flight INTEGER, queue_depth INTEGER, cap INTEGER, kv_cache_usage DOUBLE,
    preemptions BIGINT, prefix_cache_queries BIGINT, prefix_cache_hits BIGINT, spec_draft_tokens BIGINT,
    spec_accepted_tokens BIGINT, prefix_cache_hit_rate DOUBLE
);
