package ingest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/tpsreport/tpsreport/schemas"
)

// guidellmWeightedPercentile is GuideLLM's percentile of weighted values
// (DistributionSummary: 0.3 from_distribution_function, argmax(cdf >= p);
// 0.4 and later Percentiles.from_pdf, searchsorted(cdf, p, "left")): equal
// values are merged, zero weights dropped, and the percentile is the first
// value in ascending order whose cumulative probability reaches p. The mean
// is the weighted mean.
func guidellmWeighted(vals, weights []float64, p float64) (mean, pct float64) {
	type vw struct{ v, w float64 }
	var xs []vw
	for i, v := range vals {
		xs = append(xs, vw{v, weights[i]})
	}
	slices.SortFunc(xs, func(a, b vw) int {
		switch {
		case a.v < b.v:
			return -1
		case a.v > b.v:
			return 1
		}
		return 0
	})
	var merged []vw
	for _, x := range xs {
		if n := len(merged); n > 0 && merged[n-1].v == x.v {
			merged[n-1].w += x.w
		} else {
			merged = append(merged, x)
		}
	}
	total := 0.0
	for _, x := range merged {
		total += x.w
	}
	cum := 0.0
	pct = math.NaN()
	for _, x := range merged {
		if x.w <= 0 {
			continue
		}
		mean += x.v * x.w / total
		cum += x.w / total
		if math.IsNaN(pct) && cum >= p {
			pct = x.v
		}
	}
	if math.IsNaN(pct) && len(merged) > 0 {
		pct = merged[len(merged)-1].v
	}
	return mean, pct
}

// TestGuideLLMReproducesMetrics recomputes, for every benchmark of every good
// GuideLLM fixture, the report's own metrics of the successful requests
// (metrics.NAME.successful: mean, median, percentiles.p99) from our spans,
// under GuideLLM's definitions:
//
//	time_to_first_token_ms   1000·(first_token − start), every request with a token
//	inter_token_latency_ms   1000·(last_token − first_token)/(n − 1), weight n − 1, n > 1
//	time_per_output_token_ms before 0.4: 1000·(last_token − first_token)/n;
//	                         0.4 and later: 1000·(last_token − start)/n (TTFT included); weight n
//	request_latency          end − start, seconds
//
// with GuideLLM's weighted percentiles (guidellmWeighted). Our ttft is the
// first, our tpot (t_stream/(n − 1)) the second, our t_total the last.
//
// Tolerance, the µs-rounding bound: every instant is rounded to the µs once
// (≤ 0.5 µs), and GuideLLM subtracted the float64 the file's digits
// denote (≤ 0.12 µs from them at 1.7e9 s), so a difference of two instants
// is within 1.5 µs, and a per-token time within 1.5 µs over the smallest
// divisor; 1e-9 relative covers summation order.
// guidellmReportJSON is a GuideLLM report fixture as JSON (a YAML one
// converted).
func guidellmReportJSON(t *testing.T, file string) []byte {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if filepath.Ext(file) == ".yaml" {
		if data, err = guidellmYAMLToJSON(data); err != nil {
			t.Fatal(err)
		}
	}
	return data
}

func TestGuideLLMReproducesMetrics(t *testing.T) {
	checked := 0
	for _, file := range loadToolFixtures("guidellm", ".good.") {
		if guidellmSampledFixture(t, file) {
			continue // its metrics are of requests the file does not hold
		}
		spans := loadToolSpans(t, "guidellm", file)
		data := guidellmReportJSON(t, file)
		var rep struct {
			Metadata   any `json:"metadata"`
			Benchmarks []struct {
				Metrics  map[string]map[string]map[string]any `json:"metrics"`
				Requests struct {
					Successful []struct {
						RequestID string `json:"request_id"`
					} `json:"successful"`
				} `json:"requests"`
			} `json:"benchmarks"`
		}
		if err := json.Unmarshal(data, &rep); err != nil {
			t.Fatal(err)
		}
		// Before 0.4 the requests carry start_time; the 0.4 report has info.timings.
		pre04 := strings.Contains(string(data), `"first_token_time"`)
		for n, b := range rep.Benchmarks {
			var ttft, itl, itlW, tpot, tpotW, lat []float64
			minN := math.MaxFloat64
			for _, q := range b.Requests.Successful {
				rec, ok := spans[fmt.Sprintf("b%d/%s", n, q.RequestID)]
				if !ok {
					t.Fatalf("%s: no span for b%d/%s", file, n, q.RequestID)
				}
				sp := rec.Span
				if sp.Status != "ok" {
					t.Errorf("%s: %s: status %q, want ok", file, sp.SpanID, sp.Status)
				}
				lat = append(lat, seconds(sp.QueuedAt, sp.ReleasedAt))
				out := float64(*sp.OutputTokens)
				if out == 0 {
					continue
				}
				minN = min(minN, out)
				ttft = append(ttft, 1000*seconds(sp.QueuedAt, sp.FirstTokenAt))
				if pre04 {
					tpot = append(tpot, 1000*seconds(sp.FirstTokenAt, sp.LastTokenAt)/out)
				} else {
					tpot = append(tpot, 1000*seconds(sp.QueuedAt, sp.LastTokenAt)/out)
				}
				tpotW = append(tpotW, out)
				if out > 1 {
					// our tpot: t_stream / (output_tokens − 1)
					itl = append(itl, 1000*seconds(sp.FirstTokenAt, sp.LastTokenAt)/(out-1))
					itlW = append(itlW, out-1)
				}
			}
			ones := func(xs []float64) []float64 {
				w := make([]float64, len(xs))
				for i := range w {
					w[i] = 1
				}
				return w
			}
			const bound = 1.5e-6 // seconds
			for _, m := range []struct {
				key       string
				vals, wts []float64
				tol       float64 // in the metric's unit
			}{
				{"time_to_first_token_ms", ttft, ones(ttft), bound * 1000},
				{"inter_token_latency_ms", itl, itlW, bound * 1000 / (minN - 1)},
				{"time_per_output_token_ms", tpot, tpotW, bound * 1000 / minN},
				{"request_latency", lat, ones(lat), bound},
			} {
				want := b.Metrics[m.key]["successful"]
				if want == nil || len(m.vals) == 0 {
					t.Fatalf("%s benchmark %d: no %s", file, n, m.key)
				}
				mean, _ := guidellmWeighted(m.vals, m.wts, 0)
				_, median := guidellmWeighted(m.vals, m.wts, 0.5)
				_, p99 := guidellmWeighted(m.vals, m.wts, 0.99)
				for _, st := range []struct {
					name      string
					got, want float64
				}{
					{"mean", mean, want["mean"].(float64)},
					{"median", median, want["median"].(float64)},
					{"p99", p99, want["percentiles"].(map[string]any)["p99"].(float64)},
				} {
					if d := math.Abs(st.got - st.want); d > m.tol+1e-9*math.Abs(st.want) {
						t.Errorf("%s benchmark %d: %s %s: got %.9f, report says %.9f (|Δ| %.3g > %.3g)", file, n, m.key, st.name, st.got, st.want, d, m.tol)
					}
				}
				checked++
			}
		}
	}
	if checked < 4*5 {
		t.Errorf("checked %d metrics, want 4 of each of 5 benchmarks", checked)
	}
}

// TestGuideLLMBenchmarkPick: a sweep's benchmarks ran at different loads, so
// a report of several is read one benchmark at a time: without --benchmark it
// is an error listing them; --benchmark N reads N's requests and counts the
// others' as other_benchmark skips; a benchmark that is not there is an error.
func TestGuideLLMBenchmarkPick(t *testing.T) {
	const file = "testdata/guidellm/v03_sweep.good.json"
	read := func(pick *int) (spans, skips int, ids []string, err error) {
		f, err := os.Open(file)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		rd := formats["guidellm"].New(Input{Name: file, R: f, Benchmark: pick})
		for rd.Next() {
			switch rec := rd.Record(); {
			case rec.Kind == KindSpan:
				spans++
				ids = append(ids, rec.Span.SpanID)
			case rec.Kind == KindSkip && rec.Skip == SkipOtherBenchmark:
				skips++
			}
		}
		return spans, skips, ids, rd.Err()
	}
	if _, _, _, err := read(nil); err == nil || err.Error() != "a GuideLLM sweep of 2 benchmarks (0: 10 requests, 1: 12 requests), each at its own load: ingest each as a run of its own (Try: --benchmark N)" {
		t.Errorf("no --benchmark: %v", err)
	}
	one := 1
	spans, skips, ids, err := read(&one)
	if err != nil || spans != 12 || skips != 10 {
		t.Fatalf("--benchmark 1: %d spans, %d skips, %v; want 12, 10, nil", spans, skips, err)
	}
	for _, id := range ids {
		if !strings.HasPrefix(id, "b1/") {
			t.Errorf("--benchmark 1 gave span %s", id)
		}
	}
	five := 5
	if _, _, _, err := read(&five); err == nil || err.Error() != "--benchmark 5: the report holds 2 benchmarks (0: 10 requests, 1: 12 requests)" {
		t.Errorf("--benchmark 5: %v", err)
	}
}

// TestGuideLLMReproducesThroughput: for every benchmark of every good
// GuideLLM fixture, our output tokens over GuideLLM's window, from our spans'
// instants, give the report's metrics.output_tokens_per_second.successful.mean.
// The fixtures' figures were computed from their requests with GuideLLM's
// code (testdata/guidellm/throughput.py). GuideLLM's figure is the mean of a
// time-weighted distribution of instantaneous rates (count of token events /
// interval), and such a mean telescopes to token events counted / window:
//
//	before 0.4 (v0.3.1 121dcdc, benchmark.py GenerativeBenchmark.from_stats,
//	objects/statistics.py from_iterable_request_times): the successful
//	requests with output_tokens > 0; one token at first_token_time, the
//	other n − 1 spread evenly up to end_time; window min start_time →
//	max end_time; each interval counts the events at its start, so the
//	event at the window end (the last token of the request ending last, if
//	it has n > 1) is not counted: (Σ n − 1) / (max end − min start);
//	0.4 and later (ee7a774, benchmark/schemas/metrics.py
//	GenerativeMetrics.compile, schemas/request_stats.py
//	output_tokens_timings, schemas/statistics.py
//	rate_distribution_from_timings, no start/end given): the successful
//	requests (measured range); one token at first_token_iteration, the rest
//	spread evenly over token_iterations up to last_token_iteration (a
//	single iteration: all n at last_token_iteration); each event's interval
//	runs midpoint to midpoint, so every token counts and the window is
//	min first token → max last token: Σ n / (max last − min first).
//
// This holds while no other token event lies within GuideLLM's merge
// threshold (1e-6 s before 0.4, 1e-4 s after) before the last one, which
// would move the window's end back onto it: the fixtures' figures agree with
// the formulas above to 1e-14 from the file's floats. Interior events need
// token_iterations, which spans do not carry, so the check is not made here.
// GuideLLM's median and percentiles of output_tokens_per_second are of those
// instantaneous rates under its even-spacing model (interior token times it
// invents), not of a throughput over a window: they are not checked.
//
// Tolerance, the µs-rounding bound of TestGuideLLMReproducesMetrics: the
// window is within 1.5 µs, so the rate within 1.5 µs/window relative; 1e-9
// relative covers summation order.
func TestGuideLLMReproducesThroughput(t *testing.T) {
	checked := 0
	for _, file := range loadToolFixtures("guidellm", ".good.") {
		if guidellmSampledFixture(t, file) {
			continue // its metrics are of requests the file does not hold
		}
		spans := loadToolSpans(t, "guidellm", file)
		data := guidellmReportJSON(t, file)
		var rep struct {
			Benchmarks []struct {
				Metrics struct {
					OutputTokensPerSecond struct {
						Successful struct {
							Mean *float64 `json:"mean"`
						} `json:"successful"`
					} `json:"output_tokens_per_second"`
				} `json:"metrics"`
				Requests struct {
					Successful []struct {
						RequestID string `json:"request_id"`
					} `json:"successful"`
				} `json:"requests"`
			} `json:"benchmarks"`
		}
		if err := json.Unmarshal(data, &rep); err != nil {
			t.Fatal(err)
		}
		pre04 := strings.Contains(string(data), `"first_token_time"`)
		for n, b := range rep.Benchmarks {
			want := b.Metrics.OutputTokensPerSecond.Successful.Mean
			if want == nil {
				t.Fatalf("%s benchmark %d: no metrics.output_tokens_per_second.successful.mean", file, n)
			}
			var tokens float64
			var lo, hi, lastN int64 = math.MaxInt64, math.MinInt64, 0
			for _, q := range b.Requests.Successful {
				rec, ok := spans[fmt.Sprintf("b%d/%s", n, q.RequestID)]
				if !ok {
					t.Fatalf("%s: no span for b%d/%s", file, n, q.RequestID)
				}
				sp := rec.Span
				out := *sp.OutputTokens
				if out == 0 {
					continue // before 0.4 not counted; after, no token event
				}
				tokens += float64(out)
				start, end := *sp.FirstTokenAt, *sp.LastTokenAt
				if pre04 {
					start, end = *sp.QueuedAt, *sp.ReleasedAt
				}
				lo = min(lo, start)
				if end > hi {
					hi, lastN = end, out
				}
			}
			if pre04 && lastN > 1 {
				tokens-- // the event at the window's end
			}
			window := float64(hi-lo) / 1e6
			got := tokens / window
			tol := *want * (1.5e-6/window + 1e-9)
			if d := math.Abs(got - *want); d > tol {
				t.Errorf("%s benchmark %d: output tokens / window = %.9f, output_tokens_per_second.successful.mean %.9f (|Δ| %.3g > %.3g)", file, n, got, *want, d, tol)
			}
			checked++
		}
	}
	if checked != 5 {
		t.Errorf("checked %d benchmarks, want 5", checked)
	}
}

// guidellmSampledFixture reports whether a report holds a sample of its
// requests (TestGuideLLMSampled): the metrics GuideLLM computed from all of
// them cannot be recomputed from it.
func guidellmSampledFixture(t *testing.T, file string) bool {
	t.Helper()
	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rd := newGuideLLMReader(Input{Name: file, R: f, MaxLineBytes: DefaultMaxLineBytes})
	for rd.Next() {
	}
	return len(rd.(sampler).sampled()) > 0
}

// TestGuideLLMSampled: GuideLLM's own test asset keeps 1 of the 47 requests
// its request_totals count; the ingest says so in the input's manifest
// entry and in a warning, and other reports hold all of theirs.
func TestGuideLLMSampled(t *testing.T) {
	var log bytes.Buffer
	in := filepath.Join("testdata", "guidellm", "benchmarks_stripped.good.json")
	m, err := Run(context.Background(), Options{RunID: "r", OutDir: filepath.Join(t.TempDir(), "out"), Inputs: []string{in}, Log: newTestLogger(&log)})
	if err != nil {
		t.Fatal(err)
	}
	want := []schemas.SampledInput{{Scope: "GuideLLM benchmark 0", Listed: 47, Held: 1}}
	if got := m.Inputs[0].Sampled; !reflect.DeepEqual(got, want) || m.Counts.Written != 1 {
		t.Errorf("sampled %+v, written %d; want %+v and 1", got, m.Counts.Written, want)
	}
	if w := in + ": GuideLLM benchmark 0 lists 47 requests; the file holds 1 request record: latencies and success_rate are of that sample"; !strings.Contains(log.String(), w) {
		t.Errorf("log\n%s\nlacks %q", log.String(), w)
	}
	for _, f := range []string{"v03_sweep.good.json", "v04_report.good.json", "v04_report.good.yaml"} {
		if guidellmSampledFixture(t, filepath.Join("testdata", "guidellm", f)) {
			t.Errorf("%s holds all its requests, but reads as a sample", f)
		}
	}
}
