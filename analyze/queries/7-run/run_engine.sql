-- run_engine: win_engine of the whole run (params with whole = true), the
-- windows' sums (the largest kv, the largest of theirs), the float sums in
-- window order.
CREATE OR REPLACE TABLE win_engine AS
SELECT params.last AS window_index,
    sum(kv_us) AS kv_us, sum(kv_sum ORDER BY window_index) AS kv_sum, max(kv_max) AS kv_max,
    sum(hr_us) AS hr_us, sum(hr_sum ORDER BY window_index) AS hr_sum,
    sum(preemptions) AS preemptions, sum(prefix_queries) AS prefix_queries, sum(prefix_hits) AS prefix_hits,
    sum(spec_draft) AS spec_draft, sum(spec_accepted) AS spec_accepted
FROM win_engine, params
GROUP BY params.last;
