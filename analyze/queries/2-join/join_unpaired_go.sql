-- join_unpaired_go: join_unpaired (join_unpaired.sql) when the candidates
-- were matched in Go (join_go.go): the spans of join_spare, which holds
-- every span not in join_solo, that no round paired (join_pairs).
CREATE OR REPLACE TABLE join_unpaired AS
SELECT idx, is_gw, is_en, ok, replica
FROM join_spare s
WHERE NOT EXISTS (SELECT 1 FROM join_pairs p WHERE p.gi = s.idx)
    AND NOT EXISTS (SELECT 1 FROM join_pairs p WHERE p.ei = s.idx);
