// Package ingest is the first stage of the pipeline: it reads the logs that
// serving systems write, one Reader per source format, and writes a run
// dataset (spans.parquet, samples.parquet, manifest.json, rejects.jsonl) that
// analyze reads. It is pure Go: no cgo, no DuckDB.
package ingest
