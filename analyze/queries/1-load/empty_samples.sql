-- empty_samples: the samples table of a dataset without samples.parquet.
CREATE OR REPLACE TABLE samples (
    rep VARCHAR, ts BIGINT, in_flight INTEGER, queue_depth INTEGER, cap INTEGER, kv_cache_usage DOUBLE
);
