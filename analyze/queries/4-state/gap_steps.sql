-- gap_steps: the steps of each pool replica's (rid) state for the
-- attribution (docs/metrics.md "Where the idle time comes from"), in (rid,
-- t) order: in flight (d_in_flight) on [admitted_at, released_at) and queued (d_queue_depth) on
-- [queued_at, admitted_at) as span_steps has them, and, for a span whose
-- engine_arrived_at lies in [queued_at, admitted_at] (loc), its wait split
-- into the gateway's part (d_gateway_queue) on [queued_at, engine_arrived_at) and the
-- engine queue's (d_engine_queue) on [engine_arrived_at, admitted_at). A span's steps
-- at one instant share a row (at most four rows a span: queued, arrived,
-- admitted, released); each step is −1, 0 or +1, so gap_replica counts rows
-- as sweep does. When every replica with a step is the pool's (pooled), the
-- replicas' sweep reads these rows too (replica_sweep_gap). This is the
-- sweep in SQL, of a build without the duckdb_arrow tag; with it the same
-- rows are made in Go from the spans (pool_sweep_spans, gapRows) and swept
-- a slice of time at a time (gap_sweep.go).
-- The four kinds of row (k) come from one scan joined with four rows, not
-- from a UNION ALL of four scans: DuckDB's sort of a UNION ALL runs out of
-- memory once it spills (gap_intervals).
CREATE OR REPLACE TABLE gap_steps AS
WITH s AS (
    SELECT rid, queued_us AS q, arrived_us AS e, admitted_us AS a, released_us AS r,
        coalesce(queued_us < admitted_us AND arrived_us BETWEEN queued_us AND admitted_us, false) AS loc
    FROM spans SEMI JOIN pool_rids USING (rid)
    WHERE has_state_step(queued_us, admitted_us, released_us)
), st AS (
    SELECT rid,
        CASE k WHEN 0 THEN q WHEN 1 THEN e WHEN 2 THEN a ELSE r END AS at_us,
        CASE k WHEN 2 THEN CASE WHEN a <= r THEN 1 ELSE 0 END WHEN 3 THEN -1 ELSE 0 END AS d_in_flight,
        CASE k WHEN 0 THEN 1 WHEN 2 THEN CASE WHEN q < a THEN -1 ELSE 0 END ELSE 0 END AS d_queue_depth,
        CASE k WHEN 0 THEN CASE WHEN loc AND e = q THEN 1 ELSE 0 END WHEN 1 THEN 1
               WHEN 2 THEN CASE WHEN loc AND e < a THEN -1 ELSE 0 END ELSE 0 END AS d_engine_queue,
        CASE k WHEN 0 THEN CASE WHEN loc AND q < e THEN 1 ELSE 0 END WHEN 1 THEN -1
               WHEN 2 THEN CASE WHEN loc AND e = a THEN -1 ELSE 0 END ELSE 0 END AS d_gateway_queue
    -- k: 0 queued, 1 arrived between, 2 admitted, 3 released
    FROM s, (VALUES (0), (1), (2), (3)) AS ks(k)
    WHERE CASE k WHEN 0 THEN q < a WHEN 1 THEN loc AND q < e AND e < a
                 WHEN 2 THEN a <= r OR q < a ELSE a <= r END
)
SELECT rid, at_us, d_in_flight::TINYINT AS d_in_flight, d_queue_depth::TINYINT AS d_queue_depth, d_engine_queue::TINYINT AS d_engine_queue, d_gateway_queue::TINYINT AS d_gateway_queue
FROM st ORDER BY rid, at_us;
