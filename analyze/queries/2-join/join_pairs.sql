-- join_pairs: one round of pairing (docs/metrics.md "Gateway and engine"): among
-- the candidates (join_cand) of spans not yet joined, a gateway span and an
-- engine span join when each ranks the other first, so every span joins at most
-- once. analyze repeats the round until it adds no pair: a span whose first
-- choice joined another then gets its next one.
INSERT INTO join_pairs
SELECT gi, ei FROM join_cand
WHERE gi NOT IN (SELECT gi FROM join_pairs) AND ei NOT IN (SELECT ei FROM join_pairs)
QUALIFY row_number() OVER (PARTITION BY gi ORDER BY outside, d_end, d_first NULLS LAST, d_order, d_start, ei) = 1
    AND row_number() OVER (PARTITION BY ei ORDER BY outside, d_end, d_first NULLS LAST, d_order, d_start, gi) = 1;
