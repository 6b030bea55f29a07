-- engine_holds: the held values of the engines' own gauges (docs/metrics.md
-- "Engine state"): the holds (sample_holds) of samples with a KV-cache usage
-- (kv) or a reported prefix-cache hit rate (hr), as [lo, hi).
CREATE OR REPLACE TABLE engine_holds AS
SELECT rep, ts AS lo, hend AS hi, kv, hr FROM sample_holds
WHERE (kv IS NOT NULL OR hr IS NOT NULL) AND hend > ts;
