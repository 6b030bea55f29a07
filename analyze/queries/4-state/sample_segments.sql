-- sample_segments: the pool's sampled state (docs/metrics.md "Sampled state"),
-- from each sample's hold (sample_holds); the pool sums the replicas whose
-- state is known, `known` counts them.
CREATE OR REPLACE TABLE sample_segments AS
WITH h AS (
    SELECT sample_holds.rep, ts, hend, in_flight, queue_depth, coalesce(sample_holds.cap, caps.cap) AS cap
    FROM sample_holds LEFT JOIN caps USING (rep)
    WHERE in_flight IS NOT NULL AND queue_depth IS NOT NULL
), ev AS (
    SELECT ts AS t, in_flight AS d_in_flight, queue_depth AS d_queue_depth, coalesce(cap, 0) AS dc, 1 AS dk FROM h WHERE hend > ts
    UNION ALL
    SELECT hend, -in_flight, -queue_depth, -coalesce(cap, 0), -1 FROM h WHERE hend > ts
), agg AS (
    SELECT t, sum(d_in_flight) AS d_in_flight, sum(d_queue_depth) AS d_queue_depth, sum(dc) AS dc, sum(dk) AS dk FROM ev GROUP BY t
), run AS (
    SELECT t AS lo, lead(t) OVER w AS hi,
           sum(d_in_flight) OVER (w ROWS UNBOUNDED PRECEDING) AS in_flight,
           sum(d_queue_depth) OVER (w ROWS UNBOUNDED PRECEDING) AS queue_depth,
           sum(dc) OVER (w ROWS UNBOUNDED PRECEDING) AS cap,
           sum(dk) OVER (w ROWS UNBOUNDED PRECEDING) AS known
    FROM agg WINDOW w AS (ORDER BY t)
)
SELECT lo, hi, in_flight::BIGINT AS in_flight, queue_depth::BIGINT AS queue_depth, cap::BIGINT AS cap FROM run
WHERE hi IS NOT NULL AND known > 0;
