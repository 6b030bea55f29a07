package scan

import (
	"errors"
	"fmt"
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

// KindOf returns the reason class of err ("bad_json", "too_long", ...):
// the kind of the first sentinel in its chain, or "bad_value" when a format
// forgot to wrap one.
func KindOf(err error) string {
	var k *kindError
	if errors.As(err, &k) {
		return k.kind
	}
	return "bad_value"
}

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

// Errorf builds a RecordError of the given kind at byte offset pos.
func Errorf(kind error, pos int, format string, args ...any) *RecordError {
	return &RecordError{Kind: kind, Pos: pos, Msg: fmt.Sprintf(format, args...)}
}
