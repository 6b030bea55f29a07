-- join_unpaired: the gateway's and the engine's spans (raw_spans) that joined
-- no span (join_solo and join_pairs): usually none or a few. join_coverage
-- counts them and joined_file reads them here, so that one anti join over
-- raw_spans serves both: joined_file's two took longer than the rest of its
-- join.
CREATE OR REPLACE TABLE join_unpaired AS
WITH paired AS (
    SELECT gi AS idx FROM join_solo UNION ALL SELECT ei FROM join_solo
    UNION ALL SELECT gi FROM join_pairs UNION ALL SELECT ei FROM join_pairs
)
SELECT idx, is_gw, is_en, ok, replica FROM raw_spans ANTI JOIN paired USING (idx);
