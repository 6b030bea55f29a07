-- latency_bits: the least and the greatest ttft_req_us and e2e_req_us of the
-- delivered requests, from which latencyKey (analyze.go) sizes the fields of
-- latencies_out's packed sort key.
SELECT min(ttft_req_us), max(ttft_req_us), min(e2e_req_us), max(e2e_req_us) FROM delivered_requests;
