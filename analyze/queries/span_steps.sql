-- span_steps: the steps of in_flight (di) on [admitted_at, released_at) and of
-- queue_depth (dq) on [queued_at, admitted_at), for spans that have both
-- boundaries in order, per replica (rid). A span's steps at admitted_at share
-- one row; an empty queue interval (queued_at = admitted_at) changes no state
-- and is left out. A view: state_events and replica_events sort it each their
-- own way, one after the other, so that two sorted copies are never held at
-- once.
CREATE OR REPLACE VIEW span_steps AS
SELECT rid, a AS t,
       (CASE WHEN a <= r THEN 1 ELSE 0 END)::TINYINT AS di,
       (CASE WHEN q < a THEN -1 ELSE 0 END)::TINYINT AS dq
FROM spans WHERE a <= r OR q < a
UNION ALL SELECT rid, r, -1, 0 FROM spans WHERE a <= r
UNION ALL SELECT rid, q, 0, 1 FROM spans WHERE q < a;
