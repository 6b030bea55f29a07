package ingest

import (
	"errors"
	"fmt"
	"strconv"
)

// Sentinel reject kinds. Every malformed record carries exactly one of them in
// its error chain, so tests and callers use errors.Is, and the kind column of
// rejects.jsonl (schemas.Reject.Kind) is derived from it.
var (
	// ErrBadJSON: the record is not valid JSON.
	ErrBadJSON error = &kindError{"bad_json", "invalid JSON"}
	// ErrBadType: a value has the wrong JSON type (a string where a number belongs).
	ErrBadType error = &kindError{"bad_type", "wrong type"}
	// ErrBadTimestamp: a timestamp is neither RFC 3339 nor an epoch number in range.
	ErrBadTimestamp error = &kindError{"bad_timestamp", "invalid timestamp"}
	// ErrMissingField: a required field is absent, null or empty.
	ErrMissingField error = &kindError{"missing_field", "missing field"}
	// ErrBadValue: a value has the right type but is out of its domain
	// (a negative token count, an unknown status word).
	ErrBadValue error = &kindError{"bad_value", "invalid value"}
	// ErrTooLong: the line is longer than Options.MaxLineBytes.
	ErrTooLong error = &kindError{"too_long", "line too long"}
	// ErrImplausibleTime: a timestamp is valid but outside the years 2000 to
	// 2100 (epoch 0, year 0001 or 9999), so not the time of a request.
	ErrImplausibleTime error = &kindError{"implausible_time", "implausible time"}
)

// kindError is the type of the sentinel kinds: Error is the human text, kind
// the stable reason class written to rejects.jsonl and manifest.json.
type kindError struct{ kind, text string }

func (e *kindError) Error() string { return e.text }

// rejectKind returns the reason class of err ("bad_json", "too_long", ...):
// the kind of the first sentinel in its chain, or "bad_value" when a format
// forgot to wrap one.
func rejectKind(err error) string {
	var k *kindError
	if errors.As(err, &k) {
		return k.kind
	}
	return "bad_value"
}

// ParseError is a malformed record: where it is and why. It prints
// compiler-style, "file:line:col: reason", leaving out the column when it is
// unknown (0). Err wraps one of the sentinel kinds (ErrBadJSON, ...).
type ParseError struct {
	File   string // input path as given, or "-" for stdin
	Line   int64  // 1-based line number; 0 when the format has no lines
	Column int    // 1-based byte column within the line; 0 when unknown
	Err    error
}

func (e *ParseError) Error() string {
	b := make([]byte, 0, len(e.File)+64)
	b = append(b, e.File...)
	if e.Line > 0 {
		b = append(b, ':')
		b = strconv.AppendInt(b, e.Line, 10)
		if e.Column > 0 {
			b = append(b, ':')
			b = strconv.AppendInt(b, int64(e.Column), 10)
		}
	}
	b = append(b, ": "...)
	b = append(b, e.Err.Error()...)
	return string(b)
}

// Unwrap returns the reason, which wraps a sentinel kind.
func (e *ParseError) Unwrap() error { return e.Err }

// Kind returns the stable reason class of the error, as written in the kind
// column of rejects.jsonl ("bad_json", "bad_timestamp", ...).
func (e *ParseError) Kind() string { return rejectKind(e.Err) }

// RecordError is the reason a format's decoder gives for rejecting a record:
// a sentinel kind, the 0-based byte offset in the record where the problem is
// (-1 when it has no position) and the message. The Reader turns it into a
// ParseError with the file and line.
type RecordError struct {
	Kind error // one of the sentinels: ErrBadJSON, ErrBadType, ...
	Pos  int   // 0-based byte offset in the record; -1 when unknown
	Msg  string
}

func (e *RecordError) Error() string { return e.Msg }

// Unwrap returns the sentinel kind.
func (e *RecordError) Unwrap() error { return e.Kind }

// recordErrorf builds a RecordError of the given kind at byte offset pos.
func recordErrorf(kind error, pos int, format string, args ...any) *RecordError {
	return &RecordError{Kind: kind, Pos: pos, Msg: fmt.Sprintf(format, args...)}
}

// parseErrorAt places a decoder error at file:line. The column comes from a
// *RecordError's position (1-based), if any.
func parseErrorAt(file string, line int64, err error) *ParseError {
	col := 0
	var re *RecordError
	if errors.As(err, &re) && re.Pos >= 0 {
		col = re.Pos + 1
	}
	return &ParseError{File: file, Line: line, Column: col, Err: err}
}
