-- join_unpaired: the gateway's and the engine's spans (raw_spans) that joined
-- no span (join_solo and join_pairs): usually none or a few. join_coverage
-- counts them and joined_file reads them here, so that one pass over
-- raw_spans serves both: joined_file's two took longer than the rest of its
-- join.
--
-- A span is paired when its bit in a bitstring of the paired idx is set, as
-- joined_kept selects its rows: an anti join of every span against every
-- paired one built and probed a hash table of both (at 1 M spans 0.2 s, the
-- bitstring and its pass 0.08-0.1 s). bitstring_agg takes its bounds as
-- constants: the variable raw_max, folded when DuckDB binds the statement;
-- so is the bitstring, a variable too.
-- With no pair at all the bitstring is NULL, and every span is unpaired.
SET VARIABLE join_paired = (
    SELECT bitstring_agg(idx, 0, getvariable('raw_max')) FROM (
        SELECT gi AS idx FROM join_solo UNION ALL SELECT ei FROM join_solo
        UNION ALL SELECT gi FROM join_pairs UNION ALL SELECT ei FROM join_pairs)
);
CREATE OR REPLACE TABLE join_unpaired AS
SELECT idx, is_gw, is_en, ok, replica
FROM raw_spans
WHERE coalesce(get_bit(getvariable('join_paired'), idx::INTEGER) = 0, true);
RESET VARIABLE join_paired;
