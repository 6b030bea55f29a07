-- requests_added: the columns of requests.parquet (requests_out) that
-- spans.parquet does not hold as they are: the attempt numbers with those the
-- source left out filled in and the per-span metrics. writeRequests splices
-- them with spans.parquet's other columns and the delivered flags' column,
-- after checking that row i of the file is row i of spans.parquet (idx, which
-- the splice leaves out).
SELECT
    idx, attempt,
    t_queue, t_first_token, ttft, t_stream, t_in_flight, t_total,
    stream_tps, end_to_end_tps, tpot, gateway_overhead
FROM request_values
