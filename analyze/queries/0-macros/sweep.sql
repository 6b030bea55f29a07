-- sweep: sweep(tbl) is the state of the steps in the table named tbl (columns
-- t, d_in_flight, d_queue_depth and any others, such as rid) as segments [lo, hi) of constant
-- in_flight (in_flight) and queue_depth (queue_depth), each with the other columns of the
-- row that closes it. tbl must be stored in sweep order (sorted by t, or by
-- rid then t): an empty OVER () runs over the rows in that order, on one
-- thread. The state on [lo, hi), between two consecutive instants, is the sum
-- of the steps before the row that opens hi, so every step at one instant
-- applies together. Segments where both are 0 are left out: they add to no
-- measure.
--
-- Every step is −1, 0 or +1 (span_steps), so a running sum is the running
-- count of +1s less that of −1s: DuckDB's streaming window counts rows
-- matching a filter about ten times as fast as it sums a column (21 M steps:
-- three running counts 0.27 s, two running sums 2.2 s; the pool's whole
-- sweep 1.75 s against 4.0 s).
-- In a build with the duckdb_arrow tag the pool's own sweep runs in Go
-- (analyze/pool_sweep.go), and this macro serves the replicas' sweeps alone.
CREATE OR REPLACE MACRO sweep(tbl) AS TABLE
WITH run AS (
    SELECT * EXCLUDE (at_us, d_in_flight, d_queue_depth), lag(at_us) OVER () AS lo, at_us AS hi,
           count(*) FILTER (WHERE d_in_flight = 1) OVER w - count(*) FILTER (WHERE d_in_flight = -1) OVER w - d_in_flight AS in_flight,
           count(*) FILTER (WHERE d_queue_depth = 1) OVER w - count(*) FILTER (WHERE d_queue_depth = -1) OVER w - d_queue_depth AS queue_depth
    FROM query_table(tbl)
    WINDOW w AS (ROWS UNBOUNDED PRECEDING)
)
SELECT * FROM run WHERE hi > lo AND (in_flight <> 0 OR queue_depth <> 0);
