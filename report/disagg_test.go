package report

import (
	"bytes"
	"testing"

	"github.com/tpsreport/tpsreport/compare"
	"github.com/tpsreport/tpsreport/schemas"
)

func f64(v float64) *float64 { return &v }

// disaggRun is a run's disaggregation by hand: every part 10 ms at p50 and
// 20 ms at p95 but decode (2 s, 4 s) and the decode queue (decodeQ at p95).
func disaggRun(decodeQ, meanQueue, util float64, workers int64) *schemas.Disaggregation {
	d := &schemas.Disaggregation{Attempts: 100, Budget: map[string]schemas.Percentiles{},
		Extent: schemas.Percentiles{N: 100, P50: f64(2.1), P95: f64(4.5)}}
	parts := map[string]float64{}
	for _, p := range schemas.BudgetParts {
		d.Budget[p] = schemas.Percentiles{N: 100, P50: f64(0.01), P95: f64(0.02)}
		parts[p] = 0.01
	}
	d.Budget[schemas.BudgetDecode] = schemas.Percentiles{N: 100, P50: f64(2), P95: f64(4)}
	d.Budget[schemas.BudgetDecodeQueue] = schemas.Percentiles{N: 100, P50: f64(0), P95: f64(decodeQ)}
	parts[schemas.BudgetDecode] = 2
	d.Median = schemas.BudgetRequest{RequestID: "r-50", Extent: 2.07, Parts: parts}
	d.P95 = schemas.BudgetRequest{RequestID: "r-95", Extent: 2.07, Parts: parts}
	d.Roles = []schemas.RoleState{
		{Role: schemas.RolePrefill, Workers: 2, Slots: 8, Utilization: f64(0.1), IdleFraction: 0.5},
		{Role: schemas.RoleDecode, Workers: workers, Slots: 16 * workers, Utilization: f64(util), MeanQueue: meanQueue,
			GapFraction: 0.02, RouterShare: 0.02, BacklogOtherFreeFraction: meanQueue / 10},
	}
	d.Workers = []schemas.WorkerState{
		{Replica: "prefill-0", Role: schemas.RolePrefill, Cap: 4, CapSource: "samples", Attempts: 50, Utilization: f64(0.1)},
		{Replica: "decode-0", Role: schemas.RoleDecode, Cap: 16, CapSource: "inferred", Attempts: 1234, Utilization: f64(util), MeanQueue: meanQueue, GapTime: 1.5},
	}
	return d
}

// TestDisaggGolden: a comparison of two disaggregated runs shows the
// change's sentence, the budget per run with the part that moved marked,
// and each role, in summary.md and report.json; the two waterfalls have a
// bar per run's median and p95 request, decode left out of the second.
func TestDisaggGolden(t *testing.T) {
	in := compareInput()
	in.Baseline.Summary.Disaggregation = disaggRun(2, 1.06, 0.75, 2)
	in.Candidate.Summary.Disaggregation = disaggRun(0, 0, 0.5, 3)
	in.Verdict.Disaggregation = compare.Disaggregation(in.Baseline.Summary.Disaggregation, in.Candidate.Summary.Disaggregation)
	var md, js bytes.Buffer
	if err := Markdown(&md, in); err != nil {
		t.Fatal(err)
	}
	if err := JSON(&js, in); err != nil {
		t.Fatal(err)
	}
	golden(t, "compare_disagg.summary.md", md.Bytes())
	golden(t, "compare_disagg.report.json", js.Bytes())

	figs := newChartCtx(in).budgetFigures()
	if len(figs) != 2 || figs[0].Name != "latency_budget" || figs[1].Name != "latency_budget_before_decode" {
		t.Fatalf("figures %v", figs)
	}
	if got := figs[0].cats; len(got) != 4 || got[0] != "baseline median" || got[3] != "candidate p95" {
		t.Errorf("bars %q", got)
	}
	if len(figs[0].Series) != len(schemas.BudgetParts) || len(figs[1].Series) != len(schemas.BudgetParts)-1 {
		t.Errorf("%d and %d parts stacked", len(figs[0].Series), len(figs[1].Series))
	}
	// decode stands on the six parts before it: 60 ms.
	for _, s := range figs[0].Series {
		if s.Label == schemas.BudgetDecode && (len(s.base) != 4 || s.base[0] < 0.0599 || s.base[0] > 0.0601) {
			t.Errorf("decode's bars stand on %v", s.base)
		}
	}
	for _, f := range figs {
		if _, err := f.render(); err != nil {
			t.Fatal(err)
		}
	}
	if newChartCtx(compareInput()).budgetFigures() != nil {
		t.Error("waterfalls for runs without stages")
	}
}
