-- replica_segments: as pool_segments, for each replica.
CREATE OR REPLACE TEMP TABLE rseg AS
WITH agg AS (
    SELECT rep, t, sum(di) AS di, sum(dq) AS dq FROM state_events GROUP BY rep, t
), run AS (
    SELECT rep, t AS lo, lead(t) OVER w AS hi,
           sum(di) OVER (w ROWS UNBOUNDED PRECEDING) AS inf,
           sum(dq) OVER (w ROWS UNBOUNDED PRECEDING) AS qd
    FROM agg WINDOW w AS (PARTITION BY rep ORDER BY t)
)
SELECT rep, lo, hi, inf::BIGINT AS inf, qd::BIGINT AS qd FROM run
WHERE hi IS NOT NULL AND (inf <> 0 OR qd <> 0);
