package ingest

import (
	"encoding/json"
	"math"
	"os"
	"slices"
	"strings"
	"testing"
)

// TestAIPerfReproducesSummary recomputes each tool's own summary from our
// spans of its per-request file, under the tool's definitions, over the
// successful requests (status ok), with numpy's linear percentiles (AIPerf
// MetricArray.to_result, GenAI-Perf Statistics):
//
//	AIPerf profile_export.jsonl → profile_export_aiperf.json
//	  time_to_first_token  first response − request start          our ttft
//	  request_latency      last response − request start           our t_total
//	  inter_token_latency  (latency − TTFT)/(OSL − 1), OSL ≥ 2      our tpot = t_stream/(n − 1)
//	  output_token_throughput  Σ OSL / (max(start + latency) − min(start))
//	  AIPerf's records manager drops warm-up records before any result
//	  (records_manager.py): the fixture's warm-up record is skipped, and
//	  request_count is the number of our ok spans
//	GenAI-Perf profile_export.json → profile_export_genai_perf.json
//	  time_to_first_token, request_latency over the responses with content
//	  (OpenAI: no token counts in the file, so no ITL or throughput)
//	GenAI-Perf triton_c_api export → profile_export_genai_perf_trtllm.json
//	  the same, and inter_token_latency round((latency − TTFT)/(OSL − 1)) ns,
//	  output_token_throughput Σ OSL / (max last response − min request
//	  timestamp), OSL the number of output_ids
//
// avg, p50 and p99 of each, in ms. Tolerance, the µs-rounding bound: AIPerf's
// durations are added to the µs-rounded start after rounding once (0.5 µs),
// ITL within 1 µs/(OSL − 1) (GenAI-Perf's rounded to the ns: + 0.5 ns);
// GenAI-Perf's are differences of two rounded instants (1 µs); the benchmark
// window of the throughput within 1.5 µs (relative 1.5 µs / duration); 1e-9
// relative covers summation order.
func TestAIPerfReproducesSummary(t *testing.T) {
	for _, tc := range []struct {
		records, summary string
		bound            float64 // seconds, for a ttft or a latency
		itl, throughput  bool
		warmup           int // warm-up records skipped
	}{
		{"testdata/aiperf/profile_export.good.jsonl", "testdata/aiperf/profile_export_aiperf.bad.json", 0.5e-6, true, true, 1},
		{"testdata/aiperf/genai_perf_profile_export.good.json", "testdata/aiperf/profile_export_genai_perf.bad.json", 1e-6, false, false, 0},
		{"testdata/aiperf/genai_perf_trtllm_engine.good.json", "testdata/aiperf/profile_export_genai_perf_trtllm.bad.json", 1e-6, true, true, 0},
	} {
		data, err := os.ReadFile(tc.summary)
		if err != nil {
			t.Fatal(err)
		}
		var all map[string]json.RawMessage
		if err := json.Unmarshal(data, &all); err != nil {
			t.Fatal(err)
		}
		sum := map[string]map[string]any{} // the metrics; input_config and the rest are other shapes
		for k, raw := range all {
			var m map[string]any
			if json.Unmarshal(raw, &m) == nil && m["unit"] != nil {
				sum[k] = m
			}
		}
		var ttft, lat, itl []float64
		var osl int64
		minOSL := int64(math.MaxInt64)
		lo, hi := int64(math.MaxInt64), int64(math.MinInt64)
		warmup, ok := 0, 0
		for _, rec := range vllmReadAll(t, "aiperf", tc.records) {
			if rec.Kind == KindSkip && rec.Skip == SkipWarmup {
				warmup++
			}
			sp := rec.Span
			if rec.Kind != KindSpan || sp.Status != "ok" {
				continue
			}
			ok++
			ttft = append(ttft, 1000*seconds(sp.QueuedAt, sp.FirstTokenAt))
			lat = append(lat, 1000*seconds(sp.QueuedAt, sp.ReleasedAt))
			lo, hi = min(lo, *sp.QueuedAt), max(hi, *sp.ReleasedAt)
			if sp.OutputTokens == nil {
				continue
			}
			osl += *sp.OutputTokens
			if n := *sp.OutputTokens; n > 1 {
				itl = append(itl, 1000*seconds(sp.FirstTokenAt, sp.LastTokenAt)/float64(n-1))
				minOSL = min(minOSL, n)
			}
		}
		metrics := []struct {
			key  string
			vals []float64
			tol  float64 // ms
		}{{"time_to_first_token", ttft, tc.bound * 1000}, {"request_latency", lat, tc.bound * 1000}}
		if tc.itl {
			metrics = append(metrics, struct {
				key  string
				vals []float64
				tol  float64
			}{"inter_token_latency", itl, 1e-3/float64(minOSL-1) + 0.5e-6})
		}
		if warmup != tc.warmup {
			t.Errorf("%s: %d warm-up records skipped, want %d", tc.records, warmup, tc.warmup)
		}
		if c, found := sum["request_count"]; found && c["avg"].(float64) != float64(ok) {
			t.Errorf("%s: %d ok spans, the summary's request_count is %v", tc.records, ok, c["avg"])
		}
		for _, m := range metrics {
			if len(m.vals) < 5 {
				t.Fatalf("%s: %d values of %s", tc.records, len(m.vals), m.key)
			}
			want := sum[m.key]
			if want["unit"] != "ms" {
				t.Fatalf("%s: %s in %v, want ms", tc.summary, m.key, want["unit"])
			}
			vals := slices.Clone(m.vals)
			slices.Sort(vals)
			mean := 0.0
			for _, v := range vals {
				mean += v
			}
			mean /= float64(len(vals))
			for _, st := range []struct {
				name string
				got  float64
			}{{"avg", mean}, {"p50", vllmPercentile(vals, 50)}, {"p99", vllmPercentile(vals, 99)}} {
				w := want[st.name].(float64)
				if d := math.Abs(st.got - w); d > m.tol+1e-9*math.Abs(w) {
					t.Errorf("%s: %s %s: got %.9f ms, summary says %.9f ms (|Δ| %.3g > %.3g)", tc.records, m.key, st.name, st.got, w, d, m.tol)
				}
			}
		}
		if tc.throughput {
			dur := float64(hi-lo) / 1e6
			got := float64(osl) / dur
			w := sum["output_token_throughput"]["avg"].(float64)
			if rel := math.Abs(got-w) / w; rel > 1.5e-6/dur+1e-9 {
				t.Errorf("%s: output tokens / window = %.9f, output_token_throughput %.9f (relative %.3g)", tc.records, got, w, rel)
			}
		}
	}
}

// TestGenAIPerfTokenNotice: a GenAI-Perf export whose token counts are not in
// the file (OpenAI: response text, which GenAI-Perf tokenizes) gives spans
// without token counts and one notice saying so; a triton_c_api export, whose
// responses carry output_ids, gives GenAI-Perf's counts and no notice.
func TestGenAIPerfTokenNotice(t *testing.T) {
	for _, tc := range []struct {
		file   string
		notice string // "" for none
		osl    []int64
	}{
		{"testdata/aiperf/genai_perf_profile_export.good.json",
			`testdata/aiperf/genai_perf_profile_export.good.json: 9 GenAI-Perf request(s) of service kind "openai" hold response text, not token counts ` +
				`(GenAI-Perf counts tokens with the tokenizer it ran with, which tpsreport does not run): their input_tokens and output_tokens are NULL, ` +
				`so tpot and token throughput are not derived. A response chunk is not a token: GenAI-Perf's output_sequence_length is not the number of chunks`, nil},
		{"testdata/aiperf/genai_perf_trtllm_engine.good.json", "", []int64{5, 5, 5, 5, 8, 11, 12, 7}},
	} {
		f, err := os.Open(tc.file)
		if err != nil {
			t.Fatal(err)
		}
		rd := formats["aiperf"].New(Input{Name: tc.file, R: f, MaxLineBytes: DefaultMaxLineBytes})
		var osl []int64
		for rd.Next() {
			if rec := rd.Record(); rec.Kind == KindSpan {
				if rec.Span.OutputTokens == nil {
					if rec.Span.InputTokens != nil {
						t.Errorf("%s: span %s has input_tokens without output_tokens", tc.file, rec.Span.SpanID)
					}
					continue
				}
				osl = append(osl, *rec.Span.OutputTokens)
			}
		}
		f.Close()
		if err := rd.Err(); err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(osl, tc.osl) {
			t.Errorf("%s: output_tokens %v, want %v", tc.file, osl, tc.osl)
		}
		var got []string
		for _, s := range rd.(noticer).notices() {
			if strings.Contains(s, "GenAI-Perf") {
				got = append(got, s)
			}
		}
		want := []string{}
		if tc.notice != "" {
			want = []string{tc.notice}
		}
		if !slices.Equal(got, want) && !(len(got) == 0 && len(want) == 0) {
			t.Errorf("%s: notices\n%q\nwant\n%q", tc.file, got, want)
		}
	}
}
