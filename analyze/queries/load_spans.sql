-- load_spans: the spans of a run as analysed, from the view span_src (join.go:
-- spans.parquet with its row numbers idx, or the gateway-engine join).
-- Instants become int64 µs (q a f l r); attempts the source did not number are
-- numbered by queued_at within their request; each request's delivered span is
-- marked (docs/metrics.md). The per-span metrics are the macros of span_metrics.
CREATE OR REPLACE TEMP TABLE spans AS
WITH src AS (
    SELECT * FROM span_src
), unnumbered AS (
    -- Only requests with a span the source did not number pay for the window.
    SELECT idx,
           (row_number() OVER (PARTITION BY request_id ORDER BY queued_at NULLS LAST, span_id, idx) - 1)::INTEGER AS n
    FROM src
    WHERE request_id IN (SELECT request_id FROM src WHERE attempt IS NULL)
), base AS (
    SELECT
        src.idx, run_id, source, span_id, request_id,
        coalesce(attempt, unnumbered.n) AS attempt,
        retry_cause, model, replica, coalesce(replica, '') AS rep,
        status, status = 'ok' AS ok, error, http_status,
        epoch_us(queued_at) AS q, epoch_us(admitted_at) AS a, epoch_us(first_token_at) AS f,
        epoch_us(last_token_at) AS l, epoch_us(released_at) AS r,
        input_tokens AS tin, output_tokens AS tout, cached_tokens,
        time_resolution_us, time_origin, gw
    FROM src LEFT JOIN unnumbered USING (idx)
), deliv AS (
    -- The delivered span of a request: its first successful span by released_at
    -- (NULLs last), ties by span_id, then input order.
    SELECT arg_min(idx, (coalesce(r, 9223372036854775807), r IS NULL, span_id, idx)) AS idx
    FROM base WHERE ok GROUP BY request_id
)
SELECT base.*, base.idx IN (SELECT idx FROM deliv) AS delivered
FROM base;
