-- join_pairs_table: the pairs (gateway idx gi, engine idx ei) that the rounds
-- of join_pairs add, round by round; with join_solo's, every pair.
CREATE OR REPLACE TABLE join_pairs (gi BIGINT, ei BIGINT);
