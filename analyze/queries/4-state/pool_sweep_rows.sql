-- pool_sweep_rows: how many rows the spans table has, for the sweep in Go to
-- read its steps a chunk of rows at a time (pool_sweep.go).
SELECT coalesce(max(rowid) + 1, 0) FROM spans;
