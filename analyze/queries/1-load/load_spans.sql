-- load_spans: the columns of the spans that the metrics read, from the view
-- span_src (join.go: spans.parquet with its row numbers idx, or the
-- gateway-engine join), through span_times (instants as int64 µs), replicas
-- as their number rid (replica_ids). quality_source and request_values read the
-- other columns from span_src again rather than from here: at 10 M spans a table
-- of every column spills to disk. Rows are found by idx, never by position, so the
-- order of this table does not matter. number_attempts fills in the attempt
-- numbers the source left out; the delivered spans are a bitstring over idx
-- (delivered_bits). The per-span metrics are the macros of span_metrics.
-- solo: the span is its request's only span (not in multi_requests; IS NOT
-- DISTINCT FROM: a NULL request_id is one request). req stands for the
-- request_id wherever the spans are grouped or joined by request: NULL when
-- request_id is, a solo span's own idx, and multi_requests' negative key for
-- a request of several spans. Equal request_ids give equal keys and a NULL
-- gives NULL, so GROUP BY, USING and IS NOT DISTINCT FROM make the same
-- requests of req as of request_id, and a BIGINT costs less than a string to
-- store, group and join (BENCHMARKS.md). req, attempt and solo are dropped
-- once the windows' events are counted (analyze.go): nothing later reads
-- them.
CREATE OR REPLACE TABLE spans AS
SELECT
    idx, CASE WHEN span_times.request_id IS NOT NULL THEN coalesce(m.req, idx) END AS req, attempt, rid, status = 'ok' AS ok, queued_us, arrived_us, admitted_us, first_token_us, last_token_us, released_us,
    input_tokens AS input_tokens, output_tokens AS output_tokens, gw, m.req IS NULL AS solo
FROM span_times JOIN replica_ids ON replica_ids.rep = coalesce(span_times.replica, '')
LEFT JOIN multi_requests m ON m.request_id IS NOT DISTINCT FROM span_times.request_id;
