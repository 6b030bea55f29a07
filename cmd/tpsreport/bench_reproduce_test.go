package main

import (
	"context"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/tpsreport/tpsreport/analyze"
	"github.com/tpsreport/tpsreport/ingest"
)

// TestVLLMBenchThroughAnalyze: a `vllm bench serve --save-detailed` result,
// ingested and analysed, reproduces the file's own statistics with vLLM's
// definitions: ttft and e2e (our t_total) within 0.5 µs — the rounding of each
// instant to a µs at ingest, which is larger than 1e-6 relative here — TPOT
// (first token excluded) within 1 µs/(n−1), and, over the benchmark's window
// ([0, duration] on the benchmark's clock, given as --from/--to), system_tps =
// output_throughput.
func TestVLLMBenchThroughAnalyze(t *testing.T) {
	src := filepath.Join("..", "..", "ingest", "testdata", "vllm", "bench", "serve_detailed.good.json")
	b, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	var want map[string]any
	if err := json.Unmarshal(b, &want); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "run")
	ctx := context.Background()
	if _, err := ingest.Run(ctx, ingest.Options{RunID: "bench", OutDir: dir, Inputs: []string{src}}); err != nil {
		t.Fatal(err)
	}
	from := time.Unix(0, 0).UTC()
	to := from.Add(time.Duration(want["duration"].(float64) * float64(time.Second)).Round(time.Microsecond))
	res, err := analyze.Run(ctx, analyze.Options{Dir: dir, From: &from, To: &to})
	if err != nil {
		t.Fatal(err)
	}
	s := res.Summary
	check := func(name string, got *float64, wantMS float64, tolS float64) {
		t.Helper()
		if got == nil || math.Abs(*got-wantMS/1e3) > tolS {
			t.Errorf("%s: got %v s, file says %v ms (tolerance %g s)", name, got, wantMS, tolS)
		}
	}
	f := func(k string) float64 { return want[k].(float64) }
	check("mean ttft", s.TTFT.Mean, f("mean_ttft_ms"), 0.5e-6)
	check("median ttft", s.TTFT.P50, f("median_ttft_ms"), 0.5e-6)
	check("p99 ttft", s.TTFT.P99, f("p99_ttft_ms"), 0.5e-6)
	check("mean e2e", s.TTotal.Mean, f("mean_e2el_ms"), 0.5e-6)
	check("median e2e", s.TTotal.P50, f("median_e2el_ms"), 0.5e-6)
	check("p99 e2e", s.TTotal.P99, f("p99_e2el_ms"), 0.5e-6)
	check("mean tpot", s.TPOT.Mean, f("mean_tpot_ms"), 1e-6)
	check("median tpot", s.TPOT.P50, f("median_tpot_ms"), 1e-6)
	check("p99 tpot", s.TPOT.P99, f("p99_tpot_ms"), 1e-6)
	if got, w := *s.SystemTPS, f("output_throughput"); math.Abs(got-w) > 1e-6*w {
		t.Errorf("system_tps %v, output_throughput %v", got, w)
	}
	// A failed request has a start but no end in the file, so it never completes:
	// it is a span with a missing released_at, not a completed request.
	if s.SucceededRequests != int64(f("completed")) || s.Requests != int64(f("completed")) ||
		s.DataQuality.MissingTimestamp["released_at"] != int64(f("failed")) {
		t.Errorf("requests %d (%d ok), %d spans without release; file: %v completed, %v failed",
			s.Requests, s.SucceededRequests, s.DataQuality.MissingTimestamp["released_at"], f("completed"), f("failed"))
	}
	if n := int64(f("completed") + f("failed")); s.DataQuality.RelativeSpans != n {
		t.Errorf("%d spans flagged benchmark-relative, want all %d", s.DataQuality.RelativeSpans, n)
	}
}
