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

// The sglang-log format is what an SGLang server prints
// (schemas/formats/sglang.md). Its logger writes "[YYYY-MM-DD HH:MM:SS] msg",
// a scheduler adding its ranks ("[... DP1 TP0] msg"), in the server's local
// time (--tz, default UTC). Read are:
//
//   - "Decode batch, #running-req: N, ..., token usage: X, ..., #queue-req:
//     M" (older: "Decode batch. ...") → a sample: in_flight = #running-req,
//     queue_depth = #queue-req, kv_cache_usage = token usage (hybrid models:
//     the larger of full and swa/mamba usage, as SGLang reports it);
//   - "Prefill batch, #new-seq: K, ..., #running-req: N, #queue-req: M" → a
//     sample with in_flight = N + K (the admitted sequences join the running
//     batch) and queue_depth = M;
//   - "max_total_num_tokens=..., max_running_requests=N, ..." (the scheduler's
//     effective limits) and "server_args=ServerArgs(... max_running_requests=N
//     ...)" → a cap record; later samples of that replica carry the cap;
//   - --log-requests "Finish: obj=..., out={... 'meta_info': {...}}" lines
//     (Python reprs) and --log-requests-format json "request.finished"
//     records → spans (sglangMeta). Only meta_info is read: the request and
//     its text are skipped unread.
//
// Everything else is skipped. The replica is the docker compose service or
// Ray actor before the header, with "/dpN" for a data-parallel rank.

// SourceSGLangLog is the source column of spans and samples read from an
// SGLang server log.
const SourceSGLangLog = "sglang-log"

type sglangLogReader struct {
	*lineReader
	zone   *time.Location
	date   time.Time        // Input.Date: the day a log of clock-only stamps starts on
	day    int              // days past date: a clock-only stamp that runs back past midnight moves on a day
	clock  int              // seconds of day of the last clock-only stamp; -1 before the first
	caps   map[string]int64 // max_running_requests by replica
	intern scan.Interner
	// lit reads meta_info's values (sglangMeta); its zone is nil: meta_info's
	// instants are epoch seconds, only the line's own stamp is local time.
	lit  scan.Decoder
	meta sglangFields

	// Request-time-stats lines (sglang_stages.go): the line just read, the
	// lines held per worker until its clock offset is known, the offsets,
	// and the stages queued for Next.
	timed      *sglangTimed
	pending    map[string][]*sglangTimed
	offsets    map[string]int64
	queue      []Record
	qi         int
	clockNotes []string
	statsVals  []sglangStat // a stats line's values, reused line to line
	buf        []byte       // a line without its ANSI escapes
}

var _ Reader = (*sglangLogReader)(nil)

func newSGLangLogReader(in Input) Reader {
	r := &sglangLogReader{zone: in.Zone, caps: map[string]int64{}, date: in.Date, clock: -1,
		pending: map[string][]*sglangTimed{}, offsets: map[string]int64{}}
	if r.zone == nil {
		r.zone = time.UTC
	}
	r.lineReader = newLineReader(in, r.decodeLine)
	return r
}

// sglangHeader matches "[2025-01-23 19:35:34 DP0 TP0] " (ranks optional).
var sglangHeader = regexp.MustCompile(`\[(\d{4})-(\d\d)-(\d\d) (\d\d):(\d\d):(\d\d)((?: (?:DP|TP|PP|EP|CP|ATTN_DP)\d+)*)\] `)

// sglangClockHeader matches the header of SGLang before 2024-10, a time of
// day without a date: "[04:40:55 TP0] " (ranks optional).
var sglangClockHeader = regexp.MustCompile(`^\[(\d\d):(\d\d):(\d\d)((?: (?:DP|TP|PP|EP|CP|ATTN_DP)\d+)*)\] `)

// sglangComposePrefix is docker compose's "service  | ".
var sglangComposePrefix = regexp.MustCompile(`^([A-Za-z0-9][A-Za-z0-9_.-]*)\s+\| ?`)

// sglangRayPrefix is Ray's "(SGLangEngine pid=35555, ip=10.0.0.1) ".
var sglangRayPrefix = regexp.MustCompile(`^\(([A-Za-z0-9_]+) pid=(\d+)(?:, ip=([0-9a-fA-F.:]+))?\) `)

type sglangMsg uint8

const (
	sglangNone sglangMsg = iota
	sglangDecode
	sglangPrefill
	sglangFinish
	sglangArgs
	sglangLimits
	sglangReceive
	sglangReqStats
)

func classifySGLang(msg string) sglangMsg {
	switch {
	case strings.HasPrefix(msg, "Decode batch"):
		return sglangDecode
	case strings.HasPrefix(msg, "Prefill batch"):
		return sglangPrefill
	case strings.HasPrefix(msg, "Finish: obj="):
		return sglangFinish
	case strings.HasPrefix(msg, "Receive: obj=") || strings.HasPrefix(msg, "Receive OpenAI: obj="):
		return sglangReceive
	case strings.HasPrefix(msg, "Req Time Stats("):
		return sglangReqStats
	case strings.HasPrefix(msg, "server_args=ServerArgs("):
		return sglangArgs
	case strings.HasPrefix(msg, "max_total_num_tokens=") && strings.Contains(msg, "max_running_requests="):
		return sglangLimits
	}
	return sglangNone
}

// sglangKind classifies a line's message; for one that gives no record it
// marks rec skipped with the reason and reports done.
func sglangKind(msg string, rec *Record) (kind sglangMsg, done bool) {
	switch kind = classifySGLang(msg); kind {
	case sglangNone:
		rec.Kind, rec.Skip = KindSkip, SkipUnusedLine
		return kind, true
	case sglangReceive:
		rec.Kind, rec.Skip = KindSkip, SkipRequestStart
		return kind, true
	}
	return kind, false
}

func (r *sglangLogReader) decodeLine(raw []byte, rec *Record) error {
	if bytes.IndexByte(raw, 0x1b) >= 0 || bytes.IndexByte(raw, '\r') >= 0 {
		r.buf = vllmStripANSI(r.buf, raw)
		raw = r.buf
	}
	line := string(bytes.TrimSpace(raw))
	if line == "" {
		rec.Kind, rec.Skip = KindSkip, SkipBlank
		return nil
	}
	if line[0] == '{' {
		return r.decodeJSON([]byte(line), rec)
	}
	m := sglangHeader.FindStringSubmatchIndex(line)
	if m == nil {
		return r.clockLine(line, rec)
	}
	msg := line[m[1]:]
	kind, done := sglangKind(msg, rec)
	if done {
		return nil
	}
	num := func(i int) int { v, _ := strconv.Atoi(line[m[2*i]:m[2*i+1]]); return v }
	y, mo, d, hh, mm, ss := num(1), num(2), num(3), num(4), num(5), num(6)
	if mo < 1 || mo > 12 || d < 1 || int64(d) > scan.DaysIn(int64(y), int64(mo)) || hh > 23 || mm > 59 || ss > 59 {
		return scan.Errorf(ErrBadTimestamp, m[2], "invalid time stamp %q", line[m[2]:m[13]])
	}
	ts := schemas.Micros(time.Date(y, time.Month(mo), d, hh, mm, ss, 0, r.zone))
	replica := sglangReplica(line[:m[0]], line[m[14]:m[15]])
	pos := m[1]
	switch kind {
	case sglangDecode, sglangPrefill:
		return r.batch(kind, msg, pos, ts, replica, rec)
	case sglangArgs, sglangLimits:
		return r.limits(msg, pos, replica, rec)
	case sglangReqStats:
		return r.reqStats(msg, pos, ts, replica, rec)
	}
	return r.finish(msg, pos, ts, rec)
}

// clockLine reads a line of SGLang before 2024-10, whose stamp is a time of
// day ("[04:40:55 TP0] Decode batch. ..."): with --date, its day is that date,
// moved on a day each time the clock runs back past midnight (more than 12
// hours back); without, a stats or request line is rejected with the reason,
// never skipped as unused.
func (r *sglangLogReader) clockLine(line string, rec *Record) error {
	m := sglangClockHeader.FindStringSubmatchIndex(line)
	if m == nil {
		rec.Kind, rec.Skip = KindSkip, SkipUnusedLine
		return nil
	}
	msg := line[m[1]:]
	kind, done := sglangKind(msg, rec)
	switch {
	case done:
		return nil
	case kind == sglangArgs || kind == sglangLimits:
		return r.limits(msg, m[1], sglangReplica("", line[m[8]:m[9]]), rec)
	}
	if r.date.IsZero() {
		return scan.Errorf(ErrBadTimestamp, 1, "SGLang line whose stamp %q has no date. Try: --date YYYY-MM-DD, the day the log starts", line[m[0]:m[1]-1])
	}
	num := func(i int) int { v, _ := strconv.Atoi(line[m[2*i]:m[2*i+1]]); return v }
	hh, mm, ss := num(1), num(2), num(3)
	if hh > 23 || mm > 59 || ss > 59 {
		return scan.Errorf(ErrBadTimestamp, 2, "invalid time stamp %q", line[m[2]:m[7]])
	}
	sec := hh*3600 + mm*60 + ss
	if r.clock >= 0 && sec < r.clock-12*3600 {
		r.day++
	}
	r.clock = sec
	y, mo, d := r.date.Date()
	ts := schemas.Micros(time.Date(y, mo, d+r.day, hh, mm, ss, 0, r.zone))
	replica := sglangReplica("", line[m[8]:m[9]])
	switch kind {
	case sglangFinish:
		return r.finish(msg, m[1], ts, rec)
	case sglangReqStats:
		return r.reqStats(msg, m[1], ts, replica, rec)
	}
	return r.batch(kind, msg, m[1], ts, replica, rec)
}

// sglangReplica names the scheduler that printed a line: the compose service
// or Ray actor before the header, and its data-parallel rank.
func sglangReplica(prefix, ranks string) string {
	outer := ""
	p := strings.TrimSpace(prefix)
	if m := sglangComposePrefix.FindStringSubmatch(p); m != nil {
		outer = m[1]
		p = strings.TrimSpace(p[len(m[0]):])
	}
	if m := sglangRayPrefix.FindStringSubmatch(p + " "); m != nil && outer == "" {
		outer = m[1] + "-" + m[2]
		if m[3] != "" {
			outer = m[3] + "/" + outer
		}
	}
	for _, f := range strings.Fields(ranks) {
		if strings.HasPrefix(f, "DP") {
			if outer == "" {
				return "dp" + f[2:]
			}
			return outer + "/dp" + f[2:]
		}
	}
	return outer
}

// batch reads a Decode or Prefill batch line into a sample.
func (r *sglangLogReader) batch(kind sglangMsg, msg string, pos int, ts int64, replica string, rec *Record) error {
	// "Decode batch [51341], #running-req: ..." or "Decode batch. #running-req: ..."
	body := msg
	if i := strings.IndexAny(msg, ",."); i >= 0 {
		body = msg[i+1:]
		pos += i + 1
	}
	counts := map[string]int64{}
	usage := -1.0
	off := pos
	for part := range strings.SplitSeq(body, ",") {
		at := off
		off += len(part) + 1
		key, val, ok := strings.Cut(strings.TrimSpace(part), ": ")
		if !ok {
			continue
		}
		val = strings.TrimSpace(val)
		switch key {
		case "#running-req", "#queue-req", "#new-seq":
			n, err := strconv.ParseInt(val, 10, 32)
			if err != nil || n < 0 {
				return scan.Errorf(ErrBadValue, at, "%s: %q is not a request count", key, val)
			}
			counts[key] = n
		case "token usage", "full token usage", "swa token usage", "mamba usage":
			u, err := strconv.ParseFloat(val, 64)
			if err != nil || u < 0 || u > 1.005 || strings.ContainsAny(val, "eEnN") {
				return scan.Errorf(ErrBadValue, at, "%s: %q is not a fraction", key, val)
			}
			if key != "mamba usage" {
				usage = max(usage, min(u, 1))
			}
		}
	}
	running, ok1 := counts["#running-req"]
	queued, ok2 := counts["#queue-req"]
	if !ok1 || !ok2 {
		return scan.Errorf(ErrMissingField, pos, "batch line without #running-req and #queue-req")
	}
	if kind == sglangPrefill {
		running += counts["#new-seq"]
	}
	if running > 1<<31-1 {
		return scan.Errorf(ErrBadValue, pos, "#running-req + #new-seq: %d is not a request count", running)
	}
	rec.Kind = KindSample
	rec.Sample = schemas.Sample{
		Source: SourceSGLangLog, TS: ts,
		InFlight:   r.lit.Arena.Int32(int32(running)),
		QueueDepth: r.lit.Arena.Int32(int32(queued)),
		Replica:    r.str(replica),
	}
	if usage >= 0 {
		u := usage
		rec.Sample.KVCacheUsage = &u
	}
	if c, ok := r.caps[replica]; ok {
		rec.Sample.Cap = r.lit.Arena.Int32(int32(c))
	} else if c, ok := r.caps[""]; ok {
		rec.Sample.Cap = r.lit.Arena.Int32(int32(c))
	}
	return nil
}

var sglangMaxRunning = regexp.MustCompile(`[(,\s]max_running_requests=(None|-?\d+)`)

// limits reads max_running_requests from the server arguments or the
// scheduler's limits line.
func (r *sglangLogReader) limits(msg string, pos int, replica string, rec *Record) error {
	m := sglangMaxRunning.FindStringSubmatchIndex(msg)
	if m == nil || msg[m[2]:m[3]] == "None" {
		rec.Kind, rec.Skip = KindSkip, SkipDefaultCap // SGLang sizes it from memory; its limits line says
		return nil
	}
	v, err := strconv.ParseInt(msg[m[2]:m[3]], 10, 64)
	if err != nil || v < 1 || v > 1<<31-1 {
		return scan.Errorf(ErrBadValue, pos+m[2], "max_running_requests: %q is not a positive count", msg[m[2]:m[3]])
	}
	r.caps[replica] = v
	rec.Kind = KindCap
	rec.Cap = Cap{Replica: replica, MaxNumSeqs: v}
	return nil
}

// finish reads a --log-requests "Finish:" line: the meta_info dict of its
// out= repr.
func (r *sglangLogReader) finish(msg string, pos int, ts int64, rec *Record) error {
	p := pyParser{s: msg, i: len("Finish: obj=")}
	if _, err := p.value(0); err != nil {
		return scan.Errorf(ErrBadValue, pos+p.i, "Finish line: obj: %v", err)
	}
	if !strings.HasPrefix(msg[p.i:], ", out=") {
		return scan.Errorf(ErrMissingField, pos+p.i, "Finish line without out= (a multimodal generation request: no meta_info)")
	}
	p.i += len(", out=")
	out, err := p.value(0)
	if err != nil {
		return scan.Errorf(ErrBadValue, pos+p.i, "Finish line: out: %v", err)
	}
	o, _ := out.(map[string]any)
	meta, ok := o["meta_info"].(map[string]any)
	if !ok {
		return scan.Errorf(ErrMissingField, pos, "Finish line: out without meta_info")
	}
	sglangFieldsOf(meta, &r.meta)
	sp, err := sglangMeta(&r.meta, &r.lit, SourceSGLangLog, &ts, 1_000_000)
	if err != nil {
		return err
	}
	rec.Kind, rec.Span = KindSpan, sp
	return nil
}

// decodeJSON reads a --log-requests-format json record:
// {"timestamp": ISO local time, "event": "request.finished", "rid": ...,
// "out": {"meta_info": {...}}}.
func (r *sglangLogReader) decodeJSON(line []byte, rec *Record) error {
	v, err := scan.ParseValue(line, nil, map[string]bool{"timestamp": true, "event": true, "out": true})
	if err != nil {
		return err
	}
	m, ok := v.(map[string]any)
	if !ok {
		rec.Kind, rec.Skip = KindSkip, SkipUnusedLine
		return nil
	}
	ev, _ := m["event"].(string)
	switch ev {
	case "request.finished":
	case "request.received", "request.received.openai":
		rec.Kind, rec.Skip = KindSkip, SkipRequestStart
		return nil
	default:
		rec.Kind, rec.Skip = KindSkip, SkipUnusedLine
		return nil
	}
	ts, err := scan.ValTime(m["timestamp"], "timestamp", r.zone)
	if err != nil {
		return err
	}
	meta := scan.Obj(m).Child("out", "meta_info")
	if meta == nil {
		return scan.Errorf(ErrMissingField, -1, "request.finished without out.meta_info")
	}
	sglangFieldsOf(meta, &r.meta)
	sp, err := sglangMeta(&r.meta, &r.lit, SourceSGLangLog, ts, 0)
	if err != nil {
		return err
	}
	rec.Kind, rec.Span = KindSpan, sp
	return nil
}

func (r *sglangLogReader) str(s string) *string {
	if s == "" {
		return nil
	}
	return r.lit.Arena.Str(r.intern.Get([]byte(s)))
}

// sniffSGLangLog scores 90 when one of the first lines is an SGLang header
// with a message this format reads or an SGLang-only one, 0 otherwise; a
// request.finished JSON record with out.meta_info scores 85.
func sniffSGLangLog(head []byte) int {
	best := 0
	for _, line := range vllmFirstLines(head, 200) {
		if strings.HasPrefix(line, "{") {
			keys := scan.TopLevelKeys([]byte(line))
			if keys["event"] && keys["rid"] && keys["timestamp"] && strings.Contains(line, `"request.`) {
				best = max(best, 85)
			}
			continue
		}
		m := sglangHeader.FindStringIndex(line)
		if m == nil {
			m = sglangClockHeader.FindStringIndex(line)
		}
		if m == nil {
			continue
		}
		msg := line[m[1]:]
		if classifySGLang(msg) != sglangNone || strings.Contains(msg, "sglang") || strings.Contains(msg, "SGLang") {
			return 90
		}
	}
	return best
}

// pyParser reads the Python reprs SGLang logs (dicts, lists, tuples,
// dataclass reprs Name(k=v, ...), strings, numbers, None/True/False) into
// the values encoding/json would give: map[string]any, []any, string,
// json.Number, bool, nil. Other reprs (<object at 0x...>, enums) read as
// nil. SGLang's truncation "'abc' ... 'xyz'" reads as its first part.
type pyParser struct {
	s string
	i int
}

// pyMaxDepth bounds nesting.
const pyMaxDepth = 64

func (p *pyParser) err(what string) error {
	return scan.Errorf(ErrBadValue, -1, "%s at byte %d", what, p.i+1)
}

func (p *pyParser) space() {
	for p.i < len(p.s) && (p.s[p.i] == ' ' || p.s[p.i] == '\t') {
		p.i++
	}
}

func (p *pyParser) value(depth int) (any, error) {
	v, err := p.one(depth)
	if err != nil {
		return nil, err
	}
	// "'abc' ... 'xyz'": SGLang's truncation of a long value.
	for strings.HasPrefix(p.s[p.i:], " ... ") {
		p.i += len(" ... ")
		if _, err := p.one(depth); err != nil {
			return nil, err
		}
	}
	return v, nil
}

func (p *pyParser) one(depth int) (any, error) {
	if depth > pyMaxDepth {
		return nil, p.err("nested too deep")
	}
	p.space()
	if p.i >= len(p.s) {
		return nil, p.err("unexpected end")
	}
	switch c := p.s[p.i]; {
	case c == '\'' || c == '"':
		return p.str()
	case c == '{':
		return p.dict(depth)
	case c == '[' || c == '(':
		return p.list(depth)
	case c == '<':
		end := strings.IndexByte(p.s[p.i:], '>')
		if end < 0 {
			return nil, p.err("unterminated <...>")
		}
		p.i += end + 1
		return nil, nil
	case c == '-' || c == '+' || c == '.' || (c >= '0' && c <= '9'):
		j := p.i + 1
		for j < len(p.s) && strings.IndexByte("0123456789.eE+-", p.s[j]) >= 0 {
			j++
		}
		t := p.s[p.i:j]
		p.i = j
		t = strings.TrimPrefix(t, "+")
		if !scan.IsNumber([]byte(t)) {
			if _, err := strconv.ParseFloat(t, 64); err != nil {
				return nil, p.err("bad number " + strconv.Quote(t))
			}
			return nil, nil // "1." and such: a number, not JSON's
		}
		return json.Number(t), nil
	case c == '_' || (c|0x20 >= 'a' && c|0x20 <= 'z'):
		j := p.i
		for j < len(p.s) && (p.s[j] == '_' || p.s[j] == '.' || (p.s[j]|0x20 >= 'a' && p.s[j]|0x20 <= 'z') || (p.s[j] >= '0' && p.s[j] <= '9')) {
			j++
		}
		name := p.s[p.i:j]
		p.i = j
		if p.i < len(p.s) && p.s[p.i] == '(' {
			return p.call(depth)
		}
		switch name {
		case "None", "nan", "inf":
			return nil, nil
		case "True":
			return true, nil
		case "False":
			return false, nil
		}
		return name, nil
	}
	return nil, p.err("unexpected " + strconv.QuoteRune(rune(p.s[p.i])))
}

func (p *pyParser) str() (any, error) {
	q := p.s[p.i]
	var b strings.Builder
	for j := p.i + 1; j < len(p.s); j++ {
		switch c := p.s[j]; c {
		case '\\':
			j++
			if j < len(p.s) {
				b.WriteByte(p.s[j])
			}
		case q:
			p.i = j + 1
			return b.String(), nil
		default:
			b.WriteByte(c)
		}
	}
	return nil, p.err("unterminated string")
}

func (p *pyParser) dict(depth int) (any, error) {
	p.i++
	m := map[string]any{}
	for first := true; ; first = false {
		p.space()
		if p.i < len(p.s) && p.s[p.i] == '}' {
			p.i++
			return m, nil
		}
		if !first {
			if p.i >= len(p.s) || p.s[p.i] != ',' {
				return nil, p.err("want ',' or '}'")
			}
			p.i++
			p.space()
			if p.i < len(p.s) && p.s[p.i] == '}' {
				p.i++
				return m, nil
			}
		}
		k, err := p.value(depth + 1)
		if err != nil {
			return nil, err
		}
		p.space()
		if p.i >= len(p.s) || p.s[p.i] != ':' {
			return nil, p.err("want ':'")
		}
		p.i++
		v, err := p.value(depth + 1)
		if err != nil {
			return nil, err
		}
		if ks, ok := k.(string); ok {
			m[ks] = v
		}
	}
}

func (p *pyParser) list(depth int) (any, error) {
	end := byte(']')
	if p.s[p.i] == '(' {
		end = ')'
	}
	p.i++
	var out []any
	for first := true; ; first = false {
		p.space()
		if p.i < len(p.s) && p.s[p.i] == end {
			p.i++
			return out, nil
		}
		if !first {
			if p.i >= len(p.s) || p.s[p.i] != ',' {
				return nil, p.err("want ',' or '" + string(end) + "'")
			}
			p.i++
			p.space()
			if p.i < len(p.s) && p.s[p.i] == end {
				p.i++
				return out, nil
			}
		}
		v, err := p.value(depth + 1)
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
}

// call reads a dataclass repr's arguments, Name(k=v, ...), into a map; a
// positional argument is read and dropped.
func (p *pyParser) call(depth int) (any, error) {
	p.i++ // (
	m := map[string]any{}
	for first := true; ; first = false {
		p.space()
		if p.i < len(p.s) && p.s[p.i] == ')' {
			p.i++
			return m, nil
		}
		if !first {
			if p.i >= len(p.s) || p.s[p.i] != ',' {
				return nil, p.err("want ',' or ')'")
			}
			p.i++
			p.space()
		}
		j := p.i
		for j < len(p.s) && (p.s[j] == '_' || (p.s[j]|0x20 >= 'a' && p.s[j]|0x20 <= 'z') || (p.s[j] >= '0' && p.s[j] <= '9')) {
			j++
		}
		key := ""
		if j > p.i && j < len(p.s) && p.s[j] == '=' {
			key = p.s[p.i:j]
			p.i = j + 1
		}
		v, err := p.value(depth + 1)
		if err != nil {
			return nil, err
		}
		if key != "" {
			m[key] = v
		}
	}
}
