package scan

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// Docs reads a stream of JSON documents (one per file, one per line,
// or any mix, pretty-printed or not) one at a time, so that memory is
// bounded by the largest document, not by the input: whitespace between
// documents is skipped through a fixed buffer, and a document larger than
// max bytes ends the input with an error.
type Docs struct {
	name string
	src  *ErrReader
	max  int64

	buf      []byte // buf[off:] is read but not yet consumed
	off      int
	eof      bool
	line     int64 // line of the next unread byte, 1-based
	blank    int64 // whitespace bytes since the last newline
	bomDone  bool
	err      error // fatal: a read error or a document over max
	finished bool
}

// jsonDocsBuffer is the size of the reads that skip whitespace.
const jsonDocsBuffer = 64 << 10

// NewDocs reads the documents of head (bytes already read of the
// input) followed by r.
func NewDocs(name string, head []byte, r io.Reader, max int64) *Docs {
	return &Docs{name: name, src: &ErrReader{R: r}, max: max, buf: head, line: 1}
}

// ErrReader remembers the first error of r other than io.EOF, so that a
// read error (a truncated .gz) is told apart from malformed JSON.
type ErrReader struct {
	R   io.Reader
	Err error
}

func (e *ErrReader) Read(p []byte) (int, error) {
	n, err := e.R.Read(p)
	if err != nil && err != io.EOF && e.Err == nil {
		e.Err = err
	}
	return n, err
}

// docLimit fails a read once more than n bytes have been read through it.
type docLimit struct {
	r io.Reader
	n int64
}

var errDocTooLarge = errors.New("document too large")

func (l *docLimit) Read(p []byte) (int, error) {
	if l.n <= 0 {
		return 0, errDocTooLarge
	}
	if int64(len(p)) > l.n {
		p = p[:l.n]
	}
	n, err := l.r.Read(p)
	l.n -= int64(n)
	return n, err
}

// Doc is one document: its bytes (valid until the next call to next)
// and the line it starts on; or, when bad is set, a document that is not
// valid JSON, bad saying why, raw holding its first bytes. The stream ends
// after a bad document: where the next one would start is unknown.
type Doc struct {
	Data []byte
	Line int64
	Bad  *RecordError
	Raw  []byte
}

// Next returns the next document, or false at the end of the input or on a
// fatal error (Err).
func (d *Docs) Next() (Doc, bool) {
	if d.finished {
		return Doc{}, false
	}
	if !d.skipSpace() {
		d.finished = true
		return Doc{}, false
	}
	line := d.line
	pending := d.buf[d.off:]
	lim := &docLimit{r: d.src, n: d.max - int64(len(pending))}
	dec := json.NewDecoder(io.MultiReader(bytes.NewReader(pending), lim))
	var raw json.RawMessage
	if err := dec.Decode(&raw); err != nil {
		d.finished = true
		switch {
		case d.src.Err != nil:
			d.err = d.src.Err
			return Doc{}, false
		case errors.Is(err, errDocTooLarge):
			d.err = fmt.Errorf("%s:%d: JSON document larger than %d MiB; split the input", d.name, line, d.max>>20)
			return Doc{}, false
		}
		pos := -1
		var se *json.SyntaxError
		if errors.As(err, &se) {
			pos = int(se.Offset - 1)
		}
		rest, _ := io.ReadAll(io.LimitReader(dec.Buffered(), TooLongKeep))
		return Doc{Line: line, Bad: Errorf(ErrBadJSON, pos, "invalid JSON: %v", err), Raw: rest}, true
	}
	d.line += int64(bytes.Count(raw, []byte("\n")))
	// What the decoder read past the document, then what it left unread of
	// pending, is where the next document starts.
	if consumed := int(dec.InputOffset()); consumed < len(pending) {
		d.off += consumed // the decoder read nothing after pending
	} else {
		d.buf, _ = io.ReadAll(dec.Buffered())
		d.off = 0
	}
	return Doc{Data: raw, Line: line}, true
}

// skipSpace consumes JSON whitespace (and a byte order mark at the start),
// counting lines, and reports whether a document follows.
func (d *Docs) skipSpace() bool {
	empty := 0 // reads in a row that gave nothing
	for {
		if !d.bomDone && (len(d.buf)-d.off >= len(BOM) || d.eof) {
			if bytes.HasPrefix(d.buf[d.off:], BOM) {
				d.off += len(BOM)
			}
			d.bomDone = true
		}
		for d.bomDone && d.off < len(d.buf) {
			switch d.buf[d.off] {
			case '\n':
				d.line++
				d.blank = 0
			case ' ', '\t', '\r':
				d.blank++
			default:
				d.blank = 0
				return true
			}
			d.off++
		}
		if d.blank > MaxSkippedLine {
			// Whitespace without end, and no newline.
			d.err = &EndlessLineError{Line: d.line, Limit: MaxSkippedLine}
			return false
		}
		if d.eof {
			return false
		}
		// Everything read is consumed: read more into a fixed buffer.
		if cap(d.buf) < jsonDocsBuffer || d.off < len(d.buf) {
			b := make([]byte, len(d.buf)-d.off, max(jsonDocsBuffer, 2*(len(d.buf)-d.off)))
			copy(b, d.buf[d.off:])
			d.buf = b
		} else {
			d.buf = d.buf[:0]
		}
		d.off = 0
		n, err := d.src.Read(d.buf[len(d.buf):cap(d.buf)])
		d.buf = d.buf[:len(d.buf)+n]
		switch {
		case err == io.EOF:
			d.eof = true
		case err != nil:
			d.err = err
			return false
		case n == 0:
			if empty++; empty == 100 {
				d.err = io.ErrNoProgress
				return false
			}
		}
	}
}

// Err returns the fatal error that ended the documents, or nil.
func (d *Docs) Err() error { return d.err }
