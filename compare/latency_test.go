package compare

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/tpsreport/tpsreport/schemas"
)

// spread returns n requests released a second apart whose TTFT and TPOT are
// value(i), shuffled by a fixed permutation so that release order is not
// value order.
func spreadRequests(n int, ttft, tpot func(i int) *float64) []schemas.RequestLatency {
	t0 := time.Date(2026, 11, 20, 10, 0, 0, 0, time.UTC).UnixMicro()
	perm := rand.New(rand.NewPCG(3, 4)).Perm(n)
	out := make([]schemas.RequestLatency, n)
	for i, p := range perm {
		nan := math.NaN()
		out[i] = schemas.RequestLatency{Released: t0 + int64(i)*1_000_000, TTFT: nan, TPOT: nan, E2E: nan}
		if ttft != nil {
			out[i].TTFT = schemas.Latency(ttft(p))
		}
		if tpot != nil {
			out[i].TPOT = schemas.Latency(tpot(p))
		}
	}
	return out
}

func linear(a, b float64) func(int) *float64 {
	return func(i int) *float64 { return f(a + b*float64(i)) }
}

func mul(g func(int) *float64, k float64) func(int) *float64 {
	return func(i int) *float64 { return f(*g(i) * k) }
}

func TestLatencyCriteria(t *testing.T) {
	// TPOT of 1,000 requests evenly over 20–30 ms: p95 at rank 0.95·999 =
	// 949.05, 20 + 0.01·949.05 = 29.4905 ms.
	tpot := linear(0.020, 0.00001)
	// TTFT of 1,000 requests evenly over 0.5–1.5 s: p95 = 0.5 + 0.001·949.05 = 1.44905 s.
	ttft := linear(0.5, 0.001)
	type run struct {
		ttft, tpot func(int) *float64
		n          int
		missing    bool // Requests nil: not loaded
	}
	tests := []struct {
		name       string
		crit       string
		base, cand run
		verdict    string
		prefix     string // of the reason
		suffix     string
		bq, cq     float64 // the p95s, 0 when not computed
	}{
		{"TPOT +60 % fails", TPOT, run{ttft, tpot, 1000, false}, run{ttft, mul(tpot, 1.6), 1000, false}, schemas.Fail,
			"TPOT p95 29.5 ms → 47.2 ms (+60.0 %, ratio 1.600, 98.33 % interval 1.", "): above the 10 % tolerance.", 0.0294905, 0.0471848},
		{"TTFT +60 % fails", TTFT, run{ttft, tpot, 1000, false}, run{mul(ttft, 1.6), tpot, 1000, false}, schemas.Fail,
			"TTFT p95 1.45 s → 2.32 s (+60.0 %, ratio 1.600, 98.33 % interval 1.", "): above the 10 % tolerance.", 1.44905, 2.31848},
		{"TTFT +5 % passes", TTFT, run{ttft, tpot, 1000, false}, run{mul(ttft, 1.05), tpot, 1000, false}, schemas.Pass,
			"TTFT p95 1.45 s → 1.52 s (+5.0 %, ratio 1.050, 98.33 % interval ", "): within the 10 % tolerance.", 1.44905, 1.5215025},
		{"TPOT faster passes", TPOT, run{ttft, tpot, 1000, false}, run{ttft, mul(tpot, 0.8), 1000, false}, schemas.Pass,
			"TPOT p95 29.5 ms → 23.6 ms (−20.0 %, ratio 0.800, 98.33 % interval 0.", "): no slower.", 0.0294905, 0.0235924},
		// Ten requests each: TTFT 1…10 s against 1…9 s and 13 s. p95 at rank
		// 8.55: 9 + 0.55·1 = 9.55 s, and 9 + 0.55·4 = 11.2 s: +17 %, but
		// ten requests in one window cannot show it is not noise.
		{"TTFT +17 % on ten requests passes", TTFT,
			run{linear(1, 1), tpot, 10, false},
			run{func(i int) *float64 { return f(map[bool]float64{true: 13, false: float64(i + 1)}[i == 9]) }, tpot, 10, false},
			schemas.Pass, "TTFT p95 9.55 s → 11.2 s (+17.3 %, ratio 1.173), but the runs hold too few windows with delivered requests", "to tell any change from noise.", 9.55, 11.2},
		{"not loaded", TTFT, run{ttft, tpot, 1000, true}, run{ttft, tpot, 1000, false}, schemas.Inconclusive,
			"Request latencies were not available (not loaded for the baseline), so TTFT cannot be compared.", "", 0, 0},
		{"not loaded in either", TPOT, run{ttft, tpot, 1000, true}, run{ttft, tpot, 1000, true}, schemas.Inconclusive,
			"Request latencies were not available (not loaded for either run), so TPOT cannot be compared.", "", 0, 0},
		{"no TPOT", TPOT, run{ttft, tpot, 1000, false}, run{ttft, nil, 1000, false}, schemas.Inconclusive,
			"No delivered request of the candidate has a TPOT, so there is nothing to compare.", "", 0, 0},
		{"no request", TTFT, run{ttft, tpot, 0, false}, run{ttft, tpot, 1000, false}, schemas.Inconclusive,
			"No delivered request of the baseline has a TTFT, so there is nothing to compare.", "", 0, 0},
		{"baseline p95 zero", TTFT, run{linear(0, 0), tpot, 100, false}, run{ttft, tpot, 100, false}, schemas.Inconclusive,
			"The baseline's TTFT p95 is 0, so no ratio exists.", "", 0, 0.5 + 0.001*94.05},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			base := synth("a", 20, 1000, 0.1, 12, 1)
			cand := synth("b", 20, 1400, 0.1, 0, 2)
			base.Requests = spreadRequests(tt.base.n, tt.base.ttft, tt.base.tpot)
			cand.Requests = spreadRequests(tt.cand.n, tt.cand.ttft, tt.cand.tpot)
			if tt.base.missing {
				base.Requests = nil
			}
			if tt.cand.missing {
				cand.Requests = nil
			}
			v, err := Evaluate(base, cand, schemas.DefaultCriteria())
			if err != nil {
				t.Fatal(err)
			}
			c := verdictOf(v, tt.crit)
			if c.Verdict != tt.verdict || !strings.HasPrefix(c.Reason, tt.prefix) || !strings.HasSuffix(c.Reason, tt.suffix) {
				t.Errorf("got %s %q\nwant %s %q … %q", c.Verdict, c.Reason, tt.verdict, tt.prefix, tt.suffix)
			}
			if tt.bq != 0 && (c.Baseline == nil || math.Abs(*c.Baseline-tt.bq) > 1e-12) {
				t.Errorf("baseline p95 %v, want %v", ptr(c.Baseline), tt.bq)
			}
			if tt.cq != 0 && (c.Candidate == nil || math.Abs(*c.Candidate-tt.cq) > 1e-12) {
				t.Errorf("candidate p95 %v, want %v", ptr(c.Candidate), tt.cq)
			}
			if c.Verdict == schemas.Fail && !(*c.Lo > 1 && *c.Lo <= *c.Ratio && *c.Ratio <= *c.Hi) {
				t.Errorf("FAIL with interval %v–%v around %v: want 1 < lo ≤ ratio ≤ hi", *c.Lo, *c.Hi, *c.Ratio)
			}
			if c.Scope != ScopeRequests {
				t.Errorf("scope %q", c.Scope)
			}
			// The other criteria are untouched by request latencies.
			if thr := verdictOf(v, Throughput); thr.Verdict != schemas.Pass {
				t.Errorf("throughput %s", thr.Verdict)
			}
		})
	}
}

func ptr(p *float64) any {
	if p == nil {
		return nil
	}
	return *p
}

func TestSubsample(t *testing.T) {
	// Through Evaluate: 250,000 baseline requests, TTFT i·1 ms for the
	// request released i-th (release order is not slice order). p95 over all:
	// 0.001·0.95·249,999 = 237.49905 s. The candidate's 1,000 are not subsampled.
	const n = 250_000
	base := synth("a", 20, 1000, 0.1, 12, 1)
	cand := synth("b", 20, 1400, 0.1, 0, 2)
	t0 := time.Date(2026, 11, 20, 10, 0, 0, 0, time.UTC).UnixMicro()
	perm := rand.New(rand.NewPCG(5, 6)).Perm(n)
	base.Requests = make([]schemas.RequestLatency, n)
	for i, p := range perm {
		base.Requests[i] = schemas.RequestLatency{Released: t0 + int64(p)*1000, TTFT: float64(p) / 1000, TPOT: 0.02, E2E: math.NaN()}
	}
	cand.Requests = spreadRequests(1000, linear(100, 0.2), func(int) *float64 { return f(0.02) })
	c := schemas.DefaultCriteria()
	c.Resamples = 500
	v, err := Evaluate(base, cand, c)
	if err != nil {
		t.Fatal(err)
	}
	const note = "the latency intervals resample an evenly spaced subsample of 200,000 of the baseline's 250,000 requests, in release order (the p95s themselves are over all of them)"
	if strings.Join(v.Notes, "|") != note {
		t.Errorf("notes %q, want the subsample note", v.Notes)
	}
	ct := verdictOf(v, TTFT)
	if math.Abs(*ct.Baseline-237.49905) > 1e-9 {
		t.Errorf("baseline TTFT p95 %v, want 237.49905 over all 250,000", *ct.Baseline)
	}
	// The subsample is the released-order values ⌈i·1.25⌉ ms, every
	// window's share of them: the windows resampled keep the p95 near the
	// full one, so the interval brackets the ratio.
	if !(*ct.Lo < *ct.Ratio && *ct.Ratio < *ct.Hi) {
		t.Errorf("interval %v–%v does not hold the ratio %v", *ct.Lo, *ct.Hi, *ct.Ratio)
	}
	// Deterministic: the same inputs, the same interval.
	v2, _ := Evaluate(base, cand, c)
	if c2 := verdictOf(v2, TTFT); *c2.Lo != *ct.Lo || *c2.Hi != *ct.Hi {
		t.Error("two evaluations differ")
	}
}
