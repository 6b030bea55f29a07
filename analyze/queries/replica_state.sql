-- replica_state: each replica's exact state measures over the run extent against its
-- own cap ($1 t0, $2 t1 in µs).
WITH s AS (
    SELECT rep, least(hi, $2::BIGINT) - greatest(lo, $1::BIGINT) AS len, inf, qd
    FROM rseg JOIN replica_ids USING (rid) WHERE hi > $1::BIGINT AND lo < $2::BIGINT
)
SELECT caps.rep, caps.cap,
    coalesce(sum(len) FILTER (WHERE qd > 0), 0)::BIGINT AS backlog_us,
    coalesce(sum(len) FILTER (WHERE qd > 0 AND inf < caps.cap), 0)::BIGINT AS gap_us,
    coalesce(sum(len * inf), 0)::HUGEINT::DOUBLE AS in_flight_us,
    coalesce(sum(len * qd), 0)::HUGEINT::DOUBLE AS queue_us
FROM caps LEFT JOIN s USING (rep)
WHERE caps.rep IN (SELECT replica FROM spans)
GROUP BY caps.rep, caps.cap ORDER BY caps.rep;
