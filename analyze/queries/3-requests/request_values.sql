-- request_values: the rows of requests.parquet with every column they may
-- take but delivered: every span with its per-span metrics of docs/metrics.md
-- (seconds, tokens/s), in input order, and gateway_overhead (seconds) for
-- spans joined from a gateway and an engine. They are read from span_src
-- through request_spans (span_times, with the attempts the source left out
-- filled in), which gives them in input order. The delivered flags are not
-- here: writeRequests writes their column from delivered_blocks, and
-- requests_out joins them. The instants are span_src's own, TIMESTAMP WITH
-- TIME ZONE, so that the file stores them as UTC instants (isAdjustedToUTC),
-- as spans.parquet does. requests_out selects the columns of
-- requests.parquet, requests_added those it adds to spans.parquet's
-- (writeRequests).
CREATE OR REPLACE VIEW request_values AS
SELECT
    request_spans.*,
    t_queue(queued_us, admitted_us) AS t_queue, t_first_token(admitted_us, first_token_us) AS t_first_token, ttft(queued_us, first_token_us) AS ttft,
    t_stream(first_token_us, last_token_us) AS t_stream, t_in_flight(admitted_us, released_us) AS t_in_flight, t_total(queued_us, released_us) AS t_total,
    stream_tps(first_token_us, last_token_us, output_tokens) AS stream_tps,
    end_to_end_tps(admitted_us, released_us, output_tokens) AS end_to_end_tps,
    tpot(first_token_us, last_token_us, output_tokens) AS tpot, gateway_overhead(gw) AS gateway_overhead
FROM request_spans;
