-- latencies_out: latencies.parquet (latency_rows), in completion order.
-- compare reads the rows for the bootstrap of its latency criteria, in
-- order: requests that complete at one µs are ordered by ttft_req, then
-- e2e_req, then tpot_req (each NULLS LAST), so that the file's order is its
-- values' whatever the input order. ttft_req_us and e2e_req_us are ordered
-- as one BIGINT key k that packs them, ttft_req_us in the high bits and
-- e2e_req_us in the low $e2e_bits, a NULL as the largest value of its
-- field ($ttft_null, $e2e_null): the same order from three sort keys, which
-- fit DuckDB's fixed-size sort key where four do not (latencyKey in
-- analyze.go sizes the fields; latencies_out_wide when they do not fit).
-- The sort carries the three keys and nothing else, and the two latencies
-- are unpacked from k after it: $e2e_null, all the low field's bits, is
-- its mask, and no value of a field reaches its NULL, so nullif gives back
-- each value and each NULL. A sort whose rows are its
-- keys alone needs no payload beside them; at 100 M spans, where the sort
-- spills, carrying the four columns as well took about twice as long, for
-- the same file (BENCHMARKS.md).
SELECT unnest(latency_columns(completed_us, nullif(k >> $e2e_bits, $ttft_null), tpot_req, nullif(k & $e2e_null, $e2e_null)))
FROM (
    SELECT completed_us, (coalesce(ttft_req_us, $ttft_null) << $e2e_bits) | coalesce(e2e_req_us, $e2e_null) AS k, tpot_req
    FROM latency_rows
    ORDER BY completed_us, k, tpot_req NULLS LAST
)
