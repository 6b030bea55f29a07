-- span_metrics: the per-span metrics of docs/metrics.md as macros over the span's
-- instants (µs) and output tokens, their one definition for requests.parquet and
-- the distributions. NULL when an input is NULL or a duration is negative
-- (docs/metrics.md "Distributions").
-- The durations in whole µs (the _us macros), for the distributions, which
-- sum and select integers: cheaper than doubles, and their sums exact.
CREATE OR REPLACE MACRO t_queue_us(queued_us, admitted_us) AS CASE WHEN admitted_us >= queued_us THEN admitted_us - queued_us END;
CREATE OR REPLACE MACRO t_first_token_us(admitted_us, first_token_us) AS CASE WHEN first_token_us >= admitted_us THEN first_token_us - admitted_us END;
CREATE OR REPLACE MACRO ttft_us(queued_us, first_token_us) AS CASE WHEN first_token_us >= queued_us THEN first_token_us - queued_us END;
CREATE OR REPLACE MACRO t_stream_us(first_token_us, last_token_us) AS CASE WHEN last_token_us >= first_token_us THEN last_token_us - first_token_us END;
CREATE OR REPLACE MACRO t_in_flight_us(admitted_us, released_us) AS CASE WHEN released_us >= admitted_us THEN released_us - admitted_us END;
CREATE OR REPLACE MACRO t_total_us(queued_us, released_us) AS CASE WHEN released_us >= queued_us THEN released_us - queued_us END;
CREATE OR REPLACE MACRO gateway_overhead_us(gw) AS gw;
CREATE OR REPLACE MACRO t_queue(queued_us, admitted_us) AS t_queue_us(queued_us, admitted_us) / 1e6;
CREATE OR REPLACE MACRO t_first_token(admitted_us, first_token_us) AS t_first_token_us(admitted_us, first_token_us) / 1e6;
CREATE OR REPLACE MACRO ttft(queued_us, first_token_us) AS ttft_us(queued_us, first_token_us) / 1e6;
CREATE OR REPLACE MACRO t_stream(first_token_us, last_token_us) AS t_stream_us(first_token_us, last_token_us) / 1e6;
CREATE OR REPLACE MACRO t_in_flight(admitted_us, released_us) AS t_in_flight_us(admitted_us, released_us) / 1e6;
CREATE OR REPLACE MACRO t_total(queued_us, released_us) AS t_total_us(queued_us, released_us) / 1e6;
CREATE OR REPLACE MACRO gateway_overhead(gw) AS gateway_overhead_us(gw) / 1e6;
CREATE OR REPLACE MACRO stream_tps(first_token_us, last_token_us, output_tokens) AS CASE WHEN last_token_us > first_token_us THEN output_tokens / ((last_token_us - first_token_us) / 1e6) END;
CREATE OR REPLACE MACRO end_to_end_tps(admitted_us, released_us, output_tokens) AS CASE WHEN released_us > admitted_us THEN output_tokens / ((released_us - admitted_us) / 1e6) END;
CREATE OR REPLACE MACRO tpot(first_token_us, last_token_us, output_tokens) AS CASE WHEN output_tokens > 1 AND last_token_us >= first_token_us THEN ((last_token_us - first_token_us) / 1e6) / (output_tokens - 1) END;
-- Whether span idx is its request's delivered span (delivered_bits). get_bit
-- takes an INTEGER position: a run holds at most 2^31 spans.
CREATE OR REPLACE MACRO delivered(idx) AS coalesce(get_bit(getvariable('delivered'), idx::INTEGER) = 1, false);
