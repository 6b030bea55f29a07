-- win_dists: the percentile objects of SPEC §4 over successful spans whose release
-- counts in the window. quantile_cont interpolates linearly between closest ranks;
-- means are summed as DECIMAL so they do not depend on thread scheduling.
CREATE OR REPLACE TEMP TABLE win_dists AS
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
        (sum(t_in_flight::DECIMAL(38, 15)) / nullif(count(t_in_flight), 0))::DOUBLE AS t_in_flight_mean, max(t_in_flight) AS t_in_flight_max,
        count(t_total) AS t_total_n, quantile_cont(t_total, [0.5, 0.9, 0.95, 0.99]) AS t_total_q,
        (sum(t_total::DECIMAL(38, 15)) / nullif(count(t_total), 0))::DOUBLE AS t_total_mean, max(t_total) AS t_total_max,
        count(tpot) AS tpot_n, quantile_cont(tpot, [0.5, 0.9, 0.95, 0.99]) AS tpot_q,
        (sum(tpot::DECIMAL(38, 15)) / nullif(count(tpot), 0))::DOUBLE AS tpot_mean, max(tpot) AS tpot_max,
        count(stream_tps) AS stream_tps_n, quantile_cont(stream_tps, [0.5, 0.9, 0.95, 0.99]) AS stream_tps_q,
        (sum(stream_tps::DECIMAL(38, 15)) / nullif(count(stream_tps), 0))::DOUBLE AS stream_tps_mean, max(stream_tps) AS stream_tps_max,
        count(end_to_end_tps) AS end_to_end_tps_n, quantile_cont(end_to_end_tps, [0.5, 0.9, 0.95, 0.99]) AS end_to_end_tps_q,
        (sum(end_to_end_tps::DECIMAL(38, 15)) / nullif(count(end_to_end_tps), 0))::DOUBLE AS end_to_end_tps_mean, max(end_to_end_tps) AS end_to_end_tps_max,
        count(gateway_overhead) AS gateway_overhead_n, quantile_cont(gateway_overhead, [0.5, 0.9, 0.95, 0.99]) AS gateway_overhead_q,
        (sum(gateway_overhead::DECIMAL(38, 15)) / nullif(count(gateway_overhead), 0))::DOUBLE AS gateway_overhead_mean, max(gateway_overhead) AS gateway_overhead_max
    FROM (
        SELECT r,
            t_queue(q, a) AS t_queue, ttft(q, f) AS ttft, t_first_token(a, f) AS t_first_token,
            t_stream(f, l) AS t_stream, t_in_flight(a, r) AS t_in_flight, t_total(q, r) AS t_total,
            tpot(f, l, tout) AS tpot, stream_tps(f, l, tout) AS stream_tps,
            end_to_end_tps(a, r, tout) AS end_to_end_tps, gateway_overhead(gw) AS gateway_overhead
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
      'mean': t_in_flight_mean, 'max': t_in_flight_max} AS t_in_flight,
    {'n': t_total_n, 'p50': t_total_q[1], 'p90': t_total_q[2], 'p95': t_total_q[3], 'p99': t_total_q[4],
      'mean': t_total_mean, 'max': t_total_max} AS t_total,
    {'n': tpot_n, 'p50': tpot_q[1], 'p90': tpot_q[2], 'p95': tpot_q[3], 'p99': tpot_q[4],
      'mean': tpot_mean, 'max': tpot_max} AS tpot,
    {'n': stream_tps_n, 'p50': stream_tps_q[1], 'p90': stream_tps_q[2], 'p95': stream_tps_q[3], 'p99': stream_tps_q[4],
      'mean': stream_tps_mean, 'max': stream_tps_max} AS stream_tps,
    {'n': end_to_end_tps_n, 'p50': end_to_end_tps_q[1], 'p90': end_to_end_tps_q[2], 'p95': end_to_end_tps_q[3], 'p99': end_to_end_tps_q[4],
      'mean': end_to_end_tps_mean, 'max': end_to_end_tps_max} AS end_to_end_tps,
    {'n': gateway_overhead_n, 'p50': gateway_overhead_q[1], 'p90': gateway_overhead_q[2], 'p95': gateway_overhead_q[3], 'p99': gateway_overhead_q[4],
      'mean': gateway_overhead_mean, 'max': gateway_overhead_max} AS gateway_overhead
FROM agg;
