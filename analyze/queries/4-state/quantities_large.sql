-- quantities_large: quantities (quantities.sql) for a large run, the same rows
-- from one scan of the spans joined with two rows (k 0: output tokens, k 1:
-- input tokens) rather than a UNION ALL of two scans. A large run's spans are
-- read back from the database file, decompressed, at every scan, and the
-- scans were most of win_tokens' time; in memory a scan is cheap and the two
-- plain ones are the faster, so a smaller run keeps them (BENCHMARKS.md "A
-- large run's quantities from one scan"). The intervals and the rows kept are
-- quantities.sql's, through the same macros; TestLargeRunSameOutputs holds
-- the two forms' outputs equal.
CREATE OR REPLACE VIEW quantities AS
SELECT CASE k WHEN 0 THEN 'out' ELSE 'in' END AS kind,
       k = 1 OR ok AS ok,
       k = 0 AND in_block(delivered_blocks.bits, idx) AS delivered,
       CASE k WHEN 0 THEN output_tokens ELSE input_tokens END AS qty,
       CASE k WHEN 0 THEN out_lo_us(first_token_us, last_token_us, released_us)
              ELSE in_lo_us(admitted_us, first_token_us, last_token_us, released_us) END AS lo_us,
       CASE k WHEN 0 THEN out_hi_us(last_token_us, released_us)
              ELSE in_hi_us(first_token_us, last_token_us, released_us) END AS hi_us
-- k: 0 output tokens, 1 input tokens
FROM spans LEFT JOIN delivered_blocks ON delivered_blocks.blk = block_of(idx), (VALUES (0), (1)) AS ks(k)
WHERE CASE k WHEN 0 THEN out_counted(output_tokens, last_token_us, released_us)
             ELSE in_counted(ok, input_tokens, first_token_us, last_token_us, released_us) END;
