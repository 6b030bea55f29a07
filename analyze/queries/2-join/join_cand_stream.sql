-- join_cand_stream: join_cand (join_cand.sql) from the candidates matched
-- in Go (join_go.go), the Arrow stream join_cand_go.
CREATE OR REPLACE TABLE join_cand AS
SELECT gi, ei, outside, d_end, d_first, d_order, d_start FROM join_cand_go;
