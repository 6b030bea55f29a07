-- delivered_bits: the delivered spans (request_facts) as the table
-- delivered_blocks, a set of spans by idx in blocks (span_metrics). The join
-- with the blocks does not keep its input's order, so requests.parquet's
-- column is written from them (writeRequests, delivered_out), not by
-- request_values.
CREATE OR REPLACE TABLE delivered_blocks AS
SELECT block_of(delivered_idx) AS blk, block_bits(delivered_idx) AS bits
FROM request_facts WHERE delivered_idx IS NOT NULL GROUP BY ALL;
