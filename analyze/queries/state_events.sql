-- state_events: the steps of in_flight (di) on [admitted_at, released_at) and of
-- queue_depth (dq) on [queued_at, admitted_at), for spans that have both boundaries
-- in order, per replica (rid), sorted by instant for the pool sweep. A span's steps
-- at admitted_at share one row; an empty queue interval (queued_at = admitted_at)
-- changes no state and is left out.
CREATE OR REPLACE TEMP TABLE state_events AS
WITH ev AS (
    SELECT rid, a AS t,
           (CASE WHEN a <= r THEN 1 ELSE 0 END)::TINYINT AS di,
           (CASE WHEN q < a THEN -1 ELSE 0 END)::TINYINT AS dq
    FROM spans WHERE a <= r OR q < a
    UNION ALL SELECT rid, r, -1, 0 FROM spans WHERE a <= r
    UNION ALL SELECT rid, q, 0, 1 FROM spans WHERE q < a
)
SELECT rid, t, di, dq FROM ev ORDER BY t;
