-- stage_budget: each attempt's latency budget, in µs: the time in each
-- part (schemas.BudgetParts) and the part of its extent (first stage's start
-- to last stage's end) that no stage covers. The covered time is the length
-- of the union of its stages: in order of start, each stage adds what lies
-- beyond the furthest end before it. A worker's queue is the decode queue on
-- a decode worker and the prefill queue elsewhere. An attempt counts in the
-- run when its last stage ends in the run extent [$t0, $t1] (as a span counts
-- where it is released), and in the window that holds that end.
CREATE OR REPLACE TABLE stage_budget AS
WITH ordered AS (
    SELECT request_id, attempt, s, e,
        max(e) OVER (PARTITION BY request_id, attempt ORDER BY s, e
                     ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) AS before_e
    FROM stage_rows
), covered AS (
    SELECT request_id, attempt, min(s) AS first_us, max(e) AS last_us,
        sum(greatest(e - greatest(s, coalesce(before_e, s)), 0)) AS covered_us
    FROM ordered
    GROUP BY ALL
    HAVING max(e) BETWEEN $t0 AND $t1
)
SELECT c.request_id, c.attempt, c.last_us, c.last_us - c.first_us AS extent_us,
    coalesce(sum(r.e - r.s) FILTER (WHERE r.stage = 'gateway'), 0) AS gateway,
    coalesce(sum(r.e - r.s) FILTER (WHERE r.stage = 'router'), 0) AS router,
    coalesce(sum(r.e - r.s) FILTER (WHERE r.stage = 'queue' AND r.role <> 'decode'), 0) AS prefill_queue,
    coalesce(sum(r.e - r.s) FILTER (WHERE r.stage = 'prefill'), 0) AS prefill,
    coalesce(sum(r.e - r.s) FILTER (WHERE r.stage = 'kv_transfer'), 0) AS kv_transfer,
    coalesce(sum(r.e - r.s) FILTER (WHERE r.stage = 'queue' AND r.role = 'decode'), 0) AS decode_queue,
    coalesce(sum(r.e - r.s) FILTER (WHERE r.stage = 'decode'), 0) AS decode,
    (c.last_us - c.first_us) - c.covered_us::BIGINT AS unaccounted
FROM covered c JOIN stage_rows r USING (request_id, attempt)
GROUP BY c.request_id, c.attempt, c.first_us, c.last_us, c.covered_us;
