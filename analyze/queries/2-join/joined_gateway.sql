-- joined_gateway: the columns of the joined spans (joined_file) that a span
-- keeps from its own row, whether or not it joined (the gateway's attempt:
-- its run, ids, retry cause, status and error), for the rows joined_engine
-- writes, in the same order: spans_file's spans of other roles than the
-- engine's, and the engine spans no gateway span joined (the variable
-- joined_row). A filtered scan keeps spans.parquet's order, so these
-- columns, the widest, are neither joined nor sorted.
-- With joined_engine, the statements' way to the joined file, which the
-- assembly in Go (assemble.go) replaces but for spans.parquet files whose
-- columns it does not read.
SELECT run_id, span_id, request_id, retry_cause, status, error, http_status
FROM spans_file
WHERE joined_row(source IN $engine, file_row_number)
