package sim

import (
	"math"
	"strconv"
	"time"

	"github.com/tpsreport/tpsreport/schemas"
)

// Option configures a Run.
type Option func(*options)

type options struct {
	samples func(schemas.Sample) error
}

// WithSamples makes Run report the engine stats of every replica every
// Scenario.StatsInterval, from Start until the last request is released, to fn.
//
// A sample at instant ts sees the state after every change at ts: in_flight is
// the number of requests on the replica (admitted, not released: prefilling,
// decoding or releasing), cap its MaxNumSeqs, kv_cache_usage the prompt and
// generated tokens it holds over KVCacheTokens (NULL when that is 0), and
// queue_depth the attempts in its engine queue (none without a Dispatch
// policy) plus its share of the gateway queue: the Q attempts waiting at the
// gateway are split evenly over the replicas, replica i taking
// Q/R + (1 if i < Q mod R), so the depths of a pool sum to the attempts
// queued anywhere. Unlike the span state of docs/metrics.md, they count an
// attempt that will later time out or be cancelled while still queued, as a
// live engine's gauge does.
func WithSamples(fn func(schemas.Sample) error) Option {
	return func(o *options) { o.samples = fn }
}

// Attempt states.
const (
	stQueued    uint8 = iota // in the gateway queue
	stEngine                 // in a replica's engine queue (with a Dispatch policy)
	stPrefill                // admitted, prefilling
	stDecode                 // streaming tokens
	stReleasing              // last token emitted, slot not yet released
	stDone                   // released (or never admitted)
)

// Attempt outcomes: span status, http_status, error and the retry cause they give.
const (
	outOK uint8 = iota
	outError
	outRejected
	outTimeout
	outCancelled
)

var outcomes = [...]struct {
	status, err, cause string
	http               int32
}{
	outOK:        {schemas.StatusOK, "", "", 200},
	outError:     {schemas.StatusError, "engine_error", "5xx", 500},
	outRejected:  {schemas.StatusError, "rate_limited", "429", 429},
	outTimeout:   {schemas.StatusTimeout, "client_timeout", "timeout", 408},
	outCancelled: {schemas.StatusCancelled, "hedge_lost", "", 499},
}

// request is a logical request, alive from its arrival until its last attempt
// is released and no retry is pending.
type request struct {
	id        string
	rng       rng // its own stream: lengths, faults, jitter
	input     int64
	output    int64
	queued0   int64      // queued_at of attempt 0
	timeout   int64      // client timeout of each attempt, µs; 0: none
	launched  int32      // attempts launched, hedges included
	tries     int32      // attempts launched, hedges excluded (≤ MaxAttempts)
	live      []*attempt // attempts not yet released
	liveBuf   [2]*attempt
	succeeded bool
	done      bool

	launch      event // pending retry or hedge
	launchHedge bool
	launchCause string

	// The delivered span: the successful attempt released first (ties: smallest span_id).
	dlv                bool
	dlvRel, dlvA, dlvB int64
	dlvID              string
	dlvTok             int64
}

// attempt is one span.
type attempt struct {
	req     *request
	serial  uint64
	num     int32
	spanID  string
	cause   string
	state   uint8
	outcome uint8

	queuedAt, engineAt, admittedAt, firstAt, lastAt int64
	admitted, hasFirst, hasLast                     bool

	rep    *replica // the replica it was sent to (nil while at the gateway)
	rpos   int      // position in rep.running + 1
	cached int64
	fail   bool    // fails after failAt tokens
	uFail  float64 // the draw that decides fail on the replica that admits it
	failAt int64   // 0..output−1
	target int64   // tokens it will emit unless aborted
	tokens int64   // tokens emitted
	vStart float64
	vEnd   float64
	dpos   int // position in rep.dec + 1

	phase    event // first token or release
	deadline event // client timeout
}

// replica is one engine with its virtual decode clock.
type replica struct {
	name    string
	idx     int
	cap     int     // max_num_seqs
	decode  float64 // tokens/s of one stream alone
	errRate float64 // probability that an admitted attempt fails partway
	weight  float64 // share of traffic under the random policy, relative to 1
	// stallGap and stallDur are the mean gap between the engine's pauses
	// and their mean length; no pauses when stallGap is 0.
	stallGap, stallDur time.Duration
	n                  int     // requests on the replica (in flight)
	v                  float64 // virtual clock: tokens a stream has emitted since the start
	lastT              int64   // instant v holds for
	rate               float64 // tokens/s per stream at n
	hist               [histLen]ratePoint
	histN              int
	dec                decodeHeap
	running            []*attempt
	next               event // next stream completion

	// Engine queue (with a Dispatch policy): FIFO from eqHead, stale entries
	// skipped like the gateway's.
	eq       []queued
	eqHead   int
	eqLen    int // attempts still in it
	paused   bool
	pausedAt int64
	pause    event // next pause start or end
	pauses   rng
}

// histLen rate changes are kept per replica to place the last token of an
// aborted stream exactly.
const histLen = 64

type ratePoint struct {
	t       int64
	v, rate float64
}

// advance moves the virtual clock to instant t.
func (rp *replica) advance(t int64) {
	if t > rp.lastT {
		rp.v += float64(t-rp.lastT) * rp.rate / 1e6
		rp.lastT = t
	}
}

// tokenTime returns the first instant (whole µs) at which the virtual clock
// reached vk, from the recorded rate changes.
func (rp *replica) tokenTime(vk float64) int64 {
	lo := max(0, rp.histN-histLen)
	for i := rp.histN - 1; i >= lo; i-- {
		p := rp.hist[i%histLen]
		if p.v <= vk {
			if p.rate == 0 {
				return p.t
			}
			return p.t + int64(math.Ceil((vk-p.v)/p.rate*1e6))
		}
	}
	return rp.hist[lo%histLen].t
}

// eps is the tolerance, in tokens, of the virtual clock against rounding.
const eps = 1e-6

// sim is one run.
type sim struct {
	sc      Scenario
	seed    uint64
	emit    func(schemas.Span) error
	sample  func(schemas.Sample) error
	err     error
	now     int64
	ev      eventHeap
	serial  uint64
	cacheOn bool

	// Arrivals: thinning of a Poisson process of rate lamMax (per µs).
	arr, bursts      rng
	arrEnd           int64   // arrivals stop before this instant
	arrT             float64 // µs after Start of the last candidate
	lamMax           float64
	burstLo, burstHi float64 // current or next burst, µs after Start
	arrivals         int64
	arrivalsDone     bool
	arrival          event

	// Gateway.
	queue      []queued // FIFO by queued_at from qhead; entries no longer queued are skipped
	qhead      int
	qlen       int // attempts still queued
	stalls     rng
	stalled    bool
	stallBegan int64
	stall      event
	free       int // free slots over all replicas
	reps       []*replica
	disp       rng   // DispatchRandom's draws
	weighted   bool  // some replica has a weight other than 1 (Canary.Weight)
	rr         int   // DispatchRoundRobin's next replica
	live       int64 // requests alive

	sampleEv event
	tr       truthAcc
	stats    Stats
	statuses [len(outcomes)]int64

	// Requests and attempts that are over, for reuse: a run allocates for the
	// requests alive at once, not for every request.
	freeReqs []*request
	freeAtts []*attempt
}

// queued is an entry of the gateway queue; it is stale once its attempt has
// left the queue (or been reused, which changes the serial).
type queued struct {
	a      *attempt
	serial uint64
}

func (q queued) valid() bool { return q.a.serial == q.serial && q.a.state == stQueued }

// validAt is valid for an entry of an engine queue.
func (q queued) validAt() bool { return q.a.serial == q.serial && q.a.state == stEngine }

// Run simulates sc with seed, calls emit with every span as it is released (so
// in order of released_at, ties in a fixed order) and returns the truth of the
// run. The pointer fields of each span point to memory of that span alone.
// Memory holds only the live requests, so a run may emit any number of spans.
// An error from emit (or from a samples callback) stops the run and is
// returned.
func Run(sc Scenario, seed uint64, emit func(schemas.Span) error, opts ...Option) (Truth, error) {
	if err := sc.Validate(); err != nil {
		return Truth{}, err
	}
	var o options
	for _, f := range opts {
		f(&o)
	}
	sc = sc.withDefaults()
	s := &sim{
		sc:      sc,
		seed:    seed,
		emit:    emit,
		sample:  o.samples,
		cacheOn: sc.PrefixCacheHit > 0,
		arr:     newRNG(seed, streamArrivals),
		bursts:  newRNG(seed, streamBursts),
		stalls:  newRNG(seed, streamStalls),
		disp:    newRNG(seed, streamDispatch),
		stats:   Stats{Statuses: map[string]int64{}},
	}
	s.tr.w = micros(sc.Window)
	s.tr.reps = make([]repAcc, sc.Replicas)
	for i := range sc.Replicas {
		rp := &replica{name: replicaName(i), idx: i, lastT: sc.Start,
			cap: sc.replicaCap(i), decode: sc.DecodeRate, errRate: sc.ErrorRate, weight: 1,
			stallGap: sc.EngineStallGap, stallDur: sc.EngineStallDuration}
		if sc.canary(i) {
			if sc.Canary.EngineStallGap > 0 {
				rp.stallGap, rp.stallDur = sc.Canary.EngineStallGap, sc.Canary.EngineStallDuration
			}
			if sc.Canary.DecodeRate > 0 {
				rp.decode = sc.Canary.DecodeRate
			}
			rp.errRate += sc.Canary.ExtraErrorRate
			if sc.Canary.Weight > 0 {
				rp.weight = sc.Canary.Weight
			}
			s.weighted = s.weighted || rp.weight != 1
		}
		s.free += rp.cap
		s.tr.cap += int64(rp.cap)
		rp.next = event{kind: evDecode, rep: rp}
		rp.pause = event{kind: evEngineStall, rep: rp}
		rp.pauses = newRNG(seed, streamEngine+uint64(i))
		rp.hist[0] = ratePoint{t: sc.Start}
		rp.histN = 1
		s.reps = append(s.reps, rp)
		s.tr.reps[i] = repAcc{name: rp.name, cap: int64(rp.cap)}
	}
	s.start()
	for s.ev.len() > 0 && s.err == nil {
		e := s.ev.pop()
		s.now = e.at
		s.handle(e)
		if s.err != nil {
			break
		}
		s.admit()
		if err := s.tr.sweep(s.watermark()); err != nil {
			s.err = err
		}
	}
	if s.err != nil {
		return Truth{}, s.err
	}
	for o, n := range s.statuses {
		if n > 0 {
			s.stats.Statuses[outcomes[o].status] += n
		}
	}
	tr := Truth{Scenario: sc.Name, Seed: seed, RunID: sc.RunID, Spans: s.tr.run.attempts, Sim: s.stats, Canary: sc.CanaryNames()}
	if err := s.tr.finish(&tr); err != nil {
		return Truth{}, err
	}
	return tr, nil
}

// start schedules the first arrival, stall and sample.
func (s *sim) start() {
	sc := &s.sc
	s.arrEnd = math.MaxInt64
	if sc.Duration > 0 {
		s.arrEnd = sc.Start + micros(sc.Duration)
	}
	burst := 1.0
	if sc.BurstEvery > 0 {
		burst = sc.BurstFactor
		s.burstLo = s.bursts.exp() * float64(micros(sc.BurstEvery))
		s.burstHi = s.burstLo + float64(micros(sc.BurstDuration))
	}
	s.lamMax = sc.Rate / 1e6 * (1 + sc.DiurnalAmplitude) * burst
	s.arrival = event{kind: evArrival}
	s.nextArrival()
	if sc.StallGap > 0 {
		s.stall = event{kind: evStall}
		s.ev.schedule(&s.stall, sc.Start+s.stallGap())
	}
	for _, rp := range s.reps {
		if rp.stallGap > 0 {
			s.ev.schedule(&rp.pause, sc.Start+rp.pauseGap(sc))
		}
	}
	if sc.StatsInterval > 0 && s.sample != nil {
		s.sampleEv = event{kind: evSample, late: true}
		s.ev.schedule(&s.sampleEv, sc.Start)
	}
}

func (s *sim) handle(e *event) {
	switch e.kind {
	case evArrival:
		s.onArrival()
	case evStall:
		s.onStall()
	case evSample:
		s.onSample()
	case evFirstToken:
		s.onFirstToken(e.att)
	case evRelease:
		s.release(e.att)
	case evDeadline:
		s.abort(e.att, outTimeout)
	case evLaunch:
		s.onLaunch(e.req)
	case evDecode:
		s.onDecode(e.rep)
	case evEngineStall:
		s.onEngineStall(e.rep)
	}
}

// active reports whether anything can still happen.
func (s *sim) active() bool { return !s.arrivalsDone || s.live > 0 }

// accept returns the arrival rate at offset t (µs after Start) over lamMax,
// the probability of keeping a candidate of the thinned process.
func (s *sim) accept(t float64) float64 {
	sc := &s.sc
	lam := sc.Rate / 1e6
	if sc.DiurnalAmplitude > 0 {
		lam *= 1 + sc.DiurnalAmplitude*math.Sin(2*math.Pi*t/float64(micros(sc.DiurnalPeriod)))
	}
	if sc.BurstEvery > 0 {
		for t >= s.burstHi {
			s.burstLo += s.bursts.exp() * float64(micros(sc.BurstEvery))
			s.burstHi = s.burstLo + float64(micros(sc.BurstDuration))
		}
		if t >= s.burstLo {
			lam *= sc.BurstFactor
		}
	}
	return lam / s.lamMax
}

// nextArrival schedules the next arrival, or ends the arrivals.
func (s *sim) nextArrival() {
	if s.sc.MaxArrivals > 0 && s.arrivals >= s.sc.MaxArrivals {
		s.arrivalsDone = true
		return
	}
	for {
		s.arrT += s.arr.exp() / s.lamMax
		at := s.sc.Start + int64(math.Round(s.arrT))
		if s.arrT >= float64(math.MaxInt64/2) || at >= s.arrEnd {
			s.arrivalsDone = true
			return
		}
		if s.arr.float() < s.accept(s.arrT) {
			s.ev.schedule(&s.arrival, at)
			return
		}
	}
}

func (s *sim) onArrival() {
	num := s.arrivals
	s.arrivals++
	r := s.newRequest()
	r.rng, r.queued0 = newRNG(s.seed, streamRequest+uint64(num)), s.now
	r.id = requestID(num)
	r.input = r.rng.length(s.sc.Prompt)
	r.output = r.rng.length(s.sc.Output)
	if u := r.rng.float(); s.sc.ClientTimeout > 0 {
		r.timeout = max(1, int64(math.Round(float64(micros(s.sc.ClientTimeout))*(1+s.sc.TimeoutJitter*(2*u-1)))))
	}
	r.launch = event{kind: evLaunch, req: r}
	s.live++
	s.stats.MaxLiveRequests = max(s.stats.MaxLiveRequests, s.live)
	s.tr.instant(s.now)
	s.tr.run.arrivals++
	s.tr.win(s.now).arrivals++
	s.launchAttempt(r, "", false)
	s.nextArrival()
}

// requestID is "r" and the arrival number in at least nine digits, so that ids
// sort like numbers.
func requestID(num int64) string {
	var d [24]byte
	digits := strconv.AppendInt(d[:0], num, 10)
	var b [32]byte
	out := append(b[:0], 'r')
	for i := len(digits); i < 9; i++ {
		out = append(out, '0')
	}
	return string(append(out, digits...))
}

func (s *sim) newRequest() *request {
	var r *request
	if n := len(s.freeReqs); n > 0 {
		r = s.freeReqs[n-1]
		s.freeReqs[n-1] = nil
		s.freeReqs = s.freeReqs[:n-1]
		*r = request{}
	} else {
		r = new(request)
	}
	r.live = r.liveBuf[:0]
	return r
}

func (s *sim) newAttempt() *attempt {
	if n := len(s.freeAtts); n > 0 {
		a := s.freeAtts[n-1]
		s.freeAtts[n-1] = nil
		s.freeAtts = s.freeAtts[:n-1]
		*a = attempt{}
		return a
	}
	return new(attempt)
}

// launchAttempt puts a new attempt of r in the gateway queue (or rejects it).
func (s *sim) launchAttempt(r *request, cause string, hedge bool) {
	s.serial++
	a := s.newAttempt()
	a.req, a.serial, a.num, a.cause, a.queuedAt = r, s.serial, r.launched, cause, s.now
	r.launched++
	if hedge {
		s.stats.Hedges++
	} else {
		r.tries++
	}
	a.spanID = r.id + "-" + strconv.Itoa(int(a.num))
	a.phase = event{att: a}
	a.deadline = event{kind: evDeadline, att: a}
	// Four draws per attempt, used or not, keep the request's stream aligned.
	uFail, uAt, uHit, uFrac := r.rng.float(), r.rng.float(), r.rng.float(), r.rng.float()
	a.uFail = uFail
	a.failAt = int64(uAt * float64(r.output))
	if s.cacheOn && uHit < s.sc.PrefixCacheHit {
		a.cached = int64(uFrac * float64(r.input))
	}
	r.live = append(r.live, a)
	if s.sc.MaxQueue > 0 && s.qlen >= s.sc.MaxQueue {
		s.stats.Rejected++
		a.state, a.outcome = stDone, outRejected
		s.emitSpan(a)
		s.endAttempt(a)
		return
	}
	a.state = stQueued
	s.queue = append(s.queue, queued{a, a.serial})
	s.qlen++
	s.stats.MaxGatewayQueue = max(s.stats.MaxGatewayQueue, int64(s.qlen))
	if r.timeout > 0 {
		s.ev.schedule(&a.deadline, a.queuedAt+r.timeout)
	}
	if s.sc.HedgeDelay > 0 && a.num == 0 {
		r.launchHedge = true
		s.ev.schedule(&r.launch, s.now+micros(s.sc.HedgeDelay))
	}
}

func (s *sim) onLaunch(r *request) {
	if r.launchHedge {
		if len(r.live) > 0 && !r.succeeded {
			s.launchAttempt(r, "hedge", true)
		}
		return
	}
	s.launchAttempt(r, r.launchCause, false)
}

// trimQueue drops entries that are no longer queued from the head of the queue.
func (s *sim) trimQueue() {
	for s.qhead < len(s.queue) && !s.queue[s.qhead].valid() {
		s.queue[s.qhead] = queued{}
		s.qhead++
	}
	if s.qhead == len(s.queue) {
		s.queue, s.qhead = s.queue[:0], 0
	} else if s.qhead > 1024 && s.qhead > len(s.queue)/2 {
		n := copy(s.queue, s.queue[s.qhead:])
		clear(s.queue[n:])
		s.queue, s.qhead = s.queue[:n], 0
	}
}

// trimEngine drops entries that are no longer queued from the head of rp's
// engine queue.
func (rp *replica) trimEngine() {
	for rp.eqHead < len(rp.eq) && !rp.eq[rp.eqHead].validAt() {
		rp.eq[rp.eqHead] = queued{}
		rp.eqHead++
	}
	if rp.eqHead == len(rp.eq) {
		rp.eq, rp.eqHead = rp.eq[:0], 0
	} else if rp.eqHead > 1024 && rp.eqHead > len(rp.eq)/2 {
		n := copy(rp.eq, rp.eq[rp.eqHead:])
		clear(rp.eq[n:])
		rp.eq, rp.eqHead = rp.eq[:n], 0
	}
}

// watermark is the instant before which the span state is final: the queued_at
// of the oldest attempt still queued, else now. The gateway sends attempts on
// in its FIFO order, so each engine queue is in order of queued_at too.
func (s *sim) watermark() int64 {
	s.trimQueue()
	m := s.now
	if s.qlen > 0 {
		m = s.queue[s.qhead].a.queuedAt
	}
	if s.sc.Dispatch != DispatchFree {
		for _, rp := range s.reps {
			if rp.eqLen > 0 {
				rp.trimEngine()
				m = min(m, rp.eq[rp.eqHead].a.queuedAt)
			}
		}
	}
	return m
}

// admit moves attempts from the head of the queue to the replica with the most
// free slots (ties: the lowest index) while there are both, unless stalled.
// With a Dispatch policy, the gateway sends its whole queue on to the engine
// queues instead (unless stalled), and each replica that is not paused admits
// from the head of its engine queue while it has a free slot.
func (s *sim) admit() {
	if s.sc.Dispatch != DispatchFree {
		s.dispatchAll()
		return
	}
	if s.stalled {
		return
	}
	for s.qlen > 0 && s.free > 0 {
		s.trimQueue()
		a := s.queue[s.qhead].a
		s.queue[s.qhead] = queued{}
		s.qhead++
		s.qlen--
		var best *replica
		for _, rp := range s.reps {
			if rp.n < rp.cap && (best == nil || rp.n < best.n) {
				best = rp
			}
		}
		s.startAttempt(a, best)
	}
}

func (s *sim) dispatchAll() {
	for !s.stalled && s.qlen > 0 {
		s.trimQueue()
		a := s.queue[s.qhead].a
		s.queue[s.qhead] = queued{}
		s.qhead++
		s.qlen--
		rp := s.pick()
		a.state, a.rep, a.engineAt = stEngine, rp, s.now
		rp.eq = append(rp.eq, queued{a, a.serial})
		rp.eqLen++
		s.stats.MaxEngineQueue = max(s.stats.MaxEngineQueue, int64(rp.eqLen))
	}
	for _, rp := range s.reps {
		for !rp.paused && rp.n < rp.cap && rp.eqLen > 0 {
			rp.trimEngine()
			a := rp.eq[rp.eqHead].a
			rp.eq[rp.eqHead] = queued{}
			rp.eqHead++
			rp.eqLen--
			s.startAttempt(a, rp)
		}
	}
}

// pick returns the replica the Dispatch policy sends the next attempt to.
func (s *sim) pick() *replica {
	switch s.sc.Dispatch {
	case DispatchRoundRobin:
		rp := s.reps[s.rr]
		s.rr = (s.rr + 1) % len(s.reps)
		return rp
	case DispatchRandom:
		if !s.weighted {
			return s.reps[min(int(s.disp.float()*float64(len(s.reps))), len(s.reps)-1)]
		}
		var total float64
		for _, rp := range s.reps {
			total += rp.weight
		}
		u := s.disp.float() * total
		for _, rp := range s.reps {
			if u < rp.weight {
				return rp
			}
			u -= rp.weight
		}
		return s.reps[len(s.reps)-1]
	}
	best := s.reps[0]
	for _, rp := range s.reps[1:] {
		if rp.n+rp.eqLen < best.n+best.eqLen {
			best = rp
		}
	}
	return best
}

// setN changes the number of requests on rp at now, changing its decode rate.
func (s *sim) setN(rp *replica, n int) {
	rp.advance(s.now)
	rp.n = n
	rp.rate = 0
	if n > 0 {
		rp.rate = rp.decode / (1 + s.sc.Slowdown*float64(n-1))
	}
	rp.hist[rp.histN%histLen] = ratePoint{t: s.now, v: rp.v, rate: rp.rate}
	rp.histN++
}

func (s *sim) startAttempt(a *attempt, rp *replica) {
	if a.rep == nil {
		a.engineAt = s.now // sent straight into a free slot
	}
	a.state, a.admitted, a.admittedAt, a.rep = stPrefill, true, s.now, rp
	a.fail = a.uFail < rp.errRate
	s.setN(rp, rp.n+1)
	s.free--
	rp.running = append(rp.running, a)
	a.rpos = len(rp.running)
	s.tr.admitted(rp.idx, a.queuedAt, a.engineAt, s.now)
	prefill := micros(s.sc.PrefillBase) + int64(math.Ceil(float64(a.req.input-a.cached)/s.sc.PrefillRate*1e6))
	a.phase.kind = evFirstToken
	s.ev.schedule(&a.phase, s.now+prefill)
	s.reschedule(rp)
}

func (s *sim) onFirstToken(a *attempt) {
	if a.fail && a.failAt == 0 {
		a.outcome = outError
		s.endGeneration(a)
		return
	}
	rp := a.rep
	rp.advance(s.now)
	a.hasFirst, a.firstAt, a.tokens = true, s.now, 1
	a.target = a.req.output
	if a.fail {
		a.target = a.failAt
	}
	if a.target == 1 {
		a.hasLast, a.lastAt = true, s.now
		s.finishOutcome(a)
		s.endGeneration(a)
		return
	}
	a.state = stDecode
	a.vStart = rp.v
	a.vEnd = rp.v + float64(a.target-1)
	rp.dec.push(a)
	s.reschedule(rp)
}

// finishOutcome sets the outcome of an attempt that emitted all its tokens.
func (s *sim) finishOutcome(a *attempt) {
	a.outcome = outOK
	if a.fail {
		a.outcome = outError
	}
}

func (s *sim) onDecode(rp *replica) {
	rp.advance(s.now)
	for len(rp.dec) > 0 && rp.dec[0].vEnd <= rp.v+eps {
		a := rp.dec[0]
		rp.dec.remove(a)
		a.tokens, a.hasLast, a.lastAt = a.target, true, s.now
		s.finishOutcome(a)
		s.endGeneration(a)
	}
	s.reschedule(rp)
}

// reschedule sets the instant of rp's next stream completion.
func (s *sim) reschedule(rp *replica) {
	if len(rp.dec) == 0 {
		s.ev.cancel(&rp.next)
		return
	}
	rp.advance(s.now)
	var dt int64
	if dv := rp.dec[0].vEnd - rp.v; dv > eps {
		dt = int64(math.Ceil(dv / rp.rate * 1e6))
	}
	s.ev.schedule(&rp.next, s.now+dt)
}

// endGeneration ends the token stream of an admitted attempt; its slot is
// released now or after ReleaseDelay.
func (s *sim) endGeneration(a *attempt) {
	s.ev.cancel(&a.deadline)
	if d := micros(s.sc.ReleaseDelay); d > 0 {
		a.state = stReleasing
		a.phase.kind = evRelease
		s.ev.schedule(&a.phase, s.now+d)
		return
	}
	s.release(a)
}

// release frees the slot of an admitted attempt and ends it.
func (s *sim) release(a *attempt) {
	rp := a.rep
	s.setN(rp, rp.n-1)
	s.free++
	last := len(rp.running) - 1
	moved := rp.running[last]
	rp.running[a.rpos-1] = moved
	moved.rpos = a.rpos
	rp.running[last] = nil
	rp.running = rp.running[:last]
	a.rpos = 0
	s.tr.step(delta{t: s.now, rep: int32(rp.idx), di: -1})
	s.reschedule(rp)
	a.state = stDone
	s.emitSpan(a)
	s.endAttempt(a)
}

// abort ends a live attempt now with outcome out (a client timeout or a
// cancelled hedge loser), keeping the tokens it emitted so far.
func (s *sim) abort(a *attempt, out uint8) {
	if a.state == stReleasing || a.state == stDone {
		return // every token is out: it is released as it stands
	}
	s.ev.cancel(&a.deadline)
	a.outcome = out
	switch a.state {
	case stQueued:
		a.state = stDone
		s.qlen--
		if out == outTimeout {
			s.stats.QueueTimeouts++
		} else {
			s.stats.QueueCancels++
		}
		s.emitSpan(a)
		s.endAttempt(a)
	case stEngine:
		a.state = stDone
		a.rep.eqLen--
		if out == outTimeout {
			s.stats.QueueTimeouts++
		} else {
			s.stats.QueueCancels++
		}
		s.emitSpan(a)
		s.endAttempt(a)
	case stPrefill:
		s.ev.cancel(&a.phase)
		s.release(a)
	case stDecode:
		rp := a.rep
		rp.advance(s.now)
		rp.dec.remove(a)
		k := 1 + int64(math.Floor(rp.v-a.vStart+eps))
		k = min(max(k, 1), a.target)
		a.tokens, a.hasLast = k, true
		a.lastAt = min(max(rp.tokenTime(a.vStart+float64(k-1)), a.firstAt), s.now)
		s.release(a)
	}
}

// endAttempt settles the request of an attempt that has just ended: on
// success the other attempts are cancelled; on failure, with no other attempt
// live, a retry is scheduled while attempts remain.
func (s *sim) endAttempt(a *attempt) {
	r := a.req
	for i, b := range r.live {
		if b == a {
			r.live = append(r.live[:i], r.live[i+1:]...)
			break
		}
	}
	switch {
	case a.outcome == outOK:
		r.succeeded = true
		rel := s.now
		if !r.dlv || rel < r.dlvRel || (rel == r.dlvRel && a.spanID < r.dlvID) {
			r.dlv, r.dlvRel, r.dlvID, r.dlvTok = true, rel, a.spanID, a.tokens
			r.dlvB = a.lastAt
			r.dlvA = a.firstAt
		}
		s.ev.cancel(&r.launch)
		var losers [4]*attempt
		for _, b := range append(losers[:0], r.live...) {
			s.abort(b, outCancelled) // one releasing already finishes as it is
		}
	case r.succeeded, len(r.live) > 0:
		// A loser after the winner, or another attempt still runs: wait.
	default:
		s.ev.cancel(&r.launch) // a pending hedge is moot
		if int(r.tries) < s.sc.MaxAttempts && a.outcome != outCancelled {
			k := float64(r.tries) // the retry about to start is retry k
			back := float64(micros(s.sc.RetryBackoff)) * math.Exp2(k-1) * (1 + s.sc.RetryJitter*r.rng.float())
			r.launchHedge = false
			r.launchCause = outcomes[a.outcome].cause
			s.ev.schedule(&r.launch, s.now+int64(math.Round(back)))
		}
	}
	s.settle(r)
	// Nothing refers to a any more but stale queue entries, which its serial
	// tells apart; it is reset when reused.
	s.freeAtts = append(s.freeAtts, a)
}

// settle completes r when nothing of it is left to happen.
// A completed request goes to the free list but keeps its fields (done in
// particular) until reused, which happens only at a later arrival.
func (s *sim) settle(r *request) {
	if r.done || len(r.live) > 0 || r.launch.scheduled() {
		return
	}
	r.done = true
	s.live--
	t := &s.tr
	t.run.requests++
	w := t.win(s.now)
	w.requests++
	if r.succeeded {
		t.run.succeeded++
		w.succeeded++
		t.prorate(tokDelivered, r.dlvTok, r.dlvA, r.dlvB)
	}
	d := s.now - r.queued0
	t.run.littleSum += d
	t.run.littleN++
	w = t.win(r.queued0)
	w.littleSum += d
	w.littleN++
	s.freeReqs = append(s.freeReqs, r)
}

// spanVals backs the pointer fields of one emitted span.
type spanVals struct {
	attempt, http              int32
	queued, engine, admitted   int64
	first, last, rel           int64
	input, output, cached      int64
	cause, model, replica, err string
}

// emitSpan reports a's span, released now, to the callback and the truth.
func (s *sim) emitSpan(a *attempt) {
	if s.err != nil {
		return
	}
	r := a.req
	oc := outcomes[a.outcome]
	v := &spanVals{
		attempt: a.num, http: oc.http,
		queued: a.queuedAt, rel: s.now,
		input: r.input, output: a.tokens,
		cause: a.cause, model: s.sc.Model, err: oc.err,
	}
	sp := schemas.Span{
		RunID: s.sc.RunID, Source: s.sc.Source, SpanID: a.spanID, RequestID: r.id,
		Attempt: &v.attempt, QueuedAt: &v.queued, ReleasedAt: &v.rel,
		InputTokens: &v.input, OutputTokens: &v.output,
		Status: oc.status, HTTPStatus: &v.http,
	}
	if a.num > 0 {
		sp.RetryCause = &v.cause
	}
	if v.model != "" {
		sp.Model = &v.model
	}
	if oc.err != "" {
		sp.Error = &v.err
	}
	if a.rep != nil {
		v.replica, v.engine = a.rep.name, a.engineAt
		sp.Replica, sp.EngineArrivedAt = &v.replica, &v.engine
	}
	if a.admitted {
		v.admitted = a.admittedAt
		sp.AdmittedAt = &v.admitted
		if s.cacheOn {
			v.cached = a.cached
			sp.CachedTokens = &v.cached
		}
	} else {
		s.stats.SpansOutsideState++
	}
	if a.hasFirst {
		v.first = a.firstAt
		sp.FirstTokenAt = &v.first
	}
	if a.hasLast {
		v.last = a.lastAt
		sp.LastTokenAt = &v.last
	}
	s.statuses[a.outcome]++

	// The truth: the attempt event and its token quantities (docs/metrics.md).
	t := &s.tr
	t.instant(s.now)
	w := t.win(s.now)
	t.run.attempts++
	w.attempts++
	if a.num > 0 {
		t.run.retries++
		w.retries++
	}
	ob := s.now
	if a.hasLast {
		ob = a.lastAt
	}
	oa := ob
	if a.hasFirst {
		oa = a.firstAt
	}
	t.prorate(tokGenerated, a.tokens, oa, ob)
	if a.outcome == outOK {
		t.run.okAttempts++
		w.okAttempts++
		t.prorate(tokOutput, a.tokens, oa, ob)
		ib := s.now
		switch {
		case a.hasFirst:
			ib = a.firstAt
		case a.hasLast:
			ib = a.lastAt
		}
		ia := ib
		if a.admitted {
			ia = a.admittedAt
		}
		t.prorate(tokInput, r.input, ia, ib)
	}
	if err := s.emit(sp); err != nil {
		s.err = err
	}
}

func (s *sim) onStall() {
	sc := &s.sc
	if !s.stalled {
		s.stalled = true
		s.stats.Stalls++
		s.stallBegan = s.now
		d := max(1, int64(math.Round(s.stalls.jitter(float64(micros(sc.StallDuration)), sc.StallJitter))))
		s.ev.schedule(&s.stall, s.now+d)
		return
	}
	s.stalled = false
	s.stats.StallSeconds += float64(s.now-s.stallBegan) / 1e6
	if s.active() {
		s.ev.schedule(&s.stall, s.now+s.stallGap())
	}
}

// onEngineStall starts or ends a pause of rp's engine.
func (s *sim) onEngineStall(rp *replica) {
	sc := &s.sc
	if !rp.paused {
		rp.paused, rp.pausedAt = true, s.now
		s.stats.EngineStalls++
		d := max(1, int64(math.Round(rp.pauses.jitter(float64(micros(rp.stallDur)), sc.EngineStallJitter))))
		s.ev.schedule(&rp.pause, s.now+d)
		return
	}
	rp.paused = false
	s.stats.EngineStallSeconds += float64(s.now-rp.pausedAt) / 1e6
	if s.active() {
		s.ev.schedule(&rp.pause, s.now+rp.pauseGap(sc))
	}
}

// pauseGap draws the time from the end of one of rp's pauses to the start of
// the next.
func (rp *replica) pauseGap(sc *Scenario) int64 {
	return max(1, int64(math.Round(rp.pauses.jitter(float64(micros(rp.stallGap)), sc.EngineStallJitter))))
}

// stallGap draws the time from the end of a stall to the start of the next.
func (s *sim) stallGap() int64 {
	mean := float64(micros(s.sc.StallGap))
	var g float64
	if s.sc.StallPoisson {
		g = s.stalls.exp() * mean
	} else {
		g = s.stalls.jitter(mean, s.sc.StallJitter)
	}
	return max(1, int64(math.Round(g)))
}

func (s *sim) onSample() {
	if !s.active() {
		return // the run is over
	}
	nrep := len(s.reps)
	for i, rp := range s.reps {
		inf, qd, c := int32(rp.n), int32(s.qlen/nrep+rp.eqLen), int32(rp.cap)
		if i < s.qlen%nrep {
			qd++
		}
		name := rp.name
		sm := schemas.Sample{
			RunID: s.sc.RunID, Source: s.sc.Source, Replica: &name, TS: s.now,
			InFlight: &inf, QueueDepth: &qd, Cap: &c,
		}
		if s.sc.KVCacheTokens > 0 {
			// v at now, computed aside: advancing rp here would round the
			// clock differently from a run without samples.
			v := rp.v + float64(s.now-rp.lastT)*rp.rate/1e6
			var held int64
			for _, a := range rp.running {
				held += a.req.input
				switch a.state {
				case stDecode:
					held += 1 + int64(math.Floor(v-a.vStart+eps))
				case stReleasing:
					held += a.tokens
				}
			}
			u := math.Min(1, math.Round(float64(held)/float64(s.sc.KVCacheTokens)*1e4)/1e4)
			sm.KVCacheUsage = &u
		}
		s.stats.Samples++
		if err := s.sample(sm); err != nil {
			s.err = err
			return
		}
	}
	s.ev.schedule(&s.sampleEv, s.now+micros(s.sc.StatsInterval))
}
