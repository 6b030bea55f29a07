-- latencies_out_wide: latencies_out's rows in its order, by four sort keys,
-- when ttft_req_us and e2e_req_us do not fit one BIGINT (latencyKey).
SELECT unnest(latency_columns(completed_us, ttft_req_us, tpot_req, e2e_req_us))
FROM (
    SELECT * FROM latency_rows
    ORDER BY completed_us, ttft_req_us NULLS LAST, e2e_req_us NULLS LAST, tpot_req NULLS LAST
)
