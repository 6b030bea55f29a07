package oracle

import (
	"github.com/tpsreport/tpsreport/schemas"
)

// The engine state of docs/metrics.md "Engine state": time-averages of what
// the samples report (KV-cache usage, the engines' own prefix-cache hit rate),
// each sample holding as in the sampled state, and the increases of the
// engines' cumulative counters, counted like events at the later sample's ts.

// timeAvg accumulates a value held over intervals: Σ len, Σ len·v and the
// largest v of an interval of positive overlap.
type timeAvg struct {
	len int64 // half-µs
	sum ksum  // Σ len·v, len in half-µs
	max float64
}

func (x *timeAvg) add(ov int64, v float64) {
	if x.len == 0 || v > x.max {
		x.max = v
	}
	x.len += ov
	x.sum.add(float64(ov) * v)
}

// mean is Σ len·v / Σ len, nil when nothing was held.
func (x *timeAvg) mean() *float64 {
	if x.len == 0 {
		return nil
	}
	return ptr(x.sum.value() / float64(x.len))
}

// maximum is the largest value held, nil when nothing was held.
func (x *timeAvg) maximum() *float64 {
	if x.len == 0 {
		return nil
	}
	return ptr(x.max)
}

// increases accumulates the increases of one counter that fall in a window.
type increases struct {
	sum int64
	n   int64 // how many increases (0 ones included)
}

func (c *increases) add(d int64) {
	c.sum += d
	c.n++
}

// total is Σ increases, nil when none fell in the window.
func (c *increases) total() *int64 {
	if c.n == 0 {
		return nil
	}
	return ptr(c.sum)
}

// engineAcc is the engine state of one window (or the run).
type engineAcc struct {
	kv, hitRate                                 timeAvg
	preemptions, queries, hits, draft, accepted increases
}

// counters lists the engine counters with where each is accumulated.
var counters = []struct {
	get func(*schemas.Sample) *int64
	to  func(*engineAcc) *increases
}{
	{func(s *schemas.Sample) *int64 { return s.Preemptions }, func(e *engineAcc) *increases { return &e.preemptions }},
	{func(s *schemas.Sample) *int64 { return s.PrefixCacheQueries }, func(e *engineAcc) *increases { return &e.queries }},
	{func(s *schemas.Sample) *int64 { return s.PrefixCacheHits }, func(e *engineAcc) *increases { return &e.hits }},
	{func(s *schemas.Sample) *int64 { return s.SpecDraftTokens }, func(e *engineAcc) *increases { return &e.draft }},
	{func(s *schemas.Sample) *int64 { return s.SpecAcceptedTokens }, func(e *engineAcc) *increases { return &e.accepted }},
}

// addEngine measures the engine state over the run and every window.
func addEngine(g grid, samples []schemas.Sample, run *acc, wins []*acc) {
	hg := g.half()
	// Replicas in name order, samples in ts order (sampleSeries' total tie
	// order): the float sums run in a canonical order.
	for _, sr := range sampleSeries(samples) {
		for i, s := range sr.samples {
			lo, hi := sr.interval(i)
			if hi <= lo {
				continue
			}
			// Each value holds on the sample's whole interval, next_ts being
			// that of the next sample whether or not it carries the value;
			// a sample without the value holds nothing for it.
			for _, v := range []struct {
				p  *float64
				to func(*engineAcc) *timeAvg
			}{
				{s.KVCacheUsage, func(e *engineAcc) *timeAvg { return &e.kv }},
				{s.PrefixCacheHitRate, func(e *engineAcc) *timeAvg { return &e.hitRate }},
			} {
				if v.p == nil {
					continue
				}
				// Choice: a hold "overlaps" the window ∩ extent when the
				// overlap has a positive length, for kv_cache_usage_max too; a
				// window of 0 seconds (end = start) overlaps none.
				if ov := hg.spread(lo, hi, func(w int, ov int64) { v.to(&wins[w].eng).add(ov, *v.p) }); ov > 0 {
					v.to(&run.eng).add(ov, *v.p)
				}
			}
		}
		for _, c := range counters {
			var prev *int64
			for _, s := range sr.samples {
				cur := c.get(s)
				if cur == nil {
					continue
				}
				if prev != nil {
					d := *cur - *prev
					if *cur < *prev {
						d = *cur // the engine restarted and counts from 0
					}
					// Choice: the increase is an event at the later sample's
					// ts, counted like the span events: iff start ≤ ts ≤ end,
					// in window min(floor(ts/W), last), so the last window
					// also holds the instant end. The earlier sample may lie
					// before the extent.
					if w, ok := g.event(s.TS); ok {
						c.to(&wins[w].eng).add(d)
						c.to(&run.eng).add(d)
					}
				}
				prev = cur
			}
		}
	}
}

// metrics sets the engine state metrics of m.
func (e *engineAcc) metrics(m *schemas.Metrics) {
	m.KVCacheUsage = e.kv.mean()
	m.KVCacheUsageMax = e.kv.maximum()
	m.Preemptions = e.preemptions.total()
	// Choice: the counters decide the hit rate as soon as one increase of
	// the query counter (of any replica) falls in the window, even when the
	// queries sum to 0 (then NULL); only a window with no such increase at
	// all falls back to the time-average of the reported rate, over every
	// replica that reports one. A window without any hits increase counts 0
	// hits.
	if e.queries.n > 0 {
		if e.queries.sum != 0 {
			m.PrefixCacheHitRate = ptr(float64(e.hits.sum) / float64(e.queries.sum))
		}
	} else {
		m.PrefixCacheHitRate = e.hitRate.mean()
	}
	// Choice: likewise accepted tokens count 0 without an increase of them.
	if e.draft.sum != 0 {
		m.SpecAcceptanceRate = ptr(float64(e.accepted.sum) / float64(e.draft.sum))
	}
}
