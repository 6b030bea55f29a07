package sim

import (
	"cmp"
	"container/heap"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"time"

	"github.com/tpsreport/tpsreport/schemas"
)

// Disagg is a scenario of disaggregated serving: a gateway hands each
// request to a router, which picks a prefill worker and a decode worker for
// it; the prefill worker computes the prompt's KV cache, which moves to the
// decode worker, which decodes. Each worker admits from its own FIFO queue
// into a fixed number of slots. Durations are used in whole microseconds.
//
// A request's stages: gateway (GatewayTime), router (RouterTime), a hop
// no log records (Hop: the request on the wire to the prefill worker), the
// prefill worker's queue, prefill (PrefillBase + prompt/PrefillRate), the
// decode worker's queue, kv_transfer on the decode worker (KVBase +
// prompt·KVBytesPerToken/KVBandwidth: the decode worker pulls the cache into
// a slot it holds), decode (output·TPOT). A prefill slot is held during
// prefill; a decode slot from the transfer's start to decode's end.
type Disagg struct {
	Name  string // scenario name, written to the truth
	RunID string // "" means Name

	Start    int64 // µs since the Unix epoch; 0 means DefaultStart
	Duration time.Duration
	Rate     float64 // Poisson arrivals per second

	Prompt, Output Length

	PrefillWorkers, DecodeWorkers int
	PrefillCap, DecodeCap         int
	PrefillRate                   float64 // prompt tokens/s of one prefill
	PrefillBase                   time.Duration
	TPOT                          time.Duration // decode time per output token
	KVBytesPerToken               int64
	KVBandwidth                   float64 // bytes/s of one transfer
	KVBase                        time.Duration

	GatewayTime, RouterTime, Hop time.Duration

	// Router is how the router picks each pool's worker: RouteLeastLoaded
	// (the fewest requests running and queued there when it routes; ties:
	// the lowest index), RouteRoundRobin or RouteRandom.
	Router string

	StatsInterval time.Duration // samples of every worker; 0: one at the start
	Window        time.Duration // width of the truth's windows; 0 means 60 s
}

// Router policies (Disagg.Router).
const (
	RouteLeastLoaded = "least-loaded"
	RouteRoundRobin  = "round-robin"
	RouteRandom      = "random"
)

// DisaggNames lists the named disaggregated scenarios.
var DisaggNames = []string{"pd", "pd-decode"}

// NamedDisagg builds the named disaggregated scenarios: "pd" (two prefill
// workers, two decode workers: decode is the bottleneck) and "pd-decode"
// (the same traffic with a third decode worker).
func NamedDisagg(name string) (Disagg, error) {
	sc := Disagg{
		Name:     "pd",
		Duration: 5 * time.Minute,
		Rate:     4,
		Prompt:   Length{Median: 1500, Sigma: 0.6, Min: 16, Max: 16000},
		Output:   Length{Median: 180, Sigma: 0.6, Min: 4, Max: 2048},

		PrefillWorkers: 2, DecodeWorkers: 2,
		PrefillCap: 4, DecodeCap: 16,
		PrefillRate: 12000, PrefillBase: 15 * time.Millisecond,
		TPOT:            30 * time.Millisecond,
		KVBytesPerToken: 131072, KVBandwidth: 5e9, KVBase: 2 * time.Millisecond,

		GatewayTime: 3 * time.Millisecond, RouterTime: 1500 * time.Microsecond, Hop: 700 * time.Microsecond,
		Router:        RouteLeastLoaded,
		StatsInterval: 10 * time.Second,
	}
	switch name {
	case "pd":
	case "pd-decode":
		sc.Name, sc.DecodeWorkers = "pd-decode", 3
	default:
		return Disagg{}, fmt.Errorf("%w: %q (disaggregated: pd, pd-decode)", ErrUnknownScenario, name)
	}
	return sc, nil
}

// What a format's records show of a disaggregated request (RunDisagg's
// truths are one per view).
const (
	// ViewStages: the canonical spans and stages, every stage from the
	// gateway's receipt on.
	ViewStages = "stages"
	// ViewTRTLLM: TensorRT-LLM's disaggregated perf metrics, from the
	// disaggregated server's receipt (the router's stage) on: no gateway,
	// the span queued at the context server's executor, request ids the
	// request's number.
	ViewTRTLLM = "trtllm-perf"
	// ViewJoined: a LiteLLM gateway's log joined with TensorRT-LLM's
	// records: the gateway's receipt starts each request, its stage runs to
	// the disaggregated server's receipt; request ids are TensorRT-LLM's.
	ViewJoined = "litellm+trtllm-perf"
)

// DisaggViews lists the views in order.
var DisaggViews = []string{ViewStages, ViewTRTLLM, ViewJoined}

// DisaggTruth is what a disaggregated run was, from the simulator's own
// state: the run extent and summary.json's disaggregation as analyze must
// find it.
type DisaggTruth struct {
	Scenario string    `json:"scenario"`
	Seed     uint64    `json:"seed"`
	RunID    string    `json:"run_id"`
	RunStart time.Time `json:"run_start"`
	RunEnd   time.Time `json:"run_end"`
	schemas.Disaggregation
	// Budget and Roles are the rows budget.parquet and roles.parquet must
	// hold, in their order.
	BudgetWindows []schemas.BudgetWindow `json:"budget_windows"`
	RoleWindows   []schemas.RoleWindow   `json:"role_windows"`
}

// DisaggWriter takes what a disaggregated run writes.
type DisaggWriter struct {
	Span   func(schemas.Span) error
	Stage  func(schemas.Stage) error
	Sample func(schemas.Sample) error // nil: no samples
	// Request, when set, takes each finished request's times, for a
	// format that logs a request as one record (TensorRT-LLM's).
	Request func(DisaggRequest) error
}

// DisaggRequest is one finished request's times, µs since the Unix epoch.
type DisaggRequest struct {
	Num                          int64  // the request's number, from 1
	ID                           string // its canonical request_id
	Prefill, Decode              string // the workers the router picked
	Prompt, Output, KVBytes      int64
	Arrived                      int64 // at the gateway
	DispatchedAt                 int64 // the gateway handed it to the router
	Routed                       int64 // the router picked its workers
	AtPrefill                    int64 // in the prefill worker's queue
	PrefillStart, PrefillEnd     int64
	DecodeSlot                   int64 // a decode slot taken: the KV transfer starts
	KVEnd, FirstToken, DecodeEnd int64
}

// dWorker is one worker of a pool.
type dWorker struct {
	name  string
	role  string
	cap   int
	inf   int
	queue []*dRequest
	// routed counts the requests routed to it and not yet done there, for
	// the least-loaded router.
	routed int
	acc    stateAcc
}

// stateAcc integrates one worker's or one role's state over time.
type stateAcc struct {
	busyUS, queueUS float64 // slot-µs in use, request-µs queued
	gapUS, heldUS   int64
	routerUS        int64
	activeUS        int64 // time with something running
	attempts        int64
}

// dRequest is one request's way through the stages.
type dRequest struct {
	num            int64
	id             string
	prompt, output int64
	p, d           *dWorker
	arrive         int64 // gateway receipt
	routed         int64 // router's pick
	atPrefill      int64 // arrival at the prefill worker
	prefillStart   int64
	prefillEnd     int64
	decodeStart    int64 // decode slot taken: the transfer starts
	kvEnd          int64
	decodeEnd      int64
	bytes          int64
}

// dEvent kinds.
const (
	pdArrive = iota
	pdRouted
	pdAtPrefill
	pdPrefillDone
	pdKVDone
	pdDecodeDone
	pdSample
)

type dEvent struct {
	at   int64
	seq  int64
	kind int
	r    *dRequest
}

type dHeap []dEvent

func (h dHeap) Len() int { return len(h) }
func (h dHeap) Less(i, j int) bool {
	return h[i].at < h[j].at || h[i].at == h[j].at && h[i].seq < h[j].seq
}
func (h dHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *dHeap) Push(x any)   { *h = append(*h, x.(dEvent)) }
func (h *dHeap) Pop() any     { old := *h; e := old[len(old)-1]; *h = old[:len(old)-1]; return e }

type dSim struct {
	sc      Disagg
	out     DisaggWriter
	rng     rng
	events  dHeap
	seq     int64
	now     int64
	last    int64 // time the state integrals have reached
	pools   [2][]*dWorker
	rr      [2]int
	run     dWindow
	wins    map[int64]*dWindow // by window index
	done    []*dRequest
	count   int64
	stopAt  int64
	err     error
	started bool
}

// RunDisagg simulates sc with seed, writing every request's span (as the
// gateway saw it), its stages and the workers' samples to out (and, with
// out.Request, each request whole), and returns the truth of each view.
func RunDisagg(sc Disagg, seed uint64, out DisaggWriter) (map[string]DisaggTruth, error) {
	if sc.PrefillWorkers < 1 || sc.DecodeWorkers < 1 || sc.PrefillCap < 1 || sc.DecodeCap < 1 {
		return nil, errors.New("disaggregated scenario: every pool needs a worker with a slot")
	}
	if !(sc.Rate > 0) || sc.Duration <= 0 || !(sc.PrefillRate > 0) || !(sc.KVBandwidth > 0) {
		return nil, errors.New("disaggregated scenario: rate, duration, prefill rate and KV bandwidth must be positive")
	}
	if sc.Start == 0 {
		sc.Start = DefaultStart
	}
	if sc.RunID == "" {
		sc.RunID = sc.Name
	}
	s := &dSim{sc: sc, out: out, rng: newRNG(seed, 0xd15a66), wins: map[int64]*dWindow{}}
	for i := range sc.PrefillWorkers {
		s.pools[0] = append(s.pools[0], &dWorker{name: "prefill-" + strconv.Itoa(i), role: schemas.RolePrefill, cap: sc.PrefillCap})
	}
	for i := range sc.DecodeWorkers {
		s.pools[1] = append(s.pools[1], &dWorker{name: "decode-" + strconv.Itoa(i), role: schemas.RoleDecode, cap: sc.DecodeCap})
	}
	s.stopAt = sc.Start + sc.Duration.Microseconds()
	s.schedule(sc.Start, pdArrive, nil)
	s.schedule(sc.Start, pdSample, nil)
	for s.events.Len() > 0 && s.err == nil {
		e := heap.Pop(&s.events).(dEvent)
		s.advance(e.at)
		s.handle(e)
	}
	if s.err != nil {
		return nil, s.err
	}
	out2 := map[string]DisaggTruth{}
	for _, v := range DisaggViews {
		out2[v] = s.truth(seed, v)
	}
	return out2, nil
}

func (s *dSim) schedule(at int64, kind int, r *dRequest) {
	s.seq++
	heap.Push(&s.events, dEvent{at: at, seq: s.seq, kind: kind, r: r})
}

func (s *dSim) handle(e dEvent) {
	r := e.r
	switch e.kind {
	case pdArrive:
		s.arrive()
	case pdRouted:
		r.routed = s.now
		r.p, r.d = s.pick(0), s.pick(1)
		r.p.routed++
		r.d.routed++
		s.schedule(s.now+micros(s.sc.Hop), pdAtPrefill, r)
	case pdAtPrefill:
		r.atPrefill = s.now
		r.p.queue = append(r.p.queue, r)
		s.admit(r.p)
	case pdPrefillDone:
		r.prefillEnd = s.now
		r.p.inf--
		r.p.routed--
		r.d.queue = append(r.d.queue, r)
		s.admit(r.p)
		s.admit(r.d)
	case pdKVDone:
		r.kvEnd = s.now
		s.schedule(s.now+r.output*micros(s.sc.TPOT), pdDecodeDone, r)
	case pdDecodeDone:
		r.decodeEnd = s.now
		r.d.inf--
		r.d.routed--
		s.finish(r)
		s.admit(r.d)
	case pdSample:
		s.sample()
	}
}

func (s *dSim) arrive() {
	s.count++
	r := &dRequest{num: s.count, id: fmt.Sprintf("pd-%06d", s.count), arrive: s.now}
	r.prompt = s.rng.length(s.sc.Prompt)
	r.output = s.rng.length(s.sc.Output)
	r.bytes = r.prompt * s.sc.KVBytesPerToken
	s.schedule(s.now+micros(s.sc.GatewayTime)+micros(s.sc.RouterTime), pdRouted, r)
	next := s.now + int64(math.Round(s.rng.exp()/s.sc.Rate*1e6))
	if next < s.stopAt {
		s.schedule(next, pdArrive, nil)
	}
}

// pick is the router's choice in pool k (0 prefill, 1 decode).
func (s *dSim) pick(k int) *dWorker {
	pool := s.pools[k]
	switch s.sc.Router {
	case RouteRoundRobin:
		w := pool[s.rr[k]%len(pool)]
		s.rr[k]++
		return w
	case RouteRandom:
		return pool[int(s.rng.float()*float64(len(pool)))]
	}
	best := pool[0]
	for _, w := range pool[1:] {
		if w.routed < best.routed {
			best = w
		}
	}
	return best
}

// admit starts queued requests on w while it has free slots.
func (s *dSim) admit(w *dWorker) {
	for len(w.queue) > 0 && w.inf < w.cap {
		r := w.queue[0]
		w.queue = w.queue[1:]
		w.inf++
		w.acc.attempts++
		if w.role == schemas.RolePrefill {
			r.prefillStart = s.now
			d := micros(s.sc.PrefillBase) + int64(math.Round(float64(r.prompt)/s.sc.PrefillRate*1e6))
			s.schedule(s.now+d, pdPrefillDone, r)
			continue
		}
		r.decodeStart = s.now
		d := micros(s.sc.KVBase) + int64(math.Round(float64(r.bytes)/s.sc.KVBandwidth*1e6))
		s.schedule(s.now+d, pdKVDone, r)
	}
}

// advance integrates every worker's and role's state from s.last to t,
// over the run and in each window the interval crosses.
func (s *dSim) advance(t int64) {
	s.now = t
	if !s.started {
		s.last, s.started = t, true
		return
	}
	dt := t - s.last
	if dt <= 0 {
		return
	}
	for _, pool := range s.pools {
		for _, w := range pool {
			q, f := len(w.queue), max(w.cap-w.inf, 0)
			w.acc.busyUS += float64(min(w.inf, w.cap)) * float64(dt)
			w.acc.queueUS += float64(q) * float64(dt)
			if q > 0 && f > 0 {
				w.acc.gapUS += dt
			}
		}
	}
	var rs [2]roleSnap
	for k, pool := range s.pools {
		for _, w := range pool {
			q, f := len(w.queue), max(w.cap-w.inf, 0)
			rs[k].queued += q
			rs[k].free += f
			rs[k].busy += min(w.inf, w.cap)
			rs[k].held = rs[k].held || q > 0 && f > 0
		}
	}
	s.integrate(&s.run, rs, dt)
	width := s.width()
	for a := s.last; a < t; {
		k := floorDiv(a, width)
		b := min(t, (k+1)*width)
		acc := s.wins[k]
		if acc == nil {
			acc = &dWindow{}
			s.wins[k] = acc
		}
		s.integrate(acc, rs, b-a)
		a = b
	}
	s.last = t
}

// roleSnap is one role's state between two events.
type roleSnap struct {
	queued, free, busy int
	held               bool // a worker has requests queued and a free slot
}

// dWindow accumulates the roles' state over a window (or the run).
type dWindow struct {
	roles [2]stateAcc
	cross [2]int64 // role k's backlog while the other role had a free slot and none queued
}

func (s *dSim) integrate(acc *dWindow, rs [2]roleSnap, dt int64) {
	for k := range rs {
		ra, r := &acc.roles[k], rs[k]
		ra.busyUS += float64(r.busy) * float64(dt)
		ra.queueUS += float64(r.queued) * float64(dt)
		if r.queued > 0 && r.free > 0 {
			ra.gapUS += dt
		}
		switch {
		case r.held:
			ra.heldUS += dt
		case r.queued > 0 && r.free > 0:
			ra.routerUS += dt
		}
		if r.busy > 0 {
			ra.activeUS += dt
		}
		o := rs[1-k]
		if r.queued > 0 && o.free > 0 && o.queued == 0 {
			acc.cross[k] += dt
		}
	}
}

// width is the truth windows' width in µs.
func (s *dSim) width() int64 {
	if s.sc.Window > 0 {
		return micros(s.sc.Window)
	}
	return micros(time.Minute)
}

// sample writes every worker's state, and schedules the next sample while
// requests are coming or running.
func (s *dSim) sample() {
	if s.out.Sample != nil {
		for _, pool := range s.pools {
			for _, w := range pool {
				name := w.name
				inf, q, c := int32(w.inf), int32(len(w.queue)), int32(w.cap)
				if err := s.out.Sample(schemas.Sample{Replica: &name, TS: s.now, InFlight: &inf, QueueDepth: &q, Cap: &c}); err != nil {
					s.err = err
					return
				}
			}
		}
	}
	if s.sc.StatsInterval > 0 && (s.now < s.stopAt || s.busy()) {
		s.schedule(s.now+micros(s.sc.StatsInterval), pdSample, nil)
	}
}

func (s *dSim) busy() bool { return s.count > int64(len(s.done)) }

// finish writes a done request's span and stages.
func (s *dSim) finish(r *dRequest) {
	s.done = append(s.done, r)
	if s.err != nil {
		return
	}
	attempt := int32(0)
	in, out := r.prompt, r.output
	first := r.kvEnd + micros(s.sc.TPOT)
	if r.output == 0 {
		first = r.kvEnd
	}
	replica, model := r.d.name, "sim-model"
	sp := schemas.Span{
		SpanID: r.id + "#0", RequestID: r.id, Attempt: &attempt, Model: &model, Replica: &replica,
		QueuedAt:     &r.arrive,
		FirstTokenAt: &first, LastTokenAt: &r.decodeEnd, ReleasedAt: &r.decodeEnd,
		InputTokens: &in, OutputTokens: &out, Status: schemas.StatusOK,
	}
	if err := s.out.Span(sp); err != nil {
		s.err = err
		return
	}
	for _, st := range s.stages(r) {
		if err := s.out.Stage(st); err != nil {
			s.err = err
			return
		}
	}
	if s.out.Request != nil {
		s.err = s.out.Request(DisaggRequest{Num: r.num, ID: r.id, Prefill: r.p.name, Decode: r.d.name,
			Prompt: r.prompt, Output: r.output, KVBytes: r.bytes,
			Arrived: r.arrive, DispatchedAt: r.arrive + micros(s.sc.GatewayTime), Routed: r.routed, AtPrefill: r.atPrefill,
			PrefillStart: r.prefillStart, PrefillEnd: r.prefillEnd, DecodeSlot: r.decodeStart,
			KVEnd: r.kvEnd, FirstToken: first, DecodeEnd: r.decodeEnd})
	}
}

// stages are r's stages as its gateway, router and workers log them.
func (s *dSim) stages(r *dRequest) []schemas.Stage {
	gw := r.arrive + micros(s.sc.GatewayTime)
	attempt := int32(0)
	prefill, decode := schemas.RolePrefill, schemas.RoleDecode
	p, d := r.p.name, r.d.name
	bytes := r.bytes
	mk := func(stage string, role, rep *string, a, b int64) schemas.Stage {
		return schemas.Stage{RequestID: r.id, Attempt: &attempt, Stage: stage, Role: role, Replica: rep, StartedAt: a, EndedAt: b}
	}
	kv := mk(schemas.StageKVTransfer, &decode, &d, r.decodeStart, r.kvEnd)
	kv.Bytes = &bytes
	return []schemas.Stage{
		mk(schemas.StageGateway, nil, nil, r.arrive, gw),
		mk(schemas.StageRouter, nil, nil, gw, r.routed),
		mk(schemas.StageQueue, &prefill, &p, r.atPrefill, r.prefillStart),
		mk(schemas.StagePrefill, &prefill, &p, r.prefillStart, r.prefillEnd),
		mk(schemas.StageQueue, &decode, &d, r.prefillEnd, r.decodeStart),
		kv,
		mk(schemas.StageDecode, &decode, &d, r.kvEnd, r.decodeEnd),
	}
}

// truth is the run as the simulator saw it, in view: the run extent from
// the view's spans, each request's budget from its stages.
func (s *dSim) truth(seed uint64, view string) DisaggTruth {
	tr := DisaggTruth{Scenario: s.sc.Name, Seed: seed, RunID: s.sc.RunID}
	if len(s.done) == 0 {
		return tr
	}
	queued := func(r *dRequest) int64 { return r.arrive }
	if view == ViewTRTLLM {
		queued = func(r *dRequest) int64 { return r.atPrefill }
	}
	t0, t1 := queued(s.done[0]), s.done[0].decodeEnd
	for _, r := range s.done {
		t0, t1 = min(t0, queued(r)), max(t1, r.decodeEnd)
	}
	tr.RunStart, tr.RunEnd = schemas.Time(t0), schemas.Time(t1)
	secs := float64(t1-t0) / 1e6
	all := make([]dBudget, len(s.done))
	var bytes []float64
	for i, r := range s.done {
		all[i] = s.budget(r, view)
		bytes = append(bytes, float64(r.bytes))
	}
	d := &tr.Disaggregation
	d.Attempts = int64(len(all))
	d.Budget, d.Extent = budgetDists(all)
	// Every view logs every worker's stage and the router's; the gateway's
	// only where the gateway's receipt is known.
	d.Logged = []string{schemas.BudgetRouter, schemas.BudgetPrefillQueue, schemas.BudgetPrefill, schemas.BudgetKVTransfer,
		schemas.BudgetDecodeQueue, schemas.BudgetDecode}
	if view != ViewTRTLLM {
		d.Logged = append([]string{schemas.BudgetGateway}, d.Logged...)
	}
	bp := percentilesOf(bytes, 1)
	d.KVTransferBytes = &bp
	d.Median, d.P95 = pickBudget(all, 0.5), pickBudget(all, 0.95)
	d.Workers = []schemas.WorkerState{}
	for _, pool := range s.pools {
		for _, w := range pool {
			ws := schemas.WorkerState{Replica: w.name, Role: w.role, Cap: int64(w.cap), CapSource: "samples", Attempts: w.acc.attempts,
				GapTime: float64(w.acc.gapUS) / 1e6}
			if secs > 0 {
				u := w.acc.busyUS / 1e6 / secs / float64(w.cap)
				ws.Utilization = &u
				ws.MeanQueue = w.acc.queueUS / 1e6 / secs
			}
			d.Workers = append(d.Workers, ws)
		}
	}
	d.Roles = s.roleStates(&s.run, t1-t0)

	width := s.width()
	first, last := floorDiv(t0, width), floorDiv(t1-1, width)
	byWindow := map[int64][]dBudget{}
	for i, r := range s.done {
		k := min(floorDiv(r.decodeEnd, width), last)
		byWindow[k] = append(byWindow[k], all[i])
	}
	tr.BudgetWindows, tr.RoleWindows = []schemas.BudgetWindow{}, []schemas.RoleWindow{}
	for k := first; k <= last; k++ {
		lo, hi := max(k*width, t0), min((k+1)*width, t1)
		if bs := byWindow[k]; len(bs) > 0 {
			parts, extent := budgetDists(bs)
			tr.BudgetWindows = append(tr.BudgetWindows, schemas.BudgetWindow{WindowStart: schemas.Time(lo), WindowEnd: schemas.Time(hi), Part: "extent", Percentiles: extent})
			for _, name := range schemas.BudgetParts {
				tr.BudgetWindows = append(tr.BudgetWindows, schemas.BudgetWindow{WindowStart: schemas.Time(lo), WindowEnd: schemas.Time(hi), Part: name, Percentiles: parts[name]})
			}
		}
		acc := s.wins[k]
		if acc == nil {
			acc = &dWindow{}
		}
		for _, rs := range s.roleStates(acc, hi-lo) {
			tr.RoleWindows = append(tr.RoleWindows, schemas.RoleWindow{WindowStart: schemas.Time(lo), WindowEnd: schemas.Time(hi), WindowSeconds: float64(hi-lo) / 1e6, RoleState: rs})
		}
	}
	return tr
}

// dBudget is one attempt's latency budget in µs, its parts in the order
// of schemas.BudgetParts.
type dBudget struct {
	id     string
	extent int64
	parts  [8]int64
}

// budget is r's latency budget in view: the hop from the router to the
// prefill worker is what no stage accounts for; TensorRT-LLM's view starts
// at the disaggregated server's receipt, after the gateway.
func (s *dSim) budget(r *dRequest, view string) dBudget {
	gw := micros(s.sc.GatewayTime)
	b := dBudget{id: r.id, extent: r.decodeEnd - r.arrive, parts: [8]int64{
		gw, r.routed - r.arrive - gw,
		r.prefillStart - r.atPrefill, r.prefillEnd - r.prefillStart,
		r.kvEnd - r.decodeStart, r.decodeStart - r.prefillEnd, r.decodeEnd - r.kvEnd,
		r.atPrefill - r.routed,
	}}
	switch view {
	case ViewTRTLLM:
		b.id = strconv.FormatInt(r.num, 10)
		b.extent -= gw
		b.parts[0] = 0
	case ViewJoined:
		b.id = strconv.FormatInt(r.num, 10)
	}
	return b
}

// budgetDists are the distributions of each part and of the extent over bs,
// in seconds.
func budgetDists(bs []dBudget) (map[string]schemas.Percentiles, schemas.Percentiles) {
	parts := map[string]schemas.Percentiles{}
	for k, name := range schemas.BudgetParts {
		vs := make([]float64, len(bs))
		for i, b := range bs {
			vs[i] = float64(b.parts[k])
		}
		parts[name] = percentilesOf(vs, 1e-6)
	}
	ext := make([]float64, len(bs))
	for i, b := range bs {
		ext[i] = float64(b.extent)
	}
	return parts, percentilesOf(ext, 1e-6)
}

// pickBudget is the budget of the attempt whose extent is nearest the
// quantile q of the extents (ties: the lowest id).
func pickBudget(all []dBudget, q float64) schemas.BudgetRequest {
	ext := make([]float64, len(all))
	for i, b := range all {
		ext[i] = float64(b.extent)
	}
	v := quantileCont(slices.Sorted(slices.Values(ext)), q)
	best := slices.MinFunc(all, func(x, y dBudget) int {
		return cmp.Or(cmp.Compare(math.Abs(float64(x.extent)-v), math.Abs(float64(y.extent)-v)), cmp.Compare(x.id, y.id))
	})
	br := schemas.BudgetRequest{RequestID: best.id, Extent: float64(best.extent) / 1e6, Parts: map[string]float64{}}
	for k, name := range schemas.BudgetParts {
		br.Parts[name] = float64(best.parts[k]) / 1e6
	}
	return br
}

// roleStates are the roles' states from acc over a span of us µs.
func (s *dSim) roleStates(acc *dWindow, us int64) []schemas.RoleState {
	secs := float64(us) / 1e6
	var out []schemas.RoleState
	for k, pool := range s.pools {
		ra := acc.roles[k]
		slots := int64(0)
		for _, w := range pool {
			slots += int64(w.cap)
		}
		rs := schemas.RoleState{Role: pool[0].role, Workers: int64(len(pool)), Slots: slots,
			GapTime: float64(ra.gapUS) / 1e6, HeldTime: float64(ra.heldUS) / 1e6, RouterTime: float64(ra.routerUS) / 1e6,
			BacklogOtherFree: float64(acc.cross[k]) / 1e6}
		if secs > 0 {
			u := ra.busyUS / 1e6 / secs / float64(slots)
			rs.Utilization = &u
			rs.MeanQueue = ra.queueUS / 1e6 / secs
			rs.GapFraction = rs.GapTime / secs
			rs.HeldFraction = rs.HeldTime / secs
			rs.RouterShare = rs.RouterTime / secs
			rs.IdleFraction = float64(us-ra.activeUS) / 1e6 / secs
			rs.BacklogOtherFreeFraction = rs.BacklogOtherFree / secs
		}
		out = append(out, rs)
	}
	return out
}

// percentilesOf is the percentile object of vs (quantile_cont), each value
// scaled by scale.
func percentilesOf(vs []float64, scale float64) schemas.Percentiles {
	p := schemas.Percentiles{N: int64(len(vs))}
	if len(vs) == 0 {
		return p
	}
	sorted := slices.Sorted(slices.Values(vs))
	f := func(v float64) *float64 { v *= scale; return &v }
	p.P50, p.P90 = f(quantileCont(sorted, 0.5)), f(quantileCont(sorted, 0.9))
	p.P95, p.P99 = f(quantileCont(sorted, 0.95)), f(quantileCont(sorted, 0.99))
	sum := 0.0
	for _, v := range sorted {
		sum += v
	}
	p.Mean, p.Max = f(sum/float64(len(sorted))), f(sorted[len(sorted)-1])
	return p
}

// quantileCont is DuckDB's quantile_cont of sorted: linear between the
// values at the ranks around (n−1)·q.
func quantileCont(sorted []float64, q float64) float64 {
	rn := float64(len(sorted)-1) * q
	lo, hi := math.Floor(rn), math.Ceil(rn)
	if lo == hi {
		return sorted[int(lo)]
	}
	d := rn - lo
	return sorted[int(lo)]*(1-d) + sorted[int(hi)]*d
}
