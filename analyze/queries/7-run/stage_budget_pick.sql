-- stage_budget_pick: the attempt whose extent is nearest the quantile $q of
-- the extents (ties: the lowest request_id, then attempt), with its parts in
-- µs: the median and the p95 request of the report's waterfall.
WITH q AS (SELECT quantile_cont(extent_us::DOUBLE, $q) AS v FROM stage_budget)
SELECT request_id, attempt, extent_us, gateway, router, prefill_queue, prefill, kv_transfer, decode_queue, decode, unaccounted
FROM stage_budget, q
ORDER BY abs(extent_us - q.v), request_id, attempt
LIMIT 1;
