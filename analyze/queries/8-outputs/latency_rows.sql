-- latency_rows: the rows of latencies.parquet (latencies_out) as delivered
-- requests' µs: one per delivered request, its completion and its latencies
-- as the user saw them (docs/metrics.md "Requests and SLOs"). A file of its
-- own rather than columns of requests.parquet: a request's first arrival is
-- another span's, and looking it up from every row of requests.parquet
-- would cost that file its input order. latencies_out sorts these columns
-- and makes the file's columns (seconds, the instant) after the sort, so
-- that the sort carries these four rather than the file's beside them
-- (BENCHMARKS.md).
CREATE OR REPLACE VIEW latency_rows AS
SELECT completed_us, ttft_req_us, e2e_req_us, tpot_req FROM delivered_requests;
