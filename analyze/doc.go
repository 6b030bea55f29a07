// Package analyze is the second stage of the pipeline: it reads a run dataset
// with DuckDB in process and derives the per-span, per-window and per-run
// metrics of docs/metrics.md and the data-quality counts of §6 in SQL kept under
// queries/. It is the only package that links DuckDB (cgo).
package analyze
