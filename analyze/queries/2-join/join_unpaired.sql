-- join_unpaired: the gateway's and the engine's spans (raw_spans) that joined
-- no span (join_solo and join_pairs): usually none or a few. join_coverage
-- counts them and joined_file reads them here, so that one pass over
-- raw_spans serves both: joined_file's two took longer than the rest of its
-- join.
--
-- A span is paired when it is in the set of the paired idx in blocks
-- (join_paired, span_metrics): an anti join of every span against every
-- paired one built and probed a hash table of both (at 1 M spans 0.2 s, the
-- bitstring and its pass 0.08-0.1 s). With no pair at all there is no
-- block, and every span is unpaired.
CREATE OR REPLACE TABLE join_unpaired AS
WITH join_paired AS (
    SELECT block_of(idx) AS blk, block_bits(idx) AS bits FROM (
        SELECT gi AS idx FROM join_solo UNION ALL SELECT ei FROM join_solo
        UNION ALL SELECT gi FROM join_pairs UNION ALL SELECT ei FROM join_pairs)
    GROUP BY ALL
)
SELECT idx, is_gw, is_en, ok, replica
FROM raw_spans LEFT JOIN join_paired ON join_paired.blk = block_of(idx)
WHERE NOT in_block(join_paired.bits, idx);
