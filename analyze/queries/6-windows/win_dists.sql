-- win_dists: the percentile objects of docs/metrics.md over successful spans whose
-- release counts in the window. quantile_cont interpolates linearly between
-- closest ranks; means are summed exactly (as integers, or as DECIMAL) so they
-- do not depend on thread scheduling. A duration (Micros in distHalves) is
-- taken in whole µs, converted to seconds after the aggregates: selecting and
-- summing integers costs about half of doubles and DECIMALs.
--
-- A template (text/template): queries.go expands it into four statements,
-- win_dists_a and win_dists_b, each with half of the metrics (distHalves), and
-- their run grain, run_dists_a and run_dists_b (Run). The windows' rows keep
-- each metric's count, sum and maximum (_n, _sum, _max) beside its object; the
-- run's are their totals, exactly (every successful span's release counts in
-- one window, and the sums are integers or DECIMALs), so that the run's pass
-- over the spans selects its quantiles only.
-- quantile_cont keeps every value of its group in memory outside DuckDB's
-- memory_limit (for the run window, every successful span's): half the
-- metrics per statement halves that peak, for one more scan of the spans.
CREATE OR REPLACE TABLE {{.Table}} AS
WITH agg AS (
    SELECT least(released_us // params.width, params.last) AS window_index
{{- range .Metrics}},
{{- if not $.Run}}
        count({{.Name}}) AS {{.Name}}_n,
        sum({{.Name}}{{if not .Micros}}::DECIMAL(38, 15){{end}}) AS {{.Name}}_sum,
        max({{.Name}}) AS {{.Name}}_max,
{{- end}}
        quantile_cont({{.Name}}, [0.5, 0.9, 0.95, 0.99]) AS {{.Name}}_q
{{- end}}
    FROM (
        SELECT released_us
{{- range .Metrics}},
            {{.Expr}} AS {{.Name}}
{{- end}}
        FROM spans WHERE ok
    ), params
    WHERE released_us BETWEEN params.t0 AND params.t1
    GROUP BY ALL
)
{{- if .Run}}, totals AS (
    SELECT params.last AS window_index
{{- range .Metrics}},
        sum({{.Name}}_n)::BIGINT AS {{.Name}}_n, sum({{.Name}}_sum) AS {{.Name}}_sum, max({{.Name}}_max) AS {{.Name}}_max
{{- end}}
    FROM {{.Table}}, params
    GROUP BY params.last
), run AS (
    SELECT * FROM totals JOIN agg USING (window_index)
)
{{- end}}
SELECT window_index
{{- range .Metrics}},
{{- if .Micros}}
    {'n': {{.Name}}_n, 'p50': {{.Name}}_q[1] / 1e6, 'p90': {{.Name}}_q[2] / 1e6, 'p95': {{.Name}}_q[3] / 1e6,
      'p99': {{.Name}}_q[4] / 1e6, 'mean': {{.Name}}_sum / nullif({{.Name}}_n, 0) / 1e6,
      'max': {{.Name}}_max / 1e6} AS {{.Name}},
{{- else}}
    {'n': {{.Name}}_n, 'p50': {{.Name}}_q[1], 'p90': {{.Name}}_q[2], 'p95': {{.Name}}_q[3], 'p99': {{.Name}}_q[4],
      'mean': ({{.Name}}_sum / nullif({{.Name}}_n, 0))::DOUBLE, 'max': {{.Name}}_max} AS {{.Name}},
{{- end}}
    {{.Name}}_n, {{.Name}}_sum, {{.Name}}_max
{{- end}}
FROM {{if .Run}}run{{else}}agg{{end}};
