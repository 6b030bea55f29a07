-- joined_numbers_out: the attempt numbers of the joined spans that need one
-- (join_numbers: spans.parquet row idx, number n), written to a Parquet file
-- for the joined file's assembly in Go (assemble.go).
SELECT idx, n FROM join_numbers
