-- sweep: sweep(tbl) is the state of the steps in the table named tbl (columns
-- t, di, dq and any others, such as rid) as segments [lo, hi) of constant
-- in_flight (inf) and queue_depth (qd), each with the other columns of the
-- row that closes it. tbl must be stored in sweep order (sorted by t, or by
-- rid then t): an empty OVER () runs over the rows in that order, on one
-- thread. The state on [lo, hi), between two consecutive instants, is the sum
-- of the steps before the row that opens hi, so every step at one instant
-- applies together. Segments where both are 0 are left out: they add to no
-- measure.
CREATE OR REPLACE TEMP MACRO sweep(tbl) AS TABLE
WITH run AS (
    SELECT * EXCLUDE (t, di, dq), lag(t) OVER () AS lo, t AS hi,
           sum(di) OVER (ROWS UNBOUNDED PRECEDING) - di AS inf,
           sum(dq) OVER (ROWS UNBOUNDED PRECEDING) - dq AS qd
    FROM query_table(tbl)
)
SELECT * REPLACE (inf::BIGINT AS inf, qd::BIGINT AS qd) FROM run
WHERE hi > lo AND (inf <> 0 OR qd <> 0);
