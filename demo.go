// Package tpsreport holds what the whole tool ships besides code: the sample logs
// that `tpsreport demo` runs the pipeline on. The pipeline itself lives in the
// packages schemas, ingest, analyze, compare and report; cmd/tpsreport connects them.
package tpsreport

import "embed"

// DemoLogs holds testdata/demo: the logs of a baseline run whose orchestration
// stalls admission while requests wait (baseline/) and of the same traffic served
// by a work-conserving candidate (candidate/), made by `tpsreport simulate`.
//
//go:embed testdata/demo
var DemoLogs embed.FS
