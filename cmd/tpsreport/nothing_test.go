package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestIngestNothingToAnalyse: every shipped fixture of a load tool's
// summary-only file (aggregates, no per-request record), a Prometheus
// scrape without timestamps, and an empty file, ingested alone, exit 2
// with one line that names the file, the reason and what would have worked;
// no dataset is written.
func TestIngestNothingToAnalyse(t *testing.T) {
	in := func(p string) string { return filepath.Join("..", "..", "ingest", "testdata", p) }
	empty := filepath.Join(t.TempDir(), "empty.jsonl")
	if err := os.WriteFile(empty, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct{ file, want string }{
		{in("vllm/bench/serve_summary.good.json"), "(vllm-bench): it is a `vllm bench serve` result without per-request data. Try: re-run `vllm bench serve` with --save-detailed"},
		{in("vllm/bench/v04_summary.good.json"), "Try: re-run `vllm bench serve` with --save-detailed"},
		{in("aiperf/profile_export_aiperf.bad.json"), "Try profile_export.jsonl, the per-request file AIPerf writes beside it"},
		{in("aiperf/profile_export_genai_perf.bad.json"), "Try profile_export.json, the per-request file GenAI-Perf writes beside it"},
		{in("aiperf/profile_export_genai_perf_trtllm.bad.json"), "Try profile_export.json"},
		{in("inference-perf/summary_lifecycle_metrics.bad.json"), "Try per_request_lifecycle_metrics.json"},
		{in("inference-perf/stage_0_lifecycle_metrics.bad.json"), "Try per_request_lifecycle_metrics.json"},
		{in("llmperf/meta-llama-Llama-2-7b-chat-hf_550_150_summary.bad.json"), "Try meta-llama-Llama-2-7b-chat-hf_550_150_individual_responses.json"},
		{in("guidellm/aggregates_only.bad.json"), "holds aggregates only, no request records. Try the report GuideLLM writes"},
		{in("sglang-bench/no_details.bad.jsonl"), "Try: run sglang.bench_serving with --output-details"},
		{in("vllm/prometheus/corrupt.bad.prom"), "sample without a timestamp (scrape with timestamps, or use query_range JSON)"},
		{empty, "empty.jsonl (empty): the file is empty: check the path, and that the server logs to it"},
	} {
		t.Run(filepath.Base(tt.file), func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "run")
			var stdout, stderr bytes.Buffer
			code := run(context.Background(), []string{"tpsreport", "ingest", "--run", "r", "--out", out, tt.file}, strings.NewReader(""), &stdout, &stderr)
			msg := stderr.String()
			if code != exitUsage || strings.Count(msg, "\n") != 1 ||
				!strings.HasPrefix(msg, "tpsreport: nothing to analyse: no input gave a request or an engine sample; "+tt.file+" (") ||
				!strings.Contains(msg, tt.want) {
				t.Errorf("exit %d, stderr %q; want exit 2 and one line with %q", code, msg, tt.want)
			}
			if _, err := os.Stat(out); !os.IsNotExist(err) {
				t.Errorf("%s was written: %v", out, err)
			}
		})
	}
}
