-- sample_segments: the pool's sampled state (docs/metrics.md "Sampled state"). Each
-- sample holds on [ts, min(next ts, ts + 2m)), the last one of a replica on
-- [ts, ts + m), m the replica's median sampling interval (whole µs, rounded down);
-- the pool sums the replicas whose state is known, `known` counts them.
CREATE OR REPLACE TABLE sample_segments AS
WITH o AS (
    SELECT rep, ts, in_flight AS inf, queue_depth AS qd, cap,
           lead(ts) OVER (PARTITION BY rep ORDER BY ts) AS nts
    FROM samples
), m AS (
    SELECT rep, floor(quantile_cont(nts - ts, 0.5))::BIGINT AS med
    FROM o WHERE nts IS NOT NULL GROUP BY rep
), h AS (
    SELECT o.rep, o.ts,
           CASE WHEN o.nts IS NULL THEN o.ts + m.med ELSE least(o.nts, o.ts + 2 * m.med) END AS hend,
           o.inf, o.qd, coalesce(o.cap, caps.cap) AS cap
    FROM o JOIN m USING (rep) LEFT JOIN caps USING (rep)
    WHERE o.inf IS NOT NULL AND o.qd IS NOT NULL
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
