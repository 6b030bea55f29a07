-- join_solo: the pairs of join_match whose gateway span has no other
-- candidate and whose engine span has no other candidate. Such a pair joins
-- in the first round whatever its ranks, and no other candidate involves its
-- spans, so the rounds (join_pairs) need not rank it: they run over the
-- other candidates only (join_cand), and reach the same pairs. In a run
-- without retries or hedges nearly every pair is one of these.
--
-- The engine spans with no other candidate are a bitstring (join_solo_ei,
-- bounded by the variable raw_max as join_unpaired's) that the gateway
-- spans' groups look their one engine span up in, where a semi join of the
-- two groupings would build and probe a hash table of nearly every pair.
SET VARIABLE join_solo_ei = (
    SELECT bitstring_agg(ei, 0, getvariable('raw_max')) FROM (SELECT ei FROM join_match GROUP BY ei HAVING min(gi) = max(gi))
);
CREATE OR REPLACE TABLE join_solo AS
SELECT gi, min(ei) AS ei
FROM join_match
GROUP BY gi
HAVING min(ei) = max(ei) AND coalesce(get_bit(getvariable('join_solo_ei'), min(ei)::INTEGER) = 1, false);
RESET VARIABLE join_solo_ei;
