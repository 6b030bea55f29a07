-- stage_gateways: under the gateway-engine join, each engine request's
-- receipt at the gateway (the earliest queued_at of the gateway spans
-- joined to its spans), µs: stage_load starts the request's gateway stage
-- there when its stages log none (docs/metrics.md "Disaggregated serving").
-- Every pair of the join: join_solo's and join_pairs' (gateway row gi,
-- engine row ei of spans_file).
CREATE OR REPLACE TABLE stage_gateways AS
SELECT e.request_id, min(epoch_us(g.queued_at)) AS queued_us
FROM (SELECT gi, ei FROM join_solo UNION ALL SELECT gi, ei FROM join_pairs) p
JOIN spans_file g ON g.file_row_number = p.gi
JOIN spans_file e ON e.file_row_number = p.ei
WHERE g.queued_at IS NOT NULL AND e.request_id IS NOT NULL
GROUP BY e.request_id;
