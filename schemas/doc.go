// Package schemas is the contract of the tpsreport pipeline: the Span and Sample
// rows that ingest writes to Parquet and analyze reads with DuckDB, and the
// result documents (manifest.json, summary.json, windows, verdict.json) that
// analyze produces and report renders. Every other package imports it; it
// imports nothing of the project.
//
// Times are UTC instants held as int64 microseconds since the Unix epoch
// (schemas/README.md). A nil pointer is an unknown value, never zero.
package schemas
