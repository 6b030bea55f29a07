-- joined_engine: the columns of the joined spans (joined_file) that the
-- gateway-engine join sets, sorted by idx; joined_gateway writes the others,
-- which a joined span takes from its own row as it is, in the scan's order.
-- The assembly in Go (assemble.go) sets the same columns the same way without
-- a join or a sort, and is what analyze runs; these statements write the file
-- when spans.parquet's columns are not the types it reads, and are the
-- reference TestAssembleMatchesSQL holds it to.
-- Only these are joined and sorted: the hash join's output is not in its
-- input's order, and sorting every column, the gateway's long span and request
-- ids among them, took longer than the join (at 10 M spans, sorted past
-- DuckDB's memory limit).
--
-- A joined span is the gateway's attempt (span_id, request_id, attempt, status)
-- with the engine's replica, model, admission, token times, release and token
-- counts, queued_at from the gateway and engine_arrived_at from the engine (its
-- own, else its queued_at: an engine's span starts when the request reached
-- it); gw is the gateway's total time minus the engine's (µs). Unjoined spans
-- stay as they are, except that a gateway span's replica is renamed to the
-- engine replica its joined spans went to (NULL when none did: a gateway's
-- name for a server adds no slots).
--
-- Attempt numbers (docs/metrics.md "Attempt numbers"): a span the source did
-- not number (a LiteLLM log numbers none) takes its number from join_numbers
-- when its request has several spans, else 0; a span with a number keeps
-- it, and so does a span without a request_id. Numbered here, the file needs
-- no numbering afterwards (number_attempts, attempt_list).
--
-- The rows (s): spans_file's spans of other roles than the engine's, and the
-- engine spans no gateway span joined (joined_row), in one scan
-- as joined_gateway's; a gateway span finds its engine span's columns, keyed
-- by the gateway span's idx, by one left join, and each column takes the
-- joined value when there is a pair; a gateway replica's rename is
-- join_renames'.
WITH pairs AS (
    SELECT gi, ei FROM join_solo UNION ALL SELECT gi, ei FROM join_pairs
), e AS (
    SELECT pairs.gi, source, model, replica, queued_at, engine_arrived_at, admitted_at,
        first_token_at, last_token_at, released_at, input_tokens, output_tokens, cached_tokens,
        time_resolution_us, time_origin
    FROM spans_file JOIN pairs ON pairs.ei = file_row_number
    WHERE source IN $engine
), s AS NOT MATERIALIZED (
    SELECT * EXCLUDE (file_row_number), file_row_number AS idx, source IN $gateway AS is_gw
    FROM spans_file
    WHERE joined_row(source IN $engine, file_row_number)
), j AS (
    SELECT
        CASE WHEN e.gi IS NULL THEN s.source ELSE s.source || '+' || e.source END AS source,
        coalesce(s.attempt, numbers.n, CASE WHEN s.request_id IS NOT NULL THEN 0 END) AS attempt,
        CASE WHEN e.gi IS NULL THEN s.model ELSE coalesce(e.model, s.model) END AS model,
        CASE WHEN e.gi IS NOT NULL THEN coalesce(e.replica, s.replica) WHEN s.is_gw THEN renames.e_rep ELSE s.replica END AS replica,
        CASE WHEN e.gi IS NULL THEN s.queued_at ELSE coalesce(s.queued_at, e.queued_at) END AS queued_at,
        CASE WHEN e.gi IS NULL THEN s.engine_arrived_at ELSE coalesce(e.engine_arrived_at, e.queued_at) END AS engine_arrived_at,
        CASE WHEN e.gi IS NULL THEN s.admitted_at ELSE e.admitted_at END AS admitted_at,
        CASE WHEN e.gi IS NULL THEN s.first_token_at ELSE e.first_token_at END AS first_token_at,
        CASE WHEN e.gi IS NULL THEN s.last_token_at ELSE e.last_token_at END AS last_token_at,
        CASE WHEN e.gi IS NULL THEN s.released_at ELSE coalesce(e.released_at, s.released_at) END AS released_at,
        CASE WHEN e.gi IS NULL THEN s.input_tokens ELSE coalesce(e.input_tokens, s.input_tokens) END AS input_tokens,
        CASE WHEN e.gi IS NULL THEN s.output_tokens ELSE coalesce(e.output_tokens, s.output_tokens) END AS output_tokens,
        CASE WHEN e.gi IS NULL THEN s.cached_tokens ELSE coalesce(e.cached_tokens, s.cached_tokens) END AS cached_tokens,
        CASE WHEN e.gi IS NULL THEN s.time_resolution_us
             ELSE nullif(greatest(coalesce(s.time_resolution_us, 0), coalesce(e.time_resolution_us, 0)), 0) END AS time_resolution_us,
        CASE WHEN e.gi IS NULL THEN s.time_origin ELSE coalesce(e.time_origin, s.time_origin) END AS time_origin,
        (epoch_us(s.released_at) - epoch_us(s.queued_at))
            - (epoch_us(e.released_at) - epoch_us(coalesce(e.queued_at, e.admitted_at))) AS gw,
        s.idx
    FROM s LEFT JOIN e ON e.gi = s.idx
    LEFT JOIN join_renames renames ON renames.g_rep = s.replica
    LEFT JOIN join_numbers numbers ON numbers.idx = s.idx
)
SELECT * EXCLUDE (idx) FROM j ORDER BY idx
