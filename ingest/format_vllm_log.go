package ingest

import (
	"bytes"
	"encoding/json"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/tpsreport/tpsreport/ingest/internal/scan"
	"github.com/tpsreport/tpsreport/schemas"
)

// The vllm-log format is what a vLLM server prints, as text or as JSON lines,
// from v0.2 to today (schemas/formats/vllm.md has the full mapping):
//
//   - every periodic stats line becomes a sample: V0 "Avg prompt throughput:
//     ..., Running: N reqs, Swapped: N reqs, Pending: N reqs, GPU KV cache
//     usage: X%, CPU KV cache usage: Y%" (with or without a final period),
//     early V1 "... Running: N reqs, Waiting: N reqs, GPU KV cache usage:
//     X%, Prefix cache hit rate: Y%" and V1 "Engine 000: ..." with optional
//     Preemptions, Deferred and later fields; in_flight = Running,
//     queue_depth = Waiting or Pending, kv_cache_usage = X/100;
//   - the startup arguments (args: Namespace(... max_num_seqs=N ...) and
//     non-default args: {... 'max_num_seqs': N ...}) become a cap record,
//     and every later sample carries that cap;
//   - request lines (Received/Added, then Finished/Aborted request ID)
//     become spans at the one-second resolution of vLLM's stamps.
//
// Every other line is skipped. Prompt text, which the request logger prints,
// is never read beyond the request id.
//
// Lines arrive wrapped: ANSI colours and carriage returns are removed, and
// an outer prefix before vLLM's own "LEVEL MM-DD HH:MM:SS [file.py:N]" header
// is tolerated: docker compose "name  | ", docker/kubectl RFC 3339 stamps,
// journald and syslog "host unit[pid]: ", Ray and V1 process tags such as
// "(APIServer pid=1)". Docker's json-file lines ({"log": ..., "time": ...})
// and python-json-logger lines ({"message": ..., "asctime": ...}) are read
// too.

// SourceVLLMLog is the source column of spans and samples read from vLLM's
// server log.
const SourceVLLMLog = "vllm-log"

// vLLM's own time stamps have neither a year nor a zone ("03-17 15:38:10",
// the server's local time). When a line carries an outer RFC 3339 stamp
// (docker logs -t, kubectl logs --timestamps, journalctl -o short-iso,
// docker's json-file "time"), the year and the UTC offset come from it: the
// offset is the difference between vLLM's local stamp and the outer UTC
// instant, rounded to 15 minutes. The last offset seen also applies to later
// lines without an outer stamp. Otherwise Input.Year and Input.Zone (--year,
// --tz) apply: the year is that of the first stamp, and later stamps roll
// over to the next year when they fall more than a week before the previous
// one (December to January); year 0 is the current year in the zone at
// ingest. The zone defaults to UTC, as in containers.

// vllmLogReader reads the vllm-log format.
type vllmLogReader struct {
	*lineReader
	zone *time.Location // of vLLM's stamps without an outer one

	buf      []byte // the current line without ANSI escapes and '\r'
	jsonMode bool   // the first non-blank line was a JSON object
	decided  bool

	year      int   // year of stamps read without an outer stamp
	lastUs    int64 // the previous stamp, for the year rollover
	haveLast  bool
	offset    int64 // seconds east of UTC learnt from the last outer stamp
	hasOffset bool

	maxNumSeqs int64 // from the startup arguments; 0 = unknown
	open       map[string]int64
	arena      scan.Arena
	intern     scan.Interner
}

var _ Reader = (*vllmLogReader)(nil)

// Next implements Reader. A rejected request line keeps only what comes
// before its prompt, which must not reach rejects.jsonl either.
func (r *vllmLogReader) Next() bool {
	if !r.lineReader.Next() {
		return false
	}
	if rec := &r.rec; rec.Kind == KindReject {
		if i := bytes.Index(rec.Raw, []byte("prompt")); i >= 0 {
			rec.Raw = append(rec.Raw[:i:i], "[removed]"...)
		}
	}
	return true
}

// vllmMaxOpenRequests bounds the requests remembered between their Received and
// Finished lines; beyond it new arrivals are not tracked (their Finished
// line then gives a span without queued_at).
const vllmMaxOpenRequests = 1 << 20

func newVLLMLogReader(in Input) Reader {
	r := &vllmLogReader{zone: in.Zone, year: in.Year, open: map[string]int64{}}
	if r.zone == nil {
		r.zone = time.UTC
	}
	if r.year == 0 {
		r.year = time.Now().In(r.zone).Year()
	}
	r.lineReader = newLineReader(in, r.decodeLine)
	return r
}

// vllmHeader matches vLLM's own header, "INFO 03-17 15:38:10 [loggers.py:259] "
// (V0 wrote "metrics.py:161] " without the bracket).
var vllmHeader = regexp.MustCompile(`(?:^|[\s|:\])>])(DEBUG|INFO|WARNING|WARN|ERROR|CRITICAL) (\d\d)-(\d\d) (\d\d):(\d\d):(\d\d)(?:[.,]\d+)? \[?[^\s\]]*:\d+\] ?`)

var (
	vllmComposePrefix = regexp.MustCompile(`^([A-Za-z0-9][A-Za-z0-9_.-]*)\s+\| ?`)
	vllmSyslogHost    = regexp.MustCompile(`^(?:[A-Z][a-z]{2} +\d{1,2} \d\d:\d\d:\d\d|\d{4}-\d\d-\d\d[Tt ][0-9:.]+(?:[Zz]|[+-]\d\d:?\d\d)) (\S+) [^\s\[:]+(?:\[\d+\])?:(?: |$)`)
)

// vllmStripANSI removes ANSI escape sequences and carriage returns from line
// into dst.
func vllmStripANSI(dst, line []byte) []byte {
	dst = dst[:0]
	for i := 0; i < len(line); i++ {
		c := line[i]
		switch {
		case c == '\r':
		case c == 0x1b && i+1 < len(line) && line[i+1] == '[':
			j := i + 2
			for j < len(line) && (line[j] < 0x40 || line[j] > 0x7e) {
				j++
			}
			i = j // skip the final byte too
		default:
			dst = append(dst, c)
		}
	}
	return dst
}

func (r *vllmLogReader) decodeLine(raw []byte, rec *Record) error {
	r.buf = vllmStripANSI(r.buf, raw)
	line := bytes.TrimSpace(r.buf)
	if len(line) == 0 {
		rec.Kind, rec.Skip = KindSkip, SkipBlank
		return nil
	}
	if !r.decided {
		r.decided = true
		r.jsonMode = line[0] == '{' && json.Valid(line)
	}
	if line[0] == '{' {
		return r.decodeJSON(line, rec)
	}
	return r.decodeText(string(line), "", rec)
}

// decodeText reads one text line. outerTS is an RFC 3339 stamp given beside
// the line (docker's json-file "time"), or "".
func (r *vllmLogReader) decodeText(line, outerTS string, rec *Record) error {
	m := vllmHeader.FindStringSubmatchIndex(line)
	if m == nil {
		rec.Kind, rec.Skip = KindSkip, SkipUnusedLine
		return nil
	}
	prefix := line[:m[2]]
	msg := line[m[1]:]
	kind := classifyVLLMMessage(msg)
	if kind == vllmMsgNone {
		rec.Kind, rec.Skip = KindSkip, SkipUnusedLine
		return nil
	}
	replica, outerUs, hasOuter, err := vllmOuterPrefix(prefix, outerTS)
	if err != nil {
		return err
	}
	num := func(i int) int64 { v, _ := scan.Digits([]byte(line[m[2*i]:m[2*i+1]])); return v }
	ts, err := r.stamp(num(2), num(3), num(4), num(5), num(6), 0, outerUs, hasOuter, m[4])
	if err != nil {
		return err
	}
	return r.message(kind, msg, m[1], ts, replica, rec)
}

// vllmOuterPrefix reads what a wrapper put before vLLM's header: the
// replica (a docker compose service, or a journald/syslog host) and an RFC
// 3339 stamp.
func vllmOuterPrefix(prefix, outerTS string) (replica string, us int64, ok bool, err error) {
	p := strings.TrimSpace(prefix)
	if m := vllmComposePrefix.FindStringSubmatch(p); m != nil {
		replica = m[1]
		p = strings.TrimSpace(p[len(m[0]):])
	}
	if m := vllmSyslogHost.FindStringSubmatch(p); m != nil && replica == "" {
		replica = m[1]
	}
	if outerTS != "" {
		if v, e := scan.ParseRFC3339([]byte(outerTS)); e == nil {
			return replica, v, true, nil
		}
	}
	for _, tok := range strings.Fields(p) {
		if len(tok) < 20 || tok[4] != '-' || tok[7] != '-' {
			continue
		}
		if v, e := scan.ParseRFC3339([]byte(vllmColonOffset(tok))); e == nil {
			return replica, v, true, nil
		}
	}
	return replica, 0, false, nil
}

// vllmColonOffset turns journald's "+0000" offset into RFC 3339's "+00:00".
func vllmColonOffset(s string) string {
	n := len(s)
	if n > 5 && (s[n-5] == '+' || s[n-5] == '-') && s[n-3] != ':' {
		return s[:n-2] + ":" + s[n-2:]
	}
	return s
}

// stamp resolves vLLM's local "MM-DD HH:MM:SS" stamp to a UTC instant in
// microseconds, with the year and zone the format's comment describes. frac
// is the fraction in µs (JSON asctime may have milliseconds). pos is the
// stamp's offset in the line.
func (r *vllmLogReader) stamp(mon, day, hh, mm, ss, frac, outerUs int64, hasOuter bool, pos int) (int64, error) {
	bad := func(what string) error {
		return scan.Errorf(ErrBadTimestamp, pos, "invalid vLLM time stamp \"%02d-%02d %02d:%02d:%02d\": %s", mon, day, hh, mm, ss, what)
	}
	switch {
	case mon < 1 || mon > 12:
		return 0, bad("month out of range")
	case day < 1 || day > 31:
		return 0, bad("day out of range")
	case hh > 23:
		return 0, bad("hour out of range")
	case mm > 59:
		return 0, bad("minute out of range")
	case ss > 59:
		return 0, bad("second out of range")
	}
	localAsUTC := func(year int64) (int64, bool) {
		if day > scan.DaysIn(year, mon) {
			return 0, false
		}
		return (scan.DaysFromCivil(year, mon, day)*86400+hh*3600+mm*60+ss)*1_000_000 + frac, true
	}
	if hasOuter {
		y := schemas.Time(outerUs).Year()
		best, bestDiff, found := int64(0), int64(0), false
		for _, yy := range []int64{int64(y) - 1, int64(y), int64(y) + 1} {
			v, ok := localAsUTC(yy)
			if !ok {
				continue
			}
			d := v - outerUs
			if d < 0 {
				d = -d
			}
			if !found || d < bestDiff {
				best, bestDiff, found = v, d, true
			}
		}
		if !found {
			return 0, bad("day out of range")
		}
		const quarter = 900 * 1_000_000
		off := scan.DivRound(best-outerUs, quarter) * 900 // seconds east of UTC
		if off >= -14*3600 && off <= 14*3600 {
			r.offset, r.hasOffset = off, true
			us := best - off*1_000_000
			r.year = schemas.Time(us + off*1_000_000).Year()
			r.lastUs, r.haveLast = us, true
			return us, nil
		}
		// The stamps disagree by more than any zone: keep the outer instant's
		// year, fall through to the zone rules.
	}
	year := int64(r.year)
	resolve := func(year int64) (int64, bool) {
		if r.hasOffset {
			v, ok := localAsUTC(year)
			return v - r.offset*1_000_000, ok
		}
		if day > scan.DaysIn(year, mon) {
			return 0, false
		}
		t := time.Date(int(year), time.Month(mon), int(day), int(hh), int(mm), int(ss), int(frac)*1000, r.zone)
		return schemas.Micros(t), true
	}
	us, ok := resolve(year)
	if ok && r.haveLast && us < r.lastUs-7*86400*1_000_000 {
		// December to January: the stamp went back by more than a week.
		if v, ok2 := resolve(year + 1); ok2 {
			us, year = v, year+1
		}
	}
	if !ok {
		return 0, bad("day out of range for " + strconv.FormatInt(year, 10))
	}
	r.year = int(year)
	r.lastUs, r.haveLast = us, true
	return us, nil
}

// vllmMsg is the kind of a vLLM log message this format uses.
type vllmMsg uint8

const (
	vllmMsgNone vllmMsg = iota
	vllmMsgStats
	vllmMsgArgs
	vllmMsgReceived
	vllmMsgAdded
	vllmMsgFinished
	vllmMsgAborted
)

func classifyVLLMMessage(msg string) vllmMsg {
	switch {
	case strings.HasPrefix(msg, "Received request "):
		return vllmMsgReceived
	case strings.HasPrefix(msg, "Added request "):
		return vllmMsgAdded
	case strings.HasPrefix(msg, "Finished request "):
		return vllmMsgFinished
	case strings.HasPrefix(msg, "Aborted request"):
		return vllmMsgAborted
	case strings.HasPrefix(msg, "args: Namespace(") || strings.HasPrefix(msg, "non-default args: {"):
		return vllmMsgArgs
	case strings.Contains(msg, "Running: ") && strings.Contains(msg, " reqs") &&
		(strings.Contains(msg, "Waiting: ") || strings.Contains(msg, "Pending: ")):
		return vllmMsgStats
	}
	return vllmMsgNone
}

// message turns a classified message at instant ts into rec. pos is the
// message's offset in the line, for error columns.
func (r *vllmLogReader) message(kind vllmMsg, msg string, pos int, ts int64, replica string, rec *Record) error {
	switch kind {
	case vllmMsgStats:
		return r.stats(msg, pos, ts, replica, rec)
	case vllmMsgArgs:
		return r.args(msg, pos, replica, rec)
	default:
		return r.request(kind, msg, pos, ts, replica, rec)
	}
}

var (
	vllmEngineTag     = regexp.MustCompile(`^Engine (\d+): `)
	vllmAggregatedTag = regexp.MustCompile(`^(\d+) Engines Aggregated: `)
)

// stats reads a periodic stats line into a sample.
func (r *vllmLogReader) stats(msg string, pos int, ts int64, replica string, rec *Record) error {
	engine, engines := "", int64(1)
	if m := vllmEngineTag.FindStringSubmatch(msg); m != nil {
		engine = m[1]
		msg, pos = msg[len(m[0]):], pos+len(m[0])
	} else if m := vllmAggregatedTag.FindStringSubmatch(msg); m != nil {
		engines, _ = strconv.ParseInt(m[1], 10, 64)
		engine = "aggregated"
		msg, pos = msg[len(m[0]):], pos+len(m[0])
	}
	body := strings.TrimRight(msg, ". ")
	var running, waiting *int32
	var kv, hit *float64
	off := pos
	for part := range strings.SplitSeq(body, ", ") {
		at := off
		off += len(part) + 2
		key, val, ok := strings.Cut(part, ": ")
		if !ok {
			continue
		}
		val = strings.TrimSpace(val)
		switch key {
		case "Running", "Waiting", "Pending":
			n, ok := strings.CutSuffix(val, " reqs")
			v, err := strconv.ParseInt(n, 10, 32)
			if !ok || err != nil || v < 0 {
				return scan.Errorf(ErrBadValue, at, "stats line: %s: %q is not a request count", key, val)
			}
			if key == "Running" {
				running = r.arena.Int32(int32(v))
			} else {
				waiting = r.arena.Int32(int32(v))
			}
		case "GPU KV cache usage", "KV cache usage":
			if val == "n/a" {
				continue
			}
			v, ok := statsPercent(val)
			if !ok {
				return scan.Errorf(ErrBadValue, at, "stats line: %s: %q is not a percentage", key, val)
			}
			kv = r.float(v)
		case "Prefix cache hit rate":
			// V1: "Prefix cache hit rate: 45.3%"; V0: "... rate: GPU: 45.3%, CPU: 0.0%".
			v, ok := statsPercent(strings.TrimPrefix(val, "GPU: "))
			if !ok {
				return scan.Errorf(ErrBadValue, at, "stats line: %s: %q is not a percentage", key, val)
			}
			hit = r.float(min(v, 1))
		}
	}
	if running == nil || waiting == nil {
		return scan.Errorf(ErrMissingField, pos, "stats line without Running and Waiting/Pending counts")
	}
	rec.Kind = KindSample
	rec.Sample = schemas.Sample{
		Source: SourceVLLMLog, TS: ts,
		InFlight: running, QueueDepth: waiting, KVCacheUsage: kv, PrefixCacheHitRate: hit,
		Replica: r.str(vllmEngineReplica(replica, engine)),
	}
	if r.maxNumSeqs > 0 && r.maxNumSeqs*engines <= 1<<31-1 {
		rec.Sample.Cap = r.arena.Int32(int32(r.maxNumSeqs * engines))
	}
	return nil
}

var (
	vllmNamespaceSeqs  = regexp.MustCompile(`[(,\s]max_num_seqs=(None|-?\d+)`)
	vllmNonDefaultSeqs = regexp.MustCompile(`'max_num_seqs': (None|-?\d+)`)
)

// args reads the startup arguments for max_num_seqs.
func (r *vllmLogReader) args(msg string, pos int, replica string, rec *Record) error {
	re := vllmNamespaceSeqs
	if strings.HasPrefix(msg, "non-default") {
		re = vllmNonDefaultSeqs
	}
	m := re.FindStringSubmatchIndex(msg)
	if m == nil || msg[m[2]:m[3]] == "None" {
		rec.Kind, rec.Skip = KindSkip, SkipDefaultCap // vLLM does not print the default
		return nil
	}
	v, err := strconv.ParseInt(msg[m[2]:m[3]], 10, 64)
	if err != nil || v < 1 || v > 1<<31-1 {
		return scan.Errorf(ErrBadValue, pos+m[2], "max_num_seqs: %q is not a positive count", msg[m[2]:m[3]])
	}
	r.maxNumSeqs = v
	rec.Kind = KindCap
	rec.Cap = Cap{Replica: replica, MaxNumSeqs: v}
	return nil
}

// request reads a Received/Added/Finished/Aborted request line.
func (r *vllmLogReader) request(kind vllmMsg, msg string, pos int, ts int64, replica string, rec *Record) error {
	rest := msg[strings.IndexByte(msg, ' ')+1:] // after the verb
	rest = strings.TrimPrefix(rest, "request(s) ")
	rest = strings.TrimPrefix(rest, "request ")
	var id string
	if kind == vllmMsgReceived {
		// "Received request ID: prompt: '...'": the id ends at the colon;
		// nothing after it is read.
		end := strings.Index(rest, ": ")
		if end < 0 {
			end = strings.IndexByte(rest, ':')
		}
		if end < 0 {
			end = len(rest)
		}
		id = rest[:end]
	} else {
		id = strings.TrimSuffix(strings.TrimSpace(rest), ".")
	}
	ids := []string{id}
	if kind == vllmMsgAborted && strings.Contains(id, ",") {
		ids = strings.Split(id, ",")
	}
	for i, s := range ids {
		ids[i] = strings.TrimSpace(s)
		if ids[i] == "" || strings.ContainsAny(ids[i], " \t'\"") || len(ids[i]) > 256 {
			return scan.Errorf(ErrBadValue, pos, "request line: no request id")
		}
	}
	switch kind {
	case vllmMsgReceived, vllmMsgAdded:
		if _, ok := r.open[ids[0]]; !ok && len(r.open) < vllmMaxOpenRequests {
			r.open[ids[0]] = ts
		}
		rec.Kind, rec.Skip = KindSkip, SkipRequestStart // the span is written at its end
		return nil
	}
	status := schemas.StatusOK
	if kind == vllmMsgAborted {
		status = schemas.StatusAborted
	}
	id = ids[0]
	queued, ok := r.open[id]
	for _, s := range ids {
		delete(r.open, s)
	}
	sp := schemas.Span{
		Source: SourceVLLMLog, SpanID: id, RequestID: id, Status: status,
		TimeResolutionUS: r.arena.Int32(1_000_000), // vLLM stamps its lines to the second
		Replica:          r.str(replica),
		ReleasedAt:       r.arena.Int64(ts),
	}
	if ok {
		// "Added request" is the engine's arrival: the request waits in its queue from there.
		sp.QueuedAt = r.arena.Int64(queued)
		sp.EngineArrivedAt = sp.QueuedAt
	}
	rec.Kind = KindSpan
	rec.Span = sp
	return nil
}

func (r *vllmLogReader) str(s string) *string {
	if s == "" {
		return nil
	}
	return r.arena.Str(r.intern.Get([]byte(s)))
}

func (r *vllmLogReader) float(v float64) *float64 { return &v }

// vllmJSONLine holds the keys of a JSON log line that this format reads.
// "message" is the python-json-logger record; "log" and "time" are docker's
// json-file driver, which wraps a text line.
type vllmJSONLine struct {
	Message   *string         `json:"message"`
	Msg       *string         `json:"msg"`
	Log       *string         `json:"log"`
	Asctime   *string         `json:"asctime"`
	Timestamp json.RawMessage `json:"timestamp"`
	Time      json.RawMessage `json:"time"`
	AtTime    json.RawMessage `json:"@timestamp"`
	Created   json.RawMessage `json:"created"`
}

var vllmPyAsctime = regexp.MustCompile(`^(\d{4})-(\d\d)-(\d\d) (\d\d):(\d\d):(\d\d)(?:[,.](\d{1,6}))?$`)
var vllmAsctime = regexp.MustCompile(`^(\d\d)-(\d\d) (\d\d):(\d\d):(\d\d)(?:[,.](\d{1,6}))?$`)

func (r *vllmLogReader) decodeJSON(line []byte, rec *Record) error {
	var j vllmJSONLine
	if err := json.Unmarshal(line, &j); err != nil {
		if !r.jsonMode {
			rec.Kind, rec.Skip = KindSkip, SkipUnusedLine // a text log printing something JSON-like
			return nil
		}
		if _, ok := err.(*json.UnmarshalTypeError); ok {
			return scan.Errorf(ErrBadType, -1, "JSON log line: %v", err)
		}
		var se *json.SyntaxError
		pos := -1
		if e, ok := err.(*json.SyntaxError); ok {
			se = e
			pos = int(se.Offset)
		}
		return scan.Errorf(ErrBadJSON, pos, "JSON log line: %v", err)
	}
	if j.Log != nil {
		// docker json-file: a text line and an RFC 3339 stamp.
		outer := ""
		if len(j.Time) > 0 {
			var s string
			if json.Unmarshal(j.Time, &s) == nil {
				outer = s
			}
		}
		text := vllmStripANSI(nil, []byte(*j.Log))
		return r.decodeText(strings.TrimSpace(string(text)), outer, rec)
	}
	msg := j.Message
	if msg == nil {
		msg = j.Msg
	}
	if msg == nil {
		rec.Kind, rec.Skip = KindSkip, SkipUnusedLine
		return nil
	}
	text := strings.TrimSpace(*msg)
	if vllmHeader.MatchString(text) {
		// A formatter that puts the whole text line into message.
		return r.decodeText(text, "", rec)
	}
	kind := classifyVLLMMessage(text)
	if kind == vllmMsgNone {
		rec.Kind, rec.Skip = KindSkip, SkipUnusedLine
		return nil
	}
	ts, err := r.jsonTime(&j)
	if err != nil {
		return err
	}
	return r.message(kind, text, -1, ts, "", rec)
}

// jsonTime finds the instant of a JSON log record: asctime (vLLM's
// "MM-DD HH:MM:SS", Python's "YYYY-MM-DD HH:MM:SS,mmm" in TZ, or RFC 3339),
// else timestamp, time, @timestamp (RFC 3339 or epoch), else created (epoch
// seconds, Python's LogRecord.created).
func (r *vllmLogReader) jsonTime(j *vllmJSONLine) (int64, error) {
	if j.Asctime != nil {
		s := strings.TrimSpace(*j.Asctime)
		if m := vllmAsctime.FindStringSubmatch(s); m != nil {
			n := func(i int) int64 { v, _ := scan.Digits([]byte(m[i])); return v }
			return r.stamp(n(1), n(2), n(3), n(4), n(5), vllmFracMicros(m[6]), 0, false, -1)
		}
		if m := vllmPyAsctime.FindStringSubmatch(s); m != nil {
			n := func(i int) int { v, _ := strconv.Atoi(m[i]); return v }
			y, mo, d := n(1), n(2), n(3)
			if mo < 1 || mo > 12 || d < 1 || int64(d) > scan.DaysIn(int64(y), int64(mo)) || n(4) > 23 || n(5) > 59 || n(6) > 59 {
				return 0, scan.Errorf(ErrBadTimestamp, -1, "asctime: invalid timestamp %q", s)
			}
			t := time.Date(y, time.Month(mo), d, n(4), n(5), n(6), int(vllmFracMicros(m[7]))*1000, r.zone)
			return schemas.Micros(t), nil
		}
		if v, err := scan.ParseRFC3339([]byte(vllmColonOffset(s))); err == nil {
			return v, nil
		}
		return 0, scan.Errorf(ErrBadTimestamp, -1, "asctime: invalid timestamp %q", s)
	}
	for _, f := range []struct {
		name string
		raw  json.RawMessage
	}{{"timestamp", j.Timestamp}, {"time", j.Time}, {"@timestamp", j.AtTime}, {"created", j.Created}} {
		if len(f.raw) == 0 || string(f.raw) == "null" {
			continue
		}
		var v int64
		var err error
		if f.raw[0] == '"' {
			var s string
			if err = json.Unmarshal(f.raw, &s); err == nil {
				v, err = scan.ParseTimestamp([]byte(vllmColonOffset(s)))
			}
		} else {
			v, err = scan.ParseEpoch(f.raw)
		}
		if err != nil {
			return 0, scan.Errorf(ErrBadTimestamp, -1, "%s: invalid timestamp %s: %v", f.name, f.raw, err)
		}
		return v, nil
	}
	return 0, scan.Errorf(ErrMissingField, -1, "JSON log line has no time (asctime, timestamp, time or created)")
}

// vllmFracMicros reads up to 6 fraction digits as microseconds.
func vllmFracMicros(s string) int64 {
	var v int64
	for i := 0; i < 6; i++ {
		v *= 10
		if i < len(s) {
			v += int64(s[i] - '0')
		}
	}
	return v
}

// sniffVLLMLog scores how much head looks like a vLLM server log: 90 when a
// vLLM header with a vLLM message (stats, args, request, or a vLLM source
// file) is among the first lines, 60 for a vLLM header alone, 0 otherwise.
func sniffVLLMLog(head []byte) int {
	best := 0
	for _, line := range vllmFirstLines(head, 200) {
		l := string(vllmStripANSI(nil, []byte(line)))
		if strings.HasPrefix(l, "{") {
			var j vllmJSONLine
			if json.Unmarshal([]byte(l), &j) == nil {
				switch {
				case j.Log != nil:
					l = *j.Log
				case j.Message != nil && (j.Asctime != nil || j.Created != nil || j.Timestamp != nil):
					if classifyVLLMMessage(*j.Message) != vllmMsgNone || strings.Contains(*j.Message, "vLLM") {
						return 90
					}
					continue
				default:
					continue
				}
			}
		}
		m := vllmHeader.FindStringIndex(l)
		if m == nil {
			continue
		}
		msg := l[m[1]:]
		if classifyVLLMMessage(msg) != vllmMsgNone || strings.Contains(msg, "vLLM") || strings.Contains(l, "loggers.py") ||
			strings.Contains(l, "metrics.py") || strings.Contains(l, "api_server.py") {
			return 90
		}
		best = 60
	}
	return best
}

// statsPercent reads a stats line's "93.9%" as the fraction 0.939, scaled
// exactly in decimal (the digits with "e-2"); up to 100.05 % is taken, as
// vLLM rounds.
func statsPercent(val string) (float64, bool) {
	p, ok := strings.CutSuffix(val, "%")
	v, err := strconv.ParseFloat(p+"e-2", 64)
	if !ok || err != nil || v < 0 || v > 1.0005 || strings.ContainsAny(p, "eE") {
		return 0, false
	}
	return v, true
}
