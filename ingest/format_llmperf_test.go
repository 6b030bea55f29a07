package ingest

import (
	"bytes"
	"encoding/json"
	"math"
	"os"
	"slices"
	"testing"
)

// durationStats returns the mean and the linear-interpolated p50 and p99 of
// xs (numpy's and pandas' default percentile).
func durationStats(xs []float64) (mean, p50, p99 float64) {
	xs = slices.Clone(xs)
	slices.Sort(xs)
	for _, v := range xs {
		mean += v
	}
	return mean / float64(len(xs)), vllmPercentile(xs, 50), vllmPercentile(xs, 99)
}

// checkStat fails when got is not want to 1e-6 s (the µs rounding of the
// spans' times: each duration is within 0.5 µs, its mean and quantiles too)
// or 1e-6 relative.
func checkStat(t *testing.T, name string, got, want float64) {
	t.Helper()
	if d := math.Abs(got - want); d > 1e-6 && d > 1e-6*math.Abs(want) {
		t.Errorf("%s: got %.9f, the tool says %.9f (|Δ| %.3g)", name, got, want, d)
	}
}

// TestLLMPerfReproducesSummary: the spans of the individual responses give
// the aggregates llmperf's metrics_summary wrote beside them (the summary
// fixture), under llmperf's definitions: over the records whose error_code
// is null, ttft_s and end_to_end_latency_s as pandas' mean and
// Series.quantile (linear) p50 and p99; tpsreport's ttft is queued_at →
// first_token_at and its t_total queued_at → released_at, each span timed
// from its own start (time_origin request). llmperf's inter_token_latency_s
// (last content chunk's time over the chunks, TTFT included) is not
// carried; number_output_tokens is, and its mean is checked. Throughput is
// not: the individual responses carry durations only, no instant, so there
// is no window (llmperf's results_mean_output_throughput_token_per_s is
// Σ output tokens over the run's own clock, start to end of the whole
// benchmark, which is in no per-request record).
func TestLLMPerfReproducesSummary(t *testing.T) {
	const dir = "testdata/llmperf/"
	const name = "meta-llama-Llama-2-7b-chat-hf_550_150"
	b, err := os.ReadFile(dir + name + "_summary.bad.json")
	if err != nil {
		t.Fatal(err)
	}
	var sum map[string]any
	if err := json.Unmarshal(b, &sum); err != nil {
		t.Fatal(err)
	}
	want := func(k string) float64 {
		v, ok := sum[k].(float64)
		if !ok {
			t.Fatalf("summary has no %s", k)
		}
		return v
	}
	var ttft, e2e, out []float64
	for _, rec := range vllmReadAll(t, "llmperf", dir+name+"_individual_responses.good.json") {
		sp := rec.Span
		if rec.Kind != KindSpan {
			t.Fatalf("%v record: %v", rec.Kind, rec.Err)
		}
		if *sp.QueuedAt != 0 || sp.TimeOrigin == nil || *sp.TimeOrigin != "request" {
			t.Fatalf("span %s: queued_at %d, time_origin %v; want 0, request", sp.SpanID, *sp.QueuedAt, sp.TimeOrigin)
		}
		if sp.Status != "ok" {
			continue
		}
		ttft = append(ttft, seconds(sp.QueuedAt, sp.FirstTokenAt))
		e2e = append(e2e, seconds(sp.QueuedAt, sp.ReleasedAt))
		out = append(out, float64(*sp.OutputTokens))
	}
	if n := int(want("results_num_completed_requests")); len(ttft) != n {
		t.Fatalf("%d successful spans, llmperf completed %d", len(ttft), n)
	}
	for key, vals := range map[string][]float64{"ttft_s": ttft, "end_to_end_latency_s": e2e} {
		mean, p50, p99 := durationStats(vals)
		checkStat(t, key+" mean", mean, want("results_"+key+"_mean"))
		checkStat(t, key+" p50", p50, want("results_"+key+"_quantiles_p50"))
		checkStat(t, key+" p99", p99, want("results_"+key+"_quantiles_p99"))
	}
	mean, _, _ := durationStats(out)
	checkStat(t, "number_output_tokens mean", mean, want("results_number_output_tokens_mean"))
}

// TestSGLangBenchReproducesSummary: the spans of each result line give the
// aggregates bench_serving's calculate_metrics wrote in it, under its
// definitions: over the successful requests, TTFT = ttfts[i], E2E =
// latency (for the trt backend of the fixtures, the last chunk's reading:
// ttft + Σ itls), TPOT = (latency − ttft)/(output_len − 1) over requests
// with output_len > 1, each as numpy's mean, median and percentile(99)
// (linear); and the mean ITL, Σ itls over their count, which is Σ t_stream
// over Σ (output_tokens − 1) when every chunk is one token (as with trt).
// Median and p99 ITL are over single chunk gaps, which spans do not keep.
// output_throughput (total output tokens / duration, the benchmark's own
// perf_counter span around the whole run) is not checked: the per-request
// arrays carry durations only, no instant, so there is no window to divide by.
func TestSGLangBenchReproducesSummary(t *testing.T) {
	for _, file := range []string{"testdata/sglang-bench/trt_details.good.jsonl", "testdata/sglang-bench/two_runs.good.jsonl"} {
		t.Run(file, func(t *testing.T) {
			b, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			var lines []map[string]any
			dec := json.NewDecoder(bytes.NewReader(b))
			for dec.More() {
				var m map[string]any
				if err := dec.Decode(&m); err != nil {
					t.Fatal(err)
				}
				lines = append(lines, m)
			}
			type acc struct {
				ttft, e2e, tpot []float64
				stream, gaps    float64
			}
			runs := make([]acc, len(lines))
			for _, rec := range vllmReadAll(t, "sglang-bench", file) {
				sp := rec.Span
				if rec.Kind != KindSpan {
					t.Fatalf("%v record: %v", rec.Kind, rec.Err)
				}
				if sp.Status != "ok" {
					continue
				}
				k := int(sp.SpanID[len("result-")] - '1')
				a := &runs[k]
				a.ttft = append(a.ttft, seconds(sp.QueuedAt, sp.FirstTokenAt))
				a.e2e = append(a.e2e, seconds(sp.QueuedAt, sp.ReleasedAt))
				if n := *sp.OutputTokens; n > 1 {
					a.tpot = append(a.tpot, seconds(sp.FirstTokenAt, sp.LastTokenAt)/float64(n-1))
					a.stream += seconds(sp.FirstTokenAt, sp.LastTokenAt)
					a.gaps += float64(n - 1)
				}
			}
			for k, m := range lines {
				a := runs[k]
				if n := int(m["completed"].(float64)); len(a.ttft) != n {
					t.Fatalf("line %d: %d successful spans, completed %d", k+1, len(a.ttft), n)
				}
				for _, d := range []struct {
					key  string
					vals []float64
				}{{"ttft", a.ttft}, {"e2e_latency", a.e2e}, {"tpot", a.tpot}} {
					mean, p50, p99 := durationStats(d.vals)
					checkStat(t, d.key+" mean", mean*1000, m["mean_"+d.key+"_ms"].(float64))
					checkStat(t, d.key+" median", p50*1000, m["median_"+d.key+"_ms"].(float64))
					checkStat(t, d.key+" p99", p99*1000, m["p99_"+d.key+"_ms"].(float64))
				}
				checkStat(t, "itl mean", a.stream/a.gaps*1000, m["mean_itl_ms"].(float64))
			}
		})
	}
}
