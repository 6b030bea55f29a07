-- stage_steps: each worker's state as a step function over the run extent
-- [$t0, $t1]. A worker is a (replica, role) pair. An attempt holds one of its
-- slots from the start of its first prefill, kv_transfer or decode stage there
-- to the end of its last (one interval per attempt and worker, so stages that
-- overlap count once); a queue stage there counts in its queue. inf and q are
-- the worker's in-flight and queued attempts from t to t_next (its next
-- change); len is the part of that segment inside the extent. The cap is the
-- largest the worker's samples report (stage_caps), else the most it ran at
-- once (cap_logged false). free: its free slots; blocked: requests queued
-- there with no free slot; held: requests queued there with a free slot.
CREATE OR REPLACE TABLE stage_steps AS
WITH occ AS (
    SELECT request_id, attempt, rep, role, min(s) AS s, max(e) AS e
    FROM stage_rows
    WHERE role <> '' AND stage IN ('prefill', 'kv_transfer', 'decode')
    GROUP BY ALL
), ev AS (
    SELECT rep, role, s AS t, 1 AS di, 0 AS dq FROM occ
    UNION ALL SELECT rep, role, e, -1, 0 FROM occ
    UNION ALL SELECT rep, role, s, 0, 1 FROM stage_rows WHERE stage = 'queue' AND role <> ''
    UNION ALL SELECT rep, role, e, 0, -1 FROM stage_rows WHERE stage = 'queue' AND role <> ''
), workers AS (
    SELECT DISTINCT rep, role FROM ev
), bounded AS (
    SELECT * FROM ev
    UNION ALL SELECT rep, role, $t0, 0, 0 FROM workers
    UNION ALL SELECT rep, role, $t1, 0, 0 FROM workers
), net AS (
    SELECT rep, role, t, sum(di) AS di, sum(dq) AS dq FROM bounded GROUP BY ALL
), state AS (
    SELECT rep, role, t,
        (sum(di) OVER w)::BIGINT AS inf, (sum(dq) OVER w)::BIGINT AS q,
        lead(t) OVER (PARTITION BY rep, role ORDER BY t) AS t_next
    FROM net
    WINDOW w AS (PARTITION BY rep, role ORDER BY t ROWS UNBOUNDED PRECEDING)
), most AS (
    SELECT rep, role, max(inf) AS inf FROM state GROUP BY ALL
), capped AS (
    SELECT state.*, coalesce(c.cap, most.inf) AS cap, c.cap IS NOT NULL AS cap_logged
    FROM state JOIN most USING (rep, role) LEFT JOIN stage_caps c ON c.rep = state.rep
)
SELECT rep, role, t, inf, q, cap, cap_logged,
    least(inf, cap) AS busy, greatest(cap - inf, 0) AS free,
    (q > 0 AND inf >= cap)::BIGINT AS blocked, (q > 0 AND inf < cap)::BIGINT AS held,
    greatest(least(coalesce(t_next, t), $t1) - greatest(t, $t0), 0) AS len
FROM capped;
