package oracle

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/tpsreport/tpsreport/schemas"
)

// withArrival returns a copy of s that reached its engine at t0 + e seconds (null: NULL).
func withArrival(s schemas.Span, e float64) schemas.Span { s.EngineArrivedAt = at(e); return s }

// withoutReplica returns a copy of s with a NULL replica.
func withoutReplica(s schemas.Span) schemas.Span { s.Replica = nil; return s }

// byCause is a gap_time split, seconds: engine, admission, imbalance, unattributed.
type byCause [4]float64

func runCauses(m schemas.Metrics) byCause {
	return byCause{m.EngineGapTime, m.AdmissionGapTime, m.ImbalanceGapTime, m.UnattributedGapTime}
}

// repCauses is a replica's split: engine, admission, unattributed.
func repCauses(rs schemas.ReplicaState) [3]float64 {
	return [3]float64{rs.EngineGapTime, rs.AdmissionGapTime, rs.UnattributedGapTime}
}

// One run through every cause in turn: replicas r0 and r1 of cap 1 (pool
// cap 2), 30 s windows.
//
//	B r1 in flight [0, 40): r1 is full until 40.
//	A r0 waits [0, 10), at the gateway [0, 5), in r0's queue [5, 10); in flight [10, 20).
//	C r1 waits [20, 40), all in r1's queue (engine_arrived_at = queued_at); in flight [40, 50).
//	D r0 waits [50, 55) with no engine_arrived_at; in flight [55, 60).
//
// Pool gap (queue > 0, in_flight < 2):
//
//	[0, 5)   queue A, in_flight 1 (B); r0's queue empty, r1's empty; A at the gateway: admission 5
//	[5, 10)  r0's queue holds A, r0 in_flight 0 < 1: r0 holds: engine 5
//	[10, 20) no queue
//	[20, 40) queue C, in_flight 1 (B); r1 full, r0's queue empty; C located: imbalance 20
//	[50, 55) queue D, in_flight 0; D has no location: unattributed 5
//
// gap 35 = 5 + 5 + 20 + 5; window [0, 30): admission 5, engine 5, imbalance 10
// (of [20, 30)); window [30, 60]: imbalance 10, unattributed 5.
// r0's own gap: [0, 10) (A queued, r0 idle) = admission 5 + engine 5, and
// [50, 55) unattributed 5: 15. r1's queue (C) waits only while r1 is full: 0.
func TestGapAttributionCauses(t *testing.T) {
	spans := []schemas.Span{
		withReplica(mk("b", "B", [5]float64{0, 0, 1, 39, 40}, 10, ok), "r1"),
		withArrival(withReplica(mk("a", "A", [5]float64{0, 10, 11, 19, 20}, 10, ok), "r0"), 5),
		withArrival(withReplica(mk("c", "C", [5]float64{20, 40, 41, 49, 50}, 10, ok), "r1"), 20),
		withReplica(mk("d", "D", [5]float64{50, 55, 56, 59, 60}, 10, ok), "r0"),
	}
	res := Analyze(spans, nil, Options{Width: 30_000_000, Cap: ptr(int64(1))})
	want(t, "run gap_time", res.Run.GapTime, 35)
	wantCauses(t, "run", res.Run, byCause{5, 5, 20, 5})
	wantP(t, "run engine_gap_share", res.Run.EngineGapShare, 5.0/35)
	wantP(t, "run admission_gap_share", res.Run.AdmissionGapShare, 5.0/35)
	wantP(t, "run imbalance_gap_share", res.Run.ImbalanceGapShare, 20.0/35)
	wantP(t, "run unattributed_gap_share", res.Run.UnattributedGapShare, 5.0/35)
	wantWindows(t, res, 2)
	wantCauses(t, "window 0", res.Windows[0], byCause{5, 5, 10, 0})
	wantCauses(t, "window 1", res.Windows[1], byCause{0, 0, 10, 5})
	wantReplicas(t, res, map[string][3]float64{"r0": {5, 5, 5}, "r1": {0, 0, 0}})
	want(t, "r0 gap_time", res.Replicas[0].GapTime, 15)
}

// Each case overlaps causes to pin the order engine > admission > imbalance /
// unattributed, and where a wait has a location. Replicas r0 and r1 of cap 1
// unless the case names none; every span released by 30 s.
func TestGapAttributionPrecedence(t *testing.T) {
	// full: r1 in flight [0, 20), so r1 never holds while it runs.
	full := withReplica(mk("full", "F", [5]float64{0, 0, 1, 19, 20}, 10, ok), "r1")
	// idle: names r0 (a zero-length span) so that the pool is r0 and r1.
	idle := withReplica(mk("idle", "I", [5]float64{0, 0, 0, 0, 0}, 1, ok), "r0")
	// wait: a request on r1 waiting [0, 20), in flight [20, 30).
	wait := withReplica(mk("wait", "W", [5]float64{0, 20, 21, 29, 30}, 10, ok), "r1")
	for _, c := range []struct {
		name  string
		spans []schemas.Span
		run   byCause
		reps  map[string][3]float64 // nil: no replica states
	}{{
		// [0, 10): r0's queue holds e and r0 is idle (engine); g waits at
		// the gateway; u has no location; pool in_flight 0 < 2. Engine 10.
		// r0: engine 10. r1 (g, u queued, r1 idle): no engine queue, g at
		// the gateway: admission 10.
		name: "engine before admission and unattributed",
		spans: []schemas.Span{
			withArrival(withReplica(mk("e", "E", [5]float64{0, 10, 11, 19, 20}, 10, ok), "r0"), 0),
			withArrival(withReplica(mk("g", "G", [5]float64{0, 10, 11, 19, 20}, 10, ok), "r1"), 10),
			withReplica(mk("u", "U", [5]float64{0, 10, 11, 19, 20}, 10, ok), "r1"),
		},
		run:  byCause{10, 0, 0, 0},
		reps: map[string][3]float64{"r0": {10, 0, 0}, "r1": {0, 10, 0}},
	}, {
		// [0, 10): g at the gateway, u unlocated, no engine queue; r0 full
		// (h in flight), r1 idle, pool in_flight 1 < 2: admission 10.
		// r1: admission 10; r0: nothing queued.
		name: "admission before unattributed",
		spans: []schemas.Span{
			withReplica(mk("h", "H", [5]float64{0, 0, 1, 19, 20}, 10, ok), "r0"),
			withArrival(withReplica(mk("g", "G", [5]float64{0, 10, 11, 19, 20}, 10, ok), "r1"), 10),
			withReplica(mk("u", "U", [5]float64{0, 10, 11, 19, 20}, 10, ok), "r1"),
		},
		run:  byCause{0, 10, 0, 0},
		reps: map[string][3]float64{"r0": {0, 0, 0}, "r1": {0, 10, 0}},
	}, {
		// [0, 20): wait in r1's queue, r1 full, r0 idle; in_flight 1 < 2;
		// nothing else waits: imbalance 20. r1 is full: no replica gap.
		name:  "imbalance: every wait at a full replica",
		spans: []schemas.Span{full, idle, withArrival(wait, 0)},
		run:   byCause{0, 0, 20, 0},
		reps:  map[string][3]float64{"r0": {0, 0, 0}, "r1": {0, 0, 0}},
	}, {
		// as above, plus u on r0 waiting [0, 10) with no location: pool
		// in_flight 1 < 2 on [0, 10) (then 2): unattributed 10, not imbalance.
		// r0: u queued, r0 idle: unattributed 10.
		name: "unattributed before imbalance",
		spans: []schemas.Span{full, idle, withArrival(wait, 0),
			withReplica(mk("u", "U", [5]float64{0, 10, 11, 19, 20}, 10, ok), "r0")},
		run:  byCause{0, 0, 0, 10},
		reps: map[string][3]float64{"r0": {0, 0, 10}, "r1": {0, 0, 0}},
	}, {
		// engine_arrived_at = admitted_at: wait is at the gateway all 20 s.
		name:  "arrival at admission: all at the gateway",
		spans: []schemas.Span{full, idle, withArrival(wait, 20)},
		run:   byCause{0, 20, 0, 0},
		reps:  map[string][3]float64{"r0": {0, 0, 0}, "r1": {0, 0, 0}},
	}, {
		// at the gateway [0, 5) (admission 5), then in full r1's queue (imbalance 15).
		name:  "gateway then engine",
		spans: []schemas.Span{full, idle, withArrival(wait, 5)},
		run:   byCause{0, 5, 15, 0},
		reps:  map[string][3]float64{"r0": {0, 0, 0}, "r1": {0, 0, 0}},
	}, {
		name:  "arrival after admission: no location",
		spans: []schemas.Span{full, idle, withArrival(wait, 25)},
		run:   byCause{0, 0, 0, 20},
		reps:  map[string][3]float64{"r0": {0, 0, 0}, "r1": {0, 0, 0}},
	}, {
		name:  "arrival before queueing: no location",
		spans: []schemas.Span{full, idle, withArrival(wait, -1)},
		run:   byCause{0, 0, 0, 20},
		reps:  map[string][3]float64{"r0": {0, 0, 0}, "r1": {0, 0, 0}},
	}, {
		// wait without a replica is not in the pool (r0, r1): no location,
		// and in no replica's gap.
		name:  "replica outside the pool: no location",
		spans: []schemas.Span{full, idle, withoutReplica(withArrival(wait, 0))},
		run:   byCause{0, 0, 0, 20},
		reps:  map[string][3]float64{"r0": {0, 0, 0}, "r1": {0, 0, 0}},
	}, {
		// no span names a replica: the pool is the empty replica, cap 1;
		// n at the gateway [0, 5) (admission), in its queue [5, 10) with
		// nothing in flight (engine). One replica: no replica states.
		name: "no replica named: the empty replica is the pool",
		spans: []schemas.Span{
			withArrival(mk("n", "N", [5]float64{0, 10, 11, 19, 20}, 10, ok), 5),
		},
		run: byCause{5, 5, 0, 0},
	}} {
		t.Run(c.name, func(t *testing.T) {
			res := Analyze(c.spans, nil, Options{Width: minute, Cap: ptr(int64(1))})
			wantCauses(t, "run", res.Run, c.run)
			if c.reps == nil {
				if res.Replicas != nil {
					t.Errorf("got replica states %+v", res.Replicas)
				}
				return
			}
			wantReplicas(t, res, c.reps)
		})
	}
}

// wantCauses checks a window's split, and that it sums to its gap_time.
func wantCauses(t *testing.T, name string, m schemas.Metrics, w byCause) {
	t.Helper()
	if got := runCauses(m); got != w {
		t.Errorf("%s: engine/admission/imbalance/unattributed %v s, want %v", name, got, w)
	}
	if g := w[0] + w[1] + w[2] + w[3]; m.GapTime != g {
		t.Errorf("%s: gap_time %v, want %v", name, m.GapTime, g)
	}
}

func wantReplicas(t *testing.T, res Result, w map[string][3]float64) {
	t.Helper()
	if len(res.Replicas) != len(w) {
		t.Fatalf("%d replica states, want %d", len(res.Replicas), len(w))
	}
	for _, rs := range res.Replicas {
		got := repCauses(rs)
		if got != w[rs.Replica] {
			t.Errorf("replica %q: engine/admission/unattributed %v s, want %v", rs.Replica, got, w[rs.Replica])
		}
		if g := got[0] + got[1] + got[2]; rs.GapTime != g {
			t.Errorf("replica %q: gap_time %v, causes sum to %v", rs.Replica, rs.GapTime, g)
		}
	}
}

// checkAttribution: the causes sum exactly to gap_time in every window, the
// run and every replica; each cause over the windows sums to the run's; the
// shares sum to 1 when gap_time > 0 and are NULL when it is 0.
func checkAttribution(t *testing.T, res Result) {
	t.Helper()
	var sum [4]int64
	check := func(name string, m schemas.Metrics) {
		t.Helper()
		c := runCauses(m)
		if g := us(c[0]) + us(c[1]) + us(c[2]) + us(c[3]); g != us(m.GapTime) {
			t.Errorf("%s: causes sum to %d µs, gap_time %d µs", name, g, us(m.GapTime))
		}
		shares := []*float64{m.EngineGapShare, m.AdmissionGapShare, m.ImbalanceGapShare, m.UnattributedGapShare}
		var total float64
		for i, s := range shares {
			if (s == nil) != (m.GapTime == 0) {
				t.Errorf("%s: share %d = %v with gap_time %v", name, i, s, m.GapTime)
				return
			}
			if s != nil {
				total += *s
				if *s < 0 || *s > 1 {
					t.Errorf("%s: share %d = %v", name, i, *s)
				}
			}
		}
		if m.GapTime > 0 && math.Abs(total-1) > 1e-12 {
			t.Errorf("%s: shares sum to %.17g", name, total)
		}
	}
	for i, w := range res.Windows {
		check(fmt.Sprintf("window %d", i), w)
		for j, c := range runCauses(w) {
			sum[j] += us(c)
		}
	}
	check("run", res.Run)
	if res.End > res.Start {
		for j, c := range runCauses(res.Run) {
			if sum[j] != us(c) {
				t.Errorf("cause %d: Σ windows %d µs, run %d µs", j, sum[j], us(c))
			}
		}
	}
	for _, rs := range res.Replicas {
		c := repCauses(rs)
		if g := us(c[0]) + us(c[1]) + us(c[2]); g != us(rs.GapTime) {
			t.Errorf("replica %q: causes sum to %d µs, gap_time %d µs", rs.Replica, g, us(rs.GapTime))
		}
	}
}

func TestAttributionSums(t *testing.T) {
	for seed := range seeds(300, 60) {
		spans, samples, opt, _ := randomCase(seed)
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			checkAttribution(t, Analyze(spans, samples, opt))
		})
	}
}

// Without engine_arrived_at no wait has a location: all gap_time is
// unattributed, in the pool and in every replica.
func TestAttributionWithoutArrivals(t *testing.T) {
	for seed := range seeds(100, 20) {
		spans, samples, opt, _ := randomCase(seed)
		for i := range spans {
			spans[i].EngineArrivedAt = nil
		}
		res := Analyze(spans, samples, opt)
		for i, m := range append([]schemas.Metrics{res.Run}, res.Windows...) {
			if m.UnattributedGapTime != m.GapTime || m.EngineGapTime != 0 || m.AdmissionGapTime != 0 || m.ImbalanceGapTime != 0 {
				t.Errorf("seed %d, window %d (0 the run): %v s by cause, gap_time %v", seed, i-1, runCauses(m), m.GapTime)
			}
		}
		for _, rs := range res.Replicas {
			if rs.UnattributedGapTime != rs.GapTime || rs.EngineGapTime != 0 || rs.AdmissionGapTime != 0 {
				t.Errorf("seed %d replica %q: %v s by cause, gap_time %v", seed, rs.Replica, repCauses(rs), rs.GapTime)
			}
		}
	}
}

// The attribution checked against the definition read at every grid cell,
// scanning every span there: with all instants on a 100 ms grid the state is
// constant on each cell.
func TestAttributionBruteForce(t *testing.T) {
	for seed := range seeds(40, 8) {
		r := rand.New(rand.NewPCG(seed, 11))
		o := DefaultGenOptions()
		o.Replicas = r.IntN(4)
		o.Duration = 2 * minute
		o.SampleInterval = 0
		spans, _ := RandomSpans(r, 20+r.IntN(120), o)
		opt := Options{Width: []int64{minute, 10_000_000, 3_000_000}[r.IntN(3)], Cap: ptr(int64(1 + r.IntN(3)))}
		if r.IntN(3) == 0 {
			opt.From, opt.To = ptr(o.Start+o.Grid*int64(r.IntN(300))), ptr(o.Start+o.Grid*int64(300+r.IntN(900)))
		}
		res := Analyze(spans, nil, opt)
		if !res.HasExtent || res.Start%o.Grid != 0 || res.End%o.Grid != 0 {
			t.Fatalf("seed %d: extent off the grid", seed)
		}
		pool := map[string]bool{}
		for _, s := range spans {
			if s.Replica != nil {
				pool[*s.Replica] = true
			}
		}
		if len(pool) == 0 {
			pool[""] = true
		}
		capv := *opt.Cap
		var run [4]int64
		wins := make([][4]int64, len(res.Windows))
		reps := map[string]*[4]int64{}
		for rep := range pool {
			reps[rep] = &[4]int64{}
		}
		for c := res.Start; c < res.End; c += o.Grid {
			var in, q, gateway, unlocated int64
			repIn, repQ, repEngine, repGateway := map[string]int64{}, map[string]int64{}, map[string]int64{}, map[string]int64{}
			for _, s := range spans {
				rep := deref(s.Replica, "")
				if s.AdmittedAt != nil && s.ReleasedAt != nil && *s.AdmittedAt <= c && c < *s.ReleasedAt {
					in++
					repIn[rep]++
				}
				if s.QueuedAt == nil || s.AdmittedAt == nil || c < *s.QueuedAt || c >= *s.AdmittedAt {
					continue // not waiting at c
				}
				q++
				repQ[rep]++
				e := s.EngineArrivedAt
				switch {
				case !pool[rep] || e == nil || *e < *s.QueuedAt || *e > *s.AdmittedAt:
					unlocated++
				case c < *e:
					gateway++
					repGateway[rep]++
				default:
					repEngine[rep]++
				}
			}
			if q > 0 && in < int64(len(pool))*capv {
				holds := false
				for rep := range pool {
					holds = holds || repEngine[rep] > 0 && repIn[rep] < capv
				}
				k := 3
				switch {
				case holds:
					k = 0
				case gateway > 0:
					k = 1
				case unlocated == 0:
					k = 2
				}
				run[k] += o.Grid
				wins[floorDiv(c, opt.Width)-floorDiv(res.Start, opt.Width)][k] += o.Grid
			}
			for rep := range pool {
				if repQ[rep] == 0 || repIn[rep] >= capv {
					continue
				}
				k := 3
				switch {
				case repEngine[rep] > 0:
					k = 0
				case repGateway[rep] > 0:
					k = 1
				}
				reps[rep][k] += o.Grid
			}
		}
		got := func(m schemas.Metrics) [4]int64 {
			c := runCauses(m)
			return [4]int64{us(c[0]), us(c[1]), us(c[2]), us(c[3])}
		}
		if g := got(res.Run); g != run {
			t.Errorf("seed %d run: %v µs by cause, brute force %v", seed, g, run)
		}
		for i, w := range res.Windows {
			if g := got(w); g != wins[i] {
				t.Errorf("seed %d window %d: %v µs by cause, brute force %v", seed, i, g, wins[i])
			}
		}
		for _, rs := range res.Replicas {
			c := repCauses(rs)
			g := [4]int64{us(c[0]), us(c[1]), 0, us(c[2])}
			if w := *reps[rs.Replica]; g != w {
				t.Errorf("seed %d replica %q: %v µs by cause, brute force %v", seed, rs.Replica, g, w)
			}
		}
	}
}

// Every cause occurs in the random cases the differential tests draw.
func TestAttributionCoverage(t *testing.T) {
	const draws = 200
	var pool [4]int
	var rep [3]int
	for seed := range uint64(draws) {
		spans, samples, opt, _ := randomCase(seed)
		res := Analyze(spans, samples, opt)
		for i, c := range runCauses(res.Run) {
			if c > 0 {
				pool[i]++
			}
		}
		for _, rs := range res.Replicas {
			for i, c := range repCauses(rs) {
				if c > 0 {
					rep[i]++
				}
			}
		}
	}
	for i, name := range []string{"engine", "admission", "imbalance", "unattributed"} {
		if pool[i] < draws/20 {
			t.Errorf("%s_gap in %d of %d runs", name, pool[i], draws)
		}
	}
	for i, name := range []string{"engine", "admission", "unattributed"} {
		if rep[i] < draws/20 {
			t.Errorf("replica %s_gap_time in %d of %d runs", name, rep[i], draws)
		}
	}
}
