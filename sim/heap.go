package sim

// Event kinds.
const (
	evArrival     uint8 = iota // next arrival of the Poisson process
	evStall                    // an admission stall starts or ends
	evSample                   // engine stats of every replica
	evFirstToken               // an attempt's prefill ends
	evRelease                  // an attempt's release delay ends
	evDeadline                 // an attempt's client timeout
	evLaunch                   // a request's retry or hedge starts
	evDecode                   // a replica's next stream completes
	evEngineStall              // a replica's engine pause starts or ends
)

// event is a scheduled instant. Events live inside the objects they belong to
// (an attempt's deadline, a replica's next completion), so scheduling allocates
// nothing; pos is the position in the heap + 1, 0 when not scheduled.
type event struct {
	at   int64
	seq  uint64
	pos  int
	kind uint8
	late bool // at one instant, after every other event (stats see the settled state)
	att  *attempt
	req  *request
	rep  *replica
}

func (e *event) scheduled() bool { return e.pos != 0 }

// eventHeap orders events by (at, late, seq): in time, and at one instant in the
// order they were scheduled, which makes a run deterministic.
type eventHeap struct {
	h   []*event
	seq uint64
}

func (q *eventHeap) less(a, b *event) bool {
	if a.at != b.at {
		return a.at < b.at
	}
	if a.late != b.late {
		return b.late
	}
	return a.seq < b.seq
}

func (q *eventHeap) len() int { return len(q.h) }

// schedule (re)schedules e at instant at.
func (q *eventHeap) schedule(e *event, at int64) {
	q.seq++
	e.at, e.seq = at, q.seq
	if e.pos != 0 {
		i := e.pos - 1
		if !q.down(i) {
			q.up(i)
		}
		return
	}
	q.h = append(q.h, e)
	e.pos = len(q.h)
	q.up(len(q.h) - 1)
}

// cancel removes e if it is scheduled.
func (q *eventHeap) cancel(e *event) {
	if e.pos == 0 {
		return
	}
	i := e.pos - 1
	n := len(q.h) - 1
	if i != n {
		q.swap(i, n)
	}
	q.h[n] = nil
	q.h = q.h[:n]
	e.pos = 0
	if i != n {
		if !q.down(i) {
			q.up(i)
		}
	}
}

// pop removes and returns the earliest event.
func (q *eventHeap) pop() *event {
	e := q.h[0]
	q.cancel(e)
	return e
}

func (q *eventHeap) swap(i, j int) {
	q.h[i], q.h[j] = q.h[j], q.h[i]
	q.h[i].pos = i + 1
	q.h[j].pos = j + 1
}

func (q *eventHeap) up(j int) {
	for j > 0 {
		i := (j - 1) / 2
		if !q.less(q.h[j], q.h[i]) {
			break
		}
		q.swap(i, j)
		j = i
	}
}

func (q *eventHeap) down(i0 int) bool {
	i, n := i0, len(q.h)
	for {
		l := 2*i + 1
		if l >= n {
			break
		}
		j := l
		if r := l + 1; r < n && q.less(q.h[r], q.h[l]) {
			j = r
		}
		if !q.less(q.h[j], q.h[i]) {
			break
		}
		q.swap(i, j)
		i = j
	}
	return i > i0
}

// decodeHeap holds the decoding streams of one replica ordered by the virtual
// time of their last token (ties by attempt serial number).
type decodeHeap []*attempt

func (h decodeHeap) less(a, b *attempt) bool {
	if a.vEnd != b.vEnd {
		return a.vEnd < b.vEnd
	}
	return a.serial < b.serial
}

func (h *decodeHeap) push(a *attempt) {
	*h = append(*h, a)
	a.dpos = len(*h)
	h.up(len(*h) - 1)
}

func (h *decodeHeap) remove(a *attempt) {
	if a.dpos == 0 {
		return
	}
	s := *h
	i, n := a.dpos-1, len(s)-1
	if i != n {
		h.swap(i, n)
	}
	s[n] = nil
	*h = s[:n]
	a.dpos = 0
	if i != n {
		if !h.down(i) {
			h.up(i)
		}
	}
}

func (h decodeHeap) swap(i, j int) {
	h[i], h[j] = h[j], h[i]
	h[i].dpos = i + 1
	h[j].dpos = j + 1
}

func (h decodeHeap) up(j int) {
	for j > 0 {
		i := (j - 1) / 2
		if !h.less(h[j], h[i]) {
			break
		}
		h.swap(i, j)
		j = i
	}
}

func (h decodeHeap) down(i0 int) bool {
	i, n := i0, len(h)
	for {
		l := 2*i + 1
		if l >= n {
			break
		}
		j := l
		if r := l + 1; r < n && h.less(h[r], h[l]) {
			j = r
		}
		if !h.less(h[j], h[i]) {
			break
		}
		h.swap(i, j)
		i = j
	}
	return i > i0
}
