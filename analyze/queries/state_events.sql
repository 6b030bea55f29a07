-- state_events: +1/−1 steps of in_flight on [admitted_at, released_at) and of
-- queue_depth on [queued_at, admitted_at), for spans that have both boundaries in order.
CREATE OR REPLACE TEMP TABLE state_events AS
SELECT rep, a AS t, 1 AS di, 0 AS dq FROM spans WHERE a <= r
UNION ALL SELECT rep, r, -1, 0 FROM spans WHERE a <= r
UNION ALL SELECT rep, q, 0, 1 FROM spans WHERE q <= a
UNION ALL SELECT rep, a, 0, -1 FROM spans WHERE q <= a;
