-- sweep: sweep(tbl) is the state of the steps in the table named tbl (columns
-- t, di, dq and any others, such as rid) as segments [lo, hi) of constant
-- in_flight (inf) and queue_depth (qd), each with the other columns of the
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
-- has_state_step: whether a span steps the state (span_steps, gap_steps):
-- in_flight on [admitted_at, released_at) when those are in order, or
-- queue_depth on [queued_at, admitted_at) when that is not empty.
CREATE OR REPLACE MACRO has_state_step(queued_us, admitted_us, released_us) AS admitted_us <= released_us OR queued_us < admitted_us;
-- in_gap, over_cap: a state (in_flight inf, queue_depth qd) against a cap,
-- as the windows and the attribution measure it (docs/metrics.md): a gap
-- while requests wait with a slot free, over the cap while more run than it
-- allows.
CREATE OR REPLACE MACRO in_gap(inf, qd, cap) AS qd > 0 AND inf < cap;
CREATE OR REPLACE MACRO over_cap(inf, cap) AS inf > cap;
CREATE OR REPLACE MACRO sweep(tbl) AS TABLE
WITH run AS (
    SELECT * EXCLUDE (at_us, di, dq), lag(at_us) OVER () AS lo, at_us AS hi,
           count(*) FILTER (WHERE di = 1) OVER w - count(*) FILTER (WHERE di = -1) OVER w - di AS inf,
           count(*) FILTER (WHERE dq = 1) OVER w - count(*) FILTER (WHERE dq = -1) OVER w - dq AS qd
    FROM query_table(tbl)
    WINDOW w AS (ROWS UNBOUNDED PRECEDING)
)
SELECT * FROM run WHERE hi > lo AND (inf <> 0 OR qd <> 0);
