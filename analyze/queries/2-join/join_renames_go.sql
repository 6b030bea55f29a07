-- join_renames_go: join_renames (join_renames.sql) when the candidates were
-- matched in Go (join_go.go): for each gateway replica of an unjoined
-- gateway span, the engine replica most of its joined spans went to,
-- counted over join_solo's pairs (join_solo_reps, counted in Go) and the
-- rounds' (join_pairs, whose spans are in join_spare).
CREATE OR REPLACE TABLE join_renames AS
WITH lone AS (
    SELECT DISTINCT replica FROM join_unpaired WHERE is_gw AND replica IS NOT NULL
), counts AS (
    SELECT g_rep, e_rep, n FROM join_solo_reps WHERE g_rep IN (SELECT replica FROM lone)
    UNION ALL
    SELECT g.replica, e.replica, count(*)
    FROM join_pairs p JOIN join_spare g ON g.idx = p.gi JOIN join_spare e ON e.idx = p.ei
    WHERE g.replica IN (SELECT replica FROM lone) AND e.replica IS NOT NULL
    GROUP BY ALL
)
SELECT g_rep, max_by(e_rep, (n, e_rep)) AS e_rep
FROM (SELECT g_rep, e_rep, sum(n)::BIGINT AS n FROM counts GROUP BY ALL)
GROUP BY g_rep;
