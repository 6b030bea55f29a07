-- run_mix: the offered load and the token mix of the run, for compare's
-- guards (docs/metrics.md "Offered load and token mix"): over the arrivals
-- (attempt-0 spans queued in the extent [$t0, $t1]) the first and the last
-- queued_at, their count and their mean input tokens; the mean output tokens
-- of the delivered spans released in the extent.
SELECT min(queued_us) FILTER (WHERE arrival),
       max(queued_us) FILTER (WHERE arrival),
       count(*) FILTER (WHERE arrival),
       avg(input_tokens) FILTER (WHERE arrival),
       avg(output_tokens) FILTER (WHERE in_block(bits, idx) AND released_us BETWEEN $t0 AND $t1)
FROM (SELECT spans.*, delivered_blocks.bits, attempt = 0 AND queued_us BETWEEN $t0 AND $t1 AS arrival
      FROM spans LEFT JOIN delivered_blocks ON delivered_blocks.blk = block_of(idx));
