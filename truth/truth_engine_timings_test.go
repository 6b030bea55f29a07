package truth

import (
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/tpsreport/tpsreport/analyze"
	"github.com/tpsreport/tpsreport/ingest"
	"github.com/tpsreport/tpsreport/schemas"
	"github.com/tpsreport/tpsreport/sim"
)

// Engine timings inside a gateway's log (docs/metrics.md "Engine timings in
// a gateway's log"): the LiteLLM log whose responses carry vLLM's metrics
// object (sim.FormatLiteLLMMetrics), read alone, gives spans with the
// engine's arrival, admission and token times, as the join of LiteLLM and
// vLLM OTel does. Held, for every named scenario, against:
//
//  1. the run joined from LiteLLM + vLLM OTel of the same simulation, on
//     every metric both carry: events and rates, the tokens of successful
//     spans, and the latency distributions (all over successful spans). Not
//     the state metrics nor failed attempts' partial output: an error or an
//     abandoned stream has no final response, so no metrics object, and an
//     attempt that failed after its admission stays out of the state
//     (docs/metrics.md) in the gateway-only run while the engine's span puts
//     it in the joined one; and
//  2. the join of LiteLLM with the vLLM OTel spans of the successful attempts
//     only (what the responses can carry), on every truth key, the state
//     metrics, gap_time and its causes (engine_gap_time, admission_gap_time,
//     imbalance_gap_time) included, and the latency distributions: this
//     proves that (1) leaves out exactly the failed attempts' engine times;
//  3. with vLLM OTel in the same run, the plain join, on every truth key, the
//     join coverage and gateway_overhead.
//
// Both to 1e-6 relative, per window and for the run. The metrics are ms
// durations written exactly to the µs (sim/litellm.go), anchored on
// completionStartTime, which is the engine's first token in the simulator;
// no time moves. The gateway-only run has no join (no engine source), so
// gateway_overhead is unknown (n = 0) and data_quality.join is absent. With
// the engine's log in the same run, the join pairs these spans as it pairs
// plain gateway spans and gives the plain join's run (3).
func TestLiteLLMMetricsJoinedLike(t *testing.T) {
	for _, name := range sim.Names() {
		t.Run(name, func(t *testing.T) {
			if testing.Short() && name != shortScenario {
				t.Skip("slow; the LiteLLM log with vLLM's response metrics against the joined runs, scenario " + name)
			}
			t.Parallel()
			sc, err := sim.Named(name)
			if err != nil {
				t.Fatal(err)
			}
			checkLiteLLMMetrics(t, t.TempDir(), sc)
		})
	}
}

// okOnly passes the successful spans only: the attempts whose response
// carries the engine's metrics.
type okOnly struct{ sim.Writer }

func (w okOnly) WriteSpan(s schemas.Span) error {
	if s.Status != schemas.StatusOK {
		return nil
	}
	return w.Writer.WriteSpan(s)
}

// stateKeys are the truth keys a gateway-only span of a failed admitted
// attempt changes (it is out of the state) and failed attempts' partial
// output (unknown to the gateway).
var stateKeys = []string{
	"backlog_time", "gap_time", "gap_fraction", "backlog_gap_fraction", "mean_in_flight", "mean_queue_depth",
	"utilization", "over_cap_time", "engine_gap_time", "admission_gap_time", "imbalance_gap_time",
	"unattributed_gap_time", "engine_gap_share", "admission_gap_share", "imbalance_gap_share",
	"unattributed_gap_share", "generated_tps", "generated_tokens", "waste_fraction",
}

// latencyKeys are the distributions over successful spans.
var latencyKeys = []string{"t_queue", "ttft", "t_first_token", "t_stream", "t_in_flight", "t_total", "tpot", "stream_tps", "end_to_end_tps"}

func checkLiteLLMMetrics(t *testing.T, dir string, sc sim.Scenario) {
	ctx := context.Background()
	logs := filepath.Join(dir, "logs")
	if _, err := sim.WriteFormats(logs, sc, seedFormats, sim.FormatLiteLLM, sim.FormatVLLMOTel, sim.FormatLiteLLMMetrics); err != nil {
		t.Fatal(err)
	}
	okOTel := filepath.Join(logs, "vllm-otel-ok.jsonl")
	f, err := os.Create(okOTel)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := sim.Generate(sc, seedFormats, okOnly{sim.NewVLLMOTel(f, sc, seedFormats)}); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	capv := int64(sc.MaxNumSeqs)
	run := func(name string, inputs ...string) *schemas.RunResult {
		t.Helper()
		d := filepath.Join(dir, "run-"+name)
		format := ingest.FormatAuto
		if name == "metrics" {
			format = ingest.SourceLiteLLM
		}
		man, err := ingest.Run(ctx, ingest.Options{RunID: sc.Name, Format: format, OutDir: d, Inputs: inputs})
		if err != nil {
			t.Fatal(err)
		}
		if man.Counts.Rejected != 0 {
			t.Fatalf("%s: %d rejects: %v", name, man.Counts.Rejected, man.RejectedBy)
		}
		if name == "metrics-auto" && (len(man.Inputs) != 1 || man.Inputs[0].Format != ingest.SourceLiteLLM) {
			t.Fatalf("auto: inputs %+v, want one read as litellm", man.Inputs)
		}
		res, err := analyze.Run(ctx, analyze.Options{Dir: d, Window: sc.Window, Cap: &capv})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	metricsLog := filepath.Join(logs, sim.FormatFile(sim.FormatLiteLLMMetrics))
	got := run("metrics", metricsLog)
	auto := run("metrics-auto", metricsLog)
	joined := run("joined", "litellm:"+filepath.Join(logs, sim.FormatFile(sim.FormatLiteLLM)), "vllm-otel:"+filepath.Join(logs, sim.FormatFile(sim.FormatVLLMOTel)))
	joinedOK := run("joined-ok", "litellm:"+filepath.Join(logs, sim.FormatFile(sim.FormatLiteLLM)), "vllm-otel:"+okOTel)
	// With the engine's log too, the spans that already hold the engine's
	// times join as any gateway span, once, and give the plain join.
	both := run("metrics-joined", "litellm:"+metricsLog, "vllm-otel:"+filepath.Join(logs, sim.FormatFile(sim.FormatVLLMOTel)))
	if g, w := both.Summary.DataQuality.Join, joined.Summary.DataQuality.Join; g == nil || w == nil || *g != *w {
		t.Errorf("join coverage with the metrics log %+v, want the plain join's %+v", g, w)
	}
	compareMetrics(t, "metrics-joined", both, joined, truthKeys)
	if g, w := both.Summary.GatewayOverhead, joined.Summary.GatewayOverhead; fmt.Sprint(g.N, deref(g.P50), deref(g.Max)) != fmt.Sprint(w.N, deref(w.P50), deref(w.Max)) {
		t.Errorf("gateway_overhead with the metrics log %+v, want %+v", g, w)
	}

	sameAnalyses(t, "auto", auto, got)
	if got.Summary.DataQuality.Join != nil {
		t.Errorf("a LiteLLM-only run joined: %+v", got.Summary.DataQuality.Join)
	}
	if n := got.Summary.GatewayOverhead.N; n != 0 {
		t.Errorf("gateway_overhead n %d without a join, want 0 (unknown)", n)
	}
	if joinedOK.Summary.DataQuality.Join == nil || joinedOK.Summary.DataQuality.Join.EngineSpans == 0 {
		t.Fatal("the successful attempts' join joined nothing")
	}

	// 1. The full join, on what both carry.
	carried := slices.DeleteFunc(slices.Clone(truthKeys), func(k string) bool { return slices.Contains(stateKeys, k) })
	compareMetrics(t, "joined", got, joined, carried)
	// 2. The join of what the responses carry, on everything.
	compareMetrics(t, "joined-ok", got, joinedOK, truthKeys)
	// The run has state and gap causes to compare.
	if g := got.Summary.MeanInFlight; g == nil || *g <= 0 {
		t.Errorf("mean_in_flight %v: no state from the engine's times", g)
	}
	if sc.Dispatch != sim.DispatchFree {
		if u := got.Summary.UnattributedGapTime; u != 0 {
			t.Errorf("unattributed_gap_time %v: spans carry engine_arrived_at, every gap has a location", u)
		}
	}
}

// compareMetrics compares keys and the latency distributions of two
// analyses, for the run and every window.
func compareMetrics(t *testing.T, what string, got, want *schemas.RunResult, keys []string) {
	t.Helper()
	compareList(t, what+" run", jsonMap(t, got.Summary), jsonMap(t, want.Summary), keys)
	comparePercentiles(t, what+" run", jsonMap(t, got.Summary), jsonMap(t, want.Summary))
	if len(got.Windows) != len(want.Windows) {
		t.Fatalf("%s: %d windows, want %d", what, len(got.Windows), len(want.Windows))
	}
	for i := range got.Windows {
		g, w := jsonMap(t, got.Windows[i]), jsonMap(t, want.Windows[i])
		compareList(t, fmt.Sprintf("%s window %d", what, i), g, w, keys)
		comparePercentiles(t, fmt.Sprintf("%s window %d", what, i), g, w)
	}
}

// comparePercentiles compares the latency distribution objects, 1e-6
// relative.
func comparePercentiles(t *testing.T, what string, got, want map[string]any) {
	t.Helper()
	for _, k := range latencyKeys {
		g, _ := got[k].(map[string]any)
		w, _ := want[k].(map[string]any)
		if (g == nil) != (w == nil) {
			t.Errorf("%s %s: got %v, want %v", what, k, g, w)
			continue
		}
		for _, p := range []string{"n", "p50", "p90", "p95", "p99", "mean", "max"} {
			gv, wv := g[p], w[p]
			if gv == nil || wv == nil {
				if (gv == nil) != (wv == nil) {
					t.Errorf("%s %s.%s: got %v, want %v", what, k, p, gv, wv)
				}
				continue
			}
			gf, wf := gv.(float64), wv.(float64)
			if math.Abs(gf-wf) > 1e-6*math.Max(math.Abs(gf), math.Abs(wf)) && math.Abs(gf-wf) > 1e-9 {
				t.Errorf("%s %s.%s: got %.12g, want %.12g", what, k, p, gf, wf)
			}
		}
	}
}
