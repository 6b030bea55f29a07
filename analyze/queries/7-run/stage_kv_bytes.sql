-- stage_kv_bytes: the distribution of the bytes of the kv_transfer stages
-- that log them, over the attempts of stage_budget (no row without any).
WITH b AS (
    SELECT bytes::DOUBLE AS v
    FROM stage_rows JOIN stage_budget USING (request_id, attempt)
    WHERE stage = 'kv_transfer' AND bytes IS NOT NULL
), d AS (
    SELECT count(*) AS n, quantile_cont(v, [0.5, 0.9, 0.95, 0.99]) AS qs, avg(v) AS mean, max(v) AS mx FROM b
)
SELECT n, qs[1], qs[2], qs[3], qs[4], mean, mx FROM d WHERE n > 0;
