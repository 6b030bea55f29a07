package compare

import (
	"math"
	"testing"
	"time"

	"github.com/tpsreport/tpsreport/schemas"
)

// gapWindow is a backlog window of secs seconds with the gap seconds of each
// cause (engine, admission, imbalance, unattributed).
func gapWindow(secs float64, causes ...float64) schemas.Metrics {
	m := schemas.Metrics{WindowSeconds: secs, BacklogTime: secs}
	m.EngineGapTime, m.AdmissionGapTime, m.ImbalanceGapTime, m.UnattributedGapTime = causes[0], causes[1], causes[2], causes[3]
	m.GapTime = causes[0] + causes[1] + causes[2] + causes[3]
	return m
}

// TestGapCauses: the causes are pooled over the backlog windows like
// gap_fraction, by hand:
//
//	baseline: 60 s + 60 s, engine 0 + 6, admission 24 + 18 → 6/120 = 0.05, 42/120 = 0.35
//	candidate: 60 s + 60 s, engine 12 + 12, admission 0 + 0 → 24/120 = 0.2
//
// The idle time fell from 0.4 to 0.2, but engine_gap rose by 0.15: moved,
// not gone, so the gap row says so and the reason does not claim otherwise.
func TestGapCauses(t *testing.T) {
	base := []schemas.Metrics{gapWindow(60, 0, 24, 0, 0), gapWindow(60, 6, 18, 0, 0)}
	cand := []schemas.Metrics{gapWindow(60, 12, 0, 0, 0), gapWindow(60, 12, 0, 0, 0)}
	got := gapCauses(base, cand)
	want := []struct {
		cause          string
		b, c           float64
		bShare, cShare float64
	}{
		{EngineGap, 0.05, 0.2, 6.0 / 48, 1},
		{AdmissionGap, 0.35, 0, 42.0 / 48, 0},
		{ImbalanceGap, 0, 0, 0, 0},
		{UnattributedGap, 0, 0, 0, 0},
	}
	if len(got) != len(want) {
		t.Fatalf("%d causes, want %d", len(got), len(want))
	}
	near := func(a, b float64) bool { return math.Abs(a-b) < 1e-12 }
	for i, w := range want {
		g := got[i]
		if g.Cause != w.cause || !near(g.Baseline, w.b) || !near(g.Candidate, w.c) || !near(g.Diff, w.c-w.b) ||
			g.BaselineShare == nil || !near(*g.BaselineShare, w.bShare) || g.CandidateShare == nil || !near(*g.CandidateShare, w.cShare) {
			t.Errorf("cause %d = %+v, want %+v", i, g, w)
		}
	}
	const sentence = "88 % of the baseline's idle time was requests held before an engine's queue (at the gateway or in the engine's frontend) while engines had free slots (admission_gap); " +
		"all of the candidate's idle time was requests held in an engine's queue while it had free slots (engine_gap); " +
		"engine_gap rose from 5.00 % to 20.0 % of the time: part of the idle time moved rather than went."
	if s := causeSentence(got, 0.005); s != sentence {
		t.Errorf("sentence:\n got %q\nwant %q", s, sentence)
	}
	// The criterion over ten copies of each pair of windows: every pair
	// alike, so the resamples do not vary and the fall is beyond noise.
	// gap_fraction alone is judged: one criterion, a 95 % interval.
	run := func(id string, ws []schemas.Metrics) Run {
		r := Run{Summary: schemas.Summary{RunID: id}}
		for i := range 20 {
			w := ws[i%2]
			w.WindowStart = t0.Add(time.Duration(i) * time.Minute)
			r.Windows = append(r.Windows, w)
		}
		return r
	}
	c := schemas.DefaultCriteria()
	c.Off = []string{Throughput, SuccessRate, RetryRate, TTFT, TPOT}
	v, err := Evaluate(run("a", base), run("b", cand), c)
	if err != nil {
		t.Fatal(err)
	}
	const reason = "Idle time under backlog fell from 40.0 % to 20.0 % of the time (−20.0 pp, 95 % interval −20.0 to −20.0 pp), though some of it moved to another cause."
	if cr := verdictOf(v, GapFraction); cr.Verdict != schemas.Pass || cr.Reason != reason {
		t.Errorf("gap criterion %s: %q, want PASS %q", cr.Verdict, cr.Reason, reason)
	}

	// The demo's shape: all of the baseline's idle time at the gateway, none
	// left in the candidate: removed, not moved.
	demo := gapCauses([]schemas.Metrics{gapWindow(60, 0, 30, 0, 0)}, []schemas.Metrics{gapWindow(60, 0, 0, 0, 0)})
	if s := causeSentence(demo, 0.005); s != "All of the baseline's idle time was requests held before an engine's queue (at the gateway or in the engine's frontend) while engines had free slots (admission_gap); the candidate had no idle time." {
		t.Errorf("demo sentence %q", s)
	}
	if len(causesRose(demo, 0.005)) != 0 {
		t.Error("the demo's idle time moved, want removed")
	}
	// No backlog window in the baseline: nothing to attribute.
	if g := gapCauses(nil, cand); g != nil || causeSentence(g, 0.005) != "" {
		t.Errorf("no baseline backlog: %+v", g)
	}
}
