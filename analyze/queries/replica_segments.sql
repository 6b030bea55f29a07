-- replica_segments: as pool_segments, for each replica. The running sums are
-- taken in (rep, t) order without partitioning: the steps of every replica add
-- up to 0 (each span's +1 has its −1 in the same replica), so a replica's
-- running sum starts at 0 where the previous one ends, and the segment that
-- would bridge two replicas has inf = qd = 0 and is dropped. One sort instead
-- of a partitioned window is several times faster on millions of steps.
CREATE OR REPLACE TEMP TABLE rseg AS
WITH agg AS (
    SELECT rep, t, sum(di) AS di, sum(dq) AS dq FROM state_events GROUP BY rep, t
), run AS (
    SELECT rep, t AS lo, lead(t) OVER w AS hi, lead(rep) OVER w AS next_rep,
           sum(di) OVER (w ROWS UNBOUNDED PRECEDING) AS inf,
           sum(dq) OVER (w ROWS UNBOUNDED PRECEDING) AS qd
    FROM agg WINDOW w AS (ORDER BY rep, t)
)
SELECT rep, lo, hi, inf::BIGINT AS inf, qd::BIGINT AS qd FROM run
WHERE hi IS NOT NULL AND next_rep = rep AND (inf <> 0 OR qd <> 0);
