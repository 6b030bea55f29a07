-- latency_rows: the rows of latencies.parquet (latencies_out) with their sort
-- keys: one per delivered request, its completion and its latencies as the
-- user saw them, in seconds (docs/metrics.md "Requests and SLOs"). A file of
-- its own rather than columns of requests.parquet: a request's first arrival
-- is another span's, and looking it up from every row of requests.parquet
-- would cost that file its input order. The instant is made by
-- make_timestamptz(µs), which converts no time zone (windows_out too);
-- make_timestamp(µs)::TIMESTAMPTZ converts through the session's (ICU), at
-- many times the cost (BENCHMARKS.md).
CREATE OR REPLACE VIEW latency_rows AS
SELECT make_timestamptz(completed_us) AS completed_at,
       ttft_req_us / 1e6 AS ttft_req,
       tpot_req,
       e2e_req_us / 1e6 AS e2e_req,
       completed_us, ttft_req_us, e2e_req_us
FROM delivered_requests;
