package oracle

import (
	"slices"
)

// Gap attribution (docs/metrics.md "Where the idle time comes from").
//
// analyze sweeps running sums over sorted boundaries; this evaluates the
// definition pointwise instead. Every boundary instant of every interval
// involved cuts time into elementary intervals on which nothing changes, and
// at the start t of each the counts are read off order statistics: the
// intervals [lo, hi) that hold t number #{lo ≤ t} − #{hi ≤ t}, two binary
// searches in sorted ends (see stab). No count is carried from one instant
// to the next.

// cause is where one instant of gap_time goes.
type cause int

const (
	causeEngine cause = iota
	causeAdmission
	causeImbalance
	causeUnattributed
	nCauses
)

// stab is a multiset of half-open intervals [lo, hi) with lo ≤ hi; at
// counts those that hold an instant.
type stab struct{ los, his []int64 }

func (s *stab) add(lo, hi int64) {
	s.los = append(s.los, lo)
	s.his = append(s.his, hi)
}

func (s *stab) sort() {
	slices.Sort(s.los)
	slices.Sort(s.his)
}

// at is #{lo ≤ t} − #{hi ≤ t}: an interval with hi ≤ t also has lo ≤ t, so
// the difference counts exactly the intervals with lo ≤ t < hi.
func (s *stab) at(t int64) int64 {
	return int64(upper(s.los, t) - upper(s.his, t))
}

// upper is the number of elements of sorted xs that are ≤ t.
func upper(xs []int64, t int64) int {
	i, _ := slices.BinarySearch(xs, t+1)
	return i
}

// place is one replica's part of the state.
type place struct {
	cap      int64
	queue    stab // its spans queued (from queued_at), located or not
	inFlight stab // its spans in flight
	engine   stab // its located spans in its engine's queue
	gateway  stab // its located spans waiting at the gateway
}

// waits is the pool's state and its replicas', ready to be read at any instant.
type waits struct {
	cap       int64
	reps      []string // the pool's replicas, sorted
	places    map[string]*place
	queue     stab // every queued span
	inFlight  stab // every span in flight
	gateway   stab // located spans waiting at the gateway
	unlocated stab // queued spans without a location
	bounds    []int64
}

// newWaits collects the intervals of canon's spans. pool lists the pool's
// replicas (the named ones, or the empty name when no span names one),
// caps their caps.
func newWaits(canon []*row, pool []string, caps map[string]int64, poolCap int64) *waits {
	w := &waits{cap: poolCap, reps: pool, places: map[string]*place{}}
	for _, rep := range pool {
		w.places[rep] = &place{cap: caps[rep]}
	}
	for _, r := range canon {
		s := r.s
		p := w.places[r.replica] // nil for a replica outside the pool
		if inFlightSpan(r) {
			w.inFlight.add(*s.AdmittedAt, *s.ReleasedAt)
			if p != nil {
				p.inFlight.add(*s.AdmittedAt, *s.ReleasedAt)
			}
			w.bounds = append(w.bounds, *s.AdmittedAt, *s.ReleasedAt)
		}
		if !queuedSpan(r) {
			continue
		}
		q, a := *s.QueuedAt, *s.AdmittedAt
		w.queue.add(q, a)
		if p != nil {
			p.queue.add(q, a)
		}
		w.bounds = append(w.bounds, q, a)
		// Choice: only a queued span (queued_at ≤ admitted_at) waits, so
		// engine_arrived_at matters only there; with queued_at = admitted_at
		// the wait, located or not, lasts no time. A located span's gateway
		// wait counts for its replica too (per replica, admission_gap_time).
		e := s.EngineArrivedAt
		if p == nil || e == nil || *e < q || *e > a {
			w.unlocated.add(q, a)
			continue
		}
		w.gateway.add(q, *e)
		p.gateway.add(q, *e)
		p.engine.add(*e, a)
		w.bounds = append(w.bounds, *e)
	}
	for _, st := range []*stab{&w.queue, &w.inFlight, &w.gateway, &w.unlocated} {
		st.sort()
	}
	for _, p := range w.places {
		for _, st := range []*stab{&p.queue, &p.inFlight, &p.engine, &p.gateway} {
			st.sort()
		}
	}
	slices.Sort(w.bounds)
	w.bounds = slices.Compact(w.bounds)
	return w
}

// pieces calls f for every elementary interval [lo, hi) between consecutive
// boundaries; nothing is queued or in flight outside them.
func (w *waits) pieces(f func(lo, hi int64)) {
	for i := 0; i+1 < len(w.bounds); i++ {
		f(w.bounds[i], w.bounds[i+1])
	}
}

// poolCause is the cause of instant t of the pool's gap, false when t is not
// in the pool's gap (queue_depth > 0 and in_flight < cap).
func (w *waits) poolCause(t int64) (cause, bool) {
	if w.queue.at(t) == 0 || w.inFlight.at(t) >= w.cap {
		return 0, false
	}
	for _, rep := range w.reps {
		if p := w.places[rep]; p.engine.at(t) > 0 && p.inFlight.at(t) < p.cap {
			return causeEngine, true // rep holds requests
		}
	}
	switch {
	case w.gateway.at(t) > 0:
		return causeAdmission, true
	case w.unlocated.at(t) == 0:
		return causeImbalance, true
	}
	return causeUnattributed, true
}

// replicaCause is the cause of instant t of replica rep's own gap (its queue
// non-empty, its in_flight below its cap), false when t is not in it.
// Imbalance is never a replica's cause.
func (w *waits) replicaCause(rep string, t int64) (cause, bool) {
	p := w.places[rep]
	if p == nil || p.queue.at(t) == 0 || p.inFlight.at(t) >= p.cap {
		return 0, false
	}
	switch {
	case p.engine.at(t) > 0:
		return causeEngine, true
	case p.gateway.at(t) > 0:
		return causeAdmission, true
	}
	return causeUnattributed, true
}

// addAttribution splits the pool's gap_time by cause over the run and every
// window, clipped like gap_time to window ∩ [start, end].
func addAttribution(g grid, w *waits, run *acc, wins []*acc) {
	w.pieces(func(lo, hi int64) {
		c, ok := w.poolCause(lo)
		if !ok {
			return
		}
		if ov := g.spread(lo, hi, func(i int, ov int64) { wins[i].gapBy[c] += ov }); ov > 0 {
			run.gapBy[c] += ov
		}
	})
}

// replicaAttribution is replica rep's gap_time by cause, µs, clipped to [start, end].
func replicaAttribution(w *waits, rep string, start, end int64) [nCauses]int64 {
	var out [nCauses]int64
	w.pieces(func(lo, hi int64) {
		c, ok := w.replicaCause(rep, lo)
		if lo, hi := max(lo, start), min(hi, end); ok && hi > lo {
			out[c] += hi - lo
		}
	})
	return out
}
