-- join_coverage: the gateway spans that joined an engine span (join_solo and
-- join_pairs), and the successful gateway spans that joined none
-- (join_unpaired; docs/metrics.md "Gateway and engine").
SELECT (SELECT count(*) FROM join_solo) + (SELECT count(*) FROM join_pairs),
       (SELECT count(*) FROM join_unpaired WHERE is_gw AND ok);
