-- stage_worker_state: each worker's state over the run extent from
-- stage_steps, in µs: the slot-µs in use, the queued request-µs, the time
-- with requests queued there while it had a free slot (its gap), and how
-- many attempts it ran.
WITH ran AS (
    SELECT rep, role, count(DISTINCT (request_id, attempt)) AS attempts
    FROM stage_rows
    WHERE role <> '' AND stage IN ('prefill', 'kv_transfer', 'decode')
    GROUP BY ALL
)
SELECT rep, role, any_value(cap) AS cap, bool_or(cap_logged) AS cap_logged, coalesce(any_value(ran.attempts), 0) AS attempts,
    sum(busy * len)::DOUBLE AS busy_us, sum(q * len)::DOUBLE AS queue_us,
    coalesce(sum(len) FILTER (WHERE q > 0 AND inf < cap), 0)::BIGINT AS gap_us
FROM stage_steps LEFT JOIN ran USING (rep, role)
GROUP BY rep, role
ORDER BY role, rep;
