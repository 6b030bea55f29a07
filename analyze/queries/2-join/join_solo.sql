-- join_solo: the pairs of join_match whose gateway span has no other
-- candidate and whose engine span has no other candidate. Such a pair joins
-- in the first round whatever its ranks, and no other candidate involves its
-- spans, so the rounds (join_pairs) need not rank it: they run over the
-- other candidates only (join_cand), and reach the same pairs. In a run
-- without retries or hedges nearly every pair is one of these.
CREATE OR REPLACE TABLE join_solo AS
SELECT g.gi, g.ei
FROM (SELECT gi, min(ei) AS ei FROM join_match GROUP BY gi HAVING min(ei) = max(ei)) g
SEMI JOIN (SELECT ei FROM join_match GROUP BY ei HAVING min(gi) = max(gi)) e ON e.ei = g.ei;
