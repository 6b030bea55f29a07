-- join_coverage: the gateway spans that joined an engine span, and the
-- successful gateway spans that joined none (docs/metrics.md "Gateway and
-- engine").
SELECT (SELECT count(*) FROM join_pairs),
       count(*) FILTER (is_gw AND status = 'ok' AND idx NOT IN (SELECT gi FROM join_pairs))
FROM raw_spans;
