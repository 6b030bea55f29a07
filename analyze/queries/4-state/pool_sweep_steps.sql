-- pool_sweep_steps: the pool's steps (span_steps) of the spans in rows
-- [$from, $to) of the spans table, for the sweep in Go (pool_sweep.go),
-- which files each in its slice of time: DuckDB reads those rows alone.
SELECT at_us, di, dq FROM span_steps WHERE span_row >= $from AND span_row < $to;
