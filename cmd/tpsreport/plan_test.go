package main

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/tpsreport/tpsreport/analyze"
	"github.com/tpsreport/tpsreport/capacity"
	"github.com/tpsreport/tpsreport/ingest"
	"github.com/tpsreport/tpsreport/schemas"
	"github.com/tpsreport/tpsreport/sim"
)

// planScenario is one replica of the demo's engine (32 slots) with no
// faults and no retries, so that every request is one span and capacity
// is the engine's alone.
func planScenario(replicas int, rate float64) sim.Scenario {
	sc, _ := sim.Named("fixed")
	sc.Name = "plan"
	sc.Duration = 8 * time.Minute
	sc.Replicas = replicas
	sc.Rate = rate
	sc.ErrorRate = 0
	sc.ClientTimeout = 0
	sc.MaxAttempts = 1
	return sc
}

// simulateAnalysed simulates sc, ingests its canonical spans and analyses
// them with slo (nil: none).
func simulateAnalysed(t *testing.T, sc sim.Scenario, slo *schemas.SLO) (*schemas.RunResult, []schemas.RequestLatency) {
	t.Helper()
	dir := t.TempDir()
	if _, err := simulate(filepath.Join(dir, "logs"), sc, 11); err != nil {
		t.Fatal(err)
	}
	run := filepath.Join(dir, "run")
	ctx := context.Background()
	if _, err := ingest.Run(ctx, ingest.Options{RunID: sc.Name, Format: "spans", OutDir: run,
		Inputs: []string{filepath.Join(dir, "logs", "spans.jsonl")}}); err != nil {
		t.Fatal(err)
	}
	capv := int64(sc.MaxNumSeqs)
	res, err := analyze.Run(ctx, analyze.Options{Dir: run, Window: time.Minute, Cap: &capv, SLO: slo})
	if err != nil {
		t.Fatal(err)
	}
	lat, err := analyze.LoadLatencies(ctx, run)
	if err != nil {
		t.Fatal(err)
	}
	return res, lat
}

// TestPlanClosedLoop: measure one replica under overload (8 req/s against
// a capacity near 6.5), plan a fleet for a target rate with an SLO of e2e ≤
// 20 s for 90 % of requests, then simulate that fleet at that rate: it
// meets the SLO, and one replica fewer does not. The target is 3.5 replicas'
// capacity at the planned utilization, so the plan must round up to 4, and
// 3 replicas run 5 % over their capacity and queue without bound.
func TestPlanClosedLoop(t *testing.T) {
	if testing.Short() {
		t.Skip("slow; covers plan's sizing against simulated fleets of the planned size and one fewer")
	}
	e2e := 20.0
	slo := &schemas.SLO{E2E: &e2e}
	measured, lat := simulateAnalysed(t, planScenario(1, 8), slo)
	const util = 0.9
	probe, err := capacity.Size(capacity.Measured{Name: "measured", Summary: measured.Summary, Windows: measured.Windows, Latencies: lat},
		capacity.Settings{TargetRPM: 60, Attainment: 0.9, Utilization: util})
	if err != nil {
		t.Fatal(err)
	}
	c := *probe.Throughput.CapacityPerReplica
	if c < 5 || c > 8 {
		t.Fatalf("measured capacity %.3f req/s per replica; the scenario's engine does about 6.5", c)
	}
	rpm := 3.5 * c * util * 60
	s := capacity.Settings{TargetRPM: rpm, Attainment: 0.9, Utilization: util}
	plan, err := capacity.Size(capacity.Measured{Name: "measured", Summary: measured.Summary, Windows: measured.Windows, Latencies: lat}, s)
	if err != nil {
		t.Fatal(err)
	}
	if plan.Replicas == nil || *plan.Replicas != 4 || plan.Basis != capacity.ByThroughput {
		t.Fatalf("plan for %.0f RPM: %v replicas by %s, want 4 by throughput (%s; %s)", rpm, plan.Replicas, plan.Basis,
			capacity.ThroughputText(s, plan), capacity.LittleText(s, plan))
	}
	attain := func(n int) float64 {
		res, _ := simulateAnalysed(t, planScenario(n, rpm/60), slo)
		return *res.Summary.SLOAttainment
	}
	a4, a3 := attain(4), attain(3)
	t.Logf("capacity %.3f req/s per replica; %.0f RPM; SLO attainment with 4 replicas %.3f, with 3 %.3f", c, rpm, a4, a3)
	if a := a4; a < 0.9 {
		t.Errorf("the planned fleet of 4 at %.0f RPM meets e2e ≤ 20 s for %.1f %% of requests, want ≥ 90 %%", rpm, a*100)
	}
	if a := a3; a >= 0.9 {
		t.Errorf("3 replicas at %.0f RPM meet e2e ≤ 20 s for %.1f %% of requests: one fewer than planned should miss 90 %%", rpm, a*100)
	}
}

// TestPlanSLOMatchesAnalyze: plan judges an SLO per window from
// latencies.parquet in Go; analyze counts slo_met per window in SQL. On a
// run analysed with that SLO the two agree window by window, over retries,
// failures and the run's last instant (the retry-storm scenario has all).
func TestPlanSLOMatchesAnalyze(t *testing.T) {
	sc, err := sim.Named("retry-storm")
	if err != nil {
		t.Fatal(err)
	}
	ttft, e2e := 2.0, 20.0
	slo := &schemas.SLO{TTFT: &ttft, E2E: &e2e}
	res, lat := simulateAnalysed(t, sc, slo)
	met := capacity.MetPerWindow(res.Windows, lat, *slo)
	var total int64
	for i, w := range res.Windows {
		if w.SLOMet == nil || *w.SLOMet != met[i] {
			t.Errorf("window %d (%s): analyze slo_met %v, plan %d", i, w.WindowStart.Format(time.TimeOnly), w.SLOMet, met[i])
		}
		total += met[i]
	}
	if total == 0 || total == int64(len(lat)) {
		t.Fatalf("%d of %d requests met the SLO: the case does not tell meeting from missing", total, len(lat))
	}
}
