-- gap_causes: the pool's gap as segments [lo, hi), each with its one cause
-- (docs/metrics.md "Where the idle time comes from"): 1 engine_gap when a
-- replica holds requests, else 2 admission_gap when a request waits at the
-- gateway, else 3 imbalance_gap when every waiting request has a location,
-- else 4 unattributed_gap. The sweep of gap_events, in its stored order, as
-- sweep does.
CREATE OR REPLACE TABLE gap_causes AS
WITH run AS (
    SELECT lag(at_us) OVER () AS lo, at_us AS hi,
           count(*) FILTER (WHERE dgap = 1) OVER w - count(*) FILTER (WHERE dgap = -1) OVER w - dgap AS gap,
           count(*) FILTER (WHERE dh = 1) OVER w - count(*) FILTER (WHERE dh = -1) OVER w - dh AS h,
           count(*) FILTER (WHERE d_gateway_queue = 1) OVER w - count(*) FILTER (WHERE d_gateway_queue = -1) OVER w - d_gateway_queue AS g,
           count(*) FILTER (WHERE du = 1) OVER w - count(*) FILTER (WHERE du = -1) OVER w - du AS u
    FROM gap_events
    WINDOW w AS (ROWS UNBOUNDED PRECEDING)
)
SELECT lo, hi, (CASE WHEN h > 0 THEN 1 WHEN g > 0 THEN 2 WHEN u = 0 THEN 3 ELSE 4 END)::TINYINT AS cause
FROM run WHERE hi > lo AND gap > 0;
