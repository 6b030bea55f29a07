-- gap_steps: the steps of each pool replica's (rid) state for the
-- attribution (docs/metrics.md "Where the idle time comes from"), in (rid,
-- t) order: in flight (di) on [admitted_at, released_at) and queued (dq) on
-- [queued_at, admitted_at) as span_steps has them, and, for a span whose
-- engine_arrived_at lies in [queued_at, admitted_at] (loc), its wait split
-- into the gateway's part (dg) on [queued_at, engine_arrived_at) and the
-- engine queue's (de) on [engine_arrived_at, admitted_at). A span's steps
-- at one instant share a row (at most four rows a span: queued, arrived,
-- admitted, released); each step is −1, 0 or +1, so gap_replica counts rows
-- as sweep does.
CREATE OR REPLACE TABLE gap_steps AS
WITH s AS (
    SELECT rid, queued_us AS q, arrived_us AS e, admitted_us AS a, released_us AS r,
        coalesce(queued_us < admitted_us AND arrived_us BETWEEN queued_us AND admitted_us, false) AS loc
    FROM spans SEMI JOIN pool_rids USING (rid)
    WHERE admitted_us <= released_us OR queued_us < admitted_us
), st AS (
    -- queued: the wait starts, at the gateway or, arrived at once, in the engine
    SELECT rid, q AS at_us, 0 AS di, 1 AS dq,
        CASE WHEN loc AND e = q THEN 1 ELSE 0 END AS de,
        CASE WHEN loc AND q < e THEN 1 ELSE 0 END AS dg
    FROM s WHERE q < a
    -- arrived between: from the gateway into the engine's queue
    UNION ALL SELECT rid, e, 0, 0, 1, -1 FROM s WHERE loc AND q < e AND e < a
    -- admitted: the wait ends where it was; the slot is taken
    UNION ALL SELECT rid, a,
        CASE WHEN a <= r THEN 1 ELSE 0 END,
        CASE WHEN q < a THEN -1 ELSE 0 END,
        CASE WHEN loc AND e < a THEN -1 ELSE 0 END,
        CASE WHEN loc AND e = a THEN -1 ELSE 0 END
    FROM s WHERE a <= r OR q < a
    -- released
    UNION ALL SELECT rid, r, -1, 0, 0, 0 FROM s WHERE a <= r
)
SELECT rid, at_us, di::TINYINT AS di, dq::TINYINT AS dq, de::TINYINT AS de, dg::TINYINT AS dg
FROM st ORDER BY rid, at_us;
