package compare

import (
	"encoding/json"
	"errors"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tpsreport/tpsreport/schemas"
)

func f(v float64) *float64 { return &v }

// synth builds a run of n 60 s windows whose retry-adjusted TPS is tps·(1 ± noise),
// with backlog in every window and the given gap_time per window.
func synth(id string, n int, tps, noise, gap float64, seed uint64) Run {
	r := rand.New(rand.NewPCG(seed, 9))
	start := time.Date(2026, 11, 20, 10, 0, 0, 0, time.UTC)
	var ws []schemas.Metrics
	for i := range n {
		v := tps * (1 + noise*(2*r.Float64()-1))
		ws = append(ws, schemas.Metrics{
			WindowStart: start.Add(time.Duration(i) * time.Minute), WindowSeconds: 60,
			RetryAdjustedSystemTPS: f(v), BacklogTime: 30, GapTime: gap,
		})
	}
	s := schemas.Summary{RunID: id}
	s.ArrivalRate = f(5)
	s.Requests, s.SucceededRequests = 1000, 999
	s.Attempts, s.RetryAttempts = 1010, 10
	s.DataQuality.Models = []string{"llama"}
	return Run{Summary: s, Windows: ws}
}

func verdictOf(v schemas.Verdict, name string) schemas.Criterion {
	for _, c := range v.Criteria {
		if c.Name == name {
			return c
		}
	}
	return schemas.Criterion{}
}

func TestStallRemoved(t *testing.T) {
	base := synth("stall", 20, 1000, 0.1, 12, 1)
	cand := synth("fixed", 20, 1400, 0.1, 0, 2)
	v, err := Evaluate(base, cand, schemas.DefaultCriteria())
	if err != nil {
		t.Fatal(err)
	}
	if c := verdictOf(v, Throughput); c.Verdict != schemas.Pass || *c.Lo <= 1 {
		t.Errorf("throughput: got %s (lo %v), want PASS with lo > 1: %s", c.Verdict, *c.Lo, c.Reason)
	}
	if c := verdictOf(v, GapFraction); c.Verdict != schemas.Pass || math.Abs(*c.Baseline-0.2) > 1e-12 || *c.Candidate != 0 {
		t.Errorf("gap_fraction: got %s %v→%v, want PASS 0.2→0", c.Verdict, *c.Baseline, *c.Candidate)
	}
	if v.Overall != schemas.Pass {
		t.Errorf("overall %s, want PASS", v.Overall)
	}
	if v.Bootstrap.Resamples != 2000 || v.Bootstrap.BaselineWindows != 20 {
		t.Errorf("bootstrap %+v", v.Bootstrap)
	}
}

func TestIdenticalIsNeverPass(t *testing.T) {
	base := synth("a", 30, 1000, 0.2, 3, 1)
	v, err := Evaluate(base, base, schemas.DefaultCriteria())
	if err != nil {
		t.Fatal(err)
	}
	c := verdictOf(v, Throughput)
	if c.Verdict != schemas.Inconclusive || *c.Ratio != 1 || !(*c.Lo < 1 && *c.Hi > 1) {
		t.Errorf("throughput of identical runs: %s ratio %v [%v, %v]; want INCONCLUSIVE, 1, lo<1<hi", c.Verdict, *c.Ratio, *c.Lo, *c.Hi)
	}
	if g := verdictOf(v, GapFraction); g.Verdict != schemas.Inconclusive {
		t.Errorf("gap_fraction of identical runs: %s, want INCONCLUSIVE", g.Verdict)
	}
	if v.Overall != schemas.Inconclusive {
		t.Errorf("overall %s, want INCONCLUSIVE", v.Overall)
	}
}

func TestSlowerFails(t *testing.T) {
	v, _ := Evaluate(synth("a", 20, 1000, 0.05, 0, 1), synth("b", 20, 700, 0.05, 0, 2), schemas.DefaultCriteria())
	if c := verdictOf(v, Throughput); c.Verdict != schemas.Fail {
		t.Errorf("throughput: %s, want FAIL: %s", c.Verdict, c.Reason)
	}
	if v.Overall != schemas.Fail {
		t.Errorf("overall %s, want FAIL", v.Overall)
	}
}

func TestSuccessRateFail(t *testing.T) {
	base := synth("a", 20, 1000, 0.05, 0, 1)
	cand := synth("b", 20, 1000, 0.05, 0, 1)
	base.Summary.Requests, base.Summary.SucceededRequests = 100, 90
	cand.Summary.Requests, cand.Summary.SucceededRequests = 100, 80
	v, _ := Evaluate(base, cand, schemas.DefaultCriteria())
	c := verdictOf(v, SuccessRate)
	// Pooled p = 0.85, se = sqrt(0.85·0.15·0.02), z = 1.98030, one-sided p = 0.0238352.
	if c.Verdict != schemas.Fail || math.Abs(*c.PValue-0.023835190328080753) > 1e-12 || math.Abs(*c.Diff+0.1) > 1e-12 {
		t.Errorf("success_rate: %s p=%v diff=%v, want FAIL p=0.0238352 diff=-0.1", c.Verdict, *c.PValue, *c.Diff)
	}
	if v.Overall != schemas.Fail {
		t.Errorf("overall %s, want FAIL", v.Overall)
	}
	// A drop that is not significant passes.
	base.Summary.Requests, base.Summary.SucceededRequests = 10, 9
	cand.Summary.Requests, cand.Summary.SucceededRequests = 10, 8
	v, _ = Evaluate(base, cand, schemas.DefaultCriteria())
	if c := verdictOf(v, SuccessRate); c.Verdict != schemas.Pass {
		t.Errorf("9/10 → 8/10: %s, want PASS (p = %v)", c.Verdict, *c.PValue)
	}
}

func TestRetryRateFail(t *testing.T) {
	base := synth("a", 20, 1000, 0.05, 0, 1)
	cand := synth("b", 20, 1000, 0.05, 0, 1)
	cand.Summary.Attempts, cand.Summary.RetryAttempts = 1100, 100
	v, _ := Evaluate(base, cand, schemas.DefaultCriteria())
	if c := verdictOf(v, RetryRate); c.Verdict != schemas.Fail {
		t.Errorf("retry_rate: %s, want FAIL: %s", c.Verdict, c.Reason)
	}
}

func TestLoadMismatchGuard(t *testing.T) {
	base := synth("a", 20, 1000, 0.1, 12, 1)
	cand := synth("b", 20, 1400, 0.1, 0, 2)
	cand.Summary.ArrivalRate = f(2.4) // under half the offered load
	v, _ := Evaluate(base, cand, schemas.DefaultCriteria())
	if v.Overall != schemas.Inconclusive {
		t.Errorf("overall %s, want INCONCLUSIVE", v.Overall)
	}
	for _, c := range v.Criteria {
		if c.Verdict != schemas.Inconclusive || !strings.Contains(c.Reason, "offered load differs by -52%") {
			t.Errorf("%s: %s %q, want INCONCLUSIVE naming the load mismatch", c.Name, c.Verdict, c.Reason)
		}
	}
}

func TestTooFewBacklogWindows(t *testing.T) {
	v, _ := Evaluate(synth("a", 4, 1000, 0.1, 12, 1), synth("b", 20, 1400, 0.1, 0, 2), schemas.DefaultCriteria())
	if c := verdictOf(v, Throughput); c.Verdict != schemas.Inconclusive || !strings.Contains(c.Reason, "too few backlog windows (baseline 4, candidate 20; need 5)") {
		t.Errorf("throughput: %s %q", c.Verdict, c.Reason)
	}
}

func TestModelMismatch(t *testing.T) {
	base := synth("a", 20, 1000, 0.1, 12, 1)
	cand := synth("b", 20, 1000, 0.1, 12, 1)
	cand.Summary.DataQuality.Models = []string{"qwen"}
	if _, err := Evaluate(base, cand, schemas.DefaultCriteria()); !errors.Is(err, ErrModelMismatch) {
		t.Errorf("got %v, want ErrModelMismatch", err)
	}
	c := schemas.DefaultCriteria()
	c.AllowModelMismatch = true
	v, err := Evaluate(base, cand, c)
	if err != nil || len(v.Guards) != 1 {
		t.Errorf("allowed: err %v guards %q", err, v.Guards)
	}
}

func TestGapFloor(t *testing.T) {
	// 0.3 s of 60 s = 0.5 % and 0.5 s = 0.83 %: both under the 1 % floor.
	v, _ := Evaluate(synth("a", 20, 1000, 0.1, 0.3, 1), synth("b", 20, 1000, 0.1, 0.5, 2), schemas.DefaultCriteria())
	if c := verdictOf(v, GapFraction); c.Verdict != schemas.Pass || !strings.Contains(c.Reason, "floor") {
		t.Errorf("gap under the floor: %s %q", c.Verdict, c.Reason)
	}
	v, _ = Evaluate(synth("a", 20, 1000, 0.1, 3, 1), synth("b", 20, 1000, 0.1, 6, 2), schemas.DefaultCriteria())
	if c := verdictOf(v, GapFraction); c.Verdict != schemas.Fail {
		t.Errorf("gap 5%% → 10%%: %s, want FAIL", c.Verdict)
	}
}

func TestDeterministic(t *testing.T) {
	base := synth("a", 25, 1000, 0.3, 5, 1)
	cand := synth("b", 25, 1100, 0.3, 4, 2)
	var outs []string
	for range 2 {
		v, err := Evaluate(base, cand, schemas.DefaultCriteria())
		if err != nil {
			t.Fatal(err)
		}
		b, _ := json.Marshal(v)
		outs = append(outs, string(b))
	}
	if outs[0] != outs[1] {
		t.Error("two evaluations of the same inputs differ")
	}
}

func TestLoadCriteria(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "acceptance.yaml")
	os.WriteFile(p, []byte("min_improvement: 0.05\nresamples: 500\n"), 0o644)
	c, err := LoadCriteria(p)
	if err != nil || c.MinImprovement != 0.05 || c.Resamples != 500 || c.GapFloor != 0.01 {
		t.Errorf("got %+v, %v", c, err)
	}
	os.WriteFile(p, []byte("min_improvment: 0.05\n"), 0o644)
	if _, err := LoadCriteria(p); err == nil || !strings.Contains(err.Error(), "min_improvment") {
		t.Errorf("a misspelt key: got %v, want an error naming it", err)
	}
}
