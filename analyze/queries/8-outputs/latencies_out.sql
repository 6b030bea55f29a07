-- latencies_out: the rows of latencies.parquet: one per delivered request,
-- its completion and its latencies as the user saw them, in seconds
-- (docs/metrics.md "Requests and SLOs"), in completion order. compare reads
-- them for the bootstrap of its latency criteria. A file of its own rather
-- than columns of requests.parquet: a request's first arrival is another
-- span's, and looking it up from every row of requests.parquet would cost
-- that file its input order. Requests that complete at one µs are ordered
-- by their latencies, so that the file's order is its values' whatever the
-- input order (compare's bootstrap reads the rows in order). windows_out and
-- this statement make an instant with make_timestamptz(µs), which converts
-- no time zone; make_timestamp(µs)::TIMESTAMPTZ converts through the
-- session's (ICU), at about 70 times the cost (BENCHMARKS.md).
SELECT make_timestamptz(completed_us) AS completed_at,
       ttft_req_us / 1e6 AS ttft_req,
       tpot_req,
       e2e_req_us / 1e6 AS e2e_req
FROM delivered_requests
ORDER BY completed_us, ttft_req_us NULLS LAST, e2e_req_us NULLS LAST, tpot_req NULLS LAST
