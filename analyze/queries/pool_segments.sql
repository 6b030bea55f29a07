-- pool_segments: the pool's state as segments [lo, hi) of constant in_flight (inf)
-- and queue_depth (qd); every step at one instant applies together. One sweep in
-- time order: state_events is stored sorted by t, and an empty OVER () runs over
-- the rows in that order, on one thread. The state on [lo, hi), between two
-- consecutive instants, is the sum of the steps before the row that opens hi.
-- Segments where both are 0 are left out: they add to no measure.
CREATE OR REPLACE TEMP TABLE seg AS
WITH run AS (
    SELECT lag(t) OVER () AS lo, t AS hi,
           sum(di) OVER (ROWS UNBOUNDED PRECEDING) - di AS inf,
           sum(dq) OVER (ROWS UNBOUNDED PRECEDING) - dq AS qd
    FROM state_events
)
SELECT lo, hi, inf::BIGINT AS inf, qd::BIGINT AS qd FROM run
WHERE hi > lo AND (inf <> 0 OR qd <> 0);
