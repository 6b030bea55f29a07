-- gap_events: the steps of the pool's attribution state, by instant: each
-- of gap_intervals' kinds counts the intervals of that kind holding t (dgap:
-- the pool's gap, dh: replicas that hold requests, d_gateway_queue: replicas with requests
-- at the gateway, du: waits without a location), +1 at an interval's lo and
-- −1 at its hi. One row an interval end, from one scan (the two ends by a
-- join with two rows, not a UNION ALL: gap_intervals says why).
CREATE OR REPLACE TABLE gap_events AS
SELECT CASE k WHEN 0 THEN lo ELSE hi END AS at_us,
    (CASE WHEN kind = 0 THEN 1 - 2 * k ELSE 0 END)::TINYINT AS dgap,
    (CASE WHEN kind = 1 THEN 1 - 2 * k ELSE 0 END)::TINYINT AS dh,
    (CASE WHEN kind = 2 THEN 1 - 2 * k ELSE 0 END)::TINYINT AS d_gateway_queue,
    (CASE WHEN kind = 3 THEN 1 - 2 * k ELSE 0 END)::TINYINT AS du
FROM gap_intervals, (VALUES (0), (1)) AS ks(k)
ORDER BY at_us;
