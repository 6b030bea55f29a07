-- requests_out: the rows of requests.parquet (request_values, with the
-- delivered flags of delivered_bits), its columns in their order, when
-- writeRequests cannot splice the file: in spans.parquet's order (idx), which
-- the join with the blocks does not keep.
SELECT
    run_id, source, span_id, request_id, attempt,
    retry_cause, model, replica, status, error, http_status,
    in_block(delivered_blocks.bits, idx) AS delivered,
    queued_at, engine_arrived_at, admitted_at, first_token_at, last_token_at, released_at,
    input_tokens, output_tokens, cached_tokens, time_resolution_us, time_origin,
    t_queue, t_first_token, ttft, t_stream, t_in_flight, t_total,
    stream_tps, end_to_end_tps, tpot, gateway_overhead
FROM request_values LEFT JOIN delivered_blocks ON delivered_blocks.blk = block_of(idx)
ORDER BY idx
