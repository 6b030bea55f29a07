-- win_dists: the percentile objects of docs/metrics.md, per window: over the
-- successful spans whose release counts in the window, and over the
-- delivered requests completed in it (request latencies). quantile_cont
-- interpolates linearly between closest ranks; means are summed exactly (as
-- integers, or as DECIMAL) so they do not depend on thread scheduling. A
-- duration (Micros in distParts) is taken in whole µs, converted to seconds
-- after the aggregates: selecting and summing integers costs about half of
-- doubles and DECIMALs.
--
-- A template (text/template): queries.go expands it into six statements,
-- win_dists_a, _b and _c, each making the table (Table, Out) of a part of
-- the metrics over its rows (distParts: From, placed in a window by the
-- instant At), and their run grain, run_dists_a, _b and _c (Run), which
-- replace the windows' tables. The quantiles come from one list,
-- distQuantiles, by name. The windows' rows keep each metric's count, sum and
-- maximum (_n, _sum, _max) beside its object; the run's are their totals,
-- exactly (every row counts in one window, and the sums are integers or
-- DECIMALs), so that the run's pass selects its quantiles only.
-- quantile_cont keeps every value of its group in memory outside DuckDB's
-- memory_limit (for the run window, every successful span's): a statement's
-- peak is its metrics' values together, about 13 bytes a value. Up to
-- largeRunSpans spans, a part's metrics share one scan of its rows; beyond,
-- each metric has its own statement (Metrics holds one; Out names its
-- table, dist_METRIC) and a join makes the part's table of them, for one
-- more scan of the rows a metric.
CREATE OR REPLACE TABLE {{.Out}} AS
WITH agg AS (
    SELECT least({{.At}} // params.width, params.last) AS window_index
{{- range .Metrics}},
{{- if not $.Run}}
        count({{.Name}}) AS {{.Name}}_n,
        sum({{.Name}}{{if not .Micros}}::DECIMAL(38, 15){{end}}) AS {{.Name}}_sum,
        max({{.Name}}) AS {{.Name}}_max,
{{- end}}
        quantile_cont({{.Name}}, [{{range $i, $q := $.Quantiles}}{{if $i}}, {{end}}{{$q.Q}}{{end}}]) AS {{.Name}}_q
{{- end}}
    FROM (
        SELECT {{.At}}
{{- range .Metrics}},
            {{.Expr}} AS {{.Name}}
{{- end}}
        FROM {{.From}}
    ), params
    WHERE {{.At}} BETWEEN params.t0 AND params.t1
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
{{- $m := .}}
    {'n': {{.Name}}_n
{{- range $.Quantiles}}, '{{.Name}}': {{$m.Name}}_q[{{.Index}}]{{if $m.Micros}} / 1e6{{end}}{{end}},
{{- if .Micros}}
      'mean': {{.Name}}_sum / nullif({{.Name}}_n, 0) / 1e6, 'max': {{.Name}}_max / 1e6} AS {{.Name}},
{{- else}}
      'mean': ({{.Name}}_sum / nullif({{.Name}}_n, 0))::DOUBLE, 'max': {{.Name}}_max} AS {{.Name}},
{{- end}}
    {{.Name}}_n, {{.Name}}_sum, {{.Name}}_max
{{- end}}
FROM {{if .Run}}run{{else}}agg{{end}};
