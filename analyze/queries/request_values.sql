-- request_values: the rows of requests.parquet with every column they may
-- take: every span with its per-span metrics of docs/metrics.md (seconds, tokens/s),
-- in input order, and gateway_overhead (seconds) for spans joined from a
-- gateway and an engine. They are read from span_src (through span_times),
-- which gives them in input order (a plain scan keeps it, and so does the
-- join with the one row of attempt_list), with the attempt numbers the source
-- left out (attempt_list) and the delivered flags (delivered_bits) looked up
-- by idx. The instants are span_src's own, TIMESTAMP WITH TIME ZONE, so that
-- the file stores them as UTC instants (isAdjustedToUTC), as spans.parquet
-- does. requests_out selects the columns of requests.parquet, requests_added
-- those it adds to spans.parquet's (writeRequests).
CREATE OR REPLACE VIEW request_values AS
SELECT
    span_times.* REPLACE (coalesce(attempt, attempt_list.attempts[idx + 1]) AS attempt),
    delivered(idx) AS delivered,
    t_queue(q, a) AS t_queue, t_first_token(a, f) AS t_first_token, ttft(q, f) AS ttft,
    t_stream(f, l) AS t_stream, t_in_flight(a, r) AS t_in_flight, t_total(q, r) AS t_total,
    stream_tps(f, l, output_tokens) AS stream_tps,
    end_to_end_tps(a, r, output_tokens) AS end_to_end_tps,
    tpot(f, l, output_tokens) AS tpot, gateway_overhead(gw) AS gateway_overhead
FROM span_times, attempt_list;
