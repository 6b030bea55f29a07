package oracle

import (
	"cmp"
	"slices"

	"github.com/tpsreport/tpsreport/schemas"
)

// The sampled state is measured in half-microseconds: the median sampling
// interval m can be a half microsecond (the mean of two middle differences),
// and the last sample of a replica holds on [ts, ts + m). Doubling every
// instant keeps all arithmetic exact in int64.

// series is the samples of one replica, ordered by ts.
type series struct {
	replica string
	samples []*schemas.Sample
	m2      int64 // 2·m in µs, which is m in half-µs
	hasM    bool
	holes   int64
}

// hold is the interval [lo, hi) (half-µs) on which one sample's state is known.
type hold struct {
	lo, hi             int64
	inFlight, queue, c int64
}

// sampleReplicaKeys lists the sorted distinct coalesce(replica, ”) of samples.
func sampleReplicaKeys(samples []schemas.Sample) []string {
	var out []string
	for _, s := range samples {
		out = append(out, deref(s.Replica, ""))
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// sampleSeries groups samples per replica (sorted by replica), orders them by
// ts and derives the median interval and the sampling holes.
func sampleSeries(samples []schemas.Sample) []series {
	by := map[string][]*schemas.Sample{}
	for i := range samples {
		s := &samples[i]
		rep := deref(s.Replica, "")
		by[rep] = append(by[rep], s)
	}
	var out []series
	for _, rep := range sampleReplicaKeys(samples) {
		ss := by[rep]
		// Choice: samples of one replica at the same ts are ordered by their
		// other fields (in_flight, queue_depth, cap, kv_cache_usage, run_id,
		// source, then the engine counters and the reported hit rate; nil
		// first); only the last of them holds past ts, and counter increases
		// between them follow this order.
		slices.SortStableFunc(ss, func(a, b *schemas.Sample) int {
			return cmp.Or(
				cmp.Compare(a.TS, b.TS),
				cmpPtr(a.InFlight, b.InFlight),
				cmpPtr(a.QueueDepth, b.QueueDepth),
				cmpPtr(a.Cap, b.Cap),
				cmpPtr(a.KVCacheUsage, b.KVCacheUsage),
				cmp.Compare(a.RunID, b.RunID),
				cmp.Compare(a.Source, b.Source),
				cmpPtr(a.Preemptions, b.Preemptions),
				cmpPtr(a.PrefixCacheQueries, b.PrefixCacheQueries),
				cmpPtr(a.PrefixCacheHits, b.PrefixCacheHits),
				cmpPtr(a.SpecDraftTokens, b.SpecDraftTokens),
				cmpPtr(a.SpecAcceptedTokens, b.SpecAcceptedTokens),
				cmpPtr(a.PrefixCacheHitRate, b.PrefixCacheHitRate),
			)
		})
		sr := series{replica: rep, samples: ss}
		if len(ss) > 1 {
			diffs := make([]int64, len(ss)-1)
			for i := range diffs {
				diffs[i] = ss[i+1].TS - ss[i].TS
			}
			slices.Sort(diffs)
			// quantile_cont(0.5): the middle difference, or the mean of the
			// two middle ones; 2m is their sum, an integer either way.
			n := len(diffs)
			if n%2 == 1 {
				sr.m2 = 2 * diffs[n/2]
			} else {
				sr.m2 = diffs[n/2-1] + diffs[n/2]
			}
			// docs/metrics.md: m is rounded down to a whole µs.
			sr.m2 = sr.m2 / 2 * 2
			sr.hasM = true
			for i := 0; i+1 < len(ss); i++ {
				if ss[i+1].TS-ss[i].TS > sr.m2 { // difference > 2m
					sr.holes++
				}
			}
		}
		out = append(out, sr)
	}
	return out
}

// interval is [lo, hi) (half-µs) on which sample i of the series holds
// whatever it carries: [ts, min(next_ts, ts + 2m)), the last [ts, ts + m);
// empty (hi ≤ lo) when the next sample shares its ts, and for every sample of
// a series with a single one. next_ts is the ts of the next sample, whatever
// that one carries.
func (sr series) interval(i int) (lo, hi int64) {
	if !sr.hasM {
		return 0, 0 // a single sample holds nothing
	}
	lo = 2 * sr.samples[i].TS
	if i+1 < len(sr.samples) {
		return lo, min(2*sr.samples[i+1].TS, lo+2*sr.m2) // [ts, min(next_ts, ts + 2m))
	}
	return lo, lo + sr.m2 // [ts, ts + m)
}

// holds returns the intervals on which the series' samples hold, with their
// state; replicaCap is the cap of a sample without its own.
func (sr series) holds(replicaCap int64) []hold {
	if !sr.hasM {
		return nil // a single sample holds nothing
	}
	var out []hold
	for i, s := range sr.samples {
		lo, hi := sr.interval(i)
		// A sample with NULL in_flight or queue_depth is unknown for the
		// whole sample: it holds nothing. Choice: it still counts as a sample
		// for m, for the next sample's hold limit and for holes.
		if hi <= lo || s.InFlight == nil || s.QueueDepth == nil {
			continue
		}
		c := replicaCap
		if s.Cap != nil {
			c = int64(*s.Cap)
		}
		out = append(out, hold{lo: lo, hi: hi, inFlight: int64(*s.InFlight), queue: int64(*s.QueueDepth), c: c})
	}
	return out
}

// addSampled measures the pool's sampled state over the run and every window.
func addSampled(g grid, samples []schemas.Sample, caps map[string]int64, run *acc, wins []*acc) {
	type sstep struct {
		t               int64
		known, in, q, c int64
	}
	var st []sstep
	for _, sr := range sampleSeries(samples) {
		for _, h := range sr.holds(caps[sr.replica]) {
			st = append(st,
				sstep{h.lo, 1, h.inFlight, h.queue, h.c},
				sstep{h.hi, -1, -h.inFlight, -h.queue, -h.c})
		}
	}
	slices.SortFunc(st, func(a, b sstep) int { return cmp.Compare(a.t, b.t) })
	hg := g.half()
	var known, in, q, c int64
	for i := 0; i < len(st); {
		t := st[i].t
		for ; i < len(st) && st[i].t == t; i++ {
			known += st[i].known
			in += st[i].in
			q += st[i].q
			c += st[i].c
		}
		if i == len(st) || known == 0 {
			continue
		}
		add := func(a *acc, ov int64) {
			a.sKnown += ov
			if q > 0 {
				a.sBacklog += ov
				if in < c {
					a.sGap += ov
				}
			}
			a.sIntInFlight += in * ov
			a.sIntQueue += q * ov
		}
		if ov := hg.spread(t, st[i].t, func(w int, ov int64) { add(wins[w], ov) }); ov > 0 {
			add(run, ov)
		}
	}
}
