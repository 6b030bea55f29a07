// Package analyze is the second stage of the pipeline: it reads a run dataset
// with DuckDB in process and derives the per-span, per-window and per-run
// metrics and the data-quality counts of docs/metrics.md. It is the only
// package that links DuckDB (cgo).
//
// The analysis is the list of steps in pipeline.go, run in order by one loop:
// each names its statement (queries/STAGE/NAME.sql, one statement per file,
// queries/README.md), the tables it creates and drops, and the condition it
// runs under. Go reads rows back only where a step must (the extent, the caps,
// the metrics rows); everything else stays in DuckDB. TestPipelineOrder holds
// the list to the statements' text, TestMetricColumnsMatchStruct the SQL's
// column names to schemas.Metrics, and the differential tests every number to
// the independent Go oracle (analyze/oracle).
//
// The files follow the analysis: analyze.go is Run (the dataset read, its
// window count bounded, the outputs committed) and options.go its Options;
// execution.go the connections and how a statement is run and logged;
// pipeline.go the steps, their conditions and the loop; load.go and join.go
// the spans loaded and joined (the joined file assembled in assemble.go,
// with one rule a column in assemble_columns.go); facts.go what the steps
// read back into Go (the extent, the caps, the mix, the replicas' states);
// the sweeps, the curve's merge and the join's match in *_sweep.go,
// curve_merge.go and join_go.go; requests.go requests.parquet, spliced by
// splice.go; summary.go summary.json and its data quality.
package analyze
