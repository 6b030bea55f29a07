-- join_pairs_table: the pairs (gateway idx gi, engine idx ei) that join_pairs
-- adds to, round by round.
CREATE OR REPLACE TABLE join_pairs (gi BIGINT, ei BIGINT);
