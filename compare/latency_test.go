package compare

import (
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tpsreport/tpsreport/schemas"
)

// spread returns n requests released a second apart whose TTFT and TPOT are
// value(i), shuffled by a fixed permutation so that release order is not
// value order.
func spread(n int, ttft, tpot func(i int) *float64) []schemas.RequestLatency {
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

func times(g func(int) *float64, k float64) func(int) *float64 {
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
		{"TPOT +60 % fails", TPOT, run{ttft, tpot, 1000, false}, run{ttft, times(tpot, 1.6), 1000, false}, schemas.Fail,
			"TPOT p95 29.49 ms → 47.18 ms (+60 %, ratio 1.60, 95 % interval 1.", "): above the 10 % tolerance.", 0.0294905, 0.0471848},
		{"TTFT +60 % fails", TTFT, run{ttft, tpot, 1000, false}, run{times(ttft, 1.6), tpot, 1000, false}, schemas.Fail,
			"TTFT p95 1.449 s → 2.318 s (+60 %, ratio 1.60, 95 % interval 1.", "): above the 10 % tolerance.", 1.44905, 2.31848},
		{"TTFT +5 % passes", TTFT, run{ttft, tpot, 1000, false}, run{times(ttft, 1.05), tpot, 1000, false}, schemas.Pass,
			"TTFT p95 1.449 s → 1.522 s (+5.0 %, ratio 1.05, 95 % interval ", "): within the 10 % tolerance.", 1.44905, 1.5215025},
		{"TPOT faster passes", TPOT, run{ttft, tpot, 1000, false}, run{ttft, times(tpot, 0.8), 1000, false}, schemas.Pass,
			"TPOT p95 29.49 ms → 23.59 ms (−20 %, ratio 0.80, 95 % interval 0.", "): no slower.", 0.0294905, 0.0235924},
		// Ten requests each: TTFT 1…10 s against 1…9 s and 13 s. p95 at rank
		// 8.55: 9 + 0.55·1 = 9.55 s, and 9 + 0.55·4 = 11.2 s: +17 %, but
		// ten requests cannot show it is not noise.
		{"TTFT +17 % on ten requests passes", TTFT,
			run{linear(1, 1), tpot, 10, false},
			run{func(i int) *float64 { return f(map[bool]float64{true: 13, false: float64(i + 1)}[i == 9]) }, tpot, 10, false},
			schemas.Pass, "TTFT p95 9.55 s → 11.2 s (+17 %, ratio 1.17, 95 % interval 0.", "): above the 10 % tolerance, but not significantly: the interval reaches 1.", 9.55, 11.2},
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
			base.Requests = spread(tt.base.n, tt.base.ttft, tt.base.tpot)
			cand.Requests = spread(tt.cand.n, tt.cand.ttft, tt.cand.tpot)
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

// TestResampledQuantile: the order-statistic shortcut draws the p95 of a
// resample from the same distribution as resampling and sorting.
func TestResampledQuantile(t *testing.T) {
	xs := []float64{1, 2, 3, 5, 8, 13, 21, 34, 55, 89, 144, 233, 377, 610, 987, 1597, 2584, 4181, 6765, 10946}
	const draws = 200_000
	fast := make([]float64, draws)
	slow := make([]float64, draws)
	rng := rand.New(rand.NewPCG(1, 2))
	buf := make([]float64, len(xs))
	for i := range draws {
		fast[i] = resampledQuantile(rng, xs, LatencyQuantile)
		for j := range buf {
			buf[j] = xs[rng.IntN(len(xs))]
		}
		slices.Sort(buf)
		slow[i] = quantile(buf, LatencyQuantile)
	}
	slices.Sort(fast)
	slices.Sort(slow)
	// Kolmogorov–Smirnov distance at every value either method produced.
	ks := 0.0
	for _, x := range append(slices.Clone(xs), fast[draws/4], fast[draws/2], fast[3*draws/4]) {
		a, _ := slices.BinarySearch(fast, math.Nextafter(x, math.Inf(1)))
		b, _ := slices.BinarySearch(slow, math.Nextafter(x, math.Inf(1)))
		ks = max(ks, math.Abs(float64(a-b))/draws)
	}
	// The 0.1 % critical value of two samples of 200,000 is 1.95·√(2/200,000) = 0.0062.
	if ks > 0.0062 {
		t.Errorf("KS distance %.4f between the shortcut and resampling", ks)
	}
	if m1, m2 := mean(fast), mean(slow); math.Abs(m1-m2)/m2 > 0.01 {
		t.Errorf("means %v and %v", m1, m2)
	}
	// One value: the resample is that value.
	if got := resampledQuantile(rng, []float64{7}, LatencyQuantile); got != 7 {
		t.Errorf("one value: %v", got)
	}
}

func TestSubsample(t *testing.T) {
	xs := make([]float64, 250_000)
	for i := range xs {
		xs[i] = float64(i)
	}
	s := subsample(xs)
	if len(s) != MaxBootstrapRequests || s[0] != 0 || s[1] != 1 || s[3] != 3 || s[4] != 5 || s[len(s)-1] != 249_998 {
		t.Errorf("subsample of 250,000: len %d, starts %v, ends %v; want every 1.25th: 0 1 2 3 5 … 249,998", len(s), s[:5], s[len(s)-1])
	}
	if s := subsample(xs[:MaxBootstrapRequests]); len(s) != MaxBootstrapRequests || &s[0] != &xs[0] {
		t.Error("200,000 values are resampled as they are")
	}

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
	cand.Requests = spread(1000, linear(100, 0.2), func(int) *float64 { return f(0.02) })
	c := schemas.DefaultCriteria()
	c.Resamples = 500
	v, err := Evaluate(base, cand, c)
	if err != nil {
		t.Fatal(err)
	}
	const note = "the TTFT interval resamples an evenly spaced subsample of 200,000 of the baseline's 250,000 requests, in release order (the p95 itself is over all of them)"
	const tpotNote = "the TPOT interval resamples an evenly spaced subsample of 200,000 of the baseline's 250,000 requests, in release order (the p95 itself is over all of them)"
	if strings.Join(v.Notes, "|") != note+"|"+tpotNote {
		t.Errorf("notes %q, want the two subsample notes", v.Notes)
	}
	ct := verdictOf(v, TTFT)
	if math.Abs(*ct.Baseline-237.49905) > 1e-9 {
		t.Errorf("baseline TTFT p95 %v, want 237.49905 over all 250,000", *ct.Baseline)
	}
	// The subsample is the released-order values ⌊i·1.25⌋ ms: its p95 is
	// within a millisecond of the full one, so the interval brackets the ratio.
	if !(*ct.Lo < *ct.Ratio && *ct.Ratio < *ct.Hi) {
		t.Errorf("interval %v–%v does not hold the ratio %v", *ct.Lo, *ct.Hi, *ct.Ratio)
	}
	// Deterministic: the same inputs, the same interval.
	v2, _ := Evaluate(base, cand, c)
	if c2 := verdictOf(v2, TTFT); *c2.Lo != *ct.Lo || *c2.Hi != *ct.Hi {
		t.Error("two evaluations differ")
	}
}
