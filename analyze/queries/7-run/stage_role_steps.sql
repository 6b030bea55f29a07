-- stage_role_steps: each role's state as a step function over the times at
-- which any worker's changes (so that the roles' rows line up by t): the
-- sums over its workers of busy, free, q, blocked and held, from their changes
-- (a worker starts with its cap free and nothing else), with its number of
-- workers and of slots; the state holds from t to t_next.
CREATE OR REPLACE TABLE stage_role_steps AS
WITH d AS (
    SELECT rep, role, t,
        busy - coalesce(lag(busy) OVER w, 0) AS d_busy,
        free - coalesce(lag(free) OVER w, cap) AS d_free,
        q - coalesce(lag(q) OVER w, 0) AS d_q,
        blocked - coalesce(lag(blocked) OVER w, 0) AS d_blocked,
        held - coalesce(lag(held) OVER w, 0) AS d_held
    FROM stage_steps
    WINDOW w AS (PARTITION BY rep, role ORDER BY t)
), roles AS (
    SELECT role, count(*) AS workers, sum(cap)::BIGINT AS slots
    FROM (SELECT DISTINCT rep, role, cap FROM stage_steps)
    GROUP BY role
), grid AS (
    SELECT role, t FROM roles, (SELECT DISTINCT t FROM stage_steps)
), g AS (
    SELECT grid.role, grid.t, coalesce(sum(d_busy), 0) AS d_busy, coalesce(sum(d_free), 0) AS d_free,
        coalesce(sum(d_q), 0) AS d_q, coalesce(sum(d_blocked), 0) AS d_blocked, coalesce(sum(d_held), 0) AS d_held
    FROM grid LEFT JOIN d USING (role, t)
    GROUP BY ALL
)
SELECT role, t, workers, slots,
    (sum(d_busy) OVER w)::BIGINT AS busy, (slots + sum(d_free) OVER w)::BIGINT AS free,
    (sum(d_q) OVER w)::BIGINT AS q, (sum(d_blocked) OVER w)::BIGINT AS blocked, (sum(d_held) OVER w)::BIGINT AS held,
    coalesce(lead(t) OVER (PARTITION BY role ORDER BY t), t) AS t_next
FROM g JOIN roles USING (role)
WINDOW w AS (PARTITION BY role ORDER BY t ROWS UNBOUNDED PRECEDING);
