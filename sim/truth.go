package sim

import (
	"encoding/json"
	"fmt"
	"io"
	"time"

	"github.com/tpsreport/tpsreport/schemas"
)

// Truth is what analyze must find in a simulated run (truth.json). The
// simulator computes it from its own state as it runs, never from the spans it
// emitted, following docs/metrics.md: the run window is the extent
// [min queued_at, max released_at]; per-window values use tumbling windows of
// Scenario.Window aligned to the Unix epoch; the state is the pool (every
// replica, cap = Replicas × MaxNumSeqs), and each replica's over the run.
//
// The gap attribution follows docs/metrics.md "Where the idle time comes
// from": the simulator knows where every admitted attempt waited (at the
// gateway from queued_at until it was sent to an engine, then in that
// engine's queue until admitted_at), so no wait lacks a location and
// unattributed_gap_time is 0.
type Truth struct {
	Scenario    string    `json:"scenario"`
	Seed        uint64    `json:"seed"`
	RunID       string    `json:"run_id"`
	RunStart    time.Time `json:"run_start"` // zero when the run has no span
	RunEnd      time.Time `json:"run_end"`
	WindowWidth float64   `json:"window_width_seconds"`
	Cap         int64     `json:"cap"`   // pool cap, Σ replica caps
	Spans       int64     `json:"spans"` // spans emitted (= attempts of the run)
	Metrics               // the run window
	Windows     []Metrics `json:"windows"`
	Replicas    []Replica `json:"replicas"` // every replica of the pool, in order
	// Canary names the replicas of Scenario.Canary, whose own truth is
	// their rows of Replicas.
	Canary []string `json:"canary,omitempty"`
	Sim    Stats    `json:"sim"`
}

// Replica is the truth of one replica over the run, under the json names of
// schemas.ReplicaState. Its queue holds its admitted spans from queued_at to
// admitted_at (the wait at the gateway included: a span belongs to the
// replica that admitted it); its gap_time is the time that queue was not
// empty while its in_flight was below its cap, split into engine_gap_time
// (its engine queue was not empty) and admission_gap_time (else).
type Replica struct {
	Replica             string  `json:"replica"`
	Cap                 int64   `json:"cap"`
	BacklogTime         float64 `json:"backlog_time"`
	GapTime             float64 `json:"gap_time"`
	EngineGapTime       float64 `json:"engine_gap_time"`
	AdmissionGapTime    float64 `json:"admission_gap_time"`
	UnattributedGapTime float64 `json:"unattributed_gap_time"`
}

// Metrics are the truth of one window (or of the whole run), under the json
// names of schemas.Metrics. Rates and fractions are nil where their denominator
// is zero. Token quantities are prorated as docs/metrics.md says; over the
// whole run they are plain sums.
type Metrics struct {
	WindowStart   time.Time `json:"window_start"`
	WindowEnd     time.Time `json:"window_end"`
	WindowSeconds float64   `json:"window_seconds"`

	SystemTPS              *float64 `json:"system_tps"`
	GeneratedTPS           *float64 `json:"generated_tps"`
	RetryAdjustedSystemTPS *float64 `json:"retry_adjusted_system_tps"`
	WasteFraction          *float64 `json:"waste_fraction"`
	InputTPS               *float64 `json:"input_tps"`
	OutputTokens           float64  `json:"output_tokens"`    // successful spans
	GeneratedTokens        float64  `json:"generated_tokens"` // all spans
	DeliveredTokens        float64  `json:"delivered_tokens"` // delivered spans
	InputTokens            float64  `json:"input_tokens"`     // successful spans
	Arrivals               int64    `json:"arrivals"`
	ArrivalRate            *float64 `json:"arrival_rate"`
	Requests               int64    `json:"requests"`
	SucceededRequests      int64    `json:"succeeded_requests"`
	Attempts               int64    `json:"attempts"`
	SuccessfulAttempts     int64    `json:"successful_attempts"`
	RetryAttempts          int64    `json:"retry_attempts"`
	SuccessRate            *float64 `json:"success_rate"`
	AttemptSuccessRate     *float64 `json:"attempt_success_rate"`
	RetryRate              *float64 `json:"retry_rate"`
	BacklogTime            float64  `json:"backlog_time"`
	GapTime                float64  `json:"gap_time"`
	GapFraction            *float64 `json:"gap_fraction"`
	BacklogGapFraction     *float64 `json:"backlog_gap_fraction"`
	MeanInFlight           *float64 `json:"mean_in_flight"`
	MeanQueueDepth         *float64 `json:"mean_queue_depth"`
	Utilization            *float64 `json:"utilization"`
	LittleConcurrency      *float64 `json:"little_concurrency"`
	OverCapTime            float64  `json:"over_cap_time"`

	// gap_time by cause; they sum to gap_time exactly (to the µs).
	EngineGapTime        float64  `json:"engine_gap_time"`
	AdmissionGapTime     float64  `json:"admission_gap_time"`
	ImbalanceGapTime     float64  `json:"imbalance_gap_time"`
	UnattributedGapTime  float64  `json:"unattributed_gap_time"`
	EngineGapShare       *float64 `json:"engine_gap_share"`
	AdmissionGapShare    *float64 `json:"admission_gap_share"`
	ImbalanceGapShare    *float64 `json:"imbalance_gap_share"`
	UnattributedGapShare *float64 `json:"unattributed_gap_share"`

	// Not in schemas.Metrics: the integrals behind the means, in request-seconds.
	InFlightSeconds   float64 `json:"in_flight_seconds"`   // ∫ in_flight dt
	QueueDepthSeconds float64 `json:"queue_depth_seconds"` // ∫ queue_depth dt
}

// Stats describe what the simulator did, beyond the metrics.
type Stats struct {
	Statuses           map[string]int64 `json:"statuses"`             // spans by status
	Rejected           int64            `json:"rejected_429"`         // attempts rejected by a full queue
	QueueTimeouts      int64            `json:"queue_timeouts"`       // attempts that timed out still queued (gateway or engine)
	QueueCancels       int64            `json:"queue_cancels"`        // hedge losers cancelled still queued (gateway or engine)
	Hedges             int64            `json:"hedges"`               // hedge attempts launched
	SpansOutsideState  int64            `json:"spans_outside_state"`  // spans without admitted_at (in neither state)
	Stalls             int64            `json:"stalls"`               // admission stalls begun
	StallSeconds       float64          `json:"stall_seconds"`        // time the gateway admitted nothing by design
	MaxGatewayQueue    int64            `json:"max_gateway_queue"`    // longest gateway queue, timed-out entries included
	EngineStalls       int64            `json:"engine_stalls"`        // engine pauses begun, over all replicas
	EngineStallSeconds float64          `json:"engine_stall_seconds"` // Σ over replicas of the time a paused engine admitted nothing
	MaxEngineQueue     int64            `json:"max_engine_queue"`     // longest engine queue of a replica, timed-out entries included
	MaxLiveRequests    int64            `json:"max_live_requests"`    // most requests held in memory at once
	Samples            int64            `json:"samples"`              // stats samples emitted
}

// WriteTruth writes t as indented JSON with a final newline. The output is a
// function of t alone: the same run gives the same bytes.
func WriteTruth(w io.Writer, t Truth) error {
	b, err := json.MarshalIndent(t, "", "  ")
	if err != nil {
		return fmt.Errorf("encode truth: %w", err)
	}
	b = append(b, '\n')
	if _, err := w.Write(b); err != nil {
		return fmt.Errorf("write truth: %w", err)
	}
	return nil
}

// Token quantities prorated per window.
const (
	tokOutput = iota
	tokGenerated
	tokDelivered
	tokInput
	nTok
)

// winAcc accumulates one window (or the run). Times are µs, integrals µs·requests.
type winAcc struct {
	tok                                          [nTok]float64
	arrivals, requests, succeeded                int64
	attempts, okAttempts, retries                int64
	backlog, gap, overCap, inFlightInt, queueInt int64
	littleSum, littleN                           int64
	gapBy                                        [nCause]int64 // gap by cause
}

// Causes of gap_time (docs/metrics.md), in their order of precedence.
const (
	causeEngine = iota
	causeAdmission
	causeImbalance
	causeUnattributed
	nCause
)

// repAcc accumulates one replica over the run. g, e and inf are its state:
// admitted spans waiting at the gateway (that it admits later), in its engine
// queue, and in flight.
type repAcc struct {
	name           string
	cap            int64
	g, e, inf      int64
	backlog, gap   int64
	engGap, admGap int64
}

// holds reports whether the replica holds requests: its engine queue is not
// empty while it has a free slot.
func (r *repAcc) holds() bool { return r.e > 0 && r.inf < r.cap }

// truthAcc computes the truth as the simulation runs. Events and token
// quantities are added when they happen. The state (queue depth, in flight) is a
// sweep over the span boundaries that the simulator reports as its requests move
// (queue entry, admission, release); it runs behind the simulation clock up to a
// watermark, because whether a queued interval counts is only known at its end:
// docs/metrics.md counts a span as queued on [queued_at, admitted_at) only when it
// has an admitted_at, so an attempt that times out (or is cancelled) while still
// queued is outside the state for its whole stay in the queue, and the truth
// excludes it too. The simulator adds a queued interval when the attempt is
// admitted, so everything before the oldest attempt still queued is final.
type truthAcc struct {
	w     int64 // window width, µs
	cap   int64
	begun bool  // an instant has been seen
	start int64 // min queued_at
	end   int64 // max released_at
	k0    int64 // window index of start
	wins  []winAcc
	run   winAcc
	runIn [nTok]int64 // run token sums, exact

	deltas deltaHeap
	swept  bool  // the sweep has an instant
	sweepT int64 // instant the sweep has reached
	q, inf int64 // state after sweepT
	gw     int64 // of q, waiting at the gateway
	held   int64 // replicas that hold requests
	reps   []repAcc
}

// delta is a step of replica rep's state: dg at the gateway (spans it will
// admit), de in its engine queue, di in flight.
type delta struct {
	t          int64
	rep        int32
	dg, de, di int32
}

// deltaHeap is a min-heap of state steps by instant.
type deltaHeap []delta

func (h *deltaHeap) push(d delta) {
	*h = append(*h, d)
	s := *h
	for j := len(s) - 1; j > 0; {
		i := (j - 1) / 2
		if s[i].t <= s[j].t {
			break
		}
		s[i], s[j] = s[j], s[i]
		j = i
	}
}

func (h *deltaHeap) pop() delta {
	s := *h
	d := s[0]
	n := len(s) - 1
	s[0] = s[n]
	s = s[:n]
	for i := 0; ; {
		l := 2*i + 1
		if l >= n {
			break
		}
		j := l
		if r := l + 1; r < n && s[r].t < s[l].t {
			j = r
		}
		if s[i].t <= s[j].t {
			break
		}
		s[i], s[j] = s[j], s[i]
		i = j
	}
	*h = s
	return d
}

func floorDiv(a, b int64) int64 {
	q := a / b
	if a%b != 0 && (a < 0) != (b < 0) {
		q--
	}
	return q
}

// instant registers t as an instant of some span, fixing start and end.
func (t *truthAcc) instant(at int64) {
	if !t.begun {
		t.begun, t.start, t.end = true, at, at
		t.k0 = floorDiv(at, t.w)
	}
	if at > t.end {
		t.end = at
	}
}

// win returns the accumulator of the window holding instant at.
func (t *truthAcc) win(at int64) *winAcc {
	i := int(floorDiv(at, t.w) - t.k0)
	for i >= len(t.wins) {
		t.wins = append(t.wins, winAcc{})
	}
	return &t.wins[i]
}

// prorate spreads q tokens of kind over [a, b] (a point at a when b ≤ a).
func (t *truthAcc) prorate(kind int, q, a, b int64) {
	t.runIn[kind] += q
	if b <= a {
		t.win(a).tok[kind] += float64(q)
		return
	}
	for k := floorDiv(a, t.w); k*t.w < b; k++ {
		lo, hi := max(a, k*t.w), min(b, (k+1)*t.w)
		if hi > lo {
			t.win(lo).tok[kind] += float64(q) * float64(hi-lo) / float64(b-a)
		}
	}
}

// step reports a step of the state.
func (t *truthAcc) step(d delta) { t.deltas.push(d) }

// admitted reports the wait of a span that replica rep admitted at adm: at
// the gateway on [queued, engine), in rep's engine queue on [engine, adm).
func (t *truthAcc) admitted(rep int, queued, engine, adm int64) {
	r := int32(rep)
	t.step(delta{t: queued, rep: r, dg: +1})
	if engine < adm {
		t.step(delta{t: engine, rep: r, dg: -1, de: +1})
		t.step(delta{t: adm, rep: r, de: -1, di: +1})
	} else {
		t.step(delta{t: adm, rep: r, dg: -1, di: +1})
	}
}

// sweep applies the steps up to and including instant mark: no step can come
// later at an earlier instant.
func (t *truthAcc) sweep(mark int64) error {
	for len(t.deltas) > 0 && t.deltas[0].t <= mark {
		d := t.deltas.pop()
		switch {
		case !t.swept:
			t.swept, t.sweepT = true, d.t
		case d.t < t.sweepT:
			return fmt.Errorf("internal: state step at %d behind the sweep at %d", d.t, t.sweepT)
		case d.t > t.sweepT:
			t.integrate(t.sweepT, d.t)
			t.sweepT = d.t
		}
		r := &t.reps[d.rep]
		if r.holds() {
			t.held--
		}
		r.g += int64(d.dg)
		r.e += int64(d.de)
		r.inf += int64(d.di)
		if r.holds() {
			t.held++
		}
		t.gw += int64(d.dg)
		t.q += int64(d.dg + d.de)
		t.inf += int64(d.di)
	}
	return nil
}

// integrate adds the state held on [a, b) to the run and its windows.
func (t *truthAcc) integrate(a, b int64) {
	if t.q == 0 && t.inf == 0 {
		return
	}
	// The cause of a gap instant: the first that applies.
	cause := causeImbalance
	switch {
	case t.held > 0:
		cause = causeEngine
	case t.gw > 0:
		cause = causeAdmission
	}
	add := func(w *winAcc, d int64) {
		w.inFlightInt += t.inf * d
		w.queueInt += t.q * d
		if t.q > 0 {
			w.backlog += d
			if t.inf < t.cap {
				w.gap += d
				w.gapBy[cause] += d
			}
		}
		if t.inf > t.cap {
			w.overCap += d
		}
	}
	add(&t.run, b-a)
	if t.q > 0 {
		for i := range t.reps {
			r := &t.reps[i]
			if r.g+r.e == 0 {
				continue
			}
			r.backlog += b - a
			if r.inf < r.cap {
				r.gap += b - a
				if r.e > 0 {
					r.engGap += b - a
				} else {
					r.admGap += b - a
				}
			}
		}
	}
	for k := floorDiv(a, t.w); k*t.w < b; k++ {
		lo, hi := max(a, k*t.w), min(b, (k+1)*t.w)
		if hi > lo {
			add(t.win(lo), hi-lo)
		}
	}
}

// finish builds the truth once the simulation is over and every step is swept.
func (t *truthAcc) finish(tr *Truth) error {
	if err := t.sweep(t.end); err != nil {
		return err
	}
	if len(t.deltas) != 0 || t.q != 0 || t.inf != 0 {
		return fmt.Errorf("internal: state not empty at the end (queue %d, in flight %d)", t.q, t.inf)
	}
	tr.WindowWidth = float64(t.w) / 1e6
	tr.Cap = t.cap
	tr.Windows = []Metrics{}
	tr.Replicas = []Replica{}
	for _, r := range t.reps {
		tr.Replicas = append(tr.Replicas, Replica{
			Replica: r.name, Cap: r.cap,
			BacklogTime:      float64(r.backlog) / 1e6,
			GapTime:          float64(r.gap) / 1e6,
			EngineGapTime:    float64(r.engGap) / 1e6,
			AdmissionGapTime: float64(r.admGap) / 1e6,
		})
	}
	if !t.begun {
		return nil
	}
	tr.RunStart, tr.RunEnd = schemas.Time(t.start), schemas.Time(t.end)
	for k := range nTok {
		t.run.tok[k] = float64(t.runIn[k])
	}
	tr.Metrics = t.metrics(&t.run, t.start, t.end, t.start, t.end)

	// Windows k0..last; an event or point at end when end is a window
	// boundary belongs to the last window (docs/metrics.md).
	last := t.k0
	if t.end > t.start {
		last = floorDiv(t.end-1, t.w)
	}
	n := int(last - t.k0 + 1)
	for len(t.wins) < n {
		t.wins = append(t.wins, winAcc{})
	}
	for i := n; i < len(t.wins); i++ {
		t.wins[n-1].merge(&t.wins[i])
	}
	t.wins = t.wins[:n]
	for i := range t.wins {
		k := t.k0 + int64(i)
		lo, hi := k*t.w, (k+1)*t.w
		tr.Windows = append(tr.Windows, t.metrics(&t.wins[i], lo, hi, max(lo, t.start), min(hi, t.end)))
	}
	return nil
}

func (w *winAcc) merge(o *winAcc) {
	for k := range w.tok {
		w.tok[k] += o.tok[k]
	}
	w.arrivals += o.arrivals
	w.requests += o.requests
	w.succeeded += o.succeeded
	w.attempts += o.attempts
	w.okAttempts += o.okAttempts
	w.retries += o.retries
	w.backlog += o.backlog
	w.gap += o.gap
	for c := range w.gapBy {
		w.gapBy[c] += o.gapBy[c]
	}
	w.overCap += o.overCap
	w.inFlightInt += o.inFlightInt
	w.queueInt += o.queueInt
	w.littleSum += o.littleSum
	w.littleN += o.littleN
}

// metrics derives the metrics of a window [ws, we) whose overlap with the run
// is [lo, hi].
func (t *truthAcc) metrics(w *winAcc, ws, we, lo, hi int64) Metrics {
	sec := float64(hi-lo) / 1e6
	ratio := func(a, b float64) *float64 {
		if b == 0 {
			return nil
		}
		v := a / b
		return &v
	}
	m := Metrics{
		WindowStart:         schemas.Time(ws),
		WindowEnd:           schemas.Time(we),
		WindowSeconds:       sec,
		OutputTokens:        w.tok[tokOutput],
		GeneratedTokens:     w.tok[tokGenerated],
		DeliveredTokens:     w.tok[tokDelivered],
		InputTokens:         w.tok[tokInput],
		Arrivals:            w.arrivals,
		Requests:            w.requests,
		SucceededRequests:   w.succeeded,
		Attempts:            w.attempts,
		SuccessfulAttempts:  w.okAttempts,
		RetryAttempts:       w.retries,
		BacklogTime:         float64(w.backlog) / 1e6,
		GapTime:             float64(w.gap) / 1e6,
		OverCapTime:         float64(w.overCap) / 1e6,
		EngineGapTime:       float64(w.gapBy[causeEngine]) / 1e6,
		AdmissionGapTime:    float64(w.gapBy[causeAdmission]) / 1e6,
		ImbalanceGapTime:    float64(w.gapBy[causeImbalance]) / 1e6,
		UnattributedGapTime: float64(w.gapBy[causeUnattributed]) / 1e6,
		InFlightSeconds:     float64(w.inFlightInt) / 1e6,
		QueueDepthSeconds:   float64(w.queueInt) / 1e6,
	}
	m.SystemTPS = ratio(m.OutputTokens, sec)
	m.GeneratedTPS = ratio(m.GeneratedTokens, sec)
	m.RetryAdjustedSystemTPS = ratio(m.DeliveredTokens, sec)
	if m.GeneratedTokens != 0 {
		v := 1 - m.DeliveredTokens/m.GeneratedTokens
		m.WasteFraction = &v
	}
	m.InputTPS = ratio(m.InputTokens, sec)
	m.ArrivalRate = ratio(float64(m.Arrivals), sec)
	m.SuccessRate = ratio(float64(m.SucceededRequests), float64(m.Requests))
	m.AttemptSuccessRate = ratio(float64(m.SuccessfulAttempts), float64(m.Attempts))
	m.RetryRate = ratio(float64(m.RetryAttempts), float64(m.Attempts))
	m.GapFraction = ratio(m.GapTime, sec)
	share := func(c int) *float64 { return ratio(float64(w.gapBy[c]), float64(w.gap)) }
	m.EngineGapShare = share(causeEngine)
	m.AdmissionGapShare = share(causeAdmission)
	m.ImbalanceGapShare = share(causeImbalance)
	m.UnattributedGapShare = share(causeUnattributed)
	m.BacklogGapFraction = ratio(m.GapTime, m.BacklogTime)
	m.MeanInFlight = ratio(m.InFlightSeconds, sec)
	m.MeanQueueDepth = ratio(m.QueueDepthSeconds, sec)
	if m.MeanInFlight != nil && t.cap > 0 {
		m.Utilization = ratio(*m.MeanInFlight, float64(t.cap))
	}
	if m.ArrivalRate != nil && w.littleN > 0 {
		v := *m.ArrivalRate * (float64(w.littleSum) / 1e6 / float64(w.littleN))
		m.LittleConcurrency = &v
	}
	return m
}
