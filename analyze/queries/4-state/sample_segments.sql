-- sample_segments: the pool's sampled state (docs/metrics.md "Sampled state"),
-- from each sample's hold (sample_holds); the pool sums the replicas whose
-- state is known, `known` counts them.
CREATE OR REPLACE TABLE sample_segments AS
WITH h AS (
    SELECT sample_holds.rep, ts, hend, inf, qd, coalesce(sample_holds.cap, caps.cap) AS cap
    FROM sample_holds LEFT JOIN caps USING (rep)
    WHERE inf IS NOT NULL AND qd IS NOT NULL
), ev AS (
    SELECT ts AS t, inf AS di, qd AS dq, coalesce(cap, 0) AS dc, 1 AS dk FROM h WHERE hend > ts
    UNION ALL
    SELECT hend, -inf, -qd, -coalesce(cap, 0), -1 FROM h WHERE hend > ts
), agg AS (
    SELECT t, sum(di) AS di, sum(dq) AS dq, sum(dc) AS dc, sum(dk) AS dk FROM ev GROUP BY t
), run AS (
    SELECT t AS lo, lead(t) OVER w AS hi,
           sum(di) OVER (w ROWS UNBOUNDED PRECEDING) AS inf,
           sum(dq) OVER (w ROWS UNBOUNDED PRECEDING) AS qd,
           sum(dc) OVER (w ROWS UNBOUNDED PRECEDING) AS cap,
           sum(dk) OVER (w ROWS UNBOUNDED PRECEDING) AS known
    FROM agg WINDOW w AS (ORDER BY t)
)
SELECT lo, hi, inf::BIGINT AS inf, qd::BIGINT AS qd, cap::BIGINT AS cap FROM run
WHERE hi IS NOT NULL AND known > 0;
