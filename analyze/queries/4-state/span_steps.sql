-- span_steps: the steps of in_flight (d_in_flight) on [admitted_at, released_at) and of
-- queue_depth (d_queue_depth) on [queued_at, admitted_at), for spans that have both
-- boundaries in order, per replica (rid). A span's steps at admitted_at share
-- one row; an empty queue interval (queued_at = admitted_at) changes no state
-- and is left out. A view: state_events and replica_events sort it each their
-- own way, one after the other, so that two sorted copies are never held at
-- once. Its three kinds of row (k) come from one scan joined with three rows,
-- not from a UNION ALL of three scans: DuckDB's sort of a UNION ALL runs out
-- of memory once it spills (gap_intervals). The sweep in Go makes the same
-- steps from the spans (pool_sweep_spans).
CREATE OR REPLACE VIEW span_steps AS
SELECT rid,
       CASE k WHEN 0 THEN admitted_us WHEN 1 THEN released_us ELSE queued_us END AS at_us,
       (CASE k WHEN 0 THEN CASE WHEN admitted_us <= released_us THEN 1 ELSE 0 END
               WHEN 1 THEN -1 ELSE 0 END)::TINYINT AS d_in_flight,
       (CASE k WHEN 0 THEN CASE WHEN queued_us < admitted_us THEN -1 ELSE 0 END
               WHEN 1 THEN 0 ELSE 1 END)::TINYINT AS d_queue_depth
-- k: 0 admitted, 1 released, 2 queued
FROM spans, (VALUES (0), (1), (2)) AS ks(k)
WHERE CASE k WHEN 0 THEN has_state_step(queued_us, admitted_us, released_us)
             WHEN 1 THEN admitted_us <= released_us
             ELSE queued_us < admitted_us END;
