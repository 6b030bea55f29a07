package truth

import (
	"context"
	"encoding/json"
	"fmt"
	"math"

	"path/filepath"
	"testing"

	"github.com/tpsreport/tpsreport/analyze"
	"github.com/tpsreport/tpsreport/ingest"
	"github.com/tpsreport/tpsreport/schemas"
	"github.com/tpsreport/tpsreport/sim"
)

// shortScenario is the scenario the truth tests keep under -short: the
// demo's baseline, whose admission stalls give a backlog with gaps.
const shortScenario = "stall"

// truthKeys are the run and window metrics truth.json and summary.json share.
var truthKeys = []string{
	"window_seconds", "system_tps", "generated_tps", "retry_adjusted_system_tps", "waste_fraction", "input_tps",
	"output_tokens", "generated_tokens", "delivered_tokens", "input_tokens", "arrivals", "arrival_rate",
	"requests", "succeeded_requests", "attempts", "successful_attempts", "retry_attempts", "success_rate",
	"attempt_success_rate", "retry_rate", "backlog_time", "gap_time", "gap_fraction", "backlog_gap_fraction",
	"mean_in_flight", "mean_queue_depth", "utilization", "little_concurrency", "over_cap_time",
	"engine_gap_time", "admission_gap_time", "imbalance_gap_time", "unattributed_gap_time",
	"engine_gap_share", "admission_gap_share", "imbalance_gap_share", "unattributed_gap_share",
}

// replicaTruthKeys are the per-replica measures truth.json's replicas and
// summary.json's replicas share.
var replicaTruthKeys = []string{"backlog_time", "gap_time", "engine_gap_time", "admission_gap_time", "unattributed_gap_time"}

// compareReplicas holds summary.json's replicas to truth.json's (to 1e-6
// relative), which lists every replica of the pool; summary lists them when
// there are two or more.
func compareReplicas(t *testing.T, what string, got []schemas.ReplicaState, truth sim.Truth) {
	t.Helper()
	if len(truth.Replicas) < 2 {
		return
	}
	if len(got) != len(truth.Replicas) {
		t.Fatalf("%s: %d replicas, truth has %d", what, len(got), len(truth.Replicas))
	}
	for i, r := range truth.Replicas {
		gm, wm := jsonMap(t, got[i]), jsonMap(t, r)
		if gm["replica"] != wm["replica"] {
			t.Fatalf("%s: replica %d is %v, truth %v", what, i, gm["replica"], wm["replica"])
		}
		compareList(t, fmt.Sprintf("%s replica %v", what, wm["replica"]), gm, wm, replicaTruthKeys)
	}
}

// TestSimulatedTruth: for every scenario, simulating, ingesting and analysing
// reproduces the simulator's truth.json — counts exactly, everything else to
// 1e-6 relative — for the run and every window. The canonical format keeps
// microseconds, so no tolerance for rounded log times is needed. -short runs
// only shortScenario.
func TestSimulatedTruth(t *testing.T) {
	for _, name := range sim.Names() {
		t.Run(name, func(t *testing.T) {
			if testing.Short() && name != shortScenario {
				t.Skip("slow; covers simulate → ingest → analyze against truth.json for scenario " + name + " (-short keeps " + shortScenario + ")")
			}
			t.Parallel()
			dir := t.TempDir()
			sc, err := sim.Named(name)
			if err != nil {
				t.Fatal(err)
			}
			truth, err := sim.WriteFormats(filepath.Join(dir, "logs"), sc, 7)
			if err != nil {
				t.Fatal(err)
			}
			run := filepath.Join(dir, "run")
			ctx := context.Background()
			if _, err := ingest.Run(ctx, ingest.Options{RunID: name, Format: "spans", OutDir: run,
				Inputs: []string{filepath.Join(dir, "logs", "spans.jsonl")}}); err != nil {
				t.Fatal(err)
			}
			capv := int64(sc.MaxNumSeqs)
			res, err := analyze.Run(ctx, analyze.Options{Dir: run, Window: sc.Window, Cap: &capv})
			if err != nil {
				t.Fatal(err)
			}
			if got := *res.Summary.Cap; got != truth.Cap {
				t.Errorf("cap %d, want %d", got, truth.Cap)
			}
			tj := jsonMap(t, truth)
			compareKeys(t, "run", jsonMap(t, res.Summary), tj)
			tw := tj["windows"].([]any)
			if len(tw) != len(res.Windows) {
				t.Fatalf("%d windows, truth has %d", len(res.Windows), len(tw))
			}
			for i := range tw {
				compareKeys(t, fmt.Sprintf("window %d", i), jsonMap(t, res.Windows[i]), tw[i].(map[string]any))
			}
			compareReplicas(t, "canonical", res.Summary.Replicas, truth)
		})
	}
}

func compareKeys(t *testing.T, what string, got, want map[string]any) {
	t.Helper()
	for _, k := range truthKeys {
		g, w := got[k], want[k]
		if w == nil || g == nil {
			if (w == nil) != (g == nil) {
				t.Errorf("%s %s: got %v, truth %v", what, k, g, w)
			}
			continue
		}
		gf, wf := g.(float64), w.(float64)
		if math.Abs(gf-wf) > 1e-6*math.Max(math.Abs(gf), math.Abs(wf)) && math.Abs(gf-wf) > 1e-9 {
			t.Errorf("%s %s: got %.12g, truth %.12g", what, k, gf, wf)
		}
	}
}

func jsonMap(t *testing.T, v any) map[string]any {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	return m
}
