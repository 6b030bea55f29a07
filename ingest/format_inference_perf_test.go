package ingest

import (
	"math"
	"slices"
	"strings"
	"testing"
)

// TestInferencePerfReproducesSummary recomputes inference-perf's own
// aggregates of testdata/inference-perf/per_request_lifecycle_metrics.good.json
// from our spans. The wanted values are summarize_requests
// (inference_perf/reportgen/base.py) over that file's successful requests
// (error null), computed when the fixture was generated (README.md) with its
// definitions and numpy's linear percentiles:
//
//	request_latency        end_time − start_time                  our t_total
//	time_to_first_token    output_token_times[0] − start_time,    our ttft
//	                       requests with more than one token time
//	time_per_output_token  (times[-1] − times[0])/(output_tokens − 1)  our tpot = t_stream/(n − 1)
//	inter_token_latency    every gap between consecutive token times,
//	                       pooled; its mean Σ(times[-1] − times[0]) / Σ(len(times) − 1)
//	                       is Σ t_stream / Σ(n − 1) where, as here, a
//	                       request has one time per output token (its median
//	                       and p99 need the single gaps, which spans do not keep)
//	successes.throughput.output_tokens_per_sec
//	                       Σ output_tokens of the successes (response_metrics.output_tokens,
//	                       use_server_output_tokens off by default) / total_time, where
//	                       total_time = max end_time − min start_time over every request,
//	                       the failure too: our Σ output_tokens of the ok spans over
//	                       max released_at − min queued_at of all spans
//
// mean, median and p99 in seconds; the throughput in tokens/s, to the
// window's bound (1 µs over 1.63 s) relative. Tolerance, the µs-rounding bound: each
// instant is rounded once to the µs after rebasing (0.5 µs), so a duration
// is within 1 µs, a TPOT within 1 µs/(n − 1) ≤ 1 µs, the ITL mean within 1 µs;
// 1e-9 relative covers summation order.
func TestInferencePerfReproducesSummary(t *testing.T) {
	const file = "testdata/inference-perf/per_request_lifecycle_metrics.good.json"
	want := map[string][3]float64{ // mean, median, p99
		"request_latency":       {0.3614826067696413, 0.354492645659775, 0.5970626552580506},
		"time_to_first_token":   {0.16447031318550995, 0.16114902855770197, 0.2670492844935507},
		"time_per_output_token": {0.020107915821138283, 0.020425713613803964, 0.024516153482974107},
	}
	const wantITLMean = 0.020292757141181606
	const wantOutputTokensPerSec = 57.72951922494766
	var lat, ttft, tpot []float64
	var stream float64
	var gaps int64
	errs := 0
	var outTokens int64
	var first, last int64 = math.MaxInt64, math.MinInt64
	for _, rec := range vllmReadAll(t, "inference-perf", file) {
		sp := rec.Span
		if rec.Kind != KindSpan {
			t.Fatalf("%s: %v record: %v", file, rec.Kind, rec.Err)
		}
		first, last = min(first, *sp.QueuedAt), max(last, *sp.ReleasedAt)
		if sp.Status != "ok" {
			errs++
			continue
		}
		lat = append(lat, seconds(sp.QueuedAt, sp.ReleasedAt))
		outTokens += *sp.OutputTokens
		if sp.FirstTokenAt == nil {
			continue
		}
		ttft = append(ttft, seconds(sp.QueuedAt, sp.FirstTokenAt))
		n := *sp.OutputTokens
		tpot = append(tpot, seconds(sp.FirstTokenAt, sp.LastTokenAt)/float64(n-1))
		stream += seconds(sp.FirstTokenAt, sp.LastTokenAt)
		gaps += n - 1
	}
	if len(lat) != 8 || len(ttft) != 7 || errs != 1 {
		t.Fatalf("%d latencies, %d TTFTs, %d errors; want 8, 7 (one request not streamed), 1", len(lat), len(ttft), errs)
	}
	check := func(name, stat string, got, w float64) {
		t.Helper()
		if d := math.Abs(got - w); d > 1e-6+1e-9*math.Abs(w) {
			t.Errorf("%s %s: got %.9f s, inference-perf says %.9f s (|Δ| %.3g)", name, stat, got, w, d)
		}
	}
	for name, vals := range map[string][]float64{"request_latency": lat, "time_to_first_token": ttft, "time_per_output_token": tpot} {
		vals = slices.Clone(vals)
		slices.Sort(vals)
		mean := 0.0
		for _, v := range vals {
			mean += v
		}
		mean /= float64(len(vals))
		w := want[name]
		check(name, "mean", mean, w[0])
		check(name, "median", vllmPercentile(vals, 50), w[1])
		check(name, "p99", vllmPercentile(vals, 99), w[2])
	}
	check("inter_token_latency", "mean", stream/float64(gaps), wantITLMean)
	window := float64(last-first) / 1e6
	got := float64(outTokens) / window
	if d := math.Abs(got - wantOutputTokensPerSec); d > wantOutputTokensPerSec*(1e-6/window+1e-9) {
		t.Errorf("output tokens / window = %.9f tokens/s, inference-perf's output_tokens_per_sec %.9f (|Δ| %.3g)", got, wantOutputTokensPerSec, d)
	}
}

// TestInferencePerfShapes: each shape inference-perf's InferenceInfo has
// had gives the same span. The request starts 0.25 s after the file's first
// (t0 = 100.0), streams 4 tokens from 100.4 to 100.55 and ends at 100.5625:
// queued_at 250000 µs, first_token_at 400000, last_token_at 550000,
// released_at 562500, 12 input and 4 output tokens. With one token time (or
// none: not streamed) inference-perf has no TTFT, nor have we.
func TestInferencePerfShapes(t *testing.T) {
	const first = `{"start_time": 100.0, "end_time": 100.1, "request": "{}", "response": "", "info": {"input_tokens": 1, "output_tokens": 0, "output_token_times": []}, "error": null}`
	for _, tc := range []struct {
		name, info string
		streamed   bool
	}{
		{"flat (before 3b882ba)", `{"input_tokens": 12, "output_tokens": 4, "output_token_times": [100.4, 100.45, 100.5, 100.55], "extra_info": {}, "lora_adapter": null}`, true},
		{"response_info (3b882ba to f23cb85)", `{"input_tokens": 12, "extra_info": {}, "lora_adapter": null, "response_info": {"response_chunks": [], "chunk_times": [], "output_tokens": 4, "output_token_times": [100.4, 100.45, 100.5, 100.55], "server_usage": null}}`, true},
		{"request_metrics (since f23cb85)", `{"request_metrics": {"text": {"input_tokens": 12}, "image": null, "video": null, "audio": null}, "response_metrics": {"output_tokens": 4, "server_usage": null, "response_chunks": [], "chunk_times": [], "output_token_times": [100.4, 100.45, 100.5, 100.55]}, "extra_info": {}, "lora_adapter": null, "labels": {}, "input_tokens": 12}`, true},
		{"one token time", `{"request_metrics": {"text": {"input_tokens": 12}}, "response_metrics": {"output_tokens": 4, "output_token_times": [100.4]}, "input_tokens": 12}`, false},
		{"not streamed", `{"request_metrics": {"text": {"input_tokens": 12}}, "response_metrics": {"output_tokens": 4, "server_usage": {"completion_tokens": 4}}, "input_tokens": 12}`, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			doc := "[" + first + `, {"start_time": 100.25, "end_time": 100.5625, "request": "{}", "response": "ok", "info": ` + tc.info + `, "error": null}]`
			var got []Record
			rd := vllmTestReader("inference-perf", "t.json", strings.NewReader(doc))
			for rd.Next() {
				got = append(got, *rd.Record())
			}
			if len(got) != 2 || got[1].Kind != KindSpan {
				t.Fatalf("records %+v", got)
			}
			sp := got[1].Span
			if *sp.QueuedAt != 250000 || *sp.ReleasedAt != 562500 || *sp.InputTokens != 12 || *sp.OutputTokens != 4 ||
				sp.Status != "ok" || *sp.TimeOrigin != "benchmark" || sp.SpanID != "request-1" {
				t.Errorf("span %s: queued %d released %d in %d out %d status %s origin %s; want request-1: 250000 562500 12 4 ok benchmark",
					sp.SpanID, *sp.QueuedAt, *sp.ReleasedAt, *sp.InputTokens, *sp.OutputTokens, sp.Status, *sp.TimeOrigin)
			}
			if !tc.streamed {
				if sp.FirstTokenAt != nil || sp.LastTokenAt != nil {
					t.Errorf("token times %v %v, want none", sp.FirstTokenAt, sp.LastTokenAt)
				}
				return
			}
			if sp.FirstTokenAt == nil || *sp.FirstTokenAt != 400000 || *sp.LastTokenAt != 550000 {
				t.Errorf("first, last token at %v, %v; want 400000, 550000", sp.FirstTokenAt, sp.LastTokenAt)
			}
		})
	}
}
