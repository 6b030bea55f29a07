-- latency_rows: the rows of latencies.parquet (latencies_out) as delivered
-- requests' µs: one per delivered request, its completion and its latencies
-- as the user saw them (docs/metrics.md "Requests and SLOs"). A file of its
-- own rather than columns of requests.parquet: a request's first arrival is
-- another span's, and looking it up from every row of requests.parquet
-- would cost that file its input order. latencies_out sorts these columns
-- and makes the file's columns (latency_columns) after the sort, so that the
-- sort carries these four rather than the file's beside them
-- (BENCHMARKS.md).
CREATE OR REPLACE VIEW latency_rows AS
SELECT completed_us, ttft_req_us, e2e_req_us, tpot_req FROM delivered_requests;
-- latency_columns: a row of latency_rows as latencies.parquet's columns, a
-- struct that unnest spreads into them: the completion as an instant and
-- the latencies in seconds. The instant is made by make_timestamptz(µs),
-- which converts no time zone (windows_out too); make_timestamp(µs)::
-- TIMESTAMPTZ converts through the session's (ICU), at many times the cost
-- (BENCHMARKS.md).
CREATE OR REPLACE MACRO latency_columns(completed_us, ttft_req_us, tpot_req, e2e_req_us) AS
{'completed_at': make_timestamptz(completed_us), 'ttft_req': ttft_req_us / 1e6, 'tpot_req': tpot_req, 'e2e_req': e2e_req_us / 1e6};
