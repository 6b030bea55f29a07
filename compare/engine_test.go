package compare

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/tpsreport/tpsreport/schemas"
)

// TestStudentQuantile against printed tables (Abramowitz and Stegun, table
// 26.10) and the normal limit.
func TestStudentQuantile(t *testing.T) {
	tests := []struct{ p, df, want float64 }{
		{0.975, 1, 12.706205},
		{0.95, 2, 2.919986},
		{0.995, 3, 5.840909},
		{0.975, 10, 2.228139},
		{0.975, 30, 2.042272},
		{0.9995, 5, 6.868827},
		{0.975, math.Inf(1), 1.959964},
	}
	for _, tt := range tests {
		if got := studentQuantile(tt.p, tt.df); math.Abs(got-tt.want) > 2e-6 {
			t.Errorf("t(%v, %v) = %v, want %v", tt.p, tt.df, got, tt.want)
		}
	}
	// The distribution function inverts the quantile, fractional degrees
	// of freedom included.
	for _, df := range []float64{1.5, 2.7, 9.2, 150} {
		for _, p := range []float64{0.6, 0.9, 0.99, 0.9999} {
			if got := studentCDF(studentQuantile(p, df), df); math.Abs(got-p) > 1e-9 {
				t.Errorf("CDF(quantile(%v, %v)) = %v", p, df, got)
			}
		}
	}
}

// ar1 is n values of x_t = φ·x_{t−1} + e_t, e standard normal.
func ar1(n int, phi float64, seed uint64) []float64 {
	rng := rand.New(rand.NewPCG(seed, 1))
	out := make([]float64, n)
	x := 0.0
	for i := -100; i < n; i++ { // a burn-in forgets the start
		x = phi*x + rng.NormFloat64()
		if i >= 0 {
			out[i] = x
		}
	}
	return out
}

// TestBlockLength: on an AR(1) series the rule's block length approaches
// the theoretical optimum of the circular block bootstrap, (6φ²/(1−φ²)²)^⅓·n^⅓
// (from γ(k) = φ^|k|/(1−φ²): G = 2φ/((1−φ²)(1−φ)²), g(0) = 1/(1−φ)²);
// independent noise needs no blocks.
func TestBlockLength(t *testing.T) {
	const n = 10000
	for _, phi := range []float64{0.5, 0.8} {
		want := math.Cbrt(6*phi*phi/((1-phi*phi)*(1-phi*phi))) * math.Cbrt(n)
		var sum float64
		for seed := range uint64(5) {
			sum += float64(blockLength(ar1(n, phi, seed)))
		}
		if got := sum / 5; math.Abs(got-want) > 0.25*want {
			t.Errorf("φ = %v: mean block length %v over 5 series, want within 25 %% of %.1f", phi, got, want)
		}
	}
	if b := blockLength(ar1(n, 0, 7)); b > 2 {
		t.Errorf("independent noise: block length %d, want 1 or 2", b)
	}
	for _, x := range [][]float64{nil, {1, 2, 3}, {4, 4, 4, 4, 4, 4, 4, 4}} {
		if b := blockLength(x); b != 1 {
			t.Errorf("%v: block length %d, want 1", x, b)
		}
	}
	// Never more than a third of the series.
	if b := blockLength(ar1(12, 0.99, 3)); b < 1 || b > 4 {
		t.Errorf("12 values: block length %d, want 1…4", b)
	}
}

// meanRun is a run of windows whose statistic ratioOf(0, 1) is the mean of xs.
func meanRun(xs []float64) []unit {
	run := make([]unit, len(xs))
	for i, x := range xs {
		run[i].sums[0], run[i].sums[1] = x, 1
	}
	return run
}

// TestCircularBlockVariance: the circular block bootstrap's variance of a
// mean has a closed form. With n values, blocks of b (n/b = k blocks a
// resample) start at any of the n values, wrapping, so a resample's mean is
// the mean of k independent draws from the n circular block means M_i:
// Var* = Var(M)/k, Var(M) over the n of them.
func TestCircularBlockVariance(t *testing.T) {
	xs := []float64{3, 9, 1, 4, 12, 7, 7, 2, 8, 5, 0, 10}
	const b = 3
	n := len(xs)
	var ms []float64
	for i := range n {
		ms = append(ms, (xs[i]+xs[(i+1)%n]+xs[(i+2)%n])/b)
	}
	var mean, v float64
	for _, m := range ms {
		mean += m / float64(n)
	}
	for _, m := range ms {
		v += (m - mean) * (m - mean) / float64(n)
	}
	want := v / float64(n/b)
	sd := side{meanRun(xs)}
	r := newResampler(sd, []int{b}, rand.New(rand.NewPCG(1, 2)), false)
	got := variance(context.Background(), r, newWeighed(sd.all(), ratioOf(0, 1)), func(x float64) float64 { return x }, 400_000)
	if math.Abs(got-want) > 0.015*want {
		t.Errorf("variance %v, want %v", got, want)
	}
}

// TestSeveralRunsDegreesOfFreedom: runs that differ far more from each
// other than within themselves leave about one degree of freedom fewer than
// the runs; runs alike leave about the blocks'.
func TestSeveralRunsDegreesOfFreedom(t *testing.T) {
	noisy := func(level float64, seed uint64) []unit {
		rng := rand.New(rand.NewPCG(seed, 3))
		xs := make([]float64, 40)
		for i := range xs {
			xs[i] = level + rng.NormFloat64()
		}
		return meanRun(xs)
	}
	id := func(x float64) float64 { return x }
	apart := resample(context.Background(), side{noisy(100, 1), noisy(200, 2), noisy(300, 3)}, ratioOf(0, 1), id, 4000, [2]uint64{1, 1})
	if apart.df > 3 {
		t.Errorf("runs apart: %v degrees of freedom, want about 2", apart.df)
	}
	alike := resample(context.Background(), side{noisy(100, 1), noisy(100, 2), noisy(100, 3)}, ratioOf(0, 1), id, 4000, [2]uint64{1, 1})
	if alike.df < 20 {
		t.Errorf("runs alike: %v degrees of freedom, want tens (120 windows)", alike.df)
	}
	// The spread between runs enters the standard error: the mean of 100,
	// 200 and 300 varies by about their spread over √3.
	if apart.se < 40 || apart.se > 100 {
		t.Errorf("runs apart: standard error %v, want about 100/√3·√(2/3) ≈ 47–82", apart.se)
	}
}

// TestEvaluateRunsPools: three runs a side pool their windows, and the
// verdict names every run.
func TestEvaluateRunsPools(t *testing.T) {
	var base, cand []Run
	var sum float64
	for i := range 3 {
		b := synth("base-"+string(rune('1'+i)), 10, 1000, 0.1, 6, uint64(10+i))
		for _, w := range b.Windows {
			sum += *w.RetryAdjustedSystemTPS
		}
		base = append(base, b)
		cand = append(cand, synth("cand-"+string(rune('1'+i)), 10, 1500, 0.1, 0, uint64(20+i)))
	}
	v, err := EvaluateRuns(context.Background(), base, cand, schemas.DefaultCriteria())
	if err != nil {
		t.Fatal(err)
	}
	thr := verdictOf(v, Throughput)
	if math.Abs(*thr.Baseline-sum/30) > 1e-9 {
		t.Errorf("pooled baseline throughput %v, want the mean of its 30 windows %v", *thr.Baseline, sum/30)
	}
	if thr.Verdict != schemas.Pass || thr.Resampling == nil || thr.Resampling.Baseline.Runs != 3 || len(thr.Resampling.Baseline.BlockWindows) != 3 {
		t.Errorf("throughput %s %+v: want PASS over three runs a side", thr.Verdict, thr.Resampling)
	}
	if v.Baseline != "base-1, base-2, base-3" || strings.Join(v.CandidateRuns, " ") != "cand-1 cand-2 cand-3" {
		t.Errorf("runs: %q, %q", v.Baseline, v.CandidateRuns)
	}
	if b := v.Bootstrap; b.BaselineRuns != 3 || b.CandidateRuns != 3 || b.BaselineWindows != 30 || b.Criteria != 6 {
		t.Errorf("bootstrap %+v", b)
	}
	if _, err := EvaluateRuns(context.Background(), nil, cand, schemas.DefaultCriteria()); err == nil {
		t.Error("no baseline run: want an error")
	}
}

// TestEvaluateCancelled: a comparison stops when its context is done.
func TestEvaluateCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	base, cand := synth("a", 20, 1000, 0.1, 5, 1), synth("b", 20, 1000, 0.1, 5, 2)
	if _, err := EvaluateRuns(ctx, []Run{base}, []Run{cand}, schemas.DefaultCriteria()); !errors.Is(err, context.Canceled) {
		t.Errorf("got %v, want context.Canceled", err)
	}
	// A deadline mid-resampling ends it within a batch of resamples.
	c := schemas.DefaultCriteria()
	c.Resamples = MaxResamples
	ctx, cancel = context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err := EvaluateRuns(ctx, []Run{base}, []Run{cand}, c)
	if !errors.Is(err, context.DeadlineExceeded) || time.Since(start) > 2*time.Second {
		t.Errorf("got %v after %v, want the deadline within 2 s", err, time.Since(start))
	}
}

// TestFalseAlarmsOnIndependentWindows: pairs of runs of one system whose
// windows are independent alarm (an overall PASS or FAIL) in at most
// alpha (5 %) of 200 pairs. A method that alarmed at alpha itself would
// pass half the time; one held to alpha over all its criteria alarms far
// less.
func TestFalseAlarmsOnIndependentWindows(t *testing.T) {
	alarms := 0
	c := schemas.DefaultCriteria()
	c.Resamples = 400
	for k := range uint64(200) {
		base, cand := synth("a", 15, 1000, 0.3, 6, 2*k+1), synth("b", 15, 1000, 0.3, 6, 2*k+2)
		v, err := Evaluate(base, cand, c)
		if err != nil {
			t.Fatal(err)
		}
		if v.Overall != schemas.Inconclusive {
			alarms++
		}
	}
	if alarms > 10 {
		t.Errorf("%d of 200 A/A pairs alarmed, want at most 10 (5 %%)", alarms)
	}
}

// TestMoreData: the data that would decide a change, by hand: the standard
// error shrinks with its square root, so k = (t·SE / distance)².
func TestMoreData(t *testing.T) {
	thr := definitionOf(Throughput)
	gap := definitionOf(GapFraction)
	c := schemas.DefaultCriteria()
	j := judgement{b: 100, c: 110, se: 0.05, t: 3}
	// +10 % towards a PASS: distance ln 1.1 = 0.09531.
	if got, want := thr.moreData(j, c), math.Pow(0.15/math.Log(1.1), 2); math.Abs(got-want) > 1e-12 {
		t.Errorf("throughput +10 %%: %v, want %v", got, want)
	}
	// Against a 20 % target, +10 % is heading for a FAIL: distance ln 1.2 − ln 1.1.
	c.MinImprovement = 0.2
	if got, want := thr.moreData(j, c), math.Pow(0.15/(math.Log(1.2)-math.Log(1.1)), 2); math.Abs(got-want) > 1e-12 {
		t.Errorf("throughput +10 %% of a 20 %% target: %v, want %v", got, want)
	}
	// gap_fraction: a change within the 0.5 pp tolerance never counts; one
	// of 2 pp with a standard error of 1 pp at t = 3 needs 2.25 times the data.
	if got := gap.moreData(judgement{b: 0.30, c: 0.297, se: 0.01, t: 3}, c); got != 0 {
		t.Errorf("gap within tolerance: %v, want 0", got)
	}
	if got := gap.moreData(judgement{b: 0.30, c: 0.28, se: 0.01, t: 3}, c); math.Abs(got-2.25) > 1e-9 {
		t.Errorf("gap −2 pp: %v, want 2.25", got)
	}
}

// TestWeighedQuantile: the quantile of a resample found by searching the
// windows' sorted values, each counted as often as its window was drawn,
// is exactly the quantile of the resample's values written out and sorted
// (sortedQuantile), ties, empty windows and subsamples included.
func TestWeighedQuantile(t *testing.T) {
	rng := rand.New(rand.NewPCG(12, 13))
	for trial := range 300 {
		units := make([]*unit, 1+rng.IntN(12))
		for i := range units {
			u := &unit{}
			for range rng.IntN(30) {
				x := rng.Float64()
				if trial%3 == 0 {
					x = float64(rng.IntN(4)) // many ties
				}
				u.lats[latTTFT] = append(u.lats[latTTFT], x)
			}
			if trial%5 == 0 && len(u.lats[latTTFT]) > 2 {
				u.sub[latTTFT] = u.lats[latTTFT][:len(u.lats[latTTFT])/2]
			}
			units[i] = u
		}
		for _, q := range []float64{0, 0.5, 0.95, 1} {
			w := newWeighed(units, quantileOf(latTTFT, q))
			for range 5 {
				var picked []int
				var written []float64
				for range rng.IntN(2 * len(units)) {
					i := rng.IntN(len(units))
					picked = append(picked, i)
					xs := units[i].lats[latTTFT]
					if units[i].sub[latTTFT] != nil {
						xs = units[i].sub[latTTFT]
					}
					written = append(written, xs...)
				}
				got, ok := w.value(picked)
				if len(written) == 0 {
					if ok {
						t.Fatalf("trial %d: a value %v of no latency", trial, got)
					}
					continue
				}
				if want := sortedQuantile(written, q); !ok || got != want {
					t.Fatalf("trial %d q %v: %v (%v), want %v", trial, q, got, ok, want)
				}
			}
		}
	}
}
