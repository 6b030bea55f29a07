-- load_spans: the spans of a run as analysed, from the view span_src (join.go:
-- spans.parquet with its row numbers idx, or the gateway-engine join), in the
-- order of span_src. Instants become int64 µs (q a f l r). A plain scan keeps
-- that order (a join would not), so number_attempts and mark_delivered fill in
-- the attempt numbers the source left out and the delivered flags afterwards.
-- The per-span metrics are the macros of span_metrics.
CREATE OR REPLACE TEMP TABLE spans AS
SELECT
    idx, run_id, source, span_id, request_id, attempt,
    retry_cause, model, replica,
    status, status = 'ok' AS ok, error, http_status,
    epoch_us(queued_at) AS q, epoch_us(admitted_at) AS a, epoch_us(first_token_at) AS f,
    epoch_us(last_token_at) AS l, epoch_us(released_at) AS r,
    input_tokens AS tin, output_tokens AS tout, cached_tokens,
    time_resolution_us, time_origin, gw,
    false AS delivered
FROM span_src;
