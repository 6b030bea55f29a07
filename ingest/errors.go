package ingest

import (
	"errors"
	"strconv"

	"github.com/tpsreport/tpsreport/ingest/internal/scan"
)

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
func (e *ParseError) Kind() string { return scan.KindOf(e.Err) }

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

// The sentinel reject kinds (defined, with what each means, in
// internal/scan, whose JSON, number and timestamp readers make them). Every
// malformed record carries exactly one of them in its error chain, so tests
// and callers use errors.Is, and the kind column of rejects.jsonl
// (schemas.Reject.Kind) is derived from it.
var (
	ErrBadJSON         = scan.ErrBadJSON
	ErrBadType         = scan.ErrBadType
	ErrBadTimestamp    = scan.ErrBadTimestamp
	ErrMissingField    = scan.ErrMissingField
	ErrBadValue        = scan.ErrBadValue
	ErrTooLong         = scan.ErrTooLong
	ErrImplausibleTime = scan.ErrImplausibleTime
)

// RecordError is the reason a format's decoder gives for rejecting a record:
// a sentinel kind, the byte offset in the record where the problem is and
// the message. The Reader turns it into a ParseError with the file and line.
type RecordError = scan.RecordError
