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
-- The interval [lo_us, hi_us] each quantity is prorated over (docs/metrics.md
-- "Prorated quantities"), for quantities and quantities_large: output tokens
-- on [first_token, last_token], input tokens on [admitted, first_token], each
-- bound falling back to the span's later instants when NULL. A quantity
-- counts when it and its interval's end are known: output tokens of every
-- span, input tokens of successful ones (out_counted, in_counted).
CREATE OR REPLACE MACRO out_hi_us(last_token_us, released_us) AS coalesce(last_token_us, released_us);
CREATE OR REPLACE MACRO out_lo_us(first_token_us, last_token_us, released_us) AS coalesce(first_token_us, out_hi_us(last_token_us, released_us));
CREATE OR REPLACE MACRO in_hi_us(first_token_us, last_token_us, released_us) AS coalesce(first_token_us, last_token_us, released_us);
CREATE OR REPLACE MACRO in_lo_us(admitted_us, first_token_us, last_token_us, released_us) AS coalesce(admitted_us, in_hi_us(first_token_us, last_token_us, released_us));
CREATE OR REPLACE MACRO out_counted(output_tokens, last_token_us, released_us) AS output_tokens IS NOT NULL AND out_hi_us(last_token_us, released_us) IS NOT NULL;
CREATE OR REPLACE MACRO in_counted(ok, input_tokens, first_token_us, last_token_us, released_us) AS input_tokens IS NOT NULL AND ok AND in_hi_us(first_token_us, last_token_us, released_us) IS NOT NULL;
-- Sets of spans by idx (delivered_bits, join_solo, join_cand, join_unpaired)
-- are tables of blocks: a row per block of 65,536 consecutive idx that holds
-- a span of the set (blk), with a bitstring (bits) whose bit idx % 65,536 is
-- 1 for a span in the set (block_bits of its spans' idx, grouped by
-- block_of). A reader left joins the blocks on blk = block_of(idx) and tests
-- the bit with in_block (false without a block): a hash join on the few
-- blocks, not on every span. Not one bitstring of every span in a variable:
-- DuckDB copies a constant into each vector it evaluates, so a lookup in it
-- costs the whole bitstring every 2,048 rows, a cost that grows with the
-- square of the spans (100 M lookups in a bitstring of 100 M bits: 92 s;
-- through the blocks: 3.7 s).
CREATE OR REPLACE MACRO block_of(idx) AS idx // 65536;
CREATE OR REPLACE MACRO block_bits(idx) AS bitstring_agg((idx % 65536)::INTEGER, 0, 65535);
CREATE OR REPLACE MACRO in_block(bits, idx) AS coalesce(get_bit(bits, (idx % 65536)::INTEGER) = 1, false);
