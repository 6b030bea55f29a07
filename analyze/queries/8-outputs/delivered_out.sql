-- delivered_out: the blocks of delivered_blocks, each bitstring as text ('1'
-- at position idx % 65,536 + 1 for a delivered span idx), for writeRequests'
-- column of requests.parquet.
SELECT blk, bits::VARCHAR FROM delivered_blocks
