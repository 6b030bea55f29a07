package truth

import (
	"context"
	"encoding/json"
	"fmt"
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
