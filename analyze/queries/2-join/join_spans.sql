-- join_spans: the spans of a joined run (docs/metrics.md "Gateway and engine"),
-- in the columns of spans.parquet plus idx and gw, from raw_spans and join_pairs,
-- stored in input order (idx) as requests.parquet holds them.
--
-- A joined span is the gateway's attempt (span_id, request_id, attempt, status)
-- with the engine's replica, model, admission, token times, release and token
-- counts, queued_at from the gateway and engine_arrived_at from the engine (its
-- own, else its queued_at: an engine's span starts when the request reached
-- it); gw is the gateway's total time minus
-- the engine's (µs). Unjoined spans stay as they are, except that a gateway
-- span's replica is renamed to the engine replica its joined spans went to
-- (NULL when none did: a gateway's name for a server adds no slots).
CREATE OR REPLACE TABLE joined_spans AS
WITH pairs AS (
    SELECT g.idx AS gi, e.idx AS ei, g.replica AS g_rep, e.replica AS e_rep
    FROM join_pairs jp JOIN raw_spans g ON g.idx = jp.gi JOIN raw_spans e ON e.idx = jp.ei
), renames AS (
    -- The engine replica most of a gateway replica's joined spans went to.
    SELECT g_rep, arg_max(e_rep, (n, e_rep)) AS e_rep
    FROM (SELECT g_rep, e_rep, count(*) AS n FROM pairs
          WHERE g_rep IS NOT NULL AND e_rep IS NOT NULL GROUP BY ALL)
    GROUP BY g_rep
)
SELECT
    g.run_id, g.source || '+' || e.source AS source, g.span_id, g.request_id, g.attempt,
    g.retry_cause, coalesce(e.model, g.model) AS model, coalesce(e.replica, g.replica) AS replica,
    coalesce(g.queued_at, e.queued_at) AS queued_at, coalesce(e.engine_arrived_at, e.queued_at) AS engine_arrived_at, e.admitted_at, e.first_token_at, e.last_token_at,
    coalesce(e.released_at, g.released_at) AS released_at,
    coalesce(e.input_tokens, g.input_tokens) AS input_tokens,
    coalesce(e.output_tokens, g.output_tokens) AS output_tokens,
    coalesce(e.cached_tokens, g.cached_tokens) AS cached_tokens,
    g.status, g.error, g.http_status,
    nullif(greatest(coalesce(g.time_resolution_us, 0), coalesce(e.time_resolution_us, 0)), 0) AS time_resolution_us,
    coalesce(e.time_origin, g.time_origin) AS time_origin,
    g.idx,
    (epoch_us(g.released_at) - epoch_us(g.queued_at))
        - (epoch_us(e.released_at) - epoch_us(coalesce(e.queued_at, e.admitted_at))) AS gw
FROM pairs jp JOIN raw_spans g ON g.idx = jp.gi JOIN raw_spans e ON e.idx = jp.ei
UNION ALL BY NAME
SELECT s.* EXCLUDE (idx, is_gw, is_en) REPLACE (renames.e_rep AS replica), s.idx, NULL::BIGINT AS gw
FROM raw_spans s LEFT JOIN renames ON renames.g_rep = s.replica
WHERE s.is_gw AND s.idx NOT IN (SELECT gi FROM join_pairs)
UNION ALL BY NAME
SELECT * EXCLUDE (idx, is_gw, is_en), idx, NULL::BIGINT AS gw
FROM raw_spans
WHERE NOT is_gw AND idx NOT IN (SELECT ei FROM join_pairs)
ORDER BY idx;
