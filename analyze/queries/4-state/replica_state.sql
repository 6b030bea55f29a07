-- replica_state: each replica's exact state measures over the run extent against its
-- own cap, from the sums of its segments (replica_segments: clipped to the extent),
-- and its gap_time by cause (replica_gaps; a replica without a row there had no
-- located wait, so its whole gap is unattributed).
WITH s AS (
    SELECT rep, len, in_flight, queued, len_qd FROM replica_segments JOIN replica_ids USING (rid)
)
SELECT caps.rep, caps.cap,
    coalesce(sum(len) FILTER (WHERE queued), 0)::BIGINT AS backlog_us,
    coalesce(sum(len) FILTER (WHERE queued AND in_flight < caps.cap), 0)::BIGINT AS gap_us,
    coalesce(sum(len * in_flight), 0)::HUGEINT::DOUBLE AS in_flight_us,
    coalesce(sum(len_qd), 0)::HUGEINT::DOUBLE AS queue_us,
    coalesce(any_value(g.engine_us), 0)::BIGINT AS engine_us,
    coalesce(any_value(g.admission_us), 0)::BIGINT AS admission_us,
    coalesce(any_value(g.unattributed_us), sum(len) FILTER (WHERE queued AND in_flight < caps.cap), 0)::BIGINT AS unattributed_us
FROM caps LEFT JOIN s USING (rep) LEFT JOIN replica_gaps g USING (rep)
WHERE caps.rep IN (SELECT rep FROM replica_ids WHERE named)
GROUP BY caps.rep, caps.cap ORDER BY caps.rep;
