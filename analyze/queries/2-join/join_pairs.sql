-- join_pairs: one round of pairing (docs/metrics.md "Gateway and engine"): among
-- the candidates (join_cand) of spans not yet joined, a gateway span and an
-- engine span join when each ranks the other first, so every span joins at most
-- once. analyze repeats the round until it adds no pair: a span whose first
-- choice joined another then gets its next one. The pairs of join_solo, whose
-- spans have no other candidate, are not ranked: they are not in join_cand.
-- (The ranks are filtered in an outer query rather than by DuckDB's QUALIFY,
-- which plans the same and other engines lack.)
INSERT INTO join_pairs
SELECT gi, ei FROM (
    SELECT gi, ei,
        row_number() OVER (PARTITION BY gi ORDER BY outside, d_end, d_first NULLS LAST, d_order, d_start, ei) AS g_rank,
        row_number() OVER (PARTITION BY ei ORDER BY outside, d_end, d_first NULLS LAST, d_order, d_start, gi) AS e_rank
    FROM join_cand
    WHERE NOT EXISTS (SELECT 1 FROM join_pairs p WHERE p.gi = join_cand.gi)
        AND NOT EXISTS (SELECT 1 FROM join_pairs p WHERE p.ei = join_cand.ei)
)
WHERE g_rank = 1 AND e_rank = 1;
