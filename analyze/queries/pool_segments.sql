-- pool_segments: the pool's state as segments [lo, hi) of constant in_flight (inf)
-- and queue_depth (qd); every step at one instant applies together. Segments where
-- both are 0 are left out: they add to no measure.
CREATE OR REPLACE TEMP TABLE seg AS
WITH agg AS (
    SELECT t, sum(di) AS di, sum(dq) AS dq FROM state_events GROUP BY t
), run AS (
    SELECT t AS lo, lead(t) OVER w AS hi,
           sum(di) OVER (w ROWS UNBOUNDED PRECEDING) AS inf,
           sum(dq) OVER (w ROWS UNBOUNDED PRECEDING) AS qd
    FROM agg WINDOW w AS (ORDER BY t)
)
SELECT lo, hi, inf::BIGINT AS inf, qd::BIGINT AS qd FROM run
WHERE hi IS NOT NULL AND (inf <> 0 OR qd <> 0);
