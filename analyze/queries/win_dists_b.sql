-- win_dists_b: the percentile objects of SPEC §4 over successful spans whose
-- release counts in the window, for t_total, tpot, stream_tps, end_to_end_tps, gateway_overhead
-- (win_dists_a has the others). quantile_cont interpolates linearly between
-- closest ranks; means are summed as DECIMAL so they do not depend on thread
-- scheduling.
CREATE OR REPLACE TEMP TABLE win_dists_b AS
WITH agg AS (
    SELECT least(r // p.width, p.last) AS k,
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
            t_total(q, r) AS t_total, tpot(f, l, tout) AS tpot, stream_tps(f, l, tout) AS stream_tps, end_to_end_tps(a, r, tout) AS end_to_end_tps, gateway_overhead(gw) AS gateway_overhead
        FROM spans WHERE ok
    ), p
    WHERE r BETWEEN p.t0 AND p.t1
    GROUP BY ALL
)
SELECT k,
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
