package oracle

import (
	"cmp"
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"slices"

	"github.com/tpsreport/tpsreport/schemas"
)

// GenOptions control RandomSpans. Start from DefaultGenOptions and change what
// a test needs; a zero Start, Duration, Grid or Width takes its default, every
// rate is used as given (0 disables that case).
type GenOptions struct {
	Start    int64 // µs; arrivals are in [Start, Start+Duration) (rounded down to Grid)
	Duration int64 // µs
	Grid     int64 // µs; every instant is a multiple of Grid (sampling jitter aside)
	Width    int64 // µs; window width whose edges instants are snapped to (a multiple of Grid)

	Replicas        int     // named replicas r0, r1, ...; 0 gives only NULL replicas
	NullReplicaRate float64 // a span has a NULL replica
	Models          []string
	NullModelRate   float64

	NullTimestampRate float64 // each timestamp of a span is NULL
	NoTimestampRate   float64 // a span has no timestamp at all
	OutOfOrderRate    float64 // two timestamps of a span are swapped
	TieRate           float64 // an instant is moved up to a shared "hot" instant
	EdgeRate          float64 // an instant is moved up to the next window edge
	ZeroLengthRate    float64 // each phase (queue, prefill, stream, release) has length 0

	EngineArrivalRate    float64 // a span has engine_arrived_at: at queued_at, inside the wait or at admitted_at, a third each
	EngineArrivalOffRate float64 // a span's engine_arrived_at lies before queued_at or after admitted_at

	NullTokensRate float64 // a token count is NULL
	OneTokenRate   float64 // a successful span outputs exactly 1 token
	FailRate       float64 // the last attempt of a request fails
	RetryRate      float64 // a request gets one more attempt (repeatedly, up to 4)
	HedgeRate      float64 // a retry starts before the previous attempt is released
	DoubleOKRate   float64 // an earlier attempt of a retried request also succeeds
	NullAttempt    float64 // a request's attempts are all NULL (half as often: some of them)
	UnlinkedRate   float64 // a retried request loses its attempt-0 span
	DuplicateRate  float64 // a span is repeated exactly (half as often: its span_id reused in another request)

	SampleInterval  int64   // µs between samples of a replica; 0 for no samples
	SampleHoleRate  float64 // a sample starts a hole of 3–10 missing samples
	SampleNullRate  float64 // a sample's in_flight or queue_depth is NULL
	SampleCapRate   float64 // a replica's samples carry a cap (each replica decides)
	SampleJitter    float64 // a replica's samples, without holes, alternate intervals I+1 µs and I µs (a half-µs median)
	SampleOnlyRate  float64 // an extra replica appears only in samples
	SampleCoverRate float64 // a replica of the spans has samples at all

	// Engine counters and the reported prefix-cache hit rate, drawn from a
	// stream of their own (see engineCounters).
	CounterRate      float64 // a replica's samples carry a counter family (preemptions; prefix queries and hits; draft and accepted tokens)
	CounterNullRate  float64 // a sample lacks a family its replica carries
	CounterResetRate float64 // a family restarts at a sample, from a value below the one before
	HitRateRate      float64 // a replica's samples report a prefix-cache hit rate (each sample with 1 − CounterNullRate)
}

// DefaultGenOptions returns options under which every edge case of
// docs/metrics.md occurs with non-trivial probability in a few hundred spans.
func DefaultGenOptions() GenOptions {
	return GenOptions{
		Start:    1795132800_000000 + 17_300_000, // 2026-11-20T00:00:17.3Z, off a window edge
		Duration: 5 * 60_000_000,
		Grid:     100_000,
		Width:    60_000_000,

		Replicas:        3,
		NullReplicaRate: 0.05,
		Models:          []string{"llama-3-8b", "qwen-2-7b"},
		NullModelRate:   0.05,

		NullTimestampRate: 0.03,
		NoTimestampRate:   0.01,
		OutOfOrderRate:    0.02,
		TieRate:           0.15,
		EdgeRate:          0.03,
		ZeroLengthRate:    0.1,

		EngineArrivalRate:    0.7,
		EngineArrivalOffRate: 0.03,

		NullTokensRate: 0.03,
		OneTokenRate:   0.05,
		FailRate:       0.1,
		RetryRate:      0.15,
		HedgeRate:      0.2,
		DoubleOKRate:   0.2,
		NullAttempt:    0.15,
		UnlinkedRate:   0.05,
		DuplicateRate:  0.02,

		SampleInterval:  1_000_000,
		SampleHoleRate:  0.02,
		SampleNullRate:  0.02,
		SampleCapRate:   0.5,
		SampleJitter:    0.3,
		SampleOnlyRate:  0.3,
		SampleCoverRate: 0.8,

		CounterRate:      0.6,
		CounterNullRate:  0.1,
		CounterResetRate: 0.03,
		HitRateRate:      0.4,
	}
}

// RandomSpans generates n logical requests (one span per attempt, plus
// duplicates) and, when o.SampleInterval > 0, scheduler samples that mostly
// tell the spans' true state. The spans come out shuffled.
//
// It never generates what docs/metrics.md leaves undetermined, so that two
// correct implementations must agree on its output: two rows of one request
// that tie on (queued_at, span_id) are exact copies; two samples of one
// replica never share a ts; the run extent never ends before it starts.
func RandomSpans(r *rand.Rand, n int, o GenOptions) ([]schemas.Span, []schemas.Sample) {
	d := DefaultGenOptions()
	if o.Start == 0 {
		o.Start = d.Start
	}
	if o.Duration <= 0 {
		o.Duration = d.Duration
	}
	if o.Grid <= 0 {
		o.Grid = d.Grid
	}
	if o.Width <= 0 {
		o.Width = d.Width
	}
	o.Start = floorDiv(o.Start, o.Grid) * o.Grid
	o.Duration = max(o.Duration, o.Grid)
	g := &gen{r: r, o: o}
	hot := n/8 + 3
	for range hot {
		g.hot = append(g.hot, o.Start+o.Grid*r.Int64N(o.Duration/o.Grid+100))
	}
	slices.Sort(g.hot)

	var spans []schemas.Span
	for i := range n {
		spans = append(spans, g.request(fmt.Sprintf("q%05d", i))...)
	}
	engineArrivals(spans, o)
	for i, m := 0, len(spans); i < m; i++ {
		switch {
		case g.p(o.DuplicateRate):
			spans = append(spans, cloneSpan(spans[i]))
		case g.p(o.DuplicateRate / 2):
			// the span_id of span i reused by another request's span
			c := cloneSpan(spans[r.IntN(m)])
			c.SpanID = spans[i].SpanID
			c.RequestID = fmt.Sprintf("q-reuse-%05d", i)
			c.Attempt = nil
			spans = append(spans, c)
		}
	}
	repairExtent(spans)
	r.Shuffle(len(spans), func(i, j int) { spans[i], spans[j] = spans[j], spans[i] })
	var samples []schemas.Sample
	if o.SampleInterval > 0 {
		samples = g.samples(spans)
		engineCounters(samples, o)
	}
	return spans, samples
}

// RandomOptions draws analyze options for spans made with o: window widths on
// and off the grid, caps from every source, and sometimes a --from/--to range
// (sometimes on window edges, rarely of zero length).
func RandomOptions(r *rand.Rand, o GenOptions) Options {
	d := DefaultGenOptions()
	if o.Start == 0 {
		o.Start = d.Start
	}
	if o.Duration <= 0 {
		o.Duration = d.Duration
	}
	if o.Grid <= 0 {
		o.Grid = d.Grid
	}
	if o.Width <= 0 {
		o.Width = d.Width
	}
	o.Duration = max(o.Duration, o.Grid)
	var opt Options
	switch r.IntN(5) {
	case 0:
		opt.Width = o.Width / 2
	case 1:
		opt.Width = 7_000_003 // off the grid
	case 2:
		opt.Width = 3 * o.Width
	default:
		opt.Width = o.Width
	}
	opt.Width = max(opt.Width, 1)
	if r.IntN(3) == 0 {
		opt.Cap = ptr(1 + r.Int64N(8))
	}
	if r.IntN(3) == 0 {
		opt.MaxNumSeqs = ptr(2 + r.Int64N(8))
	}
	if r.IntN(3) == 0 {
		opt.MaxNumSeqsByReplica = map[string]int64{}
		for i := range max(o.Replicas, 1) {
			if r.IntN(2) == 0 {
				opt.MaxNumSeqsByReplica[fmt.Sprintf("r%d", i)] = 1 + r.Int64N(8)
			}
		}
		if r.IntN(4) == 0 {
			opt.MaxNumSeqsByReplica[""] = 1 + r.Int64N(8)
		}
	}
	if r.IntN(4) == 0 {
		from := o.Start + o.Grid*r.Int64N(o.Duration/o.Grid)
		to := from + o.Grid*r.Int64N(o.Duration/o.Grid)
		if r.IntN(3) == 0 {
			from = ceilTo(from, opt.Width)
			to = max(from, ceilTo(to, opt.Width))
		}
		if r.IntN(20) == 0 {
			to = from
		}
		opt.From, opt.To = ptr(from), ptr(to)
	}
	return opt
}

type gen struct {
	r    *rand.Rand
	o    GenOptions
	hot  []int64 // shared instants, so that boundaries of different spans tie
	next int     // span counter
}

func (g *gen) p(rate float64) bool { return rate > 0 && g.r.Float64() < rate }

// at moves instant t up to a window edge or a hot instant, sometimes.
func (g *gen) at(t int64) int64 {
	switch {
	case g.p(g.o.EdgeRate):
		return ceilTo(t, g.o.Width)
	case g.p(g.o.TieRate):
		if i, _ := slices.BinarySearch(g.hot, t); i < len(g.hot) && g.hot[i]-t <= 50*g.o.Grid {
			return g.hot[i]
		}
	}
	return t
}

// phase is a random phase length on the grid, 0 with ZeroLengthRate.
func (g *gen) phase(maxSteps int64) int64 {
	if g.p(g.o.ZeroLengthRate) {
		return 0
	}
	return g.o.Grid * (1 + g.r.Int64N(maxSteps))
}

func (g *gen) request(id string) []schemas.Span {
	o, r := g.o, g.r
	n := 1
	for n < 4 && g.p(o.RetryRate) {
		n++
	}
	attemptMode := 0 // 0 numbered, 1 all NULL, 2 some NULL
	switch {
	case g.p(o.NullAttempt):
		attemptMode = 1
	case g.p(o.NullAttempt / 2):
		attemptMode = 2
	}
	model := (*string)(nil)
	if len(o.Models) > 0 && !g.p(o.NullModelRate) {
		model = ptr(o.Models[r.IntN(len(o.Models))])
	}
	var out []schemas.Span
	t := g.at(o.Start + o.Grid*r.Int64N(o.Duration/o.Grid))
	for i := range n {
		last := i == n-1
		ok := last && !g.p(o.FailRate) || !last && n > 1 && g.p(o.DoubleOKRate)
		q := t
		a := g.at(q + g.phase(50))
		f := g.at(a + g.phase(10))
		l := g.at(f + g.phase(100))
		rel := g.at(l + g.phase(3))
		g.next++
		s := schemas.Span{
			RunID:        "gen",
			Source:       "oracle",
			SpanID:       fmt.Sprintf("%c%05d", 'a'+r.IntN(26), g.next),
			RequestID:    id,
			Model:        model,
			QueuedAt:     ptr(q),
			AdmittedAt:   ptr(a),
			FirstTokenAt: ptr(f),
			LastTokenAt:  ptr(l),
			ReleasedAt:   ptr(rel),
			Status:       schemas.StatusOK,
		}
		if attemptMode == 0 || attemptMode == 2 && r.IntN(2) == 0 {
			s.Attempt = ptr(int32(i))
		}
		if i > 0 {
			s.RetryCause = ptr([]string{"timeout", "429", "5xx"}[r.IntN(3)])
		}
		if o.Replicas > 0 && !g.p(o.NullReplicaRate) {
			s.Replica = ptr(fmt.Sprintf("r%d", r.IntN(o.Replicas)))
		}
		if !g.p(o.NullTokensRate) {
			s.InputTokens = ptr(1 + r.Int64N(2000))
			s.CachedTokens = ptr(r.Int64N(*s.InputTokens + 1))
		}
		switch {
		case g.p(o.NullTokensRate):
		case !ok:
			s.OutputTokens = ptr(r.Int64N(200)) // partial output, maybe 0
		case g.p(o.OneTokenRate):
			s.OutputTokens = ptr(int64(1))
		default:
			s.OutputTokens = ptr(2 + r.Int64N(500))
		}
		if !ok {
			s.Status = []string{schemas.StatusError, schemas.StatusTimeout, schemas.StatusAborted, schemas.StatusCancelled}[r.IntN(4)]
			s.Error = ptr("upstream " + s.Status)
			if g.p(0.2) {
				s.ReleasedAt = nil // never released (the gateway gave up)
			}
		}
		if p := len(out) - 1; ok && p >= 0 && out[p].Status == schemas.StatusOK && out[p].ReleasedAt != nil &&
			(out[p].LastTokenAt == nil || *out[p].LastTokenAt <= rel) && g.p(0.5) {
			// released together: the delivered tie goes to the smaller span_id
			out[p].ReleasedAt = ptr(rel)
		}
		g.damage(&s)
		out = append(out, s)
		// the next attempt: after this one is released, or hedged before
		if g.p(o.HedgeRate) {
			t = g.at(q + g.phase(20))
		} else {
			t = g.at(rel + g.phase(10) - g.o.Grid*int64(r.IntN(2)))
			t = max(t, rel)
		}
	}
	if n > 1 && attemptMode == 0 && g.p(o.UnlinkedRate) {
		out = out[1:]
	}
	return out
}

// engineArrivals sets engine_arrived_at on some spans, relative to their
// (possibly damaged) queued_at and admitted_at, before any span is
// duplicated. It draws from a stream of its own, seeded by the spans, so
// that every other draw of RandomSpans, and with them the seeded cases of
// the tests written before engine_arrived_at existed, stay as they were.
func engineArrivals(spans []schemas.Span, o GenOptions) {
	h := fnv.New64a()
	for _, s := range spans {
		fmt.Fprint(h, s.SpanID, deref(s.QueuedAt, 0), deref(s.AdmittedAt, 0))
	}
	r := rand.New(rand.NewPCG(h.Sum64(), uint64(len(spans))))
	p := func(rate float64) bool { return rate > 0 && r.Float64() < rate }
	for i := range spans {
		s := &spans[i]
		q, a := s.QueuedAt, s.AdmittedAt
		switch {
		case q == nil && a == nil: // no wait to place it in (nor, often, any timestamp)
		case q == nil || a == nil:
			if p(o.EngineArrivalRate) {
				s.EngineArrivedAt = ptr(*coalesce(q, a))
			}
		case p(o.EngineArrivalOffRate):
			off := o.Grid * (1 + r.Int64N(20))
			if r.IntN(2) == 0 {
				s.EngineArrivedAt = ptr(min(*q, *a) - off)
			} else {
				s.EngineArrivedAt = ptr(max(*q, *a) + off)
			}
		case p(o.EngineArrivalRate):
			e := *q
			switch steps := (*a - *q) / o.Grid; {
			case r.IntN(3) == 0:
			case r.IntN(2) == 0 || steps < 2:
				e = *a // out of order (a < q) too: then it has no location
			default:
				e = *q + o.Grid*(1+r.Int64N(steps-1))
			}
			s.EngineArrivedAt = ptr(e)
		}
	}
}

// engineCounters sets the engine counters and the reported prefix-cache hit
// rate on some samples. Like engineArrivals it draws from a stream of its
// own, seeded by the samples, so that the seeded cases written before the
// counters existed stay as they were.
//
// Per replica each family (preemptions; prefix-cache queries and hits;
// speculative draft and accepted tokens) is carried or not; a carried family
// is NULL in some samples (both counters of a pair together) and restarts
// now and then, only at a sample that carries it and to a value below the
// last one carried, so that every restart is seen as one. The second counter
// of a pair grows by at most what the first grows by and never exceeds it,
// so that every increase of hits is at most the increase of queries between
// the same samples, restarts included: the rates stay in [0, 1].
func engineCounters(samples []schemas.Sample, o GenOptions) {
	h := fnv.New64a()
	for _, s := range samples {
		fmt.Fprint(h, deref(s.Replica, ""), s.TS)
	}
	r := rand.New(rand.NewPCG(h.Sum64(), uint64(len(samples))))
	p := func(rate float64) bool { return rate > 0 && r.Float64() < rate }
	by := map[string][]*schemas.Sample{}
	for i := range samples {
		rep := deref(samples[i].Replica, "")
		by[rep] = append(by[rep], &samples[i])
	}
	reps := make([]string, 0, len(by))
	for rep := range by {
		reps = append(reps, rep)
	}
	slices.Sort(reps)
	type family struct {
		on         bool
		a, b       int64 // the counters now (b ≤ a)
		lastA      int64 // a at the last sample that carried the family
		step       int64 // largest growth of a between two samples
		seta, setb func(*schemas.Sample, int64)
	}
	for _, rep := range reps {
		ss := by[rep]
		slices.SortFunc(ss, func(x, y *schemas.Sample) int { return cmp.Compare(x.TS, y.TS) })
		fams := []*family{
			{step: 3, seta: func(s *schemas.Sample, v int64) { s.Preemptions = ptr(v) }},
			{step: 400, seta: func(s *schemas.Sample, v int64) { s.PrefixCacheQueries = ptr(v) },
				setb: func(s *schemas.Sample, v int64) { s.PrefixCacheHits = ptr(v) }},
			{step: 60, seta: func(s *schemas.Sample, v int64) { s.SpecDraftTokens = ptr(v) },
				setb: func(s *schemas.Sample, v int64) { s.SpecAcceptedTokens = ptr(v) }},
		}
		for _, f := range fams {
			f.on = p(o.CounterRate)
			f.a = r.Int64N(1000)
			f.b = r.Int64N(f.a + 1)
			f.lastA = -1
		}
		rate := p(o.HitRateRate)
		for _, s := range ss {
			for _, f := range fams {
				if !f.on {
					continue
				}
				if r.IntN(4) != 0 { // else no growth: an increase of 0
					da := r.Int64N(f.step + 1)
					f.a += da
					f.b += r.Int64N(da + 1)
				}
				if p(o.CounterNullRate) {
					continue
				}
				if f.lastA >= 0 && p(o.CounterResetRate) {
					f.a = 0
					if f.lastA > 0 {
						f.a = r.Int64N(f.lastA)
					}
					f.b = r.Int64N(f.a + 1)
				}
				f.seta(s, f.a)
				if f.setb != nil {
					f.setb(s, f.b)
				}
				f.lastA = f.a
			}
			if rate && !p(o.CounterNullRate) {
				s.PrefixCacheHitRate = ptr(r.Float64())
			}
		}
	}
}

// damage nulls and swaps timestamps.
func (g *gen) damage(s *schemas.Span) {
	ts := []**int64{&s.QueuedAt, &s.AdmittedAt, &s.FirstTokenAt, &s.LastTokenAt, &s.ReleasedAt}
	if g.p(g.o.NoTimestampRate) {
		for _, p := range ts {
			*p = nil
		}
		return
	}
	for _, p := range ts {
		if g.p(g.o.NullTimestampRate) {
			*p = nil
		}
	}
	if g.p(g.o.OutOfOrderRate) {
		i, j := g.r.IntN(5), g.r.IntN(5)
		if *ts[i] != nil && *ts[j] != nil {
			*ts[i], *ts[j] = *ts[j], *ts[i]
		}
	}
}

// samples generates per-replica samples telling the spans' state at ts.
func (g *gen) samples(spans []schemas.Span) []schemas.Sample {
	o, r := g.o, g.r
	byRep := map[string][]*schemas.Span{}
	lo, hi := o.Start, o.Start+o.Duration
	for i := range spans {
		s := &spans[i]
		byRep[deref(s.Replica, "")] = append(byRep[deref(s.Replica, "")], s)
		for _, t := range []*int64{s.QueuedAt, s.ReleasedAt} {
			if t != nil {
				lo, hi = min(lo, *t), max(hi, *t)
			}
		}
	}
	var reps []string
	for rep := range byRep {
		reps = append(reps, rep)
	}
	slices.Sort(reps)
	if g.p(o.SampleOnlyRate) {
		reps = append(reps, "r-samples-only")
	}
	var out []schemas.Sample
	for _, rep := range reps {
		if _, inSpans := byRep[rep]; inSpans && !g.p(o.SampleCoverRate) {
			continue
		}
		capMode := 0 // 0 none, 1 every sample, 2 some samples
		if g.p(o.SampleCapRate) {
			capMode = 1 + r.IntN(2)
		}
		capv := int32(2 + r.IntN(7))
		jitter := o.SampleInterval > 1 && g.p(o.SampleJitter)
		start := floorDiv(lo-o.SampleInterval*int64(r.IntN(5)), o.Grid) * o.Grid
		stop := hi + o.SampleInterval*int64(r.IntN(5))
		if jitter && (stop-start)/o.SampleInterval%2 == 1 {
			stop += o.SampleInterval // an odd number of samples: equally many of both intervals
		}
		for k, t := int64(0), start; t <= stop; k, t = k+1, t+o.SampleInterval {
			if !jitter && g.p(o.SampleHoleRate) {
				t += o.SampleInterval * int64(3+r.IntN(8))
				continue
			}
			ts := t
			if jitter {
				ts += (k + 1) / 2 // intervals I+1, I, I+1, I, ...: median I + ½ µs
			}
			in, q := stateAt(byRep[rep], ts)
			s := schemas.Sample{RunID: "gen", Source: "oracle", TS: ts,
				InFlight: ptr(int32(in)), QueueDepth: ptr(int32(q))}
			if rep != "" {
				s.Replica = ptr(rep)
			}
			if g.p(o.SampleNullRate) {
				if r.IntN(2) == 0 {
					s.InFlight = nil
				} else {
					s.QueueDepth = nil
				}
			}
			if capMode == 1 || capMode == 2 && r.IntN(2) == 0 {
				s.Cap = ptr(capv + int32(r.IntN(2)))
			}
			if r.IntN(2) == 0 {
				s.KVCacheUsage = ptr(r.Float64())
			}
			out = append(out, s)
		}
	}
	r.Shuffle(len(out), func(i, j int) { out[i], out[j] = out[j], out[i] })
	return out
}

// stateAt counts the spans in flight and queued at t (the definitions of
// docs/metrics.md "States", evaluated pointwise).
func stateAt(spans []*schemas.Span, t int64) (in, q int) {
	for _, s := range spans {
		a, rel, qu := s.AdmittedAt, s.ReleasedAt, s.QueuedAt
		if a != nil && rel != nil && *a <= *rel && *a <= t && t < *rel {
			in++
		}
		if qu != nil && a != nil && *qu <= *a && *qu <= t && t < *a {
			q++
		}
	}
	return in, q
}

// repairExtent puts every span's timestamps in order when out-of-order ones
// would make the run extent end before it starts (left open by the docs).
func repairExtent(spans []schemas.Span) {
	var first, last *int64
	for i := range spans {
		s := &spans[i]
		if f := coalesce(s.QueuedAt, s.AdmittedAt, s.FirstTokenAt, s.LastTokenAt, s.ReleasedAt); f != nil && (first == nil || *f < *first) {
			first = f
		}
		if l := coalesce(s.ReleasedAt, s.LastTokenAt, s.FirstTokenAt, s.AdmittedAt, s.QueuedAt); l != nil && (last == nil || *l > *last) {
			last = l
		}
	}
	if first == nil || *last >= *first {
		return
	}
	for i := range spans {
		s := &spans[i]
		ts := []**int64{&s.QueuedAt, &s.AdmittedAt, &s.FirstTokenAt, &s.LastTokenAt, &s.ReleasedAt}
		var vals []int64
		for _, p := range ts {
			if *p != nil {
				vals = append(vals, **p)
			}
		}
		slices.Sort(vals)
		for _, p := range ts {
			if *p != nil {
				*p, vals = ptr(vals[0]), vals[1:]
			}
		}
	}
}

// cloneSpan deep-copies s (its pointers are never shared).
func cloneSpan(s schemas.Span) schemas.Span {
	c := s
	for _, p := range []**int64{&c.QueuedAt, &c.EngineArrivedAt, &c.AdmittedAt, &c.FirstTokenAt, &c.LastTokenAt, &c.ReleasedAt, &c.InputTokens, &c.OutputTokens, &c.CachedTokens} {
		if *p != nil {
			*p = ptr(**p)
		}
	}
	for _, p := range []**int32{&c.Attempt, &c.HTTPStatus} {
		if *p != nil {
			*p = ptr(**p)
		}
	}
	for _, p := range []**string{&c.RetryCause, &c.Model, &c.Replica, &c.Error} {
		if *p != nil {
			*p = ptr(**p)
		}
	}
	return c
}

// ceilTo rounds t up to a multiple of w.
func ceilTo(t, w int64) int64 { return -floorDiv(-t, w) * w }
