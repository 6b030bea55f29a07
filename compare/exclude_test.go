package compare

import (
	"encoding/json"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/tpsreport/tpsreport/schemas"
)

// window is one 60 s window of a hand-made run: its counts, throughput
// and gap time, all windows with backlog.
type window struct {
	requests, succeeded, attempts, retries, sloMet int64
	tps, gap                                       float64
}

var t0 = time.Date(2026, 11, 20, 10, 0, 0, 0, time.UTC)

// countedRun builds a run of 60 s windows from t0 whose summary holds the
// windows' sums, as analyze writes them (docs/metrics.md: every event
// counts in exactly one window), and delivered requests released in the
// middle of the window given by at.
func countedRun(id string, ws []window, ttft []float64, at []int) Run {
	r := Run{Summary: schemas.Summary{RunID: id, RunStart: t0, RunEnd: t0.Add(time.Duration(len(ws)) * time.Minute), WindowWidth: 60}}
	r.Summary.SLO = &schemas.SLO{TTFT: f(2)}
	var met int64
	for i, w := range ws {
		start := t0.Add(time.Duration(i) * time.Minute)
		r.Windows = append(r.Windows, schemas.Metrics{
			WindowStart: start, WindowEnd: start.Add(time.Minute), WindowSeconds: 60,
			RetryAdjustedSystemTPS: f(w.tps), BacklogTime: 30, GapTime: w.gap,
			Requests: w.requests, SucceededRequests: w.succeeded, Attempts: w.attempts, RetryAttempts: w.retries, SLOMet: i64(w.sloMet),
		})
		r.Summary.Requests += w.requests
		r.Summary.SucceededRequests += w.succeeded
		r.Summary.Attempts += w.attempts
		r.Summary.RetryAttempts += w.retries
		met += w.sloMet
	}
	r.Summary.SLOMet = &met
	r.Requests = []schemas.RequestLatency{}
	for i, v := range ttft {
		released := t0.Add(time.Duration(at[i])*time.Minute + 30*time.Second).UnixMicro()
		r.Requests = append(r.Requests, schemas.RequestLatency{Released: released, TTFT: v, TPOT: 0.02, E2E: math.NaN()})
	}
	return r
}

// exclusionRuns: a baseline with a bad first minute (warm-up: slow, failing,
// retrying) and a short last one; a candidate that is steady throughout, at
// 99 % success. Eight windows each.
func exclusionRuns() (Run, Run) {
	warm := window{requests: 50, succeeded: 20, attempts: 80, retries: 30, sloMet: 10, tps: 100, gap: 30}
	steady := window{requests: 100, succeeded: 100, attempts: 100, retries: 0, sloMet: 100, tps: 1000}
	cool := window{requests: 30, succeeded: 30, attempts: 30, retries: 0, sloMet: 30, tps: 100}
	cand := window{requests: 100, succeeded: 99, attempts: 100, retries: 1, sloMet: 98, tps: 1000}

	// Baseline TTFT: 5 requests of 10 s in the warm-up, 95 of 1 s after.
	var bTTFT []float64
	var bAt []int
	for i := range 100 {
		if i < 5 {
			bTTFT, bAt = append(bTTFT, 10), append(bAt, 0)
		} else {
			bTTFT, bAt = append(bTTFT, 1), append(bAt, 1+i%6)
		}
	}
	// Candidate TTFT: 100 requests of 1.2 s in windows 1–6.
	var cTTFT []float64
	var cAt []int
	for i := range 100 {
		cTTFT, cAt = append(cTTFT, 1.2), append(cAt, 1+i%6)
	}
	return countedRun("base", []window{warm, steady, steady, steady, steady, steady, steady, cool}, bTTFT, bAt),
		countedRun("cand", []window{cand, cand, cand, cand, cand, cand, cand, cand}, cTTFT, cAt)
}

func TestWindowSumsAreTheRunCounts(t *testing.T) {
	base, cand := exclusionRuns()
	for _, r := range []Run{base, cand} {
		got, want := windowCounts(r.Windows, true), summaryCounts(r.Summary)
		if got.requests != want.requests || got.succeeded != want.succeeded || got.attempts != want.attempts || got.retries != want.retries || *got.sloMet != *want.sloMet {
			t.Errorf("%s: windows sum to %+v (slo_met %d), run has %+v (slo_met %d)", r.Summary.RunID, got, *got.sloMet, want, *want.sloMet)
		}
	}
}

func TestWarmupCooldown(t *testing.T) {
	type nums struct {
		thrB, thrC   float64 // mean tps over backlog windows
		gapB         float64
		succB, succC float64
		retB, retC   float64
		sloB, sloC   float64
		ttftB, ttftC float64
		verdicts     map[string]string
		note         string
	}
	tests := []struct {
		name             string
		warmup, cooldown float64
		want             nums
	}{
		// Everything: baseline 680 requests, 650 succeeded, 710 attempts, 30
		// retries, 640 within the SLO; candidate 800, 792, 800, 8, 784.
		// Baseline TTFT p95 of 5×10 s and 95×1 s: rank 94.05, 1 + 0.05·9 = 1.45 s.
		{"none", 0, 0, nums{
			thrB: (100 + 6*1000 + 100) / 8.0, thrC: 1000, gapB: 30 / 480.0,
			succB: 650 / 680.0, succC: 792 / 800.0,
			retB: 30 / 710.0, retC: 8 / 800.0,
			sloB: 640 / 680.0, sloC: 784 / 800.0,
			ttftB: 1.45, ttftC: 1.2,
			verdicts: map[string]string{SuccessRate: schemas.Pass, RetryRate: schemas.Pass, TTFT: schemas.Pass, SLOAttainment: schemas.Pass},
		}},
		// The first and last minute out: baseline 600, 600, 600, 0, 600;
		// candidate 600, 594, 600, 6, 588. Every window kept is the same as
		// its neighbours, so the resamples do not vary: the drops of 1 and
		// 2 pp, and TTFT 95×1 s → 1.2 s, are beyond any noise.
		{"warm-up and cool-down", 60, 60, nums{
			thrB: 1000, thrC: 1000, gapB: 0,
			succB: 1, succC: 0.99,
			retB: 0, retC: 0.01,
			sloB: 1, sloC: 0.98,
			ttftB: 1, ttftC: 1.2,
			verdicts: map[string]string{SuccessRate: schemas.Fail, RetryRate: schemas.Fail, TTFT: schemas.Fail, SLOAttainment: schemas.Fail},
			note:     "warm-up 60 s and cool-down 60 s excluded from every criterion: baseline 2 of 8 windows (80 completed requests), candidate 2 of 8 windows (200 completed requests)",
		}},
		// 30 s of warm-up still excludes the first window (it starts within
		// 30 s of the run's start); no cool-down keeps the last.
		// Baseline 630, 630, 630, 0, 630; candidate 700, 693, 700, 7, 686.
		{"warm-up only", 30, 0, nums{
			thrB: (6*1000 + 100) / 7.0, thrC: 1000, gapB: 0,
			succB: 1, succC: 0.99,
			retB: 0, retC: 0.01,
			sloB: 1, sloC: 0.98,
			ttftB: 1, ttftC: 1.2,
			verdicts: map[string]string{SuccessRate: schemas.Fail, RetryRate: schemas.Fail, TTFT: schemas.Fail},
			note:     "warm-up 30 s excluded from every criterion: baseline 1 of 8 windows (50 completed requests), candidate 1 of 8 windows (100 completed requests)",
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			base, cand := exclusionRuns()
			c := schemas.DefaultCriteria()
			c.Warmup, c.Cooldown = tt.warmup, tt.cooldown
			v, err := Evaluate(base, cand, c)
			if err != nil {
				t.Fatal(err)
			}
			w := tt.want
			near := func(what string, got *float64, want, tol float64) {
				t.Helper()
				if got == nil || math.Abs(*got-want) > tol {
					t.Errorf("%s: got %v, want %v", what, ptr(got), want)
				}
			}
			thr, gap := verdictOf(v, Throughput), verdictOf(v, GapFraction)
			succ, ret := verdictOf(v, SuccessRate), verdictOf(v, RetryRate)
			slo, ttft := verdictOf(v, SLOAttainment), verdictOf(v, TTFT)
			near("throughput baseline", thr.Baseline, w.thrB, 1e-9)
			near("throughput candidate", thr.Candidate, w.thrC, 1e-9)
			near("gap baseline", gap.Baseline, w.gapB, 1e-12)
			near("success baseline", succ.Baseline, w.succB, 1e-12)
			near("success candidate", succ.Candidate, w.succC, 1e-12)
			near("retry baseline", ret.Baseline, w.retB, 1e-12)
			near("retry candidate", ret.Candidate, w.retC, 1e-12)
			near("slo baseline", slo.Baseline, w.sloB, 1e-12)
			near("slo candidate", slo.Candidate, w.sloC, 1e-12)
			near("ttft baseline", ttft.Baseline, w.ttftB, 1e-12)
			near("ttft candidate", ttft.Candidate, w.ttftC, 1e-12)
			for name, want := range w.verdicts {
				if c := verdictOf(v, name); c.Verdict != want {
					t.Errorf("%s: %s %q, want %s", name, c.Verdict, c.Reason, want)
				}
			}
			notes := []string{}
			if w.note != "" {
				notes = append(notes, w.note)
			}
			if len(v.Notes) != len(notes) || len(notes) == 1 && v.Notes[0] != notes[0] {
				t.Errorf("notes %q, want %q", v.Notes, notes)
			}
		})
	}
}

// TestExclusionEdges: a window is excluded when any of it lies within the
// warm-up or the cool-down; a warm-up that ends before the first window
// excludes nothing and changes no number.
func TestExclusionEdges(t *testing.T) {
	base, cand := exclusionRuns()
	v0, _ := Evaluate(base, cand, schemas.DefaultCriteria())

	c := schemas.DefaultCriteria()
	c.Cooldown = 1e-6 // the last window ends at the run's end: within 1 µs of it
	v1, _ := Evaluate(base, cand, c)
	if got := verdictOf(v1, SuccessRate); *got.Baseline != 620/650.0 {
		t.Errorf("1 µs cool-down: baseline success rate %v, want 620/650 without the last window", *got.Baseline)
	}

	// The run started an hour before its first window: a 60 s warm-up is over
	// before any window starts.
	base.Summary.RunStart = t0.Add(-time.Hour)
	cand.Summary.RunStart = t0.Add(-time.Hour)
	c = schemas.DefaultCriteria()
	c.Warmup = 60
	v2, _ := Evaluate(base, cand, c)
	if a, b := mustJSON(t, v0.Criteria), mustJSON(t, v2.Criteria); a != b {
		t.Errorf("criteria changed:\n got %s\nwant %s", b, a)
	}
	const note = "warm-up 60 s excluded from every criterion: baseline 0 of 8 windows (0 completed requests), candidate 0 of 8 windows (0 completed requests)"
	if len(v2.Notes) != 1 || v2.Notes[0] != note {
		t.Errorf("notes %q, want [%q]", v2.Notes, note)
	}

	// The first record came 18 ms after the first window's start: a 60 s
	// warm-up takes that window alone, the next starting 59.982 s after
	// the run (within 1 % of the 60 s width of the boundary).
	base.Summary.RunStart = t0.Add(18 * time.Millisecond)
	cand.Summary.RunStart = t0.Add(18 * time.Millisecond)
	v3, _ := Evaluate(base, cand, c)
	if len(v3.Notes) != 1 || !strings.Contains(v3.Notes[0], "baseline 1 of 8 windows") || !strings.Contains(v3.Notes[0], "candidate 1 of 8 windows") {
		t.Errorf("18 ms late start: notes %q, want one window a side excluded", v3.Notes)
	}
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
