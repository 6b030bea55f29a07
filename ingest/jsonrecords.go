package ingest

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/tpsreport/tpsreport/ingest/internal/scan"
)

// jsonRecordReader is the Reader of the formats whose records are JSON
// values: the gateway formats (litellm, kong, envoy-ai, otel-genai,
// mapping). A format gives it a decode function; an input is one of:
//
//   - NDJSON: one JSON value per line; a record's position is its Line, and a
//     malformed line is rejected on its own;
//   - a JSON array of values, or one or more JSON documents that span lines
//     (pretty-printed): a record's position is its byte Offset. After a
//     syntax error the reader resynchronises at the next record: the next
//     line indented as the first record's was that starts with "{" (a
//     pretty-printer indents everything inside a record deeper), or, when
//     the first record did not start a line (a compact array), the next
//     "{" after "}" and ",". What lies between is one reject; resyncs
//     counts them, for Run's warning.
//
// The mode is chosen from the first non-blank line: "[" starts an array; a
// line that is only "{" (or ends in "{", "[" or ",") starts a document;
// anything else is NDJSON. Each value is handed to decode, which appends one
// or more records (an OTLP document holds many spans); a value that yields
// none becomes a skip, so read = written + rejected + skipped still holds.
type jsonRecordReader struct {
	name   string
	br     *bufio.Reader
	decode func(v any, raw []byte, out []Record) []Record
	// lineDecoders, when set, makes a decoder of NDJSON lines that needs no
	// parse first (a one-pass scanner), with state of its own, so that
	// several decode side by side (parlines.go). A decoder appends the
	// line's records, or reports false, having appended nothing, to leave
	// the line to scan.ParseValue and decode.
	lineDecoders func() lineDecoder
	par          *parLines

	mode    int // 0 undecided, 1 lines, 2 array, 3 documents, 4 done
	lines   *scan.Lines
	dec     *json.Decoder
	base    int64 // bytes consumed before dec started (BOM)
	maxLine int
	keys    map[string]string // interned object keys (scan.ParseValue)
	only    map[string]bool   // the top-level keys decode reads; nil: all

	queue []Record
	qi    int
	rec   Record
	err   error

	src     *scan.ErrReader // the input, remembering a read error
	pb      *pushback       // what the decoder reads: r.br, after bytes given back
	sr      *bufio.Reader   // scans for the next record after a syntax error
	indent  int             // leading blanks of a record's first line; -1: records do not start lines
	resyncs int64           // damaged records skipped to the next record
	first   *ParseError

	// deriveIDs: a span that decode leaves without a SpanID gets one from
	// its place (FILE:LINE:N), counted in ids.
	deriveIDs bool
	ids       derivedIDs
}

const (
	modeUndecided = iota
	modeLines
	modeArray
	modeDocs
	modeDone
)

func newJSONRecordReader(in Input, decode func(v any, raw []byte, out []Record) []Record) *jsonRecordReader {
	src := &scan.ErrReader{R: in.R}
	return &jsonRecordReader{
		name:    in.Name,
		src:     src,
		br:      bufio.NewReaderSize(src, scan.SniffBytes),
		decode:  decode,
		maxLine: in.MaxLineBytes,
		keys:    map[string]string{},
	}
}

// notices implements noticer: the damaged records of an array or
// documents skipped to the next record, and the span ids derived.
func (r *jsonRecordReader) notices() []string {
	var out []string
	if r.resyncs > 0 {
		out = append(out, fmt.Sprintf("%v; %d damaged record(s) of %s rejected, reading on at the next record", r.first, r.resyncs, r.name))
	}
	if s := r.ids.notice(r.name); s != "" {
		out = append(out, s)
	}
	return out
}

// Next implements Reader.
func (r *jsonRecordReader) Next() bool {
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
func (r *jsonRecordReader) fill() bool {
	if r.mode == modeUndecided {
		r.decide()
	}
	switch r.mode {
	case modeLines:
		if r.lineDecoders != nil {
			return r.fillBlock()
		}
		return r.fillLine()
	case modeArray, modeDocs:
		return r.fillDoc()
	}
	return false
}

func (r *jsonRecordReader) decide() {
	head, err := r.br.Peek(scan.SniffBytes)
	if err != nil && err != io.EOF && err != bufio.ErrBufferFull {
		r.err = err
		r.mode = modeDone
		return
	}
	bom := 0
	if bytes.HasPrefix(head, scan.BOM) {
		bom = len(scan.BOM)
	}
	first := scan.FirstLine(head[bom:])
	switch {
	case len(first) > 0 && first[0] == '[':
		r.mode = modeArray
	case len(first) > 0 && first[0] == '{' &&
		(bytes.HasSuffix(first, []byte("{")) || bytes.HasSuffix(first, []byte("[")) || bytes.HasSuffix(first, []byte(","))):
		r.mode = modeDocs
	default:
		r.mode = modeLines
		r.lines = scan.NewLines(r.br, r.maxLine)
		return
	}
	r.indent = recordIndent(head[bom:], r.mode == modeArray)
	if bom > 0 {
		_, _ = r.br.Discard(bom)
		r.base = int64(bom)
	}
	r.pb = &pushback{r: r.br}
	r.dec = json.NewDecoder(r.pb)
	r.dec.UseNumber()
	if r.mode == modeArray {
		if _, err := r.dec.Token(); err != nil { // the '['
			r.mode = modeDone
			r.err = fmt.Errorf("read %s: %w", r.name, err)
		}
	}
}

func (r *jsonRecordReader) fillLine() bool {
	if !r.lines.Next() {
		r.err = r.lines.Err()
		r.mode = modeDone
		return false
	}
	n := r.lines.Line()
	line := r.lines.Bytes()
	switch {
	case r.lines.Long():
		r.queue = append(r.queue, rejectRecord(r.name, n, 0, scan.Errorf(ErrTooLong, -1,
			"line is %d bytes, longer than the limit of %d bytes", r.lines.Len(), r.lines.Max), line))
	case scan.IsBlank(line):
		r.queue = append(r.queue, Record{Kind: KindSkip, Skip: SkipBlank, Line: n})
	default:
		start := len(r.queue)
		v, err := scan.ParseValue(line, r.keys, r.only)
		if err != nil {
			r.queue = append(r.queue, rejectRecord(r.name, n, 0, err, line))
			break
		}
		r.queue = r.decode(v, line, r.queue)
		r.place(start, n, 0, line)
	}
	return true
}

func (r *jsonRecordReader) fillDoc() bool {
	if r.mode == modeArray && !r.dec.More() {
		r.mode = modeDone
		if _, err := r.dec.Token(); err != nil { // the ']'
			r.queue = append(r.queue, rejectRecord(r.name, 0, r.base+r.dec.InputOffset(),
				scan.Errorf(ErrBadJSON, -1, "invalid JSON: %v", err), nil))
			return true
		}
		if _, err := r.dec.Token(); err != io.EOF {
			r.queue = append(r.queue, rejectRecord(r.name, 0, r.base+r.dec.InputOffset(),
				scan.Errorf(ErrBadJSON, -1, "invalid JSON: data after the top-level array"), nil))
			return true
		}
		return false
	}
	var raw json.RawMessage
	if err := r.dec.Decode(&raw); err != nil {
		wasArray := r.mode == modeArray
		r.mode = modeDone
		if r.src.Err != nil {
			r.err = r.src.Err
			return false
		}
		if err == io.EOF && !wasArray {
			return false
		}
		off := r.base + r.dec.InputOffset()
		var se *json.SyntaxError
		if errors.As(err, &se) {
			r.resync(off, err, wasArray)
			return true
		}
		rest, _ := io.ReadAll(io.LimitReader(r.dec.Buffered(), scan.TooLongKeep))
		r.queue = append(r.queue, rejectRecord(r.name, 0, off,
			scan.Errorf(ErrBadJSON, -1, "invalid JSON: %v (the rest of the input is not read)", err), rest))
		return true
	}
	// The value ends at InputOffset and RawMessage holds it verbatim.
	off := r.base + r.dec.InputOffset() - int64(len(raw))
	v, err := scan.ParseValue(raw, r.keys, r.only)
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
func (r *jsonRecordReader) place(start int, line, off int64, raw []byte) {
	if len(r.queue) == start {
		r.queue = append(r.queue, Record{Kind: KindSkip, Skip: SkipEmptyDocument})
	}
	for i := start; i < len(r.queue); i++ {
		rec := &r.queue[i]
		rec.Line, rec.Offset = line, off
		if r.deriveIDs && rec.Kind == KindSpan && rec.Span.SpanID == "" {
			r.ids.derive(&rec.Span, r.name, line, off, i-start+1)
		}
		if rec.Kind == KindReject && rec.Err != nil {
			rec.Err.File, rec.Err.Line = r.name, line
			if rec.Raw == nil {
				rec.Raw = raw
			}
		}
	}
}

// Record implements Reader.
func (r *jsonRecordReader) Record() *Record { return &r.rec }

// Err implements Reader.
func (r *jsonRecordReader) Err() error { return r.err }

// rejectRecord builds a reject at a line (line formats) or offset.
func rejectRecord(file string, line, off int64, err error, raw []byte) Record {
	pe := parseErrorAt(file, line, err)
	return Record{Kind: KindReject, Line: line, Offset: off, Err: pe, Raw: raw}
}

// decodeReject is what a format's decode appends for a malformed value; the
// jsonRecordReader fills in the position.
func decodeReject(out []Record, err error) []Record {
	return append(out, Record{Kind: KindReject, Err: &ParseError{Err: err}})
}

// recordIndent returns the leading blanks of the line on which the first
// record of an array or documents input starts, or -1 when that record does
// not start its line (a compact array: "[{...},{...}]").
func recordIndent(head []byte, array bool) int {
	i := 0
	for i < len(head) && isJSONSpace(head[i]) {
		i++
	}
	if array {
		if i == len(head) || head[i] != '[' {
			return -1
		}
		i++
		for i < len(head) && (head[i] == ' ' || head[i] == '\t' || head[i] == '\r') {
			i++
		}
		if i == len(head) || head[i] != '\n' {
			return -1 // the first element is on the line of the '['
		}
		for i < len(head) && isJSONSpace(head[i]) {
			i++
		}
	}
	if i == len(head) || head[i] != '{' {
		return -1
	}
	start := bytes.LastIndexByte(head[:i], '\n') + 1
	return i - start
}

func isJSONSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\r' || c == '\n' }

// resync handles a syntax error in the record of an array or documents
// input at byte offset off: it skips to the next record (see
// jsonRecordReader), rejects what it skipped as one record, and goes on
// reading there.
func (r *jsonRecordReader) resync(off int64, cause error, array bool) {
	// The decoder's unread bytes start at the damaged record.
	buffered, _ := io.ReadAll(r.dec.Buffered())
	r.pb.unread(buffered)
	if r.sr == nil {
		r.sr = bufio.NewReaderSize(r.pb, scan.SniffBytes)
	} else {
		r.sr.Reset(r.pb)
	}
	sr := r.sr
	pos := off
	for {
		c, err := sr.ReadByte()
		if err != nil {
			break
		}
		if !isJSONSpace(c) {
			_ = sr.UnreadByte()
			break
		}
		pos++
	}
	start := pos
	head, _ := sr.Peek(scan.TooLongKeep)
	raw := bytes.Clone(head)
	found := false
	if r.indent >= 0 {
		pos, found = nextIndentedRecord(sr, pos, r.indent)
	} else {
		pos, found = nextCompactRecord(sr, pos, array)
	}
	if r.src.Err != nil {
		r.err = r.src.Err
		return
	}
	how := "the rest of the input is skipped: no record starts after it"
	if found {
		how = fmt.Sprintf("skipped %d bytes to the next record", pos-start)
	}
	rec := rejectRecord(r.name, 0, start, scan.Errorf(ErrBadJSON, -1, "invalid JSON: %v (%s)", cause, how), raw)
	r.queue = append(r.queue, rec)
	r.resyncs++
	if r.first == nil {
		r.first = rec.Err
	}
	if !found {
		return
	}
	// Give back what the scan read ahead, for a new decoder.
	ahead, _ := sr.Peek(sr.Buffered())
	r.pb.unread(ahead)
	if array {
		// A decoder in the array again: it reads a '[' of its own first.
		r.dec = json.NewDecoder(io.MultiReader(strings.NewReader("["), r.pb))
		r.base = pos - 1
		r.mode = modeArray
	} else {
		r.dec = json.NewDecoder(r.pb)
		r.base = pos
		r.mode = modeDocs
	}
	r.dec.UseNumber()
	if array {
		_, _ = r.dec.Token()
	}
}

// nextIndentedRecord consumes sr from offset pos, where a damaged record
// starts, up to the next line that starts with indent blanks and a '{',
// and returns the offset of that '{'; or, at the end of the input, the
// offset of the end and false.
func nextIndentedRecord(sr *bufio.Reader, pos int64, indent int) (int64, bool) {
	first := true // the damaged record's own first line
	for {
		if !first {
			b, _ := sr.Peek(indent + 1)
			if len(b) == indent+1 && b[indent] == '{' && isBlanks(b[:indent]) {
				_, _ = sr.Discard(indent)
				return pos + int64(indent), true
			}
		}
		first = false
		for {
			line, err := sr.ReadSlice('\n')
			pos += int64(len(line))
			if err == bufio.ErrBufferFull {
				continue
			}
			if err != nil {
				return pos, false
			}
			break
		}
	}
}

func isBlanks(b []byte) bool {
	for _, c := range b {
		if c != ' ' && c != '\t' {
			return false
		}
	}
	return true
}

// nextCompactRecord consumes sr from offset pos up to the next '{' that
// follows a '}' and a ',' (in an array; in documents, a '}' alone), with
// only whitespace between, and returns its offset; or, at the end of the
// input, the offset of the end and false.
func nextCompactRecord(sr *bufio.Reader, pos int64, array bool) (int64, bool) {
	state := 0 // 0: looking for '}'; 1: after '}', want ','; 2: want '{'
	for {
		c, err := sr.ReadByte()
		if err != nil {
			return pos, false
		}
		switch {
		case state == 2 && c == '{':
			_ = sr.UnreadByte()
			return pos, true
		case isJSONSpace(c) && state > 0:
		case c == '}':
			state = 1
			if !array {
				state = 2
			}
		case c == ',' && state == 1:
			state = 2
		default:
			state = 0
		}
		pos++
	}
}

// pushback is a reader that first gives back bytes read too far.
type pushback struct {
	pending []byte
	r       io.Reader
}

func (p *pushback) Read(b []byte) (int, error) {
	if len(p.pending) > 0 {
		n := copy(b, p.pending)
		p.pending = p.pending[n:]
		return n, nil
	}
	return p.r.Read(b)
}

// unread puts b back in front of what is still to be read.
func (p *pushback) unread(b []byte) {
	if len(b) > 0 {
		p.pending = append(bytes.Clone(b), p.pending...)
	}
}
