-- win_dists_a: the percentile objects of SPEC §4 over successful spans whose
-- release counts in the window, for t_queue, ttft, t_first_token, t_stream, t_in_flight
-- (win_dists_b has the others). quantile_cont interpolates linearly between
-- closest ranks; means are summed as DECIMAL so they do not depend on thread
-- scheduling.
--
-- quantile_cont keeps every value of its group in memory outside DuckDB's
-- memory_limit (for the run window, every successful span's): half the metrics
-- per statement halves that peak, for one more scan of the spans.
CREATE OR REPLACE TEMP TABLE win_dists_a AS
WITH agg AS (
    SELECT least(r // p.width, p.last) AS k,
        count(t_queue) AS t_queue_n, quantile_cont(t_queue, [0.5, 0.9, 0.95, 0.99]) AS t_queue_q,
        (sum(t_queue::DECIMAL(38, 15)) / nullif(count(t_queue), 0))::DOUBLE AS t_queue_mean, max(t_queue) AS t_queue_max,
        count(ttft) AS ttft_n, quantile_cont(ttft, [0.5, 0.9, 0.95, 0.99]) AS ttft_q,
        (sum(ttft::DECIMAL(38, 15)) / nullif(count(ttft), 0))::DOUBLE AS ttft_mean, max(ttft) AS ttft_max,
        count(t_first_token) AS t_first_token_n, quantile_cont(t_first_token, [0.5, 0.9, 0.95, 0.99]) AS t_first_token_q,
        (sum(t_first_token::DECIMAL(38, 15)) / nullif(count(t_first_token), 0))::DOUBLE AS t_first_token_mean, max(t_first_token) AS t_first_token_max,
        count(t_stream) AS t_stream_n, quantile_cont(t_stream, [0.5, 0.9, 0.95, 0.99]) AS t_stream_q,
        (sum(t_stream::DECIMAL(38, 15)) / nullif(count(t_stream), 0))::DOUBLE AS t_stream_mean, max(t_stream) AS t_stream_max,
        count(t_in_flight) AS t_in_flight_n, quantile_cont(t_in_flight, [0.5, 0.9, 0.95, 0.99]) AS t_in_flight_q,
        (sum(t_in_flight::DECIMAL(38, 15)) / nullif(count(t_in_flight), 0))::DOUBLE AS t_in_flight_mean, max(t_in_flight) AS t_in_flight_max
    FROM (
        SELECT r,
            t_queue(q, a) AS t_queue, ttft(q, f) AS ttft, t_first_token(a, f) AS t_first_token, t_stream(f, l) AS t_stream, t_in_flight(a, r) AS t_in_flight
        FROM spans WHERE ok
    ), p
    WHERE r BETWEEN p.t0 AND p.t1
    GROUP BY ALL
)
SELECT k,
    {'n': t_queue_n, 'p50': t_queue_q[1], 'p90': t_queue_q[2], 'p95': t_queue_q[3], 'p99': t_queue_q[4],
      'mean': t_queue_mean, 'max': t_queue_max} AS t_queue,
    {'n': ttft_n, 'p50': ttft_q[1], 'p90': ttft_q[2], 'p95': ttft_q[3], 'p99': ttft_q[4],
      'mean': ttft_mean, 'max': ttft_max} AS ttft,
    {'n': t_first_token_n, 'p50': t_first_token_q[1], 'p90': t_first_token_q[2], 'p95': t_first_token_q[3], 'p99': t_first_token_q[4],
      'mean': t_first_token_mean, 'max': t_first_token_max} AS t_first_token,
    {'n': t_stream_n, 'p50': t_stream_q[1], 'p90': t_stream_q[2], 'p95': t_stream_q[3], 'p99': t_stream_q[4],
      'mean': t_stream_mean, 'max': t_stream_max} AS t_stream,
    {'n': t_in_flight_n, 'p50': t_in_flight_q[1], 'p90': t_in_flight_q[2], 'p95': t_in_flight_q[3], 'p99': t_in_flight_q[4],
      'mean': t_in_flight_mean, 'max': t_in_flight_max} AS t_in_flight
FROM agg;
