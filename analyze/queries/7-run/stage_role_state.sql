-- stage_role_state: each role's state per window (or, with $whole, over
-- the run as one window) from stage_role_steps: its segments cut at the
-- windows' bounds inside the extent [$t0, $t1]. Utilization: slot-µs in use
-- over the slots' µs; the gap: requests queued at the role's workers while
-- one of them had a free slot, by cause, the first that applies: held (a
-- worker had requests queued and a free slot: its scheduler held them),
-- else the router's (requests queued only at full workers while another had
-- a free slot: the router's pick put them there); idle: nothing running
-- on any of them; backlog_other_free: requests queued at this role's workers
-- while the other role's (prefill's for decode, decode's for prefill) had a
-- free slot and none queued. A role of no slots (its workers' caps
-- inferred as 0: they only queued) has no utilization. The rows of
-- roles.parquet.
WITH pair AS (
    SELECT r.*, o.free AS o_free, o.q AS o_q
    FROM stage_role_steps r
    LEFT JOIN stage_role_steps o ON o.t = r.t
        AND o.role = CASE r.role WHEN 'prefill' THEN 'decode' WHEN 'decode' THEN 'prefill' END
), seg AS (
    SELECT *, greatest(t, $t0) AS a, least(t_next, $t1) AS b
    FROM pair
    WHERE least(t_next, $t1) > greatest(t, $t0)
), cut AS (
    SELECT *, unnest(CASE WHEN $whole THEN [0::BIGINT] ELSE range(a // $width, (b - 1) // $width + 1) END) AS w
    FROM seg
), parts AS (
    SELECT *, CASE WHEN $whole THEN b - a ELSE least(b, (w + 1) * $width) - greatest(a, w * $width) END AS len,
        CASE WHEN $whole THEN $t0 ELSE greatest(w * $width, $t0) END AS w_lo,
        CASE WHEN $whole THEN $t1 ELSE least((w + 1) * $width, $t1) END AS w_hi
    FROM cut
), sums AS (
    SELECT w, w_lo, w_hi, role, any_value(workers) AS workers, any_value(slots) AS slots,
        sum(busy * len)::DOUBLE AS busy_us, sum(q * len)::DOUBLE AS queue_us,
        coalesce(sum(len) FILTER (WHERE q > 0 AND free > 0), 0) AS gap_us,
        coalesce(sum(len) FILTER (WHERE held > 0), 0) AS held_us,
        coalesce(sum(len) FILTER (WHERE q > 0 AND free > 0 AND held = 0), 0) AS router_us,
        coalesce(sum(len) FILTER (WHERE busy = 0), 0) AS idle_us,
        coalesce(sum(len) FILTER (WHERE q > 0 AND o_free > 0 AND o_q = 0), 0) AS other_us
    FROM parts
    GROUP BY w, w_lo, w_hi, role
)
SELECT make_timestamptz(w_lo) AS window_start, make_timestamptz(w_hi) AS window_end, (w_hi - w_lo) / 1e6 AS window_seconds,
    role, workers, slots,
    CASE WHEN slots > 0 THEN busy_us / 1e6 / ((w_hi - w_lo) / 1e6) / slots END AS utilization,
    queue_us / 1e6 / ((w_hi - w_lo) / 1e6) AS mean_queue,
    gap_us / 1e6 AS gap_time_seconds, gap_us / 1e6 / ((w_hi - w_lo) / 1e6) AS gap_fraction,
    held_us / 1e6 AS held_seconds, held_us / 1e6 / ((w_hi - w_lo) / 1e6) AS held_fraction,
    router_us / 1e6 AS router_share_seconds, router_us / 1e6 / ((w_hi - w_lo) / 1e6) AS router_share,
    idle_us / 1e6 / ((w_hi - w_lo) / 1e6) AS idle_fraction,
    other_us / 1e6 AS backlog_other_free_seconds, other_us / 1e6 / ((w_hi - w_lo) / 1e6) AS backlog_other_free_fraction
FROM sums
ORDER BY w, array_position(['prefill', 'decode', 'both'], role), role
