-- joined_file: the spans of a joined run (docs/metrics.md "Gateway and
-- engine"), in the columns of spans.parquet plus gw, in input order, as a
-- Parquet file in analyze's temp directory (joinedFile) which span_src then
-- reads as a run without a join reads spans.parquet: a span's row number in
-- the file is its idx. The rows are spans_file's in its order, without the
-- engine spans that joined a gateway span: the rank of each among them is
-- what its idx was there, so every later tie broken by idx breaks the same
-- way. requests.parquet is spliced from this file's columns as a canonical
-- run's is from spans.parquet's.
--
-- Row i of the two files $gateway_part (joined_gateway: the columns a span
-- keeps from its own row) and $engine_part (joined_engine: those the join
-- sets) are one span's, so they are put side by side by position. analyze
-- assembles the file in Go instead (assemble.go), and when spans.parquet's
-- columns are not the types that reads, splices the two parts (join.go
-- joinParts), copying their column chunks: this statement runs only when
-- their row groups do not line up either.
SELECT g.run_id, e.source, g.span_id, g.request_id, e.attempt, g.retry_cause, e.model, e.replica,
    e.queued_at, e.engine_arrived_at, e.admitted_at, e.first_token_at, e.last_token_at, e.released_at,
    e.input_tokens, e.output_tokens, e.cached_tokens, g.status, g.error, g.http_status,
    e.time_resolution_us, e.time_origin, e.gw
FROM read_parquet($gateway_part, hive_partitioning = false) g
POSITIONAL JOIN read_parquet($engine_part, hive_partitioning = false) e
