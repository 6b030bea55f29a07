package ingest

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/tpsreport/tpsreport/ingest/internal/scan"
	"github.com/tpsreport/tpsreport/schemas"
)

// addFixtureLines seeds a fuzz corpus with every line of the spans fixtures.
func addFixtureLines(f *testing.F) {
	files, _ := filepath.Glob("testdata/spans/*.jsonl")
	for _, file := range files {
		b, err := os.ReadFile(file)
		if err != nil {
			f.Fatal(err)
		}
		for line := range bytes.SplitSeq(b, []byte("\n")) {
			f.Add(line)
		}
	}
}

// FuzzSpansLine feeds arbitrary bytes to the spans reader. It must not
// panic; it must deliver one record per line; a reject must be a
// *ParseError at its line; the JSON it accepts is exactly what
// encoding/json accepts; and an accepted span must survive the round trip
// through the canonical format unchanged.
func FuzzSpansLine(f *testing.F) {
	addFixtureLines(f)
	f.Add([]byte("{\"span_id\":\"a\",\"status\":\"ok\"}\r\n\n{\"span_id\":\"b\",\"status\":\"ok\"}"))
	f.Add([]byte(`{"span_id":"\ud83d\ude80\ud800","status":"ok","model":"\u0000"}`))
	f.Add([]byte(`[[[[[[[[[[]]]]]]]]]]`))
	f.Fuzz(func(t *testing.T, data []byte) {
		const max = 4096
		rd := newSpansReader(Input{Name: "fuzz", R: bytes.NewReader(data), MaxLineBytes: max})
		lines := bytes.Split(bytes.TrimPrefix(data, scan.BOM), []byte("\n"))
		last := len(lines) - 1 // the one line not ended by "\n"
		if len(lines[last]) == 0 {
			lines = lines[:last] // a final newline ends the last line
		}
		n := 0
		for rd.Next() {
			rec := rd.Record()
			if n >= len(lines) {
				t.Fatalf("record %d beyond the %d lines", n+1, len(lines))
			}
			line := lines[n]
			if n != last {
				line = bytes.TrimSuffix(line, []byte("\r"))
			}
			n++
			if rec.Line != int64(n) {
				t.Fatalf("record %d has line %d", n, rec.Line)
			}
			switch rec.Kind {
			case KindSkip:
				if !scan.IsBlank(line) || rec.Skip != SkipBlank {
					t.Fatalf("line %d %q skipped (%s)", n, line, rec.Skip)
				}
			case KindReject:
				var pe *ParseError
				if !errors.As(error(rec.Err), &pe) || pe.File != "fuzz" || pe.Line != int64(n) {
					t.Fatalf("line %d: reject error %#v", n, rec.Err)
				}
				if len(line) > max {
					if !errors.Is(rec.Err, ErrTooLong) {
						t.Fatalf("line %d of %d bytes: %v, want too_long", n, len(line), rec.Err)
					}
					continue
				}
				if valid := json.Valid(line); valid == errors.Is(rec.Err, ErrBadJSON) {
					t.Fatalf("line %q: json.Valid %v but %v", line, valid, rec.Err)
				}
				if pe.Column < 0 || pe.Column > len(line)+1 {
					t.Fatalf("line %q: column %d out of the line", line, pe.Column)
				}
				if strings.Contains(pe.Error(), "\n") {
					t.Fatalf("line %q: error %q has a newline", line, pe)
				}
				redacted := redactRaw(rec.Raw)
				if len(redacted) > rawLimit {
					t.Fatalf("raw of %d bytes", len(redacted))
				}
			case KindSpan:
				if !json.Valid(line) {
					t.Fatalf("line %q accepted but not valid JSON", line)
				}
				checkAcceptedSpan(t, line, &rec.Span)
			default:
				t.Fatalf("line %d: kind %v", n, rec.Kind)
			}
		}
		if rd.Err() != nil {
			t.Fatal(rd.Err())
		}
		if n != len(lines) {
			t.Fatalf("%d records for %d lines", n, len(lines))
		}
	})
}

// checkAcceptedSpan compares an accepted span with encoding/json's reading
// of the line and with its own round trip through the canonical format.
func checkAcceptedSpan(t *testing.T, line []byte, sp *schemas.Span) {
	var m map[string]any
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.UseNumber() // numbers beyond float64 are valid JSON
	if err := dec.Decode(&m); err != nil {
		t.Fatalf("line %q accepted, but encoding/json: %v", line, err)
	}
	if m["span_id"] != sp.SpanID {
		t.Fatalf("line %q: span_id %q, encoding/json reads %q", line, sp.SpanID, m["span_id"])
	}
	if sp.SpanID == "" || !schemas.ValidStatus(sp.Status) || sp.RequestID == "" {
		t.Fatalf("line %q: accepted span %+v", line, sp)
	}
	for _, ts := range []*int64{sp.QueuedAt, sp.AdmittedAt, sp.FirstTokenAt, sp.LastTokenAt, sp.ReleasedAt} {
		if ts != nil && (*ts < scan.MinMicros || *ts > scan.MaxMicros) {
			t.Fatalf("line %q: timestamp %d out of range", line, *ts)
		}
	}
	var d spansDecoder
	var again schemas.Span
	canon := canonicalLine(sp)
	if err := d.decode(canon, &again); err != nil {
		t.Fatalf("line %q: canonical form %s: %v", line, canon, err)
	}
	if !reflect.DeepEqual(*sp, again) {
		t.Fatalf("line %q: round trip through %s changed the span", line, canon)
	}
}
