package ingest

import (
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strings"

	"github.com/tpsreport/tpsreport/ingest/internal/scan"
	"github.com/tpsreport/tpsreport/schemas"
)

// SGLang's disaggregated workers log each finished request's stages with
// --enable-request-time-stats-logging, one INFO line per request and worker
// (schemas/formats/sglang.md "Disaggregated serving"):
//
//	Req Time Stats(rid=…, bootstrap_room=N, input len=…, output len=…, type=prefill): bootstrap_queue_duration(12.50ms) = bootstrap(10.00ms) + alloc_wait(2.50ms); queue_duration=1.20ms, forward_duration=85.30ms, start=12345.678, transfer_speed=21.40GB/s, transfer_total=64.00MB, #retries=0
//	Req Time Stats(rid=…, bootstrap_room=N, input len=…, output len=…, type=decode): prealloc_queue_duration(11.00ms) transfer_duration=30.10ms; queue_duration=0.40ms, forward_duration=2100.00ms, start=2345.111
//
// (python/sglang/srt/observability/req_time_stats.py, SchedulerReqTimeStats;
// older releases wrote the same durations as bootstrap_duration=,
// prealloc_duration= and start_time=, and a breakdown with other(…)). The
// durations are in ms; start is the scheduler's time.perf_counter() in
// seconds: a monotonic clock of the host, not the wall clock. So a line's
// stages are first placed on that clock, and the clock's offset from the
// wall clock is estimated from the lines' own stamps (to the second): each
// line is written when its request completes, so the offset lies in
// [stamp − completion, stamp + 1 s − completion) for every line of one
// host (widened by the values' rounding); the estimate is the middle of the intersection of those intervals
// over the first sglangSettleLines lines of each worker (the upper bound
// alone when a late line puts the lower bound past it). With n lines at
// random points of their seconds, the estimate is good to about 1 s / n.
//
// A line of type unified (aggregated serving) gives no stage. The stages'
// request_id is the bootstrap room, which the prefill and the decode line
// of a request share (each worker names the request by its own rid); the
// replica is the worker as its samples name it, or, for a log without a
// compose or Ray prefix, the log file's name without its extension.

// sglangSettleLines is how many request-time-stats lines of one worker are
// held to estimate its clock's offset before any of its stages is given.
const sglangSettleLines = 1 << 14

// sglangMaxValue bounds a duration or start (µs, about a century): the
// sum of a line's values, and so its stages' instants, stays far from
// overflow.
const sglangMaxValue = 1 << 52

// sglangStat is one value of a stats line: its name and its µs (or, for
// values not read, nothing).
type sglangStat struct {
	name string
	v    int64
	half int64 // half the last digit's unit, µs: how far rounding may have moved v
}

// sglangHalfUnit is half the unit of num's last digit, in µs, for a value
// scaled by 10^scale to µs: "12.50" ms is within 5 µs of what SGLang
// measured, "2345.111" s within 500 µs.
func sglangHalfUnit(num string, scale int) int64 {
	decimals := 0
	if _, frac, ok := strings.Cut(num, "."); ok {
		decimals = len(frac)
	}
	h := int64(1)
	for range max(scale-decimals, 0) {
		h *= 10
	}
	return h / 2
}

// sglangStatsFields calls f with each "name=value[unit]" and
// "name(value[unit])" of a stats line's suffix, in order, until f returns
// false: name is [#]letters and underscores, value a decimal number
// (-?digits[.digits][e±digits]), unit "ms", "GB/s" or "MB" when one follows;
// at is value's offset. A name followed by neither '=' nor '(' and a number
// is passed over.
func sglangStatsFields(s string, f func(name, num, unit string, at int) bool) {
	isLetter := func(c byte) bool { return c == '_' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' }
	isDigit := func(c byte) bool { return '0' <= c && c <= '9' }
	for i := 0; i < len(s); {
		start := i
		if s[i] == '#' {
			i++
		}
		j := i
		for j < len(s) && isLetter(s[j]) {
			j++
		}
		if j == i {
			i = start + 1
			continue
		}
		name := s[start:j]
		if j >= len(s) || s[j] != '=' && s[j] != '(' {
			i = j
			continue
		}
		k := j + 1
		if k < len(s) && s[k] == '-' {
			k++
		}
		d := k
		for k < len(s) && isDigit(s[k]) {
			k++
		}
		if k == d {
			i = j
			continue
		}
		if k < len(s) && s[k] == '.' {
			for k++; k < len(s) && isDigit(s[k]); k++ {
			}
		}
		if k+1 < len(s) && (s[k] == 'e' || s[k] == 'E') {
			e := k + 1
			if s[e] == '-' || s[e] == '+' {
				e++
			}
			if e < len(s) && isDigit(s[e]) {
				for k = e; k < len(s) && isDigit(s[k]); k++ {
				}
			}
		}
		num, unit := s[j+1:k], ""
		for _, u := range []string{"ms", "GB/s", "MB"} {
			if strings.HasPrefix(s[k:], u) {
				unit = u
				k += len(u)
				break
			}
		}
		if !f(name, num, unit, j+1) {
			return
		}
		i = k
	}
}

// sglangTimed is one request-time-stats line, its stages on the worker's
// monotonic clock (µs) until its offset is known.
type sglangTimed struct {
	line    int64
	replica string
	id      string
	role    string
	end     int64   // completion on the monotonic clock
	stamp   int64   // the line's stamp, µs since the epoch (to the second)
	slack   int64   // how far rounding of the logged values may have moved end
	stages  []int64 // boundaries: stage k runs from stages[k] to stages[k+1]
	kinds   []string
}

// reqStats reads a "Req Time Stats(…)" line into r.timed: the stages come
// out of Next once the worker's clock offset is known.
func (r *sglangLogReader) reqStats(msg string, pos int, ts int64, replica string, rec *Record) error {
	head, suffix, ok := strings.Cut(msg, "): ")
	if !ok {
		return scan.Errorf(ErrBadValue, pos, "Req Time Stats: no \"): \" before its durations")
	}
	head = strings.TrimPrefix(head, "Req Time Stats(")
	var rid, room, typ string
	for f := range strings.SplitSeq(head, ", ") {
		k, v, _ := strings.Cut(f, "=")
		switch k {
		case "rid":
			rid = v
		case "bootstrap_room":
			room = v
		case "type":
			typ = v
		}
	}
	switch typ {
	case "unified":
		rec.Kind, rec.Skip = KindSkip, SkipUnusedLine // aggregated serving: the request's span says it all
		return nil
	case "prefill", "decode":
	default:
		return scan.Errorf(ErrBadValue, pos, "Req Time Stats: type %q: want prefill, decode or unified", typ)
	}
	id := room
	if id == "" || id == "None" {
		id = rid
	}
	if id == "" {
		return scan.Errorf(ErrMissingField, pos, "Req Time Stats: neither bootstrap_room nor rid")
	}
	vals := r.statsVals[:0]
	suffixPos := pos + len(msg) - len(suffix)
	var bad error
	sglangStatsFields(suffix, func(name, num, unit string, at int) bool {
		scale := 0
		switch {
		case unit == "ms":
			scale = 3
		case name == "start" || name == "start_time":
			scale = 6
		default:
			return true // transfer_speed, transfer_total, #retries: not read
		}
		v, _, ok := scan.ScaleDecimal([]byte(num), scale)
		if !ok || v < 0 || v > sglangMaxValue {
			bad = scan.Errorf(ErrBadValue, suffixPos+at, "Req Time Stats: %s: %q is not a duration", name, num)
			return false
		}
		vals = append(vals, sglangStat{name, v, sglangHalfUnit(num, scale)})
		return true
	})
	r.statsVals = vals
	if bad != nil {
		return bad
	}
	var slack int64 // how far the values' rounding may have moved the completion
	need := func(names ...string) (int64, error) {
		for _, n := range names {
			for _, kv := range vals { // the first of a name counts
				if kv.name == n {
					slack += kv.half
					return kv.v, nil
				}
			}
		}
		return 0, scan.Errorf(ErrMissingField, suffixPos, "Req Time Stats (type=%s): missing %s", typ, names[0])
	}
	var parts []int64
	var kinds []string
	var names [][]string
	if typ == "prefill" {
		names = [][]string{{"start", "start_time"}, {"bootstrap_queue_duration", "bootstrap_duration"}, {"queue_duration"}, {"forward_duration"}}
		kinds = []string{schemas.StageQueue, schemas.StageQueue, schemas.StagePrefill}
	} else {
		names = [][]string{{"start", "start_time"}, {"prealloc_queue_duration", "prealloc_duration"}, {"transfer_duration"}, {"queue_duration"}, {"forward_duration"}}
		kinds = []string{schemas.StageQueue, schemas.StageKVTransfer, schemas.StageQueue, schemas.StageDecode}
	}
	for _, n := range names {
		v, err := need(n...)
		if err != nil {
			return err
		}
		parts = append(parts, v)
	}
	// Boundaries on the monotonic clock: start, then each duration added.
	bounds := make([]int64, len(parts))
	bounds[0] = parts[0]
	for k := 1; k < len(parts); k++ {
		bounds[k] = bounds[k-1] + parts[k]
	}
	if typ == "prefill" {
		// The bootstrap queue and the wait queue are both the prefill
		// worker's queue: one stage.
		bounds = []int64{bounds[0], bounds[2], bounds[3]}
		kinds = kinds[1:]
	}
	if replica == "" {
		replica = strings.TrimSuffix(filepath.Base(r.name), filepath.Ext(r.name))
		for _, ext := range []string{".log", ".txt"} {
			replica = strings.TrimSuffix(replica, ext)
		}
	}
	r.timed = &sglangTimed{line: rec.Line, replica: replica, id: id, role: typ, end: bounds[len(bounds)-1],
		stamp: ts, slack: slack, stages: bounds, kinds: kinds}
	return nil
}

// sglangOffset estimates a worker's clock offset (wall − monotonic, µs)
// from its lines: the middle of [max lower, min upper], where a line
// stamped s (to the second) that completed at c on the monotonic clock
// bounds the offset to [s − c, s + 1 s − c), each bound widened by how far
// the logged values' rounding may have moved c (start to the ms,
// durations to 10 µs). It returns the estimate, the half-width of the
// interval, and false when the bounds still cross (a line written late,
// or a clock that stepped): then the estimate is the upper bound and the
// width how far they cross.
func sglangOffset(ts []*sglangTimed) (off, within int64, ok bool) {
	lo, hi := int64(-1<<62), int64(1<<62)
	for _, t := range ts {
		lo = max(lo, t.stamp-t.end-t.slack)
		hi = min(hi, t.stamp+1_000_000-t.end+t.slack)
	}
	if lo > hi {
		return hi, lo - hi, false
	}
	return lo + (hi-lo)/2, (hi - lo) / 2, true
}

// settle fixes the clock offset of the worker rep from its held lines, or
// of every worker with held lines when rep is "", and queues their stages.
func (r *sglangLogReader) settle(rep string) {
	for _, name := range slices.Sorted(maps.Keys(r.pending)) {
		if rep != "" && name != rep {
			continue
		}
		ts := r.pending[name]
		off, within, ok := sglangOffset(ts)
		r.offsets[name] = off
		if ok {
			r.clockNotes = append(r.clockNotes, fmt.Sprintf("%s: worker %q: its Req Time Stats times (the scheduler's monotonic clock) are placed on the wall clock by the stamps of %d of its lines, to ±%.1f ms",
				r.name, name, len(ts), float64(within)/1e3))
		} else {
			r.clockNotes = append(r.clockNotes, fmt.Sprintf("%s: worker %q: the stamps of its %d Req Time Stats lines disagree with its monotonic clock by %.1f ms (a line written late, or a clock that stepped): its times are placed by the earliest stamp's bound",
				r.name, name, len(ts), float64(within)/1e3))
		}
		for _, t := range ts {
			r.queueStages(t)
		}
		delete(r.pending, name)
	}
}

// queueStages queues t's stages on the wall clock.
func (r *sglangLogReader) queueStages(t *sglangTimed) {
	off := r.offsets[t.replica]
	role := r.str(t.role)
	rep := r.str(t.replica)
	for k, kind := range t.kinds {
		r.queue = append(r.queue, Record{Kind: KindStage, Line: t.line, Stage: schemas.Stage{Source: SourceSGLangLog,
			RequestID: t.id, Stage: kind, Role: role, Replica: rep, StartedAt: t.stages[k] + off, EndedAt: t.stages[k+1] + off}})
	}
}

// Next implements Reader: a request-time-stats line's stages wait until its
// worker's clock offset is known (sglangSettleLines of its lines, or the
// input's end); every other line's record comes out in its turn.
func (r *sglangLogReader) Next() bool {
	for {
		if r.qi < len(r.queue) {
			r.lineReader.rec = r.queue[r.qi]
			r.queue[r.qi] = Record{}
			r.qi++
			return true
		}
		r.queue, r.qi = r.queue[:0], 0
		if !r.lineReader.Next() {
			if len(r.pending) == 0 {
				return false
			}
			r.settle("")
			continue
		}
		t := r.timed
		if t == nil {
			return true
		}
		r.timed = nil
		if r.lineReader.rec.Kind == KindReject {
			return true
		}
		if _, ok := r.offsets[t.replica]; ok {
			r.queueStages(t)
			continue
		}
		r.pending[t.replica] = append(r.pending[t.replica], t)
		if len(r.pending[t.replica]) >= sglangSettleLines {
			r.settle(t.replica)
		}
	}
}

// notices implements noticer: how each worker's clock was placed.
func (r *sglangLogReader) notices() []string { return r.clockNotes }
