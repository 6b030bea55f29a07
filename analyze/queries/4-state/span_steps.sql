-- span_steps: the steps of in_flight (di) on [admitted_at, released_at) and of
-- queue_depth (dq) on [queued_at, admitted_at), for spans that have both
-- boundaries in order, per replica (rid). A span's steps at admitted_at share
-- one row; an empty queue interval (queued_at = admitted_at) changes no state
-- and is left out. A view: state_events and replica_events sort it each their
-- own way, one after the other, so that two sorted copies are never held at
-- once.
CREATE OR REPLACE VIEW span_steps AS
SELECT rid, admitted_us AS at_us,
       (CASE WHEN admitted_us <= released_us THEN 1 ELSE 0 END)::TINYINT AS di,
       (CASE WHEN queued_us < admitted_us THEN -1 ELSE 0 END)::TINYINT AS dq
FROM spans WHERE admitted_us <= released_us OR queued_us < admitted_us
UNION ALL SELECT rid, released_us, -1, 0 FROM spans WHERE admitted_us <= released_us
UNION ALL SELECT rid, queued_us, 0, 1 FROM spans WHERE queued_us < admitted_us;
