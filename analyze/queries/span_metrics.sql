-- span_metrics: the per-span metrics of docs/metrics.md as macros over the span's
-- instants (µs) and output tokens, their one definition for requests.parquet and
-- the distributions. NULL when an input is NULL or a duration is negative
-- (docs/metrics.md "Distributions").
-- The durations in whole µs (the _us macros), for the distributions, which
-- sum and select integers: cheaper than doubles, and their sums exact.
CREATE OR REPLACE MACRO t_queue_us(q, a) AS CASE WHEN a >= q THEN a - q END;
CREATE OR REPLACE MACRO t_first_token_us(a, f) AS CASE WHEN f >= a THEN f - a END;
CREATE OR REPLACE MACRO ttft_us(q, f) AS CASE WHEN f >= q THEN f - q END;
CREATE OR REPLACE MACRO t_stream_us(f, l) AS CASE WHEN l >= f THEN l - f END;
CREATE OR REPLACE MACRO t_in_flight_us(a, r) AS CASE WHEN r >= a THEN r - a END;
CREATE OR REPLACE MACRO t_total_us(q, r) AS CASE WHEN r >= q THEN r - q END;
CREATE OR REPLACE MACRO gateway_overhead_us(gw) AS gw;
CREATE OR REPLACE MACRO t_queue(q, a) AS t_queue_us(q, a) / 1e6;
CREATE OR REPLACE MACRO t_first_token(a, f) AS t_first_token_us(a, f) / 1e6;
CREATE OR REPLACE MACRO ttft(q, f) AS ttft_us(q, f) / 1e6;
CREATE OR REPLACE MACRO t_stream(f, l) AS t_stream_us(f, l) / 1e6;
CREATE OR REPLACE MACRO t_in_flight(a, r) AS t_in_flight_us(a, r) / 1e6;
CREATE OR REPLACE MACRO t_total(q, r) AS t_total_us(q, r) / 1e6;
CREATE OR REPLACE MACRO gateway_overhead(gw) AS gateway_overhead_us(gw) / 1e6;
CREATE OR REPLACE MACRO stream_tps(f, l, tout) AS CASE WHEN l > f THEN tout / ((l - f) / 1e6) END;
CREATE OR REPLACE MACRO end_to_end_tps(a, r, tout) AS CASE WHEN r > a THEN tout / ((r - a) / 1e6) END;
CREATE OR REPLACE MACRO tpot(f, l, tout) AS CASE WHEN tout > 1 AND l >= f THEN ((l - f) / 1e6) / (tout - 1) END;
-- Whether span idx is its request's delivered span (delivered_bits). get_bit
-- takes an INTEGER position: a run holds at most 2^31 spans.
CREATE OR REPLACE MACRO delivered(idx) AS coalesce(get_bit(getvariable('delivered'), idx::INTEGER) = 1, false);
