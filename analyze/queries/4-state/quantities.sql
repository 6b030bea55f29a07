-- quantities: every quantity prorated over an interval [a, b] (docs/metrics.md
-- "Prorated quantities", the bounds' macros in span_metrics.sql): output
-- tokens of every span, with the delivered flag of delivered_bits (joined by
-- block), and input tokens of successful spans, which win_tokens counts
-- whether delivered or not: their flag is false rather than looked up. A
-- view: its 20 M rows at 10 M spans would hold 1.4 GB, and win_tokens reads
-- it only twice. A large run has the same rows from one scan of the spans
-- (quantities_large.sql).
CREATE OR REPLACE VIEW quantities AS
SELECT 'out' AS kind, ok, in_block(delivered_blocks.bits, idx) AS delivered, output_tokens AS qty,
       out_lo_us(first_token_us, last_token_us, released_us) AS lo_us, out_hi_us(last_token_us, released_us) AS hi_us
FROM spans LEFT JOIN delivered_blocks ON delivered_blocks.blk = block_of(idx)
WHERE out_counted(output_tokens, last_token_us, released_us)
UNION ALL
SELECT 'in' AS kind, true AS ok, false AS delivered, input_tokens AS qty,
       in_lo_us(admitted_us, first_token_us, last_token_us, released_us) AS lo_us, in_hi_us(first_token_us, last_token_us, released_us) AS hi_us
FROM spans WHERE in_counted(ok, input_tokens, first_token_us, last_token_us, released_us);
