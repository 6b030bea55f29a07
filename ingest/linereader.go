package ingest

import "github.com/tpsreport/tpsreport/ingest/internal/scan"

// DefaultMaxLineBytes is the line limit when Options.MaxLineBytes is 0.
const DefaultMaxLineBytes = scan.DefaultMaxLineBytes

// lineReader is the Reader of a line-oriented format, one record per line.
// It turns blank lines into skips and over-long lines into too_long rejects
// and hands every other line to decode, which fills rec (its Kind and Span,
// Sample or Cap) or returns why the line is malformed, preferably a
// *RecordError so the reject gets a column.
//
// A format embeds *lineReader and supplies decode; see format_spans.go.
type lineReader struct {
	name   string
	lines  *scan.Lines
	decode func(line []byte, rec *Record) error
	rec    Record
}

func newLineReader(in Input, decode func(line []byte, rec *Record) error) *lineReader {
	return &lineReader{
		name:   in.Name,
		lines:  scan.NewLines(in.R, in.MaxLineBytes),
		decode: decode,
	}
}

// Next implements Reader.
func (r *lineReader) Next() bool {
	if !r.lines.Next() {
		return false
	}
	r.rec = Record{Line: r.lines.Line()}
	line := r.lines.Bytes()
	switch {
	case r.lines.Long():
		r.reject(scan.Errorf(ErrTooLong, -1, "line is %d bytes, longer than the limit of %d bytes",
			r.lines.Len(), r.lines.Max), line)
	case scan.IsBlank(line):
		r.rec.Kind, r.rec.Skip = KindSkip, SkipBlank
	default:
		if err := r.decode(line, &r.rec); err != nil {
			r.reject(err, line)
		}
	}
	return true
}

func (r *lineReader) reject(err error, raw []byte) {
	r.rec.Kind = KindReject
	r.rec.Err = parseErrorAt(r.name, r.rec.Line, err)
	r.rec.Raw = raw
}

// Record implements Reader.
func (r *lineReader) Record() *Record { return &r.rec }

// Err implements Reader.
func (r *lineReader) Err() error { return r.lines.Err() }
