package truth

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"math"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/parquet-go/parquet-go"

	"github.com/tpsreport/tpsreport/analyze"
	"github.com/tpsreport/tpsreport/analyze/oracle"
	"github.com/tpsreport/tpsreport/ingest"
	"github.com/tpsreport/tpsreport/schemas"
	"github.com/tpsreport/tpsreport/sim"
)

// TestDisaggTruth: a disaggregated run, simulated, ingested under a
// Hive-style path and analysed, gives back the simulator's own account of
// what each format shows: the latency budget's distributions and its median
// and p95 attempts, the KV transfers' bytes, each worker's and each role's
// state over the run, and every row of budget.parquet and roles.parquet, to
// 1e-9 relative. The formats: the canonical spans and stages,
// TensorRT-LLM's disaggregated perf metrics, and those joined with a
// LiteLLM gateway's log (whose receipt starts each request's gateway
// stage), and the router's stages from llm-d's endpoint picker's log
// beside the others; the workers' samples beside each, every input's format sniffed. The oracle (analyze/oracle Stages),
// from the dataset's stages and samples, gives the same.
func TestDisaggTruth(t *testing.T) {
	for _, tc := range []struct {
		name, view string
		window     time.Duration
		inputs     []string
	}{
		{"pd", sim.ViewStages, time.Minute, []string{"spans.jsonl", "samples.jsonl", sim.StagesFile}},
		{"pd-decode", sim.ViewStages, 45 * time.Second, []string{"spans.jsonl", "samples.jsonl", sim.StagesFile}},
		{"pd", sim.ViewTRTLLM, 30 * time.Second, []string{sim.TRTLLMFile, "samples.jsonl"}},
		// The stages alone: their own time is the run's, the spans' extent.
		{"pd", sim.ViewStages, time.Minute, []string{"samples.jsonl", sim.StagesFile}},
		{"pd", sim.ViewJoined, time.Minute, []string{sim.DisaggLiteLLMFile, sim.TRTLLMFile, "samples.jsonl"}},
		// The router's stages from its own log (llm-d's endpoint picker),
		// the others from the gateway's and workers'.
		{"pd-decode", sim.ViewStages, time.Minute, []string{"spans.jsonl", "samples.jsonl", sim.WorkerStagesFile, sim.EPPFile}},
	} {
		t.Run(tc.name+"/"+tc.view+"/"+strings.Join(tc.inputs, "+"), func(t *testing.T) {
			t.Parallel()
			sc, err := sim.NamedDisagg(tc.name)
			if err != nil {
				t.Fatal(err)
			}
			sc.Window = tc.window
			dir := t.TempDir()
			logs := filepath.Join(dir, "logs")
			truths, err := sim.WriteDisagg(logs, sc, 11)
			if err != nil {
				t.Fatal(err)
			}
			truth := truths[tc.view]
			run := filepath.Join(dir, "runs", "dt=2026-11-20", "run="+tc.name)
			var inputs []string
			for _, f := range tc.inputs {
				inputs = append(inputs, filepath.Join(logs, f))
			}
			ctx := context.Background()
			if _, err := ingest.Run(ctx, ingest.Options{RunID: tc.name, Format: ingest.FormatAuto, OutDir: run,
				Inputs: inputs}); err != nil {
				t.Fatal(err)
			}
			res, err := analyze.Run(ctx, analyze.Options{Dir: run, Window: tc.window})
			if err != nil {
				t.Fatal(err)
			}
			if res.Summary.Disaggregation == nil {
				t.Fatal("summary.json has no disaggregation")
			}
			if got, want := res.Summary.RunStart, truth.RunStart; !got.Equal(want) {
				t.Errorf("run_start %v, truth %v", got, want)
			}
			compareTree(t, "disaggregation", jsonMap(t, res.Summary.Disaggregation), jsonMap(t, truth.Disaggregation))
			budget, roles, err := analyze.LoadDisagg(ctx, run)
			if err != nil {
				t.Fatal(err)
			}
			if len(budget) == 0 || len(roles) == 0 {
				t.Fatalf("%d budget rows, %d role rows", len(budget), len(roles))
			}
			compareTree(t, "budget.parquet", jsonAny(t, budget), jsonAny(t, truth.BudgetWindows))
			compareTree(t, "roles.parquet", jsonAny(t, roles), jsonAny(t, truth.RoleWindows))

			// The oracle, from the dataset's stages and samples, agrees too.
			stages := readRows[schemas.Stage](t, filepath.Join(run, schemas.StagesFile))
			samples := readRows[schemas.Sample](t, filepath.Join(run, schemas.SamplesFile))
			if tc.view == sim.ViewJoined {
				stages = withGatewayStages(stages, filepath.Join(run, schemas.SpansFile), t)
			}
			o := oracle.Stages(stages, samples, schemas.Micros(truth.RunStart), schemas.Micros(truth.RunEnd), tc.window.Microseconds())
			compareTree(t, "oracle", jsonMap(t, o.Disaggregation), jsonMap(t, truth.Disaggregation))
			compareTree(t, "oracle budget", jsonAny(t, o.Budget), jsonAny(t, truth.BudgetWindows))
			compareTree(t, "oracle roles", jsonAny(t, o.Roles), jsonAny(t, truth.RoleWindows))
		})
	}
}

// compareTree holds a decoded JSON value to its truth: the same keys and
// lengths, equal strings and booleans, numbers to 1e-9 relative (or 1e-12
// absolute, for values of 0).
func compareTree(t *testing.T, path string, got, want any) {
	t.Helper()
	switch w := want.(type) {
	case map[string]any:
		g, ok := got.(map[string]any)
		if !ok {
			t.Errorf("%s: got %v, truth an object", path, got)
			return
		}
		for k := range w {
			if _, ok := g[k]; !ok {
				t.Errorf("%s.%s: missing, truth %v", path, k, w[k])
			}
		}
		for k, v := range g {
			if _, ok := w[k]; !ok {
				t.Errorf("%s.%s: %v, not in the truth", path, k, v)
				continue
			}
			compareTree(t, path+"."+k, v, w[k])
		}
	case []any:
		g, ok := got.([]any)
		if !ok || len(g) != len(w) {
			t.Errorf("%s: %d values, truth %d", path, len(g), len(w))
			return
		}
		for i := range w {
			compareTree(t, fmt.Sprintf("%s[%d]", path, i), g[i], w[i])
		}
	case float64:
		g, ok := got.(float64)
		if !ok || math.Abs(g-w) > 1e-9*math.Max(math.Abs(g), math.Abs(w)) && math.Abs(g-w) > 1e-12 {
			t.Errorf("%s: got %v, truth %v", path, got, w)
		}
	default:
		if got != want {
			t.Errorf("%s: got %v, truth %v", path, got, want)
		}
	}
}

// withGatewayStages adds the gateway stage docs/metrics.md gives a joined
// run's attempt that logs none: from its request's receipt at the gateway
// (the LiteLLM span whose id, without its chatcmpl- prefix, is the engine's
// request id) to its first stage.
func withGatewayStages(stages []schemas.Stage, spansPath string, t *testing.T) []schemas.Stage {
	t.Helper()
	receipt := map[string]int64{}
	for _, sp := range readRows[schemas.Span](t, spansPath) {
		if sp.Source == ingest.SourceLiteLLM && sp.QueuedAt != nil {
			receipt[string(schemas.JoinKey([]byte(sp.SpanID)))] = *sp.QueuedAt
		}
	}
	first := map[string]int64{}
	for _, s := range stages {
		if f, ok := first[s.RequestID]; !ok || s.StartedAt < f {
			first[s.RequestID] = s.StartedAt
		}
	}
	out := slices.Clone(stages)
	for id, f := range first {
		if q, ok := receipt[id]; ok && q <= f {
			out = append(out, schemas.Stage{RequestID: id, Stage: schemas.StageGateway, StartedAt: q, EndedAt: f})
		}
	}
	return out
}

// readRows reads every row of the Parquet file at path.
func readRows[T any](t *testing.T, path string) []T {
	t.Helper()
	rows, err := parquet.ReadFile[T](path)
	if err != nil {
		t.Fatal(err)
	}
	return rows
}

func jsonAny(t *testing.T, v any) any {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var out any
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestDisaggSGLangTruth: the same run through each worker's SGLang log
// (its Req Time Stats lines, on a monotonic clock of its own, stamped to the
// second) and the workers' samples gives back the simulator's account to
// the format's resolution: each worker's and role's stage durations are
// logged to 10 µs, so the budget's parts from the prefill queue on agree to
// 50 µs; the instants rest on each worker's clock offset, estimated from
// the stamps (within about 1 s over its number of lines, a few ms here), so
// the roles' state, which compares workers' instants, agrees to a few
// thousandths, and the extents, which span two workers' clocks, to 5 ms.
// The budget starts at the prefill worker: no gateway, router or hop is
// logged.
func TestDisaggSGLangTruth(t *testing.T) {
	sc, err := sim.NamedDisagg("pd")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	logs := filepath.Join(dir, "logs")
	truths, err := sim.WriteDisagg(logs, sc, 11)
	if err != nil {
		t.Fatal(err)
	}
	truth := truths[sim.ViewStages]
	inputs := []string{filepath.Join(logs, "samples.jsonl")}
	for _, w := range sim.SGLangWorkerLogs(sc) {
		inputs = append(inputs, filepath.Join(logs, w+".log"))
	}
	run := filepath.Join(dir, "runs", "dt=2026-11-20", "run=sglang")
	ctx := context.Background()
	var log bytes.Buffer
	ing, err := ingest.Run(ctx, ingest.Options{RunID: "sglang", Format: ingest.FormatAuto, OutDir: run, Inputs: inputs,
		Log: slog.New(slog.NewTextHandler(&log, nil))})
	if err != nil {
		t.Fatal(err)
	}
	for _, in := range ing.Inputs {
		if strings.HasSuffix(in.Path, ".log") && in.Format != ingest.SourceSGLangLog {
			t.Errorf("%s: read as %s", in.Path, in.Format)
		}
	}
	res, err := analyze.Run(ctx, analyze.Options{Dir: run, Window: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	got, want := res.Summary.Disaggregation, truth.Disaggregation
	if got == nil {
		t.Fatal("summary.json has no disaggregation")
	}
	if got.Attempts != want.Attempts {
		t.Errorf("attempts %d, truth %d", got.Attempts, want.Attempts)
	}
	near := func(what string, g, w, tol float64) {
		t.Helper()
		if math.Abs(g-w) > tol {
			t.Errorf("%s: %v, truth %v (tolerance %v)", what, g, w, tol)
		}
	}
	val := func(what string, p *float64) float64 {
		t.Helper()
		if p == nil {
			t.Errorf("%s: null", what)
			return math.NaN()
		}
		return *p
	}
	for _, part := range []string{"prefill_queue", "prefill", "kv_transfer", "decode_queue", "decode"} {
		g, w := got.Budget[part], want.Budget[part]
		near(part+" p50", val(part, g.P50), val(part, w.P50), 50e-6)
		near(part+" p95", val(part, g.P95), val(part, w.P95), 50e-6)
		near(part+" max", val(part, g.Max), val(part, w.Max), 50e-6)
		near(part+" mean", val(part, g.Mean), val(part, w.Mean), 50e-6)
	}
	// Each extent starts at the prefill worker: the truth's less the
	// scenario's fixed gateway, router and hop times. The workers' stages
	// meet (the decode worker's line starts where prefill ends), so what
	// no stage covers is only the two clocks' misplacement.
	before := (sc.GatewayTime + sc.RouterTime + sc.Hop).Seconds()
	near("extent p50", val("extent", got.Extent.P50), val("extent", want.Extent.P50)-before, 5e-3)
	near("extent p95", val("extent", got.Extent.P95), val("extent", want.Extent.P95)-before, 5e-3)
	near("unaccounted max", val("unaccounted", got.Budget["unaccounted"].Max), 0, 5e-3)
	for _, part := range []string{"gateway", "router"} {
		if g := got.Budget[part]; val(part, g.Max) != 0 {
			t.Errorf("%s: max %v, want 0: the SGLang logs hold no %s stage", part, *g.Max, part)
		}
	}
	if len(got.Roles) != len(want.Roles) || len(got.Workers) != len(want.Workers) {
		t.Fatalf("%d roles, %d workers; truth %d, %d", len(got.Roles), len(got.Workers), len(want.Roles), len(want.Workers))
	}
	for i, w := range want.Roles {
		g := got.Roles[i]
		if g.Role != w.Role || g.Workers != w.Workers || g.Slots != w.Slots {
			t.Errorf("role %d: %+v, truth %+v", i, g, w)
			continue
		}
		near(w.Role+" utilization", *g.Utilization, *w.Utilization, 2e-3**w.Utilization)
		near(w.Role+" mean_queue", g.MeanQueue, w.MeanQueue, 5e-3*max(w.MeanQueue, 1e-3))
		near(w.Role+" gap_fraction", g.GapFraction, w.GapFraction, 2e-3)
		near(w.Role+" backlog_other_free_fraction", g.BacklogOtherFreeFraction, w.BacklogOtherFreeFraction, 1e-3)
		near(w.Role+" idle_fraction", g.IdleFraction, w.IdleFraction, 5e-3)
	}
	for i, w := range want.Workers {
		g := got.Workers[i]
		if g.Replica != w.Replica || g.Role != w.Role || g.Attempts != w.Attempts || g.Cap != w.Cap {
			t.Errorf("worker %d: %+v, truth %+v", i, g, w)
		}
	}
	if n := strings.Count(log.String(), "placed on the wall clock by the stamps of"); n != len(want.Workers) {
		t.Errorf("%d clock notices, want one per worker (%d):\n%s", n, len(want.Workers), log.String())
	}
}
