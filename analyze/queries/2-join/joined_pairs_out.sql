-- joined_pairs_out: every pair of the join (join_solo and join_pairs: gateway
-- row gi, engine row ei), written to a Parquet file in analyze's temp
-- directory for the joined file's assembly in Go (assemble.go), which moves
-- each engine span's columns to its gateway span's row.
SELECT gi, ei FROM join_solo UNION ALL SELECT gi, ei FROM join_pairs
