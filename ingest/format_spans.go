package ingest

import (
	"github.com/tpsreport/tpsreport/ingest/internal/scan"
	"github.com/tpsreport/tpsreport/schemas"
)

// The spans format is the canonical JSONL input: one JSON object per line
// whose keys are the spans.parquet column names of schemas/README.md
// (schemas/span.schema.json is its JSON Schema, schemas/README.md its prose).
//
//   - span_id (string) and status are required; request_id defaults to
//     span_id; attempt is optional (analyze numbers attempts when absent).
//   - status is one of ok, error, timeout, aborted, cancelled in any case;
//     success means ok, failure and failed mean error, canceled cancelled.
//   - Timestamps are RFC 3339 strings or epoch numbers (see timestamp.go);
//     null means unknown.
//   - Token counts and attempt are whole numbers ≥ 0; http_status is
//     100–599. Optional strings may be null; "" also means unknown.
//   - run_id and source in the input are ignored: Run sets run_id from
//     --run, and source is "spans". Unknown keys are ignored, so prompt and
//     completion text is never copied.
//   - Keys are case-sensitive; when a key repeats, the last value wins.

// SourceSpans is the source column of spans read in the canonical format.
const SourceSpans = "spans"

// spansReader reads the canonical JSONL format.
type spansReader struct {
	*lineReader
	dec spansDecoder
}

var _ Reader = (*spansReader)(nil)

func newSpansReader(in Input) Reader {
	r := &spansReader{}
	r.lineReader = newLineReader(in, r.decodeLine)
	return r
}

func (r *spansReader) decodeLine(line []byte, rec *Record) error {
	if err := r.dec.decode(line, &rec.Span); err != nil {
		return err
	}
	rec.Kind = KindSpan
	return nil
}

// sniffSpans scores how much head (the first bytes of an input) looks like
// canonical spans: 100 when its first non-blank line is a JSON object with
// span_id and status keys at the top level, 0 otherwise. The line may be cut
// off at the end of head.
func sniffSpans(head []byte) int {
	if keys := scan.TopLevelKeys(scan.FirstLine(head)); keys["span_id"] && keys["status"] {
		return 100
	}
	return 0
}

// spansDecoder decodes one canonical JSONL line into a schemas.Span. It
// reuses its scanner and hands out the Span's optional values and its ids
// from arena chunks, so that a record costs no allocation of its own. Not safe for concurrent use; use one decoder per goroutine.
type spansDecoder struct {
	sc     scan.JSON
	arena  scan.Arena
	intern scan.Interner
	day    scan.DayCache
	recent [fTimeOrigin + 1]scan.RecentStrings // interned values of each column
	keys   [keyPositions]keySeen               // the keys of the last lines, by position
}

// spanField is a column of the canonical format.
type spanField uint8

const (
	fUnknown spanField = iota
	fRunID
	fSource
	fSpanID
	fRequestID
	fAttempt
	fRetryCause
	fModel
	fReplica
	fQueuedAt
	fEngineArrivedAt
	fAdmittedAt
	fFirstTokenAt
	fLastTokenAt
	fReleasedAt
	fInputTokens
	fOutputTokens
	fCachedTokens
	fStatus
	fError
	fHTTPStatus
	fTimeResolutionUS
	fTimeOrigin
)

func spanFieldOf(key []byte) spanField {
	switch string(key) { // no allocation: the compiler matches bytes in place
	case "run_id":
		return fRunID
	case "source":
		return fSource
	case "span_id":
		return fSpanID
	case "request_id":
		return fRequestID
	case "attempt":
		return fAttempt
	case "retry_cause":
		return fRetryCause
	case "model":
		return fModel
	case "replica":
		return fReplica
	case "queued_at":
		return fQueuedAt
	case "engine_arrived_at":
		return fEngineArrivedAt
	case "admitted_at":
		return fAdmittedAt
	case "first_token_at":
		return fFirstTokenAt
	case "last_token_at":
		return fLastTokenAt
	case "released_at":
		return fReleasedAt
	case "input_tokens":
		return fInputTokens
	case "output_tokens":
		return fOutputTokens
	case "cached_tokens":
		return fCachedTokens
	case "status":
		return fStatus
	case "error":
		return fError
	case "http_status":
		return fHTTPStatus
	case "time_resolution_us":
		return fTimeResolutionUS
	case "time_origin":
		return fTimeOrigin
	}
	return fUnknown
}

var spanFieldNames = [...]string{
	fRunID: "run_id", fSource: "source", fSpanID: "span_id", fRequestID: "request_id",
	fAttempt: "attempt", fRetryCause: "retry_cause", fModel: "model", fReplica: "replica",
	fQueuedAt: "queued_at", fEngineArrivedAt: "engine_arrived_at", fAdmittedAt: "admitted_at", fFirstTokenAt: "first_token_at",
	fLastTokenAt: "last_token_at", fReleasedAt: "released_at", fInputTokens: "input_tokens",
	fOutputTokens: "output_tokens", fCachedTokens: "cached_tokens", fStatus: "status",
	fError: "error", fHTTPStatus: "http_status",
	fTimeResolutionUS: "time_resolution_us", fTimeOrigin: "time_origin",
}

func (f spanField) String() string { return spanFieldNames[f] }

// decode fills sp from line. On error sp is partly filled and must be
// discarded; the error is a *RecordError. A syntax error anywhere in the line
// wins over a field error, which wins over a missing field; among field
// errors the leftmost wins.
func (d *spansDecoder) decode(line []byte, sp *schemas.Span) error {
	*sp = schemas.Span{Source: SourceSpans}
	s := &d.sc
	s.Reset(line)
	if err := beginLineObject(s); err != nil {
		return err
	}
	var fieldErr error
	hasStatus := false
	for k := 0; ; k++ {
		f, ok, err := d.nextField(k)
		if err != nil {
			return err
		}
		if !ok {
			break
		}
		if f == fUnknown || f == fRunID || f == fSource {
			if err := s.SkipValue(); err != nil {
				return err
			}
			continue
		}
		err = d.field(f, sp)
		if err == nil {
			if f == fStatus {
				hasStatus = true
			}
			continue
		}
		if isBadJSON(err) {
			return err
		}
		if fieldErr == nil {
			fieldErr = err
		}
	}
	if err := s.Finish(); err != nil {
		return err
	}
	if fieldErr != nil {
		return fieldErr
	}
	if sp.SpanID == "" {
		return scan.Errorf(ErrMissingField, -1, "missing span_id")
	}
	if !hasStatus {
		return scan.Errorf(ErrMissingField, -1, "missing status")
	}
	if sp.RequestID == "" {
		sp.RequestID = sp.SpanID
	}
	return nil
}

// beginLineObject starts reading a line that must hold one JSON object,
// past its '{'. Valid JSON but not an object is the wrong type; anything
// else is not JSON, said plainly rather than from deep inside a value
// ("not json" would otherwise be a misspelt null).
func beginLineObject(s *scan.JSON) error {
	if c := s.Class(); c != scan.Object {
		start := s.Pos
		if c == scan.End {
			return s.SyntaxError("looking for beginning of object")
		}
		if s.SkipValue() != nil || s.Finish() != nil {
			s.Pos = start
			return s.SyntaxError("looking for beginning of object")
		}
		return scan.Errorf(ErrBadType, start, "want a JSON object, found %s", scan.ClassName(c))
	}
	return s.BeginObject()
}

// keySeen is what came before the value at one position of the object on
// the last line that had one there: the separator, the key and the ':', as
// they were written (quotes and escapes included), and the key's column.
// Lines written by one program repeat their keys in one order, so the next
// line's bytes at that position are mostly the same.
type keySeen struct {
	raw [maxKeySeen]byte
	n   uint8 // 0: none
	f   spanField
}

const (
	maxKeySeen   = 32 // longer keys are not remembered
	keyPositions = 32 // nor keys after this many
)

// nextField is JSON scanner.NextKey for the k-th key (from 0) of a line,
// returning the key's column. When the bytes from the end of the last value
// to the ':' are those the last line had at that position, they are skipped
// at once: read again, they would give the same key, so the same column.
func (d *spansDecoder) nextField(k int) (spanField, bool, error) {
	s := &d.sc
	seen := d.seenKey(k)
	if seen != nil && seen.n > 0 {
		if n := int(seen.n); len(s.Data)-s.Pos >= n && string(s.Data[s.Pos:s.Pos+n]) == string(seen.raw[:n]) {
			s.Pos += n
			s.SkipSpace()
			return seen.f, true, nil
		}
	}
	start := s.Pos
	if ok, err := s.KeyStart(k == 0); !ok || err != nil {
		return fUnknown, ok, err
	}
	key, err := s.ReadString()
	if err != nil {
		return fUnknown, false, err
	}
	f := spanFieldOf(key)
	if err := s.KeyEnd(); err != nil {
		return fUnknown, false, err
	}
	if seen != nil {
		raw := s.Data[start:s.Pos]
		seen.n = 0
		if len(raw) <= maxKeySeen {
			seen.n = uint8(copy(seen.raw[:], raw))
			seen.f = f
		}
	}
	s.SkipSpace()
	return f, true, nil
}

// seenKey returns the memory of the k-th key, nil past keyPositions.
func (d *spansDecoder) seenKey(k int) *keySeen {
	if k < len(d.keys) {
		return &d.keys[k]
	}
	return nil
}

func isBadJSON(err error) bool {
	re, ok := err.(*RecordError)
	return ok && re.Kind == ErrBadJSON
}

// field reads the value of field f at the scanner's position into sp. The
// value is always consumed, even when it is refused, so that decoding can go
// on checking the syntax of the rest of the line.
func (d *spansDecoder) field(f spanField, sp *schemas.Span) error {
	s := &d.sc
	pos := s.Pos
	switch f {
	case fSpanID, fRequestID:
		b, isNull, err := d.str(f)
		if err != nil || isNull {
			return err // null is missing: span_id is checked after the object
		}
		if f == fSpanID {
			sp.SpanID = d.arena.Text(b)
		} else {
			sp.RequestID = d.arena.Text(b)
		}
	case fRetryCause, fModel, fReplica, fError, fTimeOrigin:
		b, isNull, err := d.str(f)
		if err != nil {
			return err
		}
		var v *string
		if !isNull && len(b) > 0 {
			v = d.arena.Str(d.recent[f].Get(b, &d.intern))
		}
		switch f {
		case fRetryCause:
			sp.RetryCause = v
		case fModel:
			sp.Model = v
		case fReplica:
			sp.Replica = v
		case fError:
			sp.Error = v
		case fTimeOrigin:
			sp.TimeOrigin = v
		}
	case fStatus:
		b, isNull, err := d.str(f)
		if err != nil {
			return err
		}
		if isNull || len(b) == 0 {
			return scan.Errorf(ErrMissingField, pos, "missing status")
		}
		st, ok := spanStatus(b)
		if !ok {
			return scan.Errorf(ErrBadValue, pos, "status: unknown status %q (want ok, error, timeout, aborted or cancelled)", b)
		}
		sp.Status = st
	case fQueuedAt, fEngineArrivedAt, fAdmittedAt, fFirstTokenAt, fLastTokenAt, fReleasedAt:
		v, err := d.timestamp(f)
		if err != nil {
			return err
		}
		switch f {
		case fQueuedAt:
			sp.QueuedAt = v
		case fEngineArrivedAt:
			sp.EngineArrivedAt = v
		case fAdmittedAt:
			sp.AdmittedAt = v
		case fFirstTokenAt:
			sp.FirstTokenAt = v
		case fLastTokenAt:
			sp.LastTokenAt = v
		case fReleasedAt:
			sp.ReleasedAt = v
		}
	case fInputTokens, fOutputTokens, fCachedTokens:
		v, isNull, err := d.integer(f, 0, 1<<63-1)
		if err != nil || isNull {
			return err
		}
		p := d.arena.Int64(v)
		switch f {
		case fInputTokens:
			sp.InputTokens = p
		case fOutputTokens:
			sp.OutputTokens = p
		case fCachedTokens:
			sp.CachedTokens = p
		}
	case fAttempt:
		v, isNull, err := d.integer(f, 0, 1<<31-1)
		if err != nil || isNull {
			return err
		}
		sp.Attempt = d.arena.Int32(int32(v))
	case fHTTPStatus:
		v, isNull, err := d.integer(f, 100, 599)
		if err != nil || isNull {
			return err
		}
		sp.HTTPStatus = d.arena.Int32(int32(v))
	case fTimeResolutionUS:
		v, isNull, err := d.integer(f, 1, 1<<31-1)
		if err != nil || isNull {
			return err
		}
		sp.TimeResolutionUS = d.arena.Int32(int32(v))
	}
	return nil
}

// str reads a string or null. The bytes are valid until the next read.
func (d *spansDecoder) str(f spanField) (b []byte, isNull bool, err error) {
	s := &d.sc
	pos := s.Pos
	switch c := s.Class(); c {
	case scan.String:
		b, err := s.ReadString()
		return b, false, err
	case scan.Null:
		return nil, true, s.ReadLiteral("null")
	default:
		if err := s.SkipValue(); err != nil {
			return nil, false, err
		}
		return nil, false, scan.Errorf(ErrBadType, pos, "%s: want a string, found %s", f, scan.ClassName(c))
	}
}

// integer reads a whole number in [lo, hi], or null.
func (d *spansDecoder) integer(f spanField, lo, hi int64) (v int64, isNull bool, err error) {
	s := &d.sc
	pos := s.Pos
	switch c := s.Class(); c {
	case scan.Number:
		if v, n, ok := scan.PlainInteger(s.Data[s.Pos:]); ok && lo <= v && v <= hi {
			s.Pos += n
			return v, false, nil
		}
		num, err := s.ReadNumber()
		if err != nil {
			return 0, false, err
		}
		v, exact, ok := scan.ScaleDecimal(num, 0)
		switch {
		case !exact && ok:
			return 0, false, scan.Errorf(ErrBadValue, pos, "%s: %q is not a whole number", f, num)
		case !ok || v < lo || v > hi:
			if lo == 0 && (v < 0 || !ok && num[0] == '-') {
				return 0, false, scan.Errorf(ErrBadValue, pos, "%s: %q is negative", f, num)
			}
			return 0, false, scan.Errorf(ErrBadValue, pos, "%s: %q is out of range [%d, %d]", f, num, lo, hi)
		}
		return v, false, nil
	case scan.Null:
		return 0, true, s.ReadLiteral("null")
	default:
		if err := s.SkipValue(); err != nil {
			return 0, false, err
		}
		return 0, false, scan.Errorf(ErrBadType, pos, "%s: want a number, found %s", f, scan.ClassName(c))
	}
}

// timestamp reads an RFC 3339 string, an epoch number (or its text), or null.
func (d *spansDecoder) timestamp(f spanField) (*int64, error) {
	s := &d.sc
	pos := s.Pos
	var b []byte
	var us int64
	var err error
	switch c := s.Class(); c {
	case scan.String:
		// The common shape first: its bytes need no unescaping, so they
		// are read in place when the closing quote is where it must be.
		if end := s.Pos + 1 + scan.UTCMicrosLen; end < len(s.Data) && s.Data[end] == '"' {
			if us, ok := scan.ParseUTCMicros(s.Data[s.Pos+1:end], &d.day); ok {
				s.Pos = end + 1
				return d.arena.Int64(us), nil
			}
		}
		if b, err = s.ReadString(); err != nil {
			return nil, err
		}
		us, err = scan.ParseTimestamp(b)
	case scan.Number:
		if b, err = s.ReadNumber(); err != nil {
			return nil, err
		}
		us, err = scan.ParseEpoch(b)
	case scan.Null:
		return nil, s.ReadLiteral("null")
	default:
		if err := s.SkipValue(); err != nil {
			return nil, err
		}
		return nil, scan.Errorf(ErrBadType, pos, "%s: want a timestamp (string or number), found %s", f, scan.ClassName(c))
	}
	if err != nil {
		return nil, scan.Errorf(ErrBadTimestamp, pos, "%s: invalid timestamp %q: %v", f, b, err)
	}
	return d.arena.Int64(us), nil
}

// spanStatus maps a status word, in any case, to a schemas status.
func spanStatus(b []byte) (string, bool) {
	var buf [16]byte
	if len(b) > len(buf) {
		return "", false
	}
	low := buf[:len(b)]
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		low[i] = c
	}
	switch string(low) {
	case "ok", "success":
		return schemas.StatusOK, true
	case "error", "failure", "failed":
		return schemas.StatusError, true
	case "timeout":
		return schemas.StatusTimeout, true
	case "aborted":
		return schemas.StatusAborted, true
	case "cancelled", "canceled":
		return schemas.StatusCancelled, true
	}
	return "", false
}
