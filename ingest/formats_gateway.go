package ingest

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/tpsreport/tpsreport/schemas"
)

// The LLM gateway formats (issue 7) are rows of the formats table
// (formats.go). The mapping format's row fails with a hint when Run has no
// mapping file to pass it.

// GatewayOptions are the reader options of the gateway formats; Run carries
// them from Options (TZ, Mapping) through Input.
type GatewayOptions struct {
	// Zone is the time zone of naive timestamps ("2026-11-20 10:00:00.123456",
	// no offset), as LiteLLM's SpendLogs exports write them. nil means UTC.
	Zone *time.Location
	// Mapping is the parsed mapping file of the mapping format (LoadMapping).
	Mapping *Mapping
}

// docReader is the Reader shared by the gateway formats. An input is one of:
//
//   - NDJSON: one JSON value per line; a record's position is its Line, and a
//     malformed line is rejected on its own;
//   - a JSON array of values, or one or more JSON documents that span lines
//     (pretty-printed): a record's position is its byte Offset. A syntax
//     error there cannot be resynchronised: the rest of the input becomes one
//     reject and the reader ends.
//
// The mode is chosen from the first non-blank line: "[" starts an array; a
// line that is only "{" (or ends in "{", "[" or ",") starts a document;
// anything else is NDJSON. Each value is handed to decode, which appends one
// or more records (an OTLP document holds many spans); a value that yields
// none becomes a skip, so read = written + rejected + skipped still holds.
type docReader struct {
	name   string
	br     *bufio.Reader
	decode func(v any, raw []byte, out []Record) []Record
	// decodeLine, when set, decodes an NDJSON line without parsing it
	// first: it appends the line's records, or reports false, having
	// appended nothing, to leave the line to parseJSONValue and decode.
	decodeLine func(line []byte, out []Record) ([]Record, bool)

	mode    int // 0 undecided, 1 lines, 2 array, 3 documents, 4 done
	lines   *lineSplitter
	dec     *json.Decoder
	base    int64 // bytes consumed before dec started (BOM)
	maxLine int
	keys    map[string]string // interned object keys (parseJSONValue)
	only    map[string]bool   // the top-level keys decode reads; nil: all

	queue []Record
	qi    int
	rec   Record
	err   error
}

const (
	modeUndecided = iota
	modeLines
	modeArray
	modeDocs
	modeDone
)

func newDocReader(in Input, decode func(v any, raw []byte, out []Record) []Record) *docReader {
	return &docReader{
		name:    in.Name,
		br:      bufio.NewReaderSize(in.R, sniffBytes),
		decode:  decode,
		maxLine: in.MaxLineBytes,
		keys:    map[string]string{},
	}
}

// Next implements Reader.
func (r *docReader) Next() bool {
	for {
		if r.qi < len(r.queue) {
			r.rec = r.queue[r.qi]
			r.queue[r.qi] = Record{}
			r.qi++
			return true
		}
		r.queue, r.qi = r.queue[:0], 0
		if !r.fill() {
			return false
		}
	}
}

// fill reads the next value into the queue. It returns false at the end.
func (r *docReader) fill() bool {
	if r.mode == modeUndecided {
		r.decide()
	}
	switch r.mode {
	case modeLines:
		return r.fillLine()
	case modeArray, modeDocs:
		return r.fillDoc()
	}
	return false
}

func (r *docReader) decide() {
	head, err := r.br.Peek(sniffBytes)
	if err != nil && err != io.EOF && err != bufio.ErrBufferFull {
		r.err = err
		r.mode = modeDone
		return
	}
	bom := 0
	if bytes.HasPrefix(head, utf8BOM) {
		bom = len(utf8BOM)
	}
	first := firstLine(head[bom:])
	switch {
	case len(first) > 0 && first[0] == '[':
		r.mode = modeArray
	case len(first) > 0 && first[0] == '{' &&
		(bytes.HasSuffix(first, []byte("{")) || bytes.HasSuffix(first, []byte("[")) || bytes.HasSuffix(first, []byte(","))):
		r.mode = modeDocs
	default:
		r.mode = modeLines
		r.lines = newLineSplitter(r.br, r.maxLine)
		return
	}
	if bom > 0 {
		_, _ = r.br.Discard(bom)
		r.base = int64(bom)
	}
	r.dec = json.NewDecoder(r.br)
	r.dec.UseNumber()
	if r.mode == modeArray {
		if _, err := r.dec.Token(); err != nil { // the '['
			r.mode = modeDone
			r.err = fmt.Errorf("read %s: %w", r.name, err)
		}
	}
}

// firstLine returns the first non-blank line of b, trimmed.
func firstLine(b []byte) []byte {
	for len(b) > 0 {
		line := b
		if i := bytes.IndexByte(b, '\n'); i >= 0 {
			line, b = b[:i], b[i+1:]
		} else {
			b = nil
		}
		if t := bytes.TrimSpace(line); len(t) > 0 {
			return t
		}
	}
	return nil
}

func (r *docReader) fillLine() bool {
	if !r.lines.Next() {
		r.err = r.lines.Err()
		r.mode = modeDone
		return false
	}
	n := r.lines.Line()
	line := r.lines.Bytes()
	switch {
	case r.lines.Long():
		r.queue = append(r.queue, rejectRecord(r.name, n, 0, recordErrorf(ErrTooLong, -1,
			"line is %d bytes, longer than the limit of %d bytes", r.lines.Len(), r.lines.max), line))
	case isBlank(line):
		r.queue = append(r.queue, Record{Kind: KindSkip, Skip: SkipBlank, Line: n})
	default:
		start := len(r.queue)
		if r.decodeLine != nil {
			if q, ok := r.decodeLine(line, r.queue); ok {
				r.queue = q
				r.place(start, n, 0, line)
				break
			}
		}
		v, err := parseJSONValue(line, r.keys, r.only)
		if err != nil {
			r.queue = append(r.queue, rejectRecord(r.name, n, 0, err, line))
			break
		}
		r.queue = r.decode(v, line, r.queue)
		r.place(start, n, 0, line)
	}
	return true
}

func (r *docReader) fillDoc() bool {
	if r.mode == modeArray && !r.dec.More() {
		r.mode = modeDone
		if _, err := r.dec.Token(); err != nil { // the ']'
			r.queue = append(r.queue, rejectRecord(r.name, 0, r.base+r.dec.InputOffset(),
				recordErrorf(ErrBadJSON, -1, "invalid JSON: %v", err), nil))
			return true
		}
		if _, err := r.dec.Token(); err != io.EOF {
			r.queue = append(r.queue, rejectRecord(r.name, 0, r.base+r.dec.InputOffset(),
				recordErrorf(ErrBadJSON, -1, "invalid JSON: data after the top-level array"), nil))
			return true
		}
		return false
	}
	var raw json.RawMessage
	if err := r.dec.Decode(&raw); err != nil {
		wasArray := r.mode == modeArray
		r.mode = modeDone
		if err == io.EOF && !wasArray {
			return false
		}
		off := r.base + r.dec.InputOffset()
		rest, _ := io.ReadAll(io.LimitReader(r.dec.Buffered(), tooLongKeep))
		r.queue = append(r.queue, rejectRecord(r.name, 0, off,
			recordErrorf(ErrBadJSON, -1, "invalid JSON: %v (the rest of the input is not read)", err), rest))
		return true
	}
	// The value ends at InputOffset and RawMessage holds it verbatim.
	off := r.base + r.dec.InputOffset() - int64(len(raw))
	v, err := parseJSONValue(raw, r.keys, r.only)
	if err != nil {
		r.queue = append(r.queue, rejectRecord(r.name, 0, off, err, raw))
		return true
	}
	start := len(r.queue)
	r.queue = r.decode(v, raw, r.queue)
	r.place(start, 0, off, raw)
	return true
}

// place sets the position of the records decode appended from queue[start:],
// adds a skip when there are none (an OTLP export without spans), and turns
// decode errors into ParseErrors.
func (r *docReader) place(start int, line, off int64, raw []byte) {
	if len(r.queue) == start {
		r.queue = append(r.queue, Record{Kind: KindSkip, Skip: SkipEmptyDocument})
	}
	for i := start; i < len(r.queue); i++ {
		rec := &r.queue[i]
		rec.Line, rec.Offset = line, off
		if rec.Kind == KindReject && rec.Err != nil {
			rec.Err.File, rec.Err.Line = r.name, line
			if rec.Raw == nil {
				rec.Raw = raw
			}
		}
	}
}

// Record implements Reader.
func (r *docReader) Record() *Record { return &r.rec }

// Err implements Reader.
func (r *docReader) Err() error { return r.err }

// rejectRecord builds a reject at a line (line formats) or offset.
func rejectRecord(file string, line, off int64, err error, raw []byte) Record {
	pe := parseErrorAt(file, line, err)
	return Record{Kind: KindReject, Line: line, Offset: off, Err: pe, Raw: raw}
}

// decodeReject is what a format's decode appends for a malformed value; the
// docReader fills in the position.
func decodeReject(out []Record, err error) []Record {
	return append(out, Record{Kind: KindReject, Err: &ParseError{Err: err}})
}

// parseJSONValue decodes raw as encoding/json decodes into an interface{}
// with numbers kept as json.Number (so that no digit is lost to float64), in
// one pass of the jsonScanner, so that syntax errors carry a column and match
// encoding/json exactly. Object keys are interned in keys (nil: none); a
// top-level object keeps only the keys in only (nil: all).
func parseJSONValue(raw []byte, keys map[string]string, only map[string]bool) (any, error) {
	var s jsonScanner
	s.reset(raw)
	v, err := s.readValue(keys, only)
	if err != nil {
		return nil, err
	}
	if err := s.end(); err != nil {
		return nil, err
	}
	return v, nil
}

// obj is a decoded JSON object with typed accessors. Every accessor takes a
// dotted path for its error message; a missing key, a null and "" (or "-",
// Envoy's empty value) all mean unknown.
type obj map[string]any

// get follows keys through nested objects.
func (o obj) get(keys ...string) any {
	var v any = map[string]any(o)
	for _, k := range keys {
		m, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		v = m[k]
	}
	return v
}

// child returns the object at keys, or nil.
func (o obj) child(keys ...string) obj {
	m, _ := o.get(keys...).(map[string]any)
	return m
}

// isUnknown reports whether a value means unknown.
func isUnknown(v any) bool {
	switch x := v.(type) {
	case nil:
		return true
	case string:
		return x == "" || x == "-"
	}
	return false
}

// valString returns a string value, or nil when unknown.
func valString(v any, field string) (*string, error) {
	if isUnknown(v) {
		return nil, nil
	}
	switch x := v.(type) {
	case string:
		return &x, nil
	case json.Number:
		s := x.String()
		return &s, nil
	}
	return nil, recordErrorf(ErrBadType, -1, "%s: want a string, found %s", field, jsonKind(v))
}

// jsonKind names the JSON type of a decoded value.
func jsonKind(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case string:
		return "string"
	case json.Number:
		return "number"
	case bool:
		return "boolean"
	case map[string]any:
		return "object"
	case []any:
		return "array"
	}
	return "value"
}

// numberText returns the text of a number, or of a string holding one
// (Envoy and OTLP write numbers as strings).
func numberText(v any, field string) ([]byte, bool, error) {
	if isUnknown(v) {
		return nil, false, nil
	}
	switch x := v.(type) {
	case json.Number:
		return []byte(x), true, nil
	case string:
		b := []byte(strings.TrimSpace(x))
		if isJSONNumber(b) {
			return b, true, nil
		}
		return nil, false, recordErrorf(ErrBadType, -1, "%s: want a number, found string %q", field, x)
	}
	return nil, false, recordErrorf(ErrBadType, -1, "%s: want a number, found %s", field, jsonKind(v))
}

// valInt returns a whole number in [lo, hi], or nil when unknown.
func valInt(v any, field string, lo, hi int64) (*int64, error) {
	num, ok, err := numberText(v, field)
	if err != nil || !ok {
		return nil, err
	}
	n, exact, fits := scaleDecimal(num, 0)
	switch {
	case fits && !exact:
		return nil, recordErrorf(ErrBadValue, -1, "%s: %q is not a whole number", field, num)
	case !fits || n < lo || n > hi:
		if lo == 0 && (n < 0 || num[0] == '-') {
			return nil, recordErrorf(ErrBadValue, -1, "%s: %q is negative", field, num)
		}
		return nil, recordErrorf(ErrBadValue, -1, "%s: %q is out of range [%d, %d]", field, num, lo, hi)
	}
	return &n, nil
}

// valTokens reads a token count (≥ 0).
func valTokens(v any, field string) (*int64, error) { return valInt(v, field, 0, 1<<62) }

// valDuration reads a duration of the given unit (scale: 3 for ms, 6 for s,
// 0 for µs, -3 for ns) as microseconds, rounded half away from zero.
func valDuration(v any, field string, scale int) (*int64, error) {
	num, ok, err := numberText(v, field)
	if err != nil || !ok {
		return nil, err
	}
	us, _, fits := scaleDecimal(num, scale)
	if !fits || us > maxMicros-minMicros {
		return nil, recordErrorf(ErrBadValue, -1, "%s: %q is out of range", field, num)
	}
	if us < 0 {
		return nil, recordErrorf(ErrBadValue, -1, "%s: %q is negative", field, num)
	}
	return &us, nil
}

// valTime reads a timestamp: an epoch number (or its text), RFC 3339 with an
// offset, or a naive "YYYY-MM-DD[ T]HH:MM:SS[.f]" in zone (nil: UTC). A
// "+hh" offset (PostgreSQL's text output) is read as "+hh:00".
func valTime(v any, field string, zone *time.Location) (*int64, error) {
	if isUnknown(v) {
		return nil, nil
	}
	var us int64
	var err error
	var text string
	switch x := v.(type) {
	case json.Number:
		text = x.String()
		us, err = parseEpoch([]byte(x))
	case string:
		text = x
		us, err = parseTimestampZone([]byte(x), zone)
	default:
		return nil, recordErrorf(ErrBadType, -1, "%s: want a timestamp (string or number), found %s", field, jsonKind(v))
	}
	if err != nil {
		return nil, recordErrorf(ErrBadTimestamp, -1, "%s: invalid timestamp %q: %v", field, text, err)
	}
	return &us, nil
}

// parseTimestampZone is parseTimestampText that also accepts a naive
// timestamp, read in zone (nil: UTC), and a two-digit "+hh" offset.
func parseTimestampZone(b []byte, zone *time.Location) (int64, error) {
	us, err := parseTimestampText(b)
	if err == nil {
		return us, nil
	}
	if n := len(b); n > 19 && (b[n-3] == '+' || b[n-3] == '-') && isDigit(b[n-2]) && isDigit(b[n-1]) && b[n-4] != '-' {
		fixed := append(append([]byte(nil), b...), ":00"...)
		if us, err2 := parseRFC3339(fixed); err2 == nil {
			return us, nil
		}
	}
	if !errors.Is(err, errTSNoOffset) {
		return 0, err
	}
	utc := append(append([]byte(nil), b...), 'Z')
	us, err = parseRFC3339(utc)
	if err != nil {
		return 0, err
	}
	return naiveIn(us, zone), nil
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

// naiveIn reinterprets the wall-clock time us (read as if UTC) in zone. In a
// repeated hour (DST end) Go picks the first of the two instants.
func naiveIn(us int64, zone *time.Location) int64 {
	if zone == nil || zone == time.UTC {
		return us
	}
	t := time.UnixMicro(us).UTC()
	wall := time.Date(t.Year(), t.Month(), t.Day(), t.Hour(), t.Minute(), t.Second(), t.Nanosecond(), zone)
	return schemas.Micros(wall)
}

// addMicros returns a pointer to base + d, or nil when either is unknown.
func addMicros(base, d *int64) *int64 {
	if base == nil || d == nil {
		return nil
	}
	v := *base + *d
	return &v
}

// hostOf returns the host[:port] of a URL or of a bare host:port, or nil.
func hostOf(s *string) *string {
	if s == nil {
		return nil
	}
	raw := strings.TrimSpace(*s)
	if !strings.Contains(raw, "://") {
		if raw == "" {
			return nil
		}
		return &raw
	}
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return &raw
	}
	h := u.Host
	return &h
}

// statusFromHTTP maps an HTTP status to a span status: 2xx/3xx ok, 408/504
// timeout, 499 (nginx: client closed) cancelled, others error.
func statusFromHTTP(code int64) string {
	switch {
	case code >= 200 && code < 400:
		return schemas.StatusOK
	case code == 408 || code == 504:
		return schemas.StatusTimeout
	case code == 499:
		return schemas.StatusCancelled
	}
	return schemas.StatusError
}

// httpStatus32 returns code as an http_status when it is 100–599.
func httpStatus32(code *int64) *int32 {
	if code == nil || *code < 100 || *code > 599 {
		return nil
	}
	v := int32(*code)
	return &v
}

// firstErr keeps the first non-nil error.
type firstErr struct{ err error }

func (f *firstErr) keep(err error) {
	if f.err == nil && err != nil {
		f.err = err
	}
}

func (f *firstErr) str(v any, field string) *string {
	s, err := valString(v, field)
	f.keep(err)
	return s
}

func (f *firstErr) tokens(v any, field string) *int64 {
	n, err := valTokens(v, field)
	f.keep(err)
	return n
}

func (f *firstErr) integer(v any, field string, lo, hi int64) *int64 {
	n, err := valInt(v, field, lo, hi)
	f.keep(err)
	return n
}

func (f *firstErr) duration(v any, field string, scale int) *int64 {
	d, err := valDuration(v, field, scale)
	f.keep(err)
	return d
}

func (f *firstErr) time(v any, field string, zone *time.Location) *int64 {
	t, err := valTime(v, field, zone)
	f.keep(err)
	return t
}

// sniffFirstObject returns the top-level keys of the first JSON object of
// head: the first line of NDJSON, the first element of an array, or a
// pretty-printed document. head may end in the middle of the object.
func sniffFirstObject(head []byte) map[string]bool {
	head = bytes.TrimPrefix(head, utf8BOM)
	i := 0
	for i < len(head) && (head[i] == ' ' || head[i] == '\t' || head[i] == '\r' || head[i] == '\n') {
		i++
	}
	if i < len(head) && head[i] == '[' {
		i++
	}
	return topLevelKeys(head[i:])
}

// itoa formats an int64.
func itoa(n int64) string { return strconv.FormatInt(n, 10) }
