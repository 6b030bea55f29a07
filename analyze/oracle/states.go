package oracle

import (
	"cmp"
	"slices"

	"github.com/tpsreport/tpsreport/schemas"
)

// step is a boundary of the state step functions: at instant t, in_flight
// changes by dIn and queue_depth by dQ.
type step struct {
	t       int64
	dIn, dQ int64
}

// segment is a maximal piece [lo, hi) on which in_flight and queue_depth are constant.
type segment struct {
	lo, hi          int64
	inFlight, queue int64
}

// inFlightSpan reports whether r is in flight on [admitted_at, released_at).
func inFlightSpan(r *row) bool {
	s := r.s
	return s.AdmittedAt != nil && s.ReleasedAt != nil && *s.AdmittedAt <= *s.ReleasedAt
}

// queuedSpan reports whether r is queued on [queued_at, admitted_at).
func queuedSpan(r *row) bool {
	s := r.s
	return s.QueuedAt != nil && s.AdmittedAt != nil && *s.QueuedAt <= *s.AdmittedAt
}

// steps lists the boundaries of the rows' state intervals.
func steps(rows []*row) []step {
	var out []step
	for _, r := range rows {
		s := r.s
		if inFlightSpan(r) {
			out = append(out, step{t: *s.AdmittedAt, dIn: 1}, step{t: *s.ReleasedAt, dIn: -1})
		}
		if queuedSpan(r) {
			out = append(out, step{t: *s.QueuedAt, dQ: 1}, step{t: *s.AdmittedAt, dQ: -1})
		}
	}
	return out
}

// sweep turns boundaries into segments. All boundaries at one instant apply
// together, so a release and an admission at the same instant leave no gap.
// Both counts are 0 before the first and after the last segment.
func sweep(st []step) []segment {
	slices.SortFunc(st, func(a, b step) int { return cmp.Compare(a.t, b.t) })
	var out []segment
	var in, q int64
	for i := 0; i < len(st); {
		t := st[i].t
		for ; i < len(st) && st[i].t == t; i++ {
			in += st[i].dIn
			q += st[i].dQ
		}
		if i < len(st) {
			out = append(out, segment{lo: t, hi: st[i].t, inFlight: in, queue: q})
		}
	}
	return out
}

// byReplica groups rows by coalesce(replica, ”).
func byReplica(canon []*row) map[string][]*row {
	out := map[string][]*row{}
	for _, r := range canon {
		out[r.replica] = append(out[r.replica], r)
	}
	return out
}

// maxInFlight is, per replica, the maximum in_flight(t) over all t.
func maxInFlight(canon []*row) map[string]int64 {
	out := map[string]int64{}
	for rep, rows := range byReplica(canon) {
		var m int64
		for _, sg := range sweep(steps(rows)) {
			m = max(m, sg.inFlight)
		}
		out[rep] = m
	}
	return out
}

// stateMeasure adds a segment piece of length ov to a's exact state measures.
func (a *acc) stateMeasure(sg segment, ov int64, capv int64, hasCap bool) {
	if sg.queue > 0 {
		a.backlog += ov
		if hasCap && sg.inFlight < capv {
			a.gap += ov
		}
	}
	if hasCap && sg.inFlight > capv {
		a.overCap += ov
	}
	a.intInFlight += sg.inFlight * ov
	a.intQueue += sg.queue * ov
}

// addStates measures the pool's exact state over the run and every window.
func addStates(g grid, canon []*row, poolCap *int64, run *acc, wins []*acc) {
	capv := deref(poolCap, 0)
	for _, sg := range sweep(steps(canon)) {
		ov := g.spread(sg.lo, sg.hi, func(i int, ov int64) {
			wins[i].stateMeasure(sg, ov, capv, poolCap != nil)
		})
		if ov > 0 {
			run.stateMeasure(sg, ov, capv, poolCap != nil)
		}
	}
}

// replicaStates measures each replica's exact state over the run against its
// own cap. Choice: the NULL replica (”) is a replica like any other here;
// fractions and means are NULL when the run lasts 0 seconds, utilization when
// the replica's cap is 0.
func replicaStates(canon []*row, reps []string, caps map[string]int64, start, end int64, has bool) []schemas.ReplicaState {
	groups := byReplica(canon)
	var out []schemas.ReplicaState
	for _, rep := range reps {
		c := caps[rep]
		a := newAcc()
		if has {
			g := newGrid(start, end, 1) // only the run overlap is used
			for _, sg := range sweep(steps(groups[rep])) {
				lo, hi := max(sg.lo, g.start), min(sg.hi, g.end)
				if hi > lo {
					a.stateMeasure(sg, hi-lo, c, true)
				}
			}
		}
		rs := schemas.ReplicaState{
			Replica:     rep,
			Cap:         ptr(c),
			BacklogTime: seconds(a.backlog),
			GapTime:     seconds(a.gap),
		}
		if ws := end - start; has && ws > 0 {
			sec := seconds(ws)
			rs.GapFraction = ptr(rs.GapTime / sec)
			rs.MeanInFlight = ptr(seconds(a.intInFlight) / sec)
			rs.MeanQueueDepth = ptr(seconds(a.intQueue) / sec)
			if c != 0 {
				rs.Utilization = ptr(*rs.MeanInFlight / float64(c))
			}
		}
		out = append(out, rs)
	}
	return out
}

// quality computes the analysis counts of docs/metrics.md "Data quality"
// (OverCapTime is filled by Analyze).
func quality(canon []*row, samples []schemas.Sample, start, end int64, clip bool) schemas.DataQuality {
	q := schemas.DataQuality{
		// Choice: every timestamp column is listed, with 0 when none is missing.
		MissingTimestamp: map[string]int64{
			"queued_at": 0, "admitted_at": 0, "first_token_at": 0, "last_token_at": 0, "released_at": 0,
		},
		// Choice: no model gives an empty list, not null.
		Models: []string{},
	}
	ids := map[string]bool{}
	models := map[string]bool{}
	zero := map[string]bool{} // requests with a (resolved) attempt-0 span
	for _, r := range canon {
		if r.attempt == 0 {
			zero[r.s.RequestID] = true
		}
	}
	for _, r := range canon {
		s := r.s
		ts := []*int64{s.QueuedAt, s.AdmittedAt, s.FirstTokenAt, s.LastTokenAt, s.ReleasedAt}
		cols := []string{"queued_at", "admitted_at", "first_token_at", "last_token_at", "released_at"}
		var prev *int64
		ordered, clipped := true, false
		for i, t := range ts {
			if t == nil {
				q.MissingTimestamp[cols[i]]++
				continue
			}
			if prev != nil && *t < *prev {
				ordered = false
			}
			prev = t
			if *t < start || *t > end {
				clipped = true
			}
		}
		if !ordered {
			q.OutOfOrder++
		}
		if clip && clipped {
			q.SpansClipped++
		}
		ids[s.SpanID] = true
		if s.Model != nil && !models[*s.Model] {
			models[*s.Model] = true
			q.Models = append(q.Models, *s.Model)
		}
		// Choice: unlinked retries use resolved attempt numbers on both sides.
		if r.attempt > 0 && !zero[s.RequestID] {
			q.UnlinkedRetries++
		}
		// Choice: a span outside both states counts once.
		if !inFlightSpan(r) || !queuedSpan(r) {
			q.SpansOutOfState++
		}
	}
	slices.Sort(q.Models)
	q.DuplicateSpanIDs = int64(len(canon) - len(ids))
	// Choice: sampling holes are counted over all samples, not clipped by
	// --from/--to (like every other data-quality count).
	for _, rs := range sampleSeries(samples) {
		q.SamplingHoles += rs.holes
	}
	return q
}
