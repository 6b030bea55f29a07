package compare

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/tpsreport/tpsreport/schemas"
)

// TestMSER: the rule's statistic, hand-computed. For z = 1 5 5 6 4 5 it is,
// from d = 0: 15.33/36 = 0.426, 2/25 = 0.08, 2/16 = 0.125, 2/9 = 0.222,
// 0.5/4 = 0.125 (the search stops at half of z): d = 1. A step is cut at
// its end (ties go to the smaller d); a series that keeps rising is least
// noisy at the bound of the search, half of it: not steady.
func TestMSER(t *testing.T) {
	tests := []struct {
		z      []float64
		d      int
		steady bool
	}{
		{[]float64{1, 5, 5, 6, 4, 5}, 1, true},
		{[]float64{0, 0, 10, 10, 10, 10, 10, 10}, 2, true},
		{[]float64{7, 7, 7, 7, 7}, 0, true},
		{[]float64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}, 5, false},
		{[]float64{3, 1, 2}, 0, true}, // too short to judge
	}
	for _, tt := range tests {
		d, steady := mser(tt.z)
		if d != tt.d || steady != tt.steady {
			t.Errorf("mser(%v) = %d, %v; want %d, %v", tt.z, d, steady, tt.d, tt.steady)
		}
	}
}

// TestSteadyCut: 300 windows (MSER-5: 60 batches) of a run that ramps for
// 50 windows at 50, runs 240 at 100 and drains for ten at 20. The batch
// means are 50×10 100×48 20×2; the warm-up statistic is 8.48 at d = 0,
// 5.55 at 9, 4.92 at 10 and 5.11 at 11 batches (d = 10: 50 windows), and
// the cool-down's, on 20×2 100×48 from the end, is 0 at d = 2 (10
// windows); the rest's median absolute deviation is 0, so both cuts stand.
// A run of 30 windows is judged window by window (MSER).
func TestSteadyCut(t *testing.T) {
	var tps []float64
	for i := range 300 {
		switch {
		case i < 50:
			tps = append(tps, 50)
		case i < 290:
			tps = append(tps, 100)
		default:
			tps = append(tps, 20)
		}
	}
	front, back, method, unsteady := steadyCut(tps, true, true)
	if front != 50 || back != 10 || method != "MSER-5" || unsteady != "" {
		t.Errorf("steadyCut = %d, %d, %q, %q; want 50, 10, MSER-5, none", front, back, method, unsteady)
	}
	if front, back, _, _ := steadyCut(tps, true, false); front != 50 || back != 0 {
		t.Errorf("warm-up only: %d, %d; want 50, 0", front, back)
	}
	short := append(append([]float64{10, 40}, slices.Repeat([]float64{100}, 26)...), 30, 5)
	front, back, method, _ = steadyCut(short, true, true)
	if front != 2 || back != 2 || method != "MSER" {
		t.Errorf("30 windows: %d, %d, %q; want 2, 2, MSER", front, back, method)
	}
}

// TestSteadyCutFlat: on steady noise (5 % a window, 200 seeds each of 60
// windows, judged window by window, and of 300, in batches of five) the
// rule cuts nothing in at least 190 of 200 seeds (195 and 194 when
// written), and never half of a run.
func TestSteadyCutFlat(t *testing.T) {
	for _, n := range []int{60, 300} {
		none := 0
		for seed := range uint64(200) {
			r := rand.New(rand.NewPCG(seed, 2))
			tps := make([]float64, n)
			for i := range tps {
				tps[i] = 100 * (1 + 0.05*r.NormFloat64())
			}
			front, back, _, _ := steadyCut(tps, true, true)
			if front+back == 0 {
				none++
			}
			if 2*(front+back) >= n {
				t.Errorf("%d windows, seed %d: cut %d + %d", n, seed, front, back)
			}
		}
		t.Logf("%d steady windows: nothing cut in %d of 200 seeds", n, none)
		if none < 190 {
			t.Errorf("%d steady windows: nothing cut in %d of 200 seeds, want at least 190", n, none)
		}
	}
}

// TestLoadAuto: "warmup: auto" in an acceptance file sets the automatic
// rule and no fixed warm-up; a fixed cool-down beside it stays.
func TestLoadAuto(t *testing.T) {
	c, err := parseCriteria("acceptance.yaml", []byte("warmup: auto\ncooldown: 90s\n"))
	if err != nil {
		t.Fatal(err)
	}
	if !c.WarmupAuto || c.Warmup != 0 || c.CooldownAuto || c.Cooldown != 90 {
		t.Errorf("warmup auto %v %v, cooldown auto %v %v; want true 0, false 90", c.WarmupAuto, c.Warmup, c.CooldownAuto, c.Cooldown)
	}
}

// TestWarmupAuto: exclusionRuns' baseline ramps in its first window and
// drains in its last (100, 1000×6, 100 tokens/s), its candidate is steady.
// MSER (8 windows) cuts one window at each end of the baseline (statistic
// 19,062, 14,169, 18,750, … from d = 0; then 0 at d = 1 from the end) and
// none of the candidate's; the verdict names each run's cut, and the
// baseline's numbers are those of the fixed 60 s warm-up and cool-down.
func TestWarmupAuto(t *testing.T) {
	base, cand := exclusionRuns()
	c := schemas.DefaultCriteria()
	c.WarmupAuto, c.CooldownAuto = true, true
	v, err := Evaluate(base, cand, c)
	if err != nil {
		t.Fatal(err)
	}
	want := []schemas.RunCut{
		{Side: "baseline", Run: "base", Method: "MSER", WarmupSeconds: 60, CooldownSeconds: 60, WarmupWindows: 1, CooldownWindows: 1},
		{Side: "candidate", Run: "cand", Method: "MSER"},
	}
	if !slices.Equal(v.Cuts, want) {
		t.Errorf("cuts %+v, want %+v", v.Cuts, want)
	}
	wantNotes := []string{
		"warm-up and cool-down found in each run's throughput by MSER: baseline base: warm-up 60 s (1 window), cool-down 60 s (1 window); candidate cand: warm-up none, cool-down none",
		"warm-up (auto) and cool-down (auto) excluded from every criterion: baseline 2 of 8 windows (80 completed requests), candidate 0 of 8 windows (0 completed requests)",
	}
	if !slices.Equal(v.Notes, wantNotes) {
		t.Errorf("notes %q, want %q", v.Notes, wantNotes)
	}
	c.WarmupAuto, c.CooldownAuto, c.Warmup, c.Cooldown = false, false, 60, 60
	fixed, err := Evaluate(base, cand, c)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{Throughput, SuccessRate, TTFT} {
		a, f := verdictOf(v, name), verdictOf(fixed, name)
		if *a.Baseline != *f.Baseline {
			t.Errorf("%s baseline: auto %v, fixed 60 s %v", name, *a.Baseline, *f.Baseline)
		}
	}
}
