-- join_coverage: the gateway spans that joined an engine span (join_solo and
-- join_pairs), and the successful gateway spans that joined none
-- (docs/metrics.md "Gateway and engine").
WITH pairs AS (SELECT gi FROM join_solo UNION ALL SELECT gi FROM join_pairs)
SELECT (SELECT count(*) FROM pairs),
       (SELECT count(*) FROM raw_spans ANTI JOIN pairs ON pairs.gi = raw_spans.idx WHERE is_gw AND ok);
