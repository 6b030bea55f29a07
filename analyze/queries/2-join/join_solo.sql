-- join_solo: the pairs of join_match whose gateway span has no other
-- candidate and whose engine span has no other candidate. Such a pair joins
-- in the first round whatever its ranks, and no other candidate involves its
-- spans, so the rounds (join_pairs) need not rank it: they run over the
-- other candidates only (join_cand), and reach the same pairs. In a run
-- without retries or hedges nearly every pair is one of these.
--
-- The engine spans with no other candidate are a set in blocks (join_solo_ei,
-- span_metrics) that the gateway spans' groups look their one engine span up
-- in, where a semi join of the two groupings would build and probe a hash
-- table of nearly every pair.
-- A build with DuckDB's Arrow interface settles the same pairs in Go
-- (join_solo.go) from join_match's pairs read once, and runs this statement
-- only for a run of more rows than that takes (the condition soloed) or
-- when a test asks for it.
CREATE OR REPLACE TABLE join_solo AS
WITH join_solo_ei AS (
    SELECT block_of(ei) AS blk, block_bits(ei) AS bits
    FROM (SELECT ei FROM join_match GROUP BY ei HAVING min(gi) = max(gi)) GROUP BY ALL
)
SELECT g.gi, g.ei
FROM (SELECT gi, min(ei) AS ei FROM join_match GROUP BY gi HAVING min(ei) = max(ei)) AS g
JOIN join_solo_ei ON join_solo_ei.blk = block_of(g.ei)
WHERE in_block(join_solo_ei.bits, g.ei);
