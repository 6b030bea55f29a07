-- span_metrics: the per-span metrics of SPEC §2 as macros over the span's
-- instants (µs) and output tokens, their one definition for requests.parquet and
-- the distributions. NULL when an input is NULL or a duration is negative
-- (docs/metrics.md "Distributions").
CREATE OR REPLACE TEMP MACRO t_queue(q, a) AS CASE WHEN a >= q THEN (a - q) / 1e6 END;
CREATE OR REPLACE TEMP MACRO t_first_token(a, f) AS CASE WHEN f >= a THEN (f - a) / 1e6 END;
CREATE OR REPLACE TEMP MACRO ttft(q, f) AS CASE WHEN f >= q THEN (f - q) / 1e6 END;
CREATE OR REPLACE TEMP MACRO t_stream(f, l) AS CASE WHEN l >= f THEN (l - f) / 1e6 END;
CREATE OR REPLACE TEMP MACRO t_in_flight(a, r) AS CASE WHEN r >= a THEN (r - a) / 1e6 END;
CREATE OR REPLACE TEMP MACRO t_total(q, r) AS CASE WHEN r >= q THEN (r - q) / 1e6 END;
CREATE OR REPLACE TEMP MACRO stream_tps(f, l, tout) AS CASE WHEN l > f THEN tout / ((l - f) / 1e6) END;
CREATE OR REPLACE TEMP MACRO end_to_end_tps(a, r, tout) AS CASE WHEN r > a THEN tout / ((r - a) / 1e6) END;
CREATE OR REPLACE TEMP MACRO gateway_overhead(gw) AS gw / 1e6;
CREATE OR REPLACE TEMP MACRO tpot(f, l, tout) AS CASE WHEN tout > 1 AND l >= f THEN ((l - f) / 1e6) / (tout - 1) END;
-- Whether span idx is its request's delivered span (delivered_bits).
CREATE OR REPLACE TEMP MACRO delivered(idx) AS coalesce(get_bit(getvariable('delivered'), idx::INTEGER) = 1, false);
