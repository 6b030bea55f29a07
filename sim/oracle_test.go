package sim

import (
	"cmp"
	"fmt"
	"math"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/tpsreport/tpsreport/schemas"
)

// This file recomputes the truth from the emitted spans alone, by a plain
// reading of docs/metrics.md, to show that the simulator's truth (computed from
// its own state) is what a log-based engine must find. It shares no code with
// truth.go.

// collect runs sc and keeps a copy of every span.
func collect(t testing.TB, sc Scenario, seed uint64, opts ...Option) ([]schemas.Span, Truth) {
	t.Helper()
	var spans []schemas.Span
	tr, err := Run(sc, seed, func(s schemas.Span) error {
		spans = append(spans, s) // each span's pointers are its own
		return nil
	}, opts...)
	if err != nil {
		t.Fatalf("Run(%s, %d): %v", sc.Name, seed, err)
	}
	return spans, tr
}

func fdiv(a, b int64) int64 {
	q := a / b
	if (a%b != 0) && ((a < 0) != (b < 0)) {
		q--
	}
	return q
}

func firstOf(ps ...*int64) (int64, bool) {
	for _, p := range ps {
		if p != nil {
			return *p, true
		}
	}
	return 0, false
}

// oracle computes run and window metrics of spans as docs/metrics.md defines
// them, with window width w µs and the pool cap.
func oracle(spans []schemas.Span, w, pcap int64) (Metrics, []Metrics) {
	start, end := int64(math.MaxInt64), int64(math.MinInt64)
	for _, s := range spans {
		if v, ok := firstOf(s.QueuedAt, s.AdmittedAt, s.FirstTokenAt, s.LastTokenAt, s.ReleasedAt); ok {
			start = min(start, v)
		}
		if v, ok := firstOf(s.ReleasedAt, s.LastTokenAt, s.FirstTokenAt, s.AdmittedAt, s.QueuedAt); ok {
			end = max(end, v)
		}
	}
	k0 := fdiv(start, w)
	last := k0
	if end > start {
		last = fdiv(end-1, w)
	}
	n := int(last - k0 + 1)

	type acc struct {
		out, gen, dlv, in                   float64
		arrivals, requests, succeeded       int64
		attempts, ok, retries               int64
		backlog, gap, overCap, infInt, qInt int64
		littleSum                           float64
		littleN                             int64
	}
	wins := make([]acc, n)
	var run acc
	eventWin := func(t int64) *acc {
		if t < start || t > end {
			return nil
		}
		return &wins[min(fdiv(t, w), last)-k0]
	}
	// prorate q over [a, b] into field f of the run and the windows.
	prorate := func(q int64, a, b int64, f func(*acc) *float64) {
		if b <= a {
			if x := eventWin(a); x != nil {
				*f(x) += float64(q)
				*f(&run) += float64(q)
			}
			return
		}
		for i := range wins {
			k := k0 + int64(i)
			lo, hi := max(k*w, start, a), min((k+1)*w, end, b)
			if hi > lo {
				*f(&wins[i]) += float64(q) * float64(hi-lo) / float64(b-a)
			}
		}
		lo, hi := max(start, a), min(end, b)
		if hi > lo {
			*f(&run) += float64(q) * float64(hi-lo) / float64(b-a)
		}
	}

	type reqInfo struct {
		maxRel    int64
		hasRel    bool
		succeeded bool
		q0        *int64
		dlv       *schemas.Span
	}
	reqs := map[string]*reqInfo{}
	var order []string
	for i := range spans {
		s := &spans[i]
		r := reqs[s.RequestID]
		if r == nil {
			r = &reqInfo{}
			reqs[s.RequestID] = r
			order = append(order, s.RequestID)
		}
		ok := s.Status == schemas.StatusOK
		if s.ReleasedAt != nil {
			if x := eventWin(*s.ReleasedAt); x != nil {
				for _, y := range []*acc{x, &run} {
					y.attempts++
					if ok {
						y.ok++
					}
					if *s.Attempt > 0 {
						y.retries++
					}
				}
			}
			if !r.hasRel || *s.ReleasedAt > r.maxRel {
				r.maxRel, r.hasRel = *s.ReleasedAt, true
			}
		}
		if ok {
			r.succeeded = true
			if d := r.dlv; d == nil || (s.ReleasedAt != nil && (d.ReleasedAt == nil || *s.ReleasedAt < *d.ReleasedAt ||
				*s.ReleasedAt == *d.ReleasedAt && s.SpanID < d.SpanID)) {
				r.dlv = s
			}
		}
		if *s.Attempt == 0 && s.QueuedAt != nil {
			r.q0 = s.QueuedAt
			if x := eventWin(*s.QueuedAt); x != nil {
				x.arrivals++
				run.arrivals++
			}
		}
		if s.OutputTokens != nil {
			if b, okb := firstOf(s.LastTokenAt, s.ReleasedAt); okb {
				a, _ := firstOf(s.FirstTokenAt, &b)
				prorate(*s.OutputTokens, a, b, func(x *acc) *float64 { return &x.gen })
				if ok {
					prorate(*s.OutputTokens, a, b, func(x *acc) *float64 { return &x.out })
				}
			}
		}
		if ok && s.InputTokens != nil {
			if b, okb := firstOf(s.FirstTokenAt, s.LastTokenAt, s.ReleasedAt); okb {
				a, _ := firstOf(s.AdmittedAt, &b)
				prorate(*s.InputTokens, a, b, func(x *acc) *float64 { return &x.in })
			}
		}
	}
	for _, id := range order {
		r := reqs[id]
		if r.hasRel {
			if x := eventWin(r.maxRel); x != nil {
				for _, y := range []*acc{x, &run} {
					y.requests++
					if r.succeeded {
						y.succeeded++
					}
				}
			}
		}
		if d := r.dlv; d != nil && d.OutputTokens != nil {
			if b, okb := firstOf(d.LastTokenAt, d.ReleasedAt); okb {
				a, _ := firstOf(d.FirstTokenAt, &b)
				prorate(*d.OutputTokens, a, b, func(x *acc) *float64 { return &x.dlv })
			}
		}
		if r.q0 != nil && r.hasRel {
			if x := eventWin(*r.q0); x != nil {
				tot := float64(r.maxRel-*r.q0) / 1e6
				x.littleSum += tot
				x.littleN++
				run.littleSum += tot
				run.littleN++
			}
		}
	}

	// States: a sweep over span boundaries.
	type step struct {
		t      int64
		dq, di int64
	}
	var steps []step
	for _, s := range spans {
		if s.AdmittedAt != nil && s.ReleasedAt != nil && *s.AdmittedAt <= *s.ReleasedAt {
			steps = append(steps, step{*s.AdmittedAt, 0, 1}, step{*s.ReleasedAt, 0, -1})
		}
		if s.QueuedAt != nil && s.AdmittedAt != nil && *s.QueuedAt <= *s.AdmittedAt {
			steps = append(steps, step{*s.QueuedAt, 1, 0}, step{*s.AdmittedAt, -1, 0})
		}
	}
	slices.SortStableFunc(steps, func(a, b step) int { return cmp.Compare(a.t, b.t) })
	var q, inf int64
	measure := func(x *acc, d int64) {
		x.infInt += inf * d
		x.qInt += q * d
		if q > 0 {
			x.backlog += d
			if inf < pcap {
				x.gap += d
			}
		}
		if inf > pcap {
			x.overCap += d
		}
	}
	for i := 0; i < len(steps); {
		t := steps[i].t
		for ; i < len(steps) && steps[i].t == t; i++ {
			q += steps[i].dq
			inf += steps[i].di
		}
		if i == len(steps) {
			break
		}
		a, b := max(t, start), min(steps[i].t, end)
		if b <= a {
			continue
		}
		measure(&run, b-a)
		for j := range wins {
			k := k0 + int64(j)
			if lo, hi := max(a, k*w), min(b, (k+1)*w); hi > lo {
				measure(&wins[j], hi-lo)
			}
		}
	}

	derive := func(x *acc, ws, we, lo, hi int64) Metrics {
		sec := float64(hi-lo) / 1e6
		div := func(a, b float64) *float64 {
			if b == 0 {
				return nil
			}
			return schemas.Ptr(a / b)
		}
		m := Metrics{
			WindowStart: schemas.Time(ws), WindowEnd: schemas.Time(we), WindowSeconds: sec,
			OutputTokens: x.out, GeneratedTokens: x.gen, DeliveredTokens: x.dlv, InputTokens: x.in,
			Arrivals: x.arrivals, Requests: x.requests, SucceededRequests: x.succeeded,
			Attempts: x.attempts, SuccessfulAttempts: x.ok, RetryAttempts: x.retries,
			BacklogTime: float64(x.backlog) / 1e6, GapTime: float64(x.gap) / 1e6,
			OverCapTime:     float64(x.overCap) / 1e6,
			InFlightSeconds: float64(x.infInt) / 1e6, QueueDepthSeconds: float64(x.qInt) / 1e6,
		}
		m.SystemTPS = div(x.out, sec)
		m.GeneratedTPS = div(x.gen, sec)
		m.RetryAdjustedSystemTPS = div(x.dlv, sec)
		if x.gen != 0 {
			m.WasteFraction = schemas.Ptr(1 - x.dlv/x.gen)
		}
		m.InputTPS = div(x.in, sec)
		m.ArrivalRate = div(float64(x.arrivals), sec)
		m.SuccessRate = div(float64(x.succeeded), float64(x.requests))
		m.AttemptSuccessRate = div(float64(x.ok), float64(x.attempts))
		m.RetryRate = div(float64(x.retries), float64(x.attempts))
		m.GapFraction = div(m.GapTime, sec)
		m.BacklogGapFraction = div(m.GapTime, m.BacklogTime)
		m.MeanInFlight = div(m.InFlightSeconds, sec)
		m.MeanQueueDepth = div(m.QueueDepthSeconds, sec)
		if m.MeanInFlight != nil {
			m.Utilization = div(*m.MeanInFlight, float64(pcap))
		}
		if m.ArrivalRate != nil && x.littleN > 0 {
			m.LittleConcurrency = schemas.Ptr(*m.ArrivalRate * x.littleSum / float64(x.littleN))
		}
		return m
	}
	runM := derive(&run, start, end, start, end)
	var ws []Metrics
	for i := range wins {
		k := k0 + int64(i)
		ws = append(ws, derive(&wins[i], k*w, (k+1)*w, max(k*w, start), min((k+1)*w, end)))
	}
	return runM, ws
}

// diffMetrics lists the fields where got and want differ: integers exactly,
// floats to 1e-9 relative, pointers by nil-ness then value.
func diffMetrics(got, want Metrics) []string {
	var diffs []string
	close := func(a, b float64) bool { return math.Abs(a-b) <= 1e-9*max(1, math.Abs(a), math.Abs(b)) }
	gv, wv := reflect.ValueOf(got), reflect.ValueOf(want)
	for i := range gv.NumField() {
		name := gv.Type().Field(i).Tag.Get("json")
		g, w := gv.Field(i), wv.Field(i)
		switch x := g.Interface().(type) {
		case float64:
			if !close(x, w.Float()) {
				diffs = append(diffs, fmt.Sprintf("%s: got %v, want %v", name, x, w.Float()))
			}
		case *float64:
			y := w.Interface().(*float64)
			switch {
			case (x == nil) != (y == nil):
				diffs = append(diffs, fmt.Sprintf("%s: got %v, want %v", name, fmtPtr(x), fmtPtr(y)))
			case x != nil && !close(*x, *y):
				diffs = append(diffs, fmt.Sprintf("%s: got %v, want %v", name, *x, *y))
			}
		default:
			if !reflect.DeepEqual(g.Interface(), w.Interface()) {
				diffs = append(diffs, fmt.Sprintf("%s: got %v, want %v", name, g.Interface(), w.Interface()))
			}
		}
	}
	return diffs
}

func fmtPtr(p *float64) string {
	if p == nil {
		return "null"
	}
	return fmt.Sprint(*p)
}

// checkTruth compares tr with the oracle over spans.
func checkTruth(t *testing.T, sc Scenario, spans []schemas.Span, tr Truth) {
	t.Helper()
	if len(spans) == 0 {
		t.Fatal("no spans")
	}
	reps := map[string]bool{}
	for _, s := range spans {
		if s.Replica != nil {
			reps[*s.Replica] = true
		}
	}
	// docs/metrics.md: the pool cap sums the caps of the replicas that appear.
	if pcap := int64(len(reps) * sc.MaxNumSeqs); tr.Cap != pcap {
		t.Errorf("cap: got %d, want %d (%d replicas appear)", tr.Cap, pcap, len(reps))
	}
	if tr.Spans != int64(len(spans)) {
		t.Errorf("spans: got %d, want %d", tr.Spans, len(spans))
	}
	w := micros(sc.Window)
	if w == 0 {
		w = micros(time.Minute)
	}
	run, wins := oracle(spans, w, tr.Cap)
	checkAttribution(t, sc, spans, tr, &run, wins)
	if !tr.RunStart.Equal(run.WindowStart) || !tr.RunEnd.Equal(run.WindowEnd) {
		t.Errorf("extent: got [%v, %v], want [%v, %v]", tr.RunStart, tr.RunEnd, run.WindowStart, run.WindowEnd)
	}
	for _, d := range diffMetrics(tr.Metrics, run) {
		t.Errorf("run %s", d)
	}
	if len(tr.Windows) != len(wins) {
		t.Fatalf("windows: got %d, want %d", len(tr.Windows), len(wins))
	}
	for i := range wins {
		for _, d := range diffMetrics(tr.Windows[i], wins[i]) {
			t.Errorf("window %d (%s) %s", i, wins[i].WindowStart.Format(time.RFC3339), d)
		}
	}
}

// edgeScenarios stress the cases the named ones touch rarely: no release delay,
// queue timeouts during stalls under overload with hedges, windows that do not
// divide a minute, a run that ends on a window boundary; attempts that time
// out or lose a hedge in an engine queue, paused and stalled at once.
func edgeScenarios() []Scenario {
	a, _ := Named("overload")
	a.Name = "edge-stalled-overload"
	a.Duration = 2 * time.Minute
	a.ReleaseDelay = 0
	a.StallGap, a.StallDuration, a.StallJitter = 10*time.Second, 5*time.Second, 1
	a.HedgeDelay = 3 * time.Second
	a.MaxQueue = 0
	a.Window = 7 * time.Second
	a.PrefixCacheHit = 0.5
	a.Replicas = 3
	a.MaxNumSeqs = 5
	a.DecodeRate = 40
	a.Output = Length{Median: 40, Sigma: 1.2, Min: 1, Max: 400}

	b, _ := Named("light")
	b.Name = "edge-tiny"
	b.Duration = 20 * time.Second
	b.Output = Length{Median: 1, Sigma: 0, Min: 1, Max: 1}
	b.Window = 1500 * time.Millisecond
	b.ErrorRate = 0.3
	b.StatsInterval = 0
	c := a
	c.Name = "edge-engine-queues"
	c.Dispatch = DispatchRandom
	c.EngineStallGap, c.EngineStallDuration, c.EngineStallJitter = 6*time.Second, 4*time.Second, 1
	c.MaxQueue = 40
	c.ClientTimeout = 8 * time.Second

	return []Scenario{a, b, c}
}

func TestTruthMatchesSpans(t *testing.T) {
	var scs []Scenario
	for _, name := range Names() {
		sc, err := Named(name)
		if err != nil {
			t.Fatal(err)
		}
		scs = append(scs, sc)
	}
	scs = append(scs, edgeScenarios()...)
	for _, sc := range scs {
		t.Run(sc.Name, func(t *testing.T) {
			t.Parallel()
			for _, seed := range []uint64{1, 7} {
				spans, tr := collect(t, sc, seed)
				checkTruth(t, sc, spans, tr)
			}
		})
	}
}

// TestTruthEndsOnBoundary pins the last-window rule: an instant equal to the
// end of a run that ends on a window boundary counts in the last window. A run
// is invariant under a shift of Start, so moving Start puts the end on one.
func TestTruthEndsOnBoundary(t *testing.T) {
	sc, _ := Named("light")
	sc.Duration = 30 * time.Second
	sc.Window = 10 * time.Second
	spans0, tr := collect(t, sc, 1)
	shift := schemas.Micros(tr.RunEnd) % micros(sc.Window)
	if shift == 0 {
		shift = micros(sc.Window)
	}
	sc.Start -= shift
	spans, tr := collect(t, sc, 1)
	for i := range spans {
		if got, want := *spans[i].ReleasedAt, *spans0[i].ReleasedAt-shift; got != want {
			t.Fatalf("span %d released at %d after shifting Start by -%d µs, want %d", i, got, shift, want)
		}
	}
	checkTruth(t, sc, spans, tr)
	end := schemas.Micros(tr.RunEnd)
	lastW := tr.Windows[len(tr.Windows)-1]
	if end%micros(sc.Window) != 0 || !lastW.WindowEnd.Equal(tr.RunEnd) || lastW.Attempts == 0 {
		t.Errorf("last window [%v, %v) holds %d attempts; want it to end at the run end %v and hold the final release",
			lastW.WindowStart, lastW.WindowEnd, lastW.Attempts, tr.RunEnd)
	}
}
