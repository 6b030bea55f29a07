package compare

import (
	"strings"
	"testing"

	"github.com/tpsreport/tpsreport/schemas"
)

func f64(v float64) *float64 { return &v }

// TestDisaggregation: the part whose p95 moved most and the role whose
// mean queue moved most are named, by hand: decode_queue's p95 fell
// 2.0 s (prefill's rose 0.1 s), decode's mean queue fell 1.0 (prefill's
// rose 0.2).
func TestDisaggregation(t *testing.T) {
	run := func(decodeQ, prefill, dq, pq, util float64, workers int64) *schemas.Disaggregation {
		d := &schemas.Disaggregation{Budget: map[string]schemas.Percentiles{}}
		for _, p := range schemas.BudgetParts {
			d.Budget[p] = schemas.Percentiles{P50: f64(0.01), P95: f64(0.02)}
		}
		d.Budget[schemas.BudgetDecodeQueue] = schemas.Percentiles{P50: f64(0), P95: f64(decodeQ)}
		d.Budget[schemas.BudgetPrefill] = schemas.Percentiles{P50: f64(0.1), P95: f64(prefill)}
		d.Roles = []schemas.RoleState{
			{Role: schemas.RolePrefill, Workers: 2, MeanQueue: pq, Utilization: f64(0.1)},
			{Role: schemas.RoleDecode, Workers: workers, MeanQueue: dq, Utilization: f64(util), BacklogOtherFreeFraction: dq / 10},
		}
		return d
	}
	ch := Disaggregation(run(2.0, 0.3, 1.0, 0, 0.75, 2), run(0, 0.4, 0, 0.2, 0.5, 3))
	if ch.Stage != schemas.BudgetDecodeQueue || ch.Role != schemas.RoleDecode {
		t.Fatalf("stage %q role %q, want decode_queue and decode", ch.Stage, ch.Role)
	}
	if len(ch.Parts) != len(schemas.BudgetParts) || len(ch.Roles) != 2 {
		t.Fatalf("%d parts, %d roles", len(ch.Parts), len(ch.Roles))
	}
	want := "Of the latency budget, decode_queue moved most: p95 2 s → 0 s (p50 0 s → 0 s); of the worker roles, decode moved most: workers 2 → 3, mean queue 1 → 0, utilization 75.0 % → 50.0 %, requests queued there while the prefill workers had free slots 10.0 % → 0 % of the time."
	if ch.Reason != want {
		t.Errorf("reason\n%s\nwant\n%s", ch.Reason, want)
	}

	// Nothing moved; a run without stages gives no change at all.
	same := Disaggregation(run(1, 0.3, 0.5, 0, 0.7, 2), run(1, 0.3, 0.5, 0, 0.7, 2))
	if same.Stage != "" || same.Role != "" || same.Reason != "Of the latency budget, no part's p95 moved, and no worker role's queue or utilization." {
		t.Errorf("unchanged: %+v", same)
	}
	if Disaggregation(nil, run(1, 0.3, 0.5, 0, 0.7, 2)) != nil {
		t.Error("a change without the baseline's stages")
	}
	if n := DisaggregationNote(nil, run(1, 0.3, 0.5, 0, 0.7, 2)); !strings.HasPrefix(n, "the candidate has stages") {
		t.Errorf("note %q", n)
	}
	if n := DisaggregationNote(run(1, 0.3, 0.5, 0, 0.7, 2), run(1, 0.3, 0.5, 0, 0.7, 2)); n != "" {
		t.Errorf("note %q with both runs' stages", n)
	}
	// The baseline's logs record the gateway (5 s at p95), the candidate's
	// do not (0 s): that is no move; decode_queue's 2 s → 0 s is.
	gwBase, gwCand := run(2.0, 0.3, 1.0, 0, 0.75, 2), run(0, 0.4, 0, 0.2, 0.5, 3)
	gwBase.Budget[schemas.BudgetGateway] = schemas.Percentiles{P50: f64(4), P95: f64(5)}
	gwCand.Budget[schemas.BudgetGateway] = schemas.Percentiles{P50: f64(0), P95: f64(0)}
	gwBase.Logged = []string{schemas.BudgetGateway, schemas.BudgetDecodeQueue, schemas.BudgetPrefill}
	gwCand.Logged = []string{schemas.BudgetDecodeQueue, schemas.BudgetPrefill}
	if got := Disaggregation(gwBase, gwCand); got.Stage != schemas.BudgetDecodeQueue {
		t.Errorf("gateway logged on one side only: stage %q, want decode_queue", got.Stage)
	}
	gwCand.Logged = append(gwCand.Logged, schemas.BudgetGateway)
	if got := Disaggregation(gwBase, gwCand); got.Stage != schemas.BudgetGateway {
		t.Errorf("gateway logged on both sides: stage %q, want gateway", got.Stage)
	}

	// No queue moved: the role is the one whose utilization moved.
	util := Disaggregation(run(1, 0.3, 0, 0, 0.7, 2), run(1, 0.3, 0, 0, 0.4, 2))
	if util.Role != schemas.RoleDecode || util.Stage != "" {
		t.Errorf("utilization only: stage %q role %q", util.Stage, util.Role)
	}
}
