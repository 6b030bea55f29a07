package sim

import (
	"cmp"
	"math"
	"slices"
	"testing"
	"time"

	"github.com/tpsreport/tpsreport/schemas"
)

// This file recomputes the gap attribution (docs/metrics.md "Where the idle
// time comes from") from the emitted spans alone, by the plainest reading of
// the definition: the span boundaries cut time into elementary intervals, on
// each of which every count is constant, and each interval is classified by a
// scan over every span. It shares no code with truth.go.

// gapCauses holds µs of gap_time by cause, in docs order.
type gapCauses struct{ gap, engine, admission, imbalance, unattributed int64 }

// replicaCauses holds µs of one replica's backlog and gap by cause.
type replicaCauses struct{ backlog, gap, engine, admission, unattributed int64 }

type attribution struct {
	run      gapCauses
	windows  []gapCauses // windows k0.. of width w
	replicas map[string]*replicaCauses
}

// attributionOracle attributes the gap of spans over the extent [start, end]
// in windows of w µs from window index k0 (nWin of them), with repCap slots per
// replica; the pool is the replicas the spans name.
func attributionOracle(spans []schemas.Span, w, start, end, k0 int64, nWin int, repCap int64) attribution {
	pool := map[string]int{} // replica → index
	var names []string
	for _, s := range spans {
		if s.Replica != nil {
			if _, ok := pool[*s.Replica]; !ok {
				pool[*s.Replica] = len(names)
				names = append(names, *s.Replica)
			}
		}
	}
	pcap := repCap * int64(len(pool))
	// The spans in the state, with their wait split by location.
	type st struct {
		rep             int // -1: not a replica of the pool
		q, eng, adm, rl int64
		located         bool
	}
	var in []st
	var cuts []int64
	for _, s := range spans {
		if s.QueuedAt == nil || s.AdmittedAt == nil || s.ReleasedAt == nil || *s.QueuedAt > *s.AdmittedAt || *s.AdmittedAt > *s.ReleasedAt {
			continue
		}
		x := st{rep: -1, q: *s.QueuedAt, adm: *s.AdmittedAt, rl: *s.ReleasedAt}
		if s.Replica != nil {
			x.rep = pool[*s.Replica]
		}
		if e := s.EngineArrivedAt; e != nil && x.q <= *e && *e <= x.adm && x.rep >= 0 {
			x.eng, x.located = *e, true
		}
		in = append(in, x)
		cuts = append(cuts, x.q, x.eng, x.adm, x.rl)
	}
	cuts = append(cuts, start, end)
	for k := k0; k <= k0+int64(nWin); k++ {
		cuts = append(cuts, k*w)
	}
	slices.Sort(cuts)
	cuts = slices.Compact(cuts)
	// By queued_at, so that the scan of an interval stops at the first span
	// that arrives after it.
	slices.SortFunc(in, func(x, y st) int { return cmp.Compare(x.q, y.q) })

	at := attribution{windows: make([]gapCauses, nWin), replicas: map[string]*replicaCauses{}}
	for _, r := range names {
		at.replicas[r] = &replicaCauses{}
	}
	type count struct{ queue, gateway, engine, inFlight int64 }
	byRep := make([]count, len(names))
	for i := 0; i+1 < len(cuts); i++ {
		a, b := cuts[i], cuts[i+1]
		if a < start || b > end {
			continue
		}
		d := b - a
		clear(byRep)
		var queue, inFlight, gateway, unlocated int64
		for _, x := range in {
			if x.q >= b {
				break
			}
			var c *count
			if x.rep >= 0 {
				c = &byRep[x.rep]
			}
			switch {
			case x.q <= a && b <= x.adm:
				queue++
				if c != nil {
					c.queue++
				}
				switch {
				case !x.located:
					unlocated++
				case b <= x.eng:
					gateway++
					c.gateway++
				default:
					c.engine++
				}
			case x.adm <= a && b <= x.rl:
				inFlight++
				if c != nil {
					c.inFlight++
				}
			}
		}
		for r, c := range byRep {
			rc := at.replicas[names[r]]
			if c.queue == 0 {
				continue
			}
			rc.backlog += d
			if c.inFlight < repCap {
				rc.gap += d
				switch {
				case c.engine > 0:
					rc.engine += d
				case c.gateway > 0:
					rc.admission += d
				default:
					rc.unattributed += d
				}
			}
		}
		if queue == 0 || inFlight >= pcap {
			continue
		}
		holds := false
		for _, c := range byRep {
			holds = holds || c.engine > 0 && c.inFlight < repCap
		}
		g := &at.windows[fdiv(a, w)-k0]
		for _, x := range []*gapCauses{&at.run, g} {
			x.gap += d
			switch {
			case holds:
				x.engine += d
			case gateway > 0:
				x.admission += d
			case unlocated == 0:
				x.imbalance += d
			default:
				x.unattributed += d
			}
		}
	}
	return at
}

// fill sets the attribution fields of m from g.
func (g gapCauses) fill(m *Metrics) {
	m.EngineGapTime = float64(g.engine) / 1e6
	m.AdmissionGapTime = float64(g.admission) / 1e6
	m.ImbalanceGapTime = float64(g.imbalance) / 1e6
	m.UnattributedGapTime = float64(g.unattributed) / 1e6
	share := func(c int64) *float64 {
		if g.gap == 0 {
			return nil
		}
		return schemas.Ptr(float64(c) / float64(g.gap))
	}
	m.EngineGapShare = share(g.engine)
	m.AdmissionGapShare = share(g.admission)
	m.ImbalanceGapShare = share(g.imbalance)
	m.UnattributedGapShare = share(g.unattributed)
}

// us reads seconds that hold whole µs.
func us(sec float64) int64 { return int64(math.Round(sec * 1e6)) }

// causesOf reads the attribution of m in µs.
func causesOf(m Metrics) gapCauses {
	return gapCauses{us(m.GapTime), us(m.EngineGapTime), us(m.AdmissionGapTime), us(m.ImbalanceGapTime), us(m.UnattributedGapTime)}
}

// checkAttribution compares the truth's attribution with the oracle's, to
// the µs, and fills the oracle's metrics with it for diffMetrics.
func checkAttribution(t *testing.T, sc Scenario, spans []schemas.Span, tr Truth, run *Metrics, wins []Metrics) {
	t.Helper()
	w := micros(sc.Window)
	if w == 0 {
		w = micros(time.Minute)
	}
	start, end := schemas.Micros(run.WindowStart), schemas.Micros(run.WindowEnd)
	k0 := fdiv(start, w)
	at := attributionOracle(spans, w, start, end, k0, len(wins), int64(sc.MaxNumSeqs))
	if got := causesOf(tr.Metrics); got != at.run {
		t.Errorf("run attribution (µs): got %+v, want %+v", got, at.run)
	}
	at.run.fill(run)
	for i := range wins {
		if i < len(tr.Windows) {
			if got := causesOf(tr.Windows[i]); got != at.windows[i] {
				t.Errorf("window %d attribution (µs): got %+v, want %+v", i, got, at.windows[i])
			}
		}
		at.windows[i].fill(&wins[i])
	}
	for _, r := range tr.Replicas {
		want := at.replicas[r.Replica]
		if want == nil {
			want = &replicaCauses{} // a replica no span names
		}
		got := replicaCauses{us(r.BacklogTime), us(r.GapTime), us(r.EngineGapTime), us(r.AdmissionGapTime), us(r.UnattributedGapTime)}
		if got != *want {
			t.Errorf("replica %s (µs): got %+v, want %+v", r.Replica, got, *want)
		}
		delete(at.replicas, r.Replica)
	}
	for r := range at.replicas {
		t.Errorf("replica %s: named by spans, missing from the truth", r)
	}
}

// TestGapCausesSum: in every window and the run, the four causes sum to
// gap_time to the µs, a share is nil exactly when gap_time is 0, and the
// simulator leaves no wait unattributed; so do each replica's.
func TestGapCausesSum(t *testing.T) {
	for _, name := range Names() {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			_, tr := collect(t, mustNamed(t, name), 3)
			for i, m := range append([]Metrics{tr.Metrics}, tr.Windows...) {
				c := causesOf(m)
				if sum := c.engine + c.admission + c.imbalance + c.unattributed; sum != c.gap {
					t.Errorf("window %d: causes sum to %d µs, gap_time is %d µs", i-1, sum, c.gap)
				}
				if c.unattributed != 0 {
					t.Errorf("window %d: unattributed_gap_time %d µs, want 0", i-1, c.unattributed)
				}
				if (m.EngineGapShare == nil) != (c.gap == 0) || (m.AdmissionGapShare == nil) != (c.gap == 0) ||
					(m.ImbalanceGapShare == nil) != (c.gap == 0) || (m.UnattributedGapShare == nil) != (c.gap == 0) {
					t.Errorf("window %d: shares nil-ness does not follow gap_time %d µs", i-1, c.gap)
				}
			}
			if len(tr.Replicas) != mustNamed(t, name).Replicas {
				t.Errorf("replicas: got %d, want %d", len(tr.Replicas), mustNamed(t, name).Replicas)
			}
			for _, r := range tr.Replicas {
				if g, sum := us(r.GapTime), us(r.EngineGapTime)+us(r.AdmissionGapTime)+us(r.UnattributedGapTime); g != sum || us(r.UnattributedGapTime) != 0 {
					t.Errorf("replica %s: gap %d µs, causes sum to %d µs, unattributed %v", r.Replica, g, sum, r.UnattributedGapTime)
				}
			}
		})
	}
}

// TestGapCauseScenarios: each cause scenario shows its cause, and only the
// causes it models.
func TestGapCauseScenarios(t *testing.T) {
	for _, tc := range []struct {
		name                         string
		engine, admission, imbalance string // "0", ">0" or "dominant"
	}{
		{"stall", "0", "dominant", "0"},
		{"multi-replica", "0", "dominant", "0"},
		{"engine-hold", "dominant", "0", "any"},
		{"imbalance", "0", "0", "dominant"},
		{"gap-mix", ">0", ">0", ">0"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			for _, seed := range []uint64{1, 7} {
				_, tr := collect(t, mustNamed(t, tc.name), seed)
				c := causesOf(tr.Metrics)
				for _, x := range []struct {
					cause, want string
					v           int64
				}{{"engine", tc.engine, c.engine}, {"admission", tc.admission, c.admission}, {"imbalance", tc.imbalance, c.imbalance}} {
					ok := true
					switch x.want {
					case "0":
						ok = x.v == 0
					case ">0":
						ok = x.v > 0
					case "dominant":
						ok = 2*x.v > c.gap
					}
					if !ok {
						t.Errorf("seed %d: %s_gap_time %d µs of gap_time %d µs, want %s", seed, x.cause, x.v, c.gap, x.want)
					}
				}
			}
		})
	}
}
