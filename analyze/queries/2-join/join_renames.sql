-- join_renames: for each gateway replica (g_rep) of a gateway span that
-- joined no engine span, the engine replica (e_rep) most of that gateway
-- replica's joined spans went to (docs/metrics.md "Gateway and engine"): its
-- unjoined spans are renamed to it (joined_engine). Counted only for the
-- replicas of unjoined gateway spans (join_unpaired: usually none): counting
-- every pair's replicas took longer than the rest of the join. A table of a
-- few rows, so that raw_spans is gone before joined_engine needs the memory.
CREATE OR REPLACE TABLE join_renames AS
WITH pairs AS (
    SELECT gi, ei FROM join_solo UNION ALL SELECT gi, ei FROM join_pairs
), lone AS (
    SELECT DISTINCT replica FROM join_unpaired WHERE is_gw AND replica IS NOT NULL
), lone_pairs AS MATERIALIZED (
    SELECT pairs.ei, g.replica AS g_rep
    FROM pairs JOIN (SELECT idx, replica FROM raw_spans SEMI JOIN lone USING (replica)) g ON g.idx = pairs.gi
)
SELECT g_rep, max_by(e_rep, (n, e_rep)) AS e_rep
FROM (SELECT lp.g_rep, e.replica AS e_rep, count(*) AS n
      FROM lone_pairs lp JOIN raw_spans e ON e.idx = lp.ei
      WHERE e.replica IS NOT NULL GROUP BY ALL)
GROUP BY g_rep;
