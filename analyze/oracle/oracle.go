package oracle

import (
	"cmp"
	"math"
	"slices"

	"github.com/tpsreport/tpsreport/schemas"
)

// Options mirror the analyze flags.
type Options struct {
	Width               int64            // window width in µs (> 0)
	From, To            *int64           // optional clip range in µs (both or neither)
	Cap                 *int64           // --cap, per replica
	MaxNumSeqs          *int64           // from the logs (manifest), for every replica
	MaxNumSeqsByReplica map[string]int64 // from the logs, per replica (takes precedence over MaxNumSeqs)
	SLO                 *schemas.SLO     // --slo: goodput and slo_attainment
}

// Cap sources, strongest first (docs/metrics.md "Cap").
const (
	CapSourceFlag     = "flag"
	CapSourceSamples  = "samples"
	CapSourceLogs     = "logs"
	CapSourceInferred = "inferred"
)

// Result is everything Analyze derives from one run.
type Result struct {
	Start, End int64 // run extent µs (HasExtent false when no timestamps)
	HasExtent  bool
	Cap        *int64                 // pool cap
	CapSource  string                 // "flag", "samples", "logs", "inferred" (weakest used)
	Run        schemas.Metrics        // the whole run as one window
	Windows    []schemas.Metrics      // tumbling windows in order
	Replicas   []schemas.ReplicaState // sorted by name; only when more than one replica appears
	Quality    schemas.DataQuality    // the analysis counts (ingest counts left zero)
	Spans      []SpanMetrics          // per-span metrics of docs/metrics.md, in input order

	// The offered load and token mix (docs/metrics.md "Offered load and
	// token mix"), and every delivered request's latencies.
	ArrivalSpan      float64
	OfferedRate      *float64
	MeanInputTokens  *float64
	MeanOutputTokens *float64
	Latencies        []schemas.RequestLatency // in completion order
}

// SpanMetrics are the per-span metrics of docs/metrics.md (a row of requests.parquet).
type SpanMetrics struct {
	SpanID  string
	Attempt int32 // resolved attempt number
	TQueue, TFirstToken, TTFT, TStream, TInFlight, TTotal,
	StreamTPS, EndToEndTPS, TPOT *float64
	Delivered bool
}

// row is one input span as analysed.
type row struct {
	in        int // input index
	s         *schemas.Span
	replica   string // coalesce(replica, '')
	ok        bool
	attempt   int32 // resolved
	delivered bool
	m         SpanMetrics
}

// request is one logical request: the rows sharing a request_id.
type request struct {
	id        string
	rows      []*row // canonical order
	completed bool
	doneAt    int64 // max(released_at) over rows, when completed
	anyOK     bool
}

// Analyze derives the metrics of docs/metrics.md from spans and samples.
// It panics when opt.Width ≤ 0.
func Analyze(spans []schemas.Span, samples []schemas.Sample, opt Options) Result {
	if opt.Width <= 0 {
		panic("oracle: Options.Width must be > 0")
	}
	rows := make([]*row, len(spans))
	for i := range spans {
		s := &spans[i]
		rows[i] = &row{in: i, s: s, replica: deref(s.Replica, ""), ok: s.Status == schemas.StatusOK}
	}
	// Everything below iterates rows in this canonical order, so that float
	// sums (and every tie) do not depend on the order of the input.
	canon := slices.Clone(rows)
	slices.SortStableFunc(canon, func(a, b *row) int { return cmpSpan(a.s, b.s) })

	reqs := groupRequests(canon)
	for _, r := range reqs {
		resolveAttempts(r)
		resolveDelivered(r)
	}
	for _, r := range canon {
		r.m = spanMetrics(r)
	}

	var res Result
	res.Spans = make([]SpanMetrics, len(rows))
	for i, r := range rows {
		res.Spans[i] = r.m
	}

	clip := opt.From != nil && opt.To != nil
	start, end, has := extent(canon, opt)
	res.Start, res.End, res.HasExtent = start, end, has

	// Caps, per replica. Choice: the replicas that "appear in spans" are the
	// coalesce(replica, '') of every span, timestamps or not; cap_source is
	// the weakest source among them. A replica seen only in samples gets a
	// cap by the same order too, used only as the sampled cap of its samples
	// that carry none; it is not part of the pool cap or of cap_source.
	// The pool is the replicas the spans name; the anonymous replica '' belongs
	// to it only when no span names one (requests that never reached an engine
	// add no slots).
	var named []*row
	for _, r := range canon {
		if r.s.Replica != nil {
			named = append(named, r)
		}
	}
	spanReplicas := distinct(named, func(r *row) string { return r.replica })
	if len(spanReplicas) == 0 && len(canon) > 0 {
		spanReplicas = []string{""}
	}
	sampleReplicas := sampleReplicaKeys(samples)
	inferred := maxInFlight(canon)
	caps := map[string]int64{}
	rank := -1
	for _, rep := range union(spanReplicas, sampleReplicas) {
		c, src := resolveCap(rep, opt, samples, inferred)
		caps[rep] = c
		if slices.Contains(spanReplicas, rep) {
			rank = max(rank, slices.Index(capSources, src))
		}
	}
	var poolCap *int64
	if len(spanReplicas) > 0 {
		var sum int64
		for _, rep := range spanReplicas {
			sum += caps[rep]
		}
		poolCap = &sum
		res.Cap = poolCap
		res.CapSource = capSources[rank]
	}
	// Choice: with no span at all there is no replica, so Cap is nil and
	// CapSource "" even when --cap is given (the pool cap is a sum over the
	// replicas that appear in spans, of which there are none).

	res.Quality = quality(canon, samples, start, end, clip)

	var wt *waits // the waits behind gap attribution, when there is a pool

	if has {
		g := newGrid(start, end, opt.Width)
		run := newAcc()
		wins := make([]*acc, g.n)
		for i := range wins {
			wins[i] = newAcc()
		}
		addEvents(g, canon, reqs, run, wins)
		res.Latencies = addRequestLatencies(g, reqs, opt.SLO, run, wins)
		res.ArrivalSpan, res.OfferedRate, res.MeanInputTokens, res.MeanOutputTokens = mix(canon, start, end)
		addTokens(g, canon, run, wins)
		addStates(g, canon, poolCap, run, wins)
		if poolCap != nil {
			wt = newWaits(canon, spanReplicas, caps, *poolCap)
			addAttribution(g, wt, run, wins)
		}
		addSampled(g, samples, caps, run, wins)
		addEngine(g, samples, run, wins)

		res.Run = run.metrics(start, end, max(end-start, 0), poolCap, opt.SLO != nil)
		// Choice: end < start (only possible when out-of-order timestamps make
		// the last coalesced instant precede the first one, or --from > --to)
		// gives no windows (the range floor(start/W)..floor((end-1)/W) is
		// empty) and a run window of 0 seconds (the overlap is empty), so
		// every rate is NULL and nothing counts.
		res.Windows = make([]schemas.Metrics, g.n)
		for i := range wins {
			lo, hi := g.bounds(i)
			m := wins[i].metrics(lo, hi, hi-lo, poolCap, opt.SLO != nil)
			k := g.k0 + int64(i)
			m.WindowStart, m.WindowEnd = schemas.Time(k*g.w), schemas.Time((k+1)*g.w)
			res.Windows[i] = m
		}
		res.Quality.OverCapTime = res.Run.OverCapTime
	}
	// Choice: without an extent Run is the zero Metrics (zero times, every
	// rate and percentile NULL, every count 0) and there are no windows.

	if len(spanReplicas) > 1 {
		res.Replicas = replicaStates(canon, spanReplicas, caps, start, end, has)
		if wt != nil {
			for i := range res.Replicas {
				rs := &res.Replicas[i]
				by := replicaAttribution(wt, rs.Replica, start, end)
				rs.EngineGapTime = seconds(by[causeEngine])
				rs.AdmissionGapTime = seconds(by[causeAdmission])
				rs.UnattributedGapTime = seconds(by[causeUnattributed])
			}
		}
	}
	return res
}

var capSources = []string{CapSourceFlag, CapSourceSamples, CapSourceLogs, CapSourceInferred}

// resolveCap applies the cap order of docs/metrics.md to one replica.
func resolveCap(rep string, opt Options, samples []schemas.Sample, inferred map[string]int64) (int64, string) {
	if opt.Cap != nil {
		return *opt.Cap, CapSourceFlag
	}
	found, best := false, int64(0)
	for _, s := range samples {
		if deref(s.Replica, "") == rep && s.Cap != nil {
			if !found || int64(*s.Cap) > best {
				best = int64(*s.Cap)
			}
			found = true
		}
	}
	if found {
		return best, CapSourceSamples
	}
	if v, ok := opt.MaxNumSeqsByReplica[rep]; ok {
		return v, CapSourceLogs
	}
	if opt.MaxNumSeqs != nil {
		return *opt.MaxNumSeqs, CapSourceLogs
	}
	// Choice: the inferred cap is the maximum of in_flight(t) over all time,
	// from every span of the replica, not clipped by --from/--to (it is a
	// property of the replica, not of the range analysed); a replica that is
	// never in flight (or appears only in samples) infers 0.
	return inferred[rep], CapSourceInferred
}

// groupRequests groups rows (canonical order) by request_id, requests sorted by id.
func groupRequests(canon []*row) []*request {
	by := map[string]*request{}
	var out []*request
	for _, r := range canon {
		q := by[r.s.RequestID]
		if q == nil {
			q = &request{id: r.s.RequestID}
			by[r.s.RequestID] = q
			out = append(out, q)
		}
		q.rows = append(q.rows, r)
		if r.ok {
			q.anyOK = true
		}
		if t := r.s.ReleasedAt; t != nil {
			if !q.completed || *t > q.doneAt {
				q.doneAt = *t
			}
			q.completed = true
		}
	}
	slices.SortFunc(out, func(a, b *request) int { return cmp.Compare(a.id, b.id) })
	return out
}

// resolveAttempts numbers the spans of a request whose attempt is NULL:
// row_number() − 1 over all spans of the request ordered by (queued_at NULLS
// LAST, span_id); spans that have a number keep it.
func resolveAttempts(q *request) {
	ordered := slices.Clone(q.rows)
	// Choice: rows tied on (queued_at, span_id) — only duplicate span_ids —
	// are ordered by the canonical order of all their fields (then input
	// order), which SQL's row_number() leaves unspecified. Exact duplicate rows
	// are interchangeable, so Run and Windows do not depend on it.
	slices.SortStableFunc(ordered, func(a, b *row) int {
		if c := cmpNullsLast(a.s.QueuedAt, b.s.QueuedAt); c != 0 {
			return c
		}
		return cmp.Compare(a.s.SpanID, b.s.SpanID)
	})
	for i, r := range ordered {
		if r.s.Attempt != nil {
			r.attempt = *r.s.Attempt
		} else {
			r.attempt = int32(i)
		}
	}
}

// resolveDelivered marks the delivered span of a request: its successful span
// with the smallest released_at (NULLs last), ties by smallest span_id.
func resolveDelivered(q *request) {
	var best *row
	for _, r := range q.rows { // canonical order breaks the remaining ties
		if !r.ok {
			continue
		}
		if best == nil {
			best = r
			continue
		}
		c := cmpNullsLast(r.s.ReleasedAt, best.s.ReleasedAt)
		if c == 0 {
			c = cmp.Compare(r.s.SpanID, best.s.SpanID)
		}
		if c < 0 {
			best = r
		}
	}
	// Choice: a successful span with NULL released_at can be delivered (when
	// the request has no successful span with a released_at), as the rule
	// "NULLs last" implies; exactly one row per request is delivered, even
	// when that row has an exact duplicate.
	if best != nil {
		best.delivered = true
	}
}

// extent returns the run extent of docs/metrics.md "Run extent".
func extent(canon []*row, opt Options) (start, end int64, ok bool) {
	// Choice: --from/--to apply only when both are given; then the extent is
	// [From, To] even when no span has a timestamp.
	if opt.From != nil && opt.To != nil {
		return *opt.From, *opt.To, true
	}
	for _, r := range canon {
		s := r.s
		first := coalesce(s.QueuedAt, s.AdmittedAt, s.FirstTokenAt, s.LastTokenAt, s.ReleasedAt)
		last := coalesce(s.ReleasedAt, s.LastTokenAt, s.FirstTokenAt, s.AdmittedAt, s.QueuedAt)
		if first == nil {
			continue
		}
		if !ok {
			start, end, ok = *first, *last, true
			continue
		}
		start, end = min(start, *first), max(end, *last)
	}
	return start, end, ok
}

// spanMetrics computes docs/metrics.md for one span.
func spanMetrics(r *row) SpanMetrics {
	s := r.s
	m := SpanMetrics{SpanID: s.SpanID, Attempt: r.attempt, Delivered: r.delivered}
	m.TQueue = duration(s.QueuedAt, s.AdmittedAt)
	m.TFirstToken = duration(s.AdmittedAt, s.FirstTokenAt)
	m.TTFT = duration(s.QueuedAt, s.FirstTokenAt)
	m.TStream = duration(s.FirstTokenAt, s.LastTokenAt)
	m.TInFlight = duration(s.AdmittedAt, s.ReleasedAt)
	m.TTotal = duration(s.QueuedAt, s.ReleasedAt)
	if out := s.OutputTokens; out != nil {
		if m.TStream != nil && *m.TStream > 0 {
			m.StreamTPS = ptr(float64(*out) / *m.TStream)
		}
		if m.TInFlight != nil && *m.TInFlight > 0 {
			m.EndToEndTPS = ptr(float64(*out) / *m.TInFlight)
		}
		// tpot is 0, not NULL, for a zero-length stream of several tokens
		// (NULL only when output_tokens ≤ 1 or t_stream is NULL).
		if *out > 1 && m.TStream != nil {
			m.TPOT = ptr(*m.TStream / float64(*out-1))
		}
	}
	return m
}

// duration is (b − a) seconds; NULL when either is NULL or the result is negative.
func duration(a, b *int64) *float64 {
	if a == nil || b == nil || *b < *a {
		return nil
	}
	return ptr(seconds(*b - *a))
}

// seconds converts an integer µs measure to seconds.
func seconds(us int64) float64 { return float64(us) / 1e6 }

// addEvents counts attempts, arrivals and request completions, and collects
// the distributions of successful spans by their released_at.
func addEvents(g grid, canon []*row, reqs []*request, run *acc, wins []*acc) {
	done := map[string]*request{}
	for _, q := range reqs {
		done[q.id] = q
		if !q.completed {
			continue
		}
		if i, ok := g.event(q.doneAt); ok {
			// Choice: succeeded_requests follows the letter ("any span of
			// the request is ok"): an ok span counts even when its own
			// released_at is NULL.
			for _, a := range []*acc{run, wins[i]} {
				a.requests++
				if q.anyOK {
					a.succeededRequests++
				}
			}
		}
	}
	for _, r := range canon {
		s := r.s
		if s.ReleasedAt != nil {
			if i, ok := g.event(*s.ReleasedAt); ok {
				for _, a := range []*acc{run, wins[i]} {
					a.attempts++
					if r.ok {
						a.successfulAttempts++
						a.addDists(r.m)
					}
					if r.attempt > 0 {
						a.retryAttempts++
					}
				}
			}
		}
		if r.attempt == 0 && s.QueuedAt != nil {
			if i, ok := g.event(*s.QueuedAt); ok {
				q := done[s.RequestID]
				for _, a := range []*acc{run, wins[i]} {
					a.arrivals++
					// Choice: "arrivals whose request completed" means the
					// request has a completion instant at all, even one outside
					// [start, end]; a negative request_total (out-of-order
					// data) is kept as it is.
					if q.completed {
						a.totals = append(a.totals, seconds(q.doneAt-*s.QueuedAt))
					}
				}
			}
		}
	}
}

// addTokens prorates output and input tokens.
func addTokens(g grid, canon []*row, run *acc, wins []*acc) {
	for _, r := range canon {
		s := r.s
		if q, b := s.OutputTokens, coalesce(s.LastTokenAt, s.ReleasedAt); q != nil && b != nil {
			a := coalesce(s.FirstTokenAt, b)
			g.prorate(*q, *a, *b, func(x *acc, v float64) {
				x.generated.add(v)
				if r.ok {
					x.output.add(v)
				}
				if r.delivered {
					x.delivered.add(v)
				}
			}, run, wins)
		}
		if !r.ok {
			continue
		}
		if q, b := s.InputTokens, coalesce(s.FirstTokenAt, s.LastTokenAt, s.ReleasedAt); q != nil && b != nil {
			a := coalesce(s.AdmittedAt, b)
			g.prorate(*q, *a, *b, func(x *acc, v float64) { x.input.add(v) }, run, wins)
		}
	}
}

// metrics assembles the Metrics of one window (or the run) over [lo, hi]
// whose length is ws µs.
func (a *acc) metrics(lo, hi, ws int64, poolCap *int64, slo bool) schemas.Metrics {
	sec := seconds(ws)
	rate := func(x float64) *float64 {
		if ws == 0 {
			return nil
		}
		return ptr(x / sec)
	}
	ratio := func(n, d int64) *float64 {
		if d == 0 {
			return nil
		}
		return ptr(float64(n) / float64(d))
	}
	perCap := func(x *float64) *float64 {
		// Choice: utilization is NULL when the pool cap is 0 (inferred from a
		// run that never had a span in flight) or unknown (no span).
		if x == nil || poolCap == nil || *poolCap == 0 {
			return nil
		}
		return ptr(*x / float64(*poolCap))
	}
	m := schemas.Metrics{
		WindowStart:   schemas.Time(lo),
		WindowEnd:     schemas.Time(hi),
		WindowSeconds: sec,

		OutputTokens:    a.output.value(),
		GeneratedTokens: a.generated.value(),
		DeliveredTokens: a.delivered.value(),
		InputTokens:     a.input.value(),

		Arrivals:           a.arrivals,
		Requests:           a.requests,
		SucceededRequests:  a.succeededRequests,
		Attempts:           a.attempts,
		SuccessfulAttempts: a.successfulAttempts,
		RetryAttempts:      a.retryAttempts,

		BacklogTime: seconds(a.backlog),
		GapTime:     seconds(a.gap),
		OverCapTime: seconds(a.overCap),
	}
	m.SystemTPS = rate(m.OutputTokens)
	m.GeneratedTPS = rate(m.GeneratedTokens)
	m.RetryAdjustedSystemTPS = rate(m.DeliveredTokens)
	m.InputTPS = rate(m.InputTokens)
	// Choice: waste_fraction is not a rate: with window_seconds = 0 it is
	// still defined when tokens fell on the instant.
	if m.GeneratedTokens != 0 {
		m.WasteFraction = ptr(1 - m.DeliveredTokens/m.GeneratedTokens)
	}
	m.ArrivalRate = rate(float64(a.arrivals))
	m.SuccessRate = ratio(a.succeededRequests, a.requests)
	m.AttemptSuccessRate = ratio(a.successfulAttempts, a.attempts)
	m.RetryRate = ratio(a.retryAttempts, a.attempts)
	m.GapFraction = rate(m.GapTime)
	m.EngineGapTime = seconds(a.gapBy[causeEngine])
	m.AdmissionGapTime = seconds(a.gapBy[causeAdmission])
	m.ImbalanceGapTime = seconds(a.gapBy[causeImbalance])
	m.UnattributedGapTime = seconds(a.gapBy[causeUnattributed])
	if a.gap > 0 {
		m.EngineGapShare = ptr(m.EngineGapTime / m.GapTime)
		m.AdmissionGapShare = ptr(m.AdmissionGapTime / m.GapTime)
		m.ImbalanceGapShare = ptr(m.ImbalanceGapTime / m.GapTime)
		m.UnattributedGapShare = ptr(m.UnattributedGapTime / m.GapTime)
	}
	if a.backlog > 0 {
		m.BacklogGapFraction = ptr(m.GapTime / m.BacklogTime)
	}
	m.MeanInFlight = rate(seconds(a.intInFlight))
	m.MeanQueueDepth = rate(seconds(a.intQueue))
	m.Utilization = perCap(m.MeanInFlight)
	if m.ArrivalRate != nil && len(a.totals) > 0 {
		m.LittleConcurrency = ptr(*m.ArrivalRate * mean(a.totals))
	}

	if a.sKnown > 0 {
		ss := halfSeconds(a.sKnown)
		m.SampledSeconds = ptr(ss)
		m.BacklogTimeSampled = ptr(halfSeconds(a.sBacklog))
		m.GapTimeSampled = ptr(halfSeconds(a.sGap))
		m.GapFractionSampled = ptr(*m.GapTimeSampled / ss)
		// Choice: like backlog_gap_fraction, NULL when the sampled backlog is
		// 0; utilization_sampled divides by the pool cap (summary.cap).
		if a.sBacklog > 0 {
			m.BacklogGapFractionSampled = ptr(*m.GapTimeSampled / *m.BacklogTimeSampled)
		}
		m.MeanInFlightSampled = ptr(halfSeconds(a.sIntInFlight) / ss)
		m.MeanQueueDepthSampled = ptr(halfSeconds(a.sIntQueue) / ss)
		m.UtilizationSampled = perCap(m.MeanInFlightSampled)
	}

	a.eng.metrics(&m)

	m.TQueue = percentiles(a.dists[dTQueue])
	m.TTFT = percentiles(a.dists[dTTFT])
	m.TFirstToken = percentiles(a.dists[dTFirstToken])
	m.TStream = percentiles(a.dists[dTStream])
	m.TInFlight = percentiles(a.dists[dTInFlight])
	m.TTotal = percentiles(a.dists[dTTotal])
	m.TPOT = percentiles(a.dists[dTPOT])
	m.StreamTPS = percentiles(a.dists[dStreamTPS])
	m.EndToEndTPS = percentiles(a.dists[dEndToEndTPS])
	m.TTFTReq = percentiles(a.dists[dTTFTReq])
	m.TPOTReq = percentiles(a.dists[dTPOTReq])
	m.E2EReq = percentiles(a.dists[dE2EReq])
	if slo {
		m.SLOMet = ptr(a.sloMet)
		m.Goodput = rate(float64(a.sloMet))
		m.SLOAttainment = ratio(a.sloMet, a.requests)
	}
	return m
}

// The distributions, in the order of acc.dists.
const (
	dTQueue = iota
	dTTFT
	dTFirstToken
	dTStream
	dTInFlight
	dTTotal
	dTPOT
	dStreamTPS
	dEndToEndTPS
	dTTFTReq
	dTPOTReq
	dE2EReq
	nDists
)

// acc accumulates one window (or the run).
type acc struct {
	output, generated, delivered, input ksum

	arrivals, requests, succeededRequests       int64
	attempts, successfulAttempts, retryAttempts int64

	// exact state measures, µs (integrals in count·µs)
	backlog, gap, overCap, intInFlight, intQueue int64
	gapBy                                        [nCauses]int64 // gap by cause; sums to gap
	// sampled state measures, half-µs
	sKnown, sBacklog, sGap, sIntInFlight, sIntQueue int64

	eng engineAcc // engine state from samples

	dists  [nDists][]float64
	totals []float64 // request_total of arrivals whose request completed
	sloMet int64     // requests completed that met the SLO
}

func newAcc() *acc { return &acc{} }

func (a *acc) addDists(m SpanMetrics) {
	for i, v := range [nDists]*float64{m.TQueue, m.TTFT, m.TFirstToken, m.TStream, m.TInFlight, m.TTotal, m.TPOT, m.StreamTPS, m.EndToEndTPS} {
		if v != nil {
			a.dists[i] = append(a.dists[i], *v)
		}
	}
}

// ptr returns a pointer to v.
func ptr[T any](v T) *T { return &v }

// deref returns *p, or def when p is nil.
func deref[T any](p *T, def T) T {
	if p == nil {
		return def
	}
	return *p
}

// coalesce returns the first non-nil pointer.
func coalesce(ps ...*int64) *int64 {
	for _, p := range ps {
		if p != nil {
			return p
		}
	}
	return nil
}

// cmpNullsLast orders instants ascending with NULLs last.
func cmpNullsLast(a, b *int64) int {
	switch {
	case a == nil && b == nil:
		return 0
	case a == nil:
		return 1
	case b == nil:
		return -1
	}
	return cmp.Compare(*a, *b)
}

// cmpPtr orders optional values with nil first.
func cmpPtr[T cmp.Ordered](a, b *T) int {
	switch {
	case a == nil && b == nil:
		return 0
	case a == nil:
		return -1
	case b == nil:
		return 1
	}
	return cmp.Compare(*a, *b)
}

// cmpSpan is a total order on the content of spans (equal only for identical
// rows): the canonical order every loop follows.
func cmpSpan(a, b *schemas.Span) int {
	return cmp.Or(
		cmp.Compare(a.SpanID, b.SpanID),
		cmp.Compare(a.RequestID, b.RequestID),
		cmpPtr(a.Attempt, b.Attempt),
		cmpPtr(a.QueuedAt, b.QueuedAt),
		cmpPtr(a.EngineArrivedAt, b.EngineArrivedAt),
		cmpPtr(a.AdmittedAt, b.AdmittedAt),
		cmpPtr(a.FirstTokenAt, b.FirstTokenAt),
		cmpPtr(a.LastTokenAt, b.LastTokenAt),
		cmpPtr(a.ReleasedAt, b.ReleasedAt),
		cmp.Compare(a.Status, b.Status),
		cmpPtr(a.Replica, b.Replica),
		cmpPtr(a.Model, b.Model),
		cmpPtr(a.InputTokens, b.InputTokens),
		cmpPtr(a.OutputTokens, b.OutputTokens),
		cmpPtr(a.CachedTokens, b.CachedTokens),
		cmpPtr(a.RetryCause, b.RetryCause),
		cmpPtr(a.Error, b.Error),
		cmpPtr(a.HTTPStatus, b.HTTPStatus),
		cmp.Compare(a.RunID, b.RunID),
		cmp.Compare(a.Source, b.Source),
	)
}

// distinct returns the sorted distinct keys of rows.
func distinct(rows []*row, key func(*row) string) []string {
	var out []string
	for _, r := range rows {
		out = append(out, key(r))
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// union returns the sorted union of two sorted sets.
func union(a, b []string) []string {
	out := append(slices.Clone(a), b...)
	slices.Sort(out)
	return slices.Compact(out)
}

// addRequestLatencies adds each completed, delivered request's latencies
// as its user saw them (docs/metrics.md "Requests and SLOs") to the window of
// its completion, counts those that meet slo, and returns them all in
// completion order (latencies.parquet).
func addRequestLatencies(g grid, reqs []*request, slo *schemas.SLO, run *acc, wins []*acc) []schemas.RequestLatency {
	var out []schemas.RequestLatency
	for _, q := range reqs {
		var d *row
		var first *int64
		for _, r := range q.rows {
			if r.delivered {
				d = r
			}
			if t := r.s.QueuedAt; t != nil && (first == nil || *t < *first) {
				first = t
			}
		}
		if !q.completed || d == nil {
			continue
		}
		ttft := duration(first, d.s.FirstTokenAt)
		e2e := duration(first, d.s.ReleasedAt)
		tpot := d.m.TPOT
		out = append(out, schemas.RequestLatency{Released: q.doneAt, TTFT: schemas.Latency(ttft), TPOT: schemas.Latency(tpot), E2E: schemas.Latency(e2e)})
		i, ok := g.event(q.doneAt)
		if !ok {
			continue
		}
		met := slo != nil && within(first, d.s.FirstTokenAt, slo.TTFT) && within(first, d.s.ReleasedAt, slo.E2E) &&
			(slo.TPOT == nil || tpot == nil || *tpot <= *slo.TPOT)
		for _, a := range []*acc{run, wins[i]} {
			for k, v := range map[int]*float64{dTTFTReq: ttft, dTPOTReq: tpot, dE2EReq: e2e} {
				if v != nil {
					a.dists[k] = append(a.dists[k], *v)
				}
			}
			if met {
				a.sloMet++
			}
		}
	}
	slices.SortStableFunc(out, func(a, b schemas.RequestLatency) int { return cmp.Compare(a.Released, b.Released) })
	return out
}

// within reports whether the duration from a to b (µs) is known and at most
// bound seconds, the bound rounded to a whole µs as analyze takes it; a nil
// bound is no bound.
func within(a, b *int64, bound *float64) bool {
	if bound == nil {
		return true
	}
	if a == nil || b == nil || *b < *a {
		return false
	}
	return *b-*a <= int64(math.Round(*bound*1e6))
}

// mix is the offered load and token mix: arrivals (attempt-0 spans queued in
// [start, end]) over the span from the first to the last, their mean input
// tokens, and the mean output tokens of delivered spans released in it.
func mix(canon []*row, start, end int64) (span float64, offered, meanIn, meanOut *float64) {
	var first, last, n int64
	var inSum, inN, outSum, outN int64
	for _, r := range canon {
		s := r.s
		if r.attempt == 0 && s.QueuedAt != nil && *s.QueuedAt >= start && *s.QueuedAt <= end {
			if n == 0 || *s.QueuedAt < first {
				first = *s.QueuedAt
			}
			if n == 0 || *s.QueuedAt > last {
				last = *s.QueuedAt
			}
			n++
			if s.InputTokens != nil {
				inSum += *s.InputTokens
				inN++
			}
		}
		if r.delivered && s.ReleasedAt != nil && *s.ReleasedAt >= start && *s.ReleasedAt <= end && s.OutputTokens != nil {
			outSum += *s.OutputTokens
			outN++
		}
	}
	if n > 0 && last > first {
		span = seconds(last - first)
		offered = ptr(float64(n) / span)
	}
	if inN > 0 {
		meanIn = ptr(float64(inSum) / float64(inN))
	}
	if outN > 0 {
		meanOut = ptr(float64(outSum) / float64(outN))
	}
	return span, offered, meanIn, meanOut
}
