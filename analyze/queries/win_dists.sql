-- win_dists: the percentile objects of SPEC §4 over successful spans whose
-- release counts in the window. quantile_cont interpolates linearly between
-- closest ranks; means are summed exactly (as integers, or as DECIMAL) so they
-- do not depend on thread scheduling. A duration (Micros in distHalves) is
-- taken in whole µs, converted to seconds after the aggregates: selecting and
-- summing integers costs about half of doubles and DECIMALs.
--
-- A template (text/template): queries.go expands it into two statements,
-- win_dists_a and win_dists_b, each with half of the metrics (distHalves).
-- quantile_cont keeps every value of its group in memory outside DuckDB's
-- memory_limit (for the run window, every successful span's): half the
-- metrics per statement halves that peak, for one more scan of the spans.
CREATE OR REPLACE TEMP TABLE {{.Table}} AS
WITH agg AS (
    SELECT least(r // p.width, p.last) AS k
{{- range .Metrics}},
        count({{.Name}}) AS {{.Name}}_n,
        {{if .Micros}}list_transform(quantile_cont({{.Name}}, [0.5, 0.9, 0.95, 0.99]), x -> x / 1e6){{else}}quantile_cont({{.Name}}, [0.5, 0.9, 0.95, 0.99]){{end}} AS {{.Name}}_q,
{{- if .Micros}}
        sum({{.Name}}) / nullif(count({{.Name}}), 0) / 1e6 AS {{.Name}}_mean, max({{.Name}}) / 1e6 AS {{.Name}}_max
{{- else}}
        (sum({{.Name}}::DECIMAL(38, 15)) / nullif(count({{.Name}}), 0))::DOUBLE AS {{.Name}}_mean, max({{.Name}}) AS {{.Name}}_max
{{- end}}
{{- end}}
    FROM (
        SELECT r
{{- range .Metrics}},
            {{.Expr}} AS {{.Name}}
{{- end}}
        FROM spans WHERE ok
    ), p
    WHERE r BETWEEN p.t0 AND p.t1
    GROUP BY ALL
)
SELECT k
{{- range .Metrics}},
    {'n': {{.Name}}_n, 'p50': {{.Name}}_q[1], 'p90': {{.Name}}_q[2], 'p95': {{.Name}}_q[3], 'p99': {{.Name}}_q[4],
      'mean': {{.Name}}_mean, 'max': {{.Name}}_max} AS {{.Name}}
{{- end}}
FROM agg;
