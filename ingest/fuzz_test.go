package ingest

import (
	"bytes"
	"encoding/json"
	"errors"
	"math/big"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"
	"time"

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
		lines := bytes.Split(bytes.TrimPrefix(data, utf8BOM), []byte("\n"))
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
				if !isBlank(line) || rec.Skip != SkipBlank {
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
		if ts != nil && (*ts < minMicros || *ts > maxMicros) {
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

// rfc3339Syntax is the timestamp grammar the parser accepts, to compare it
// with the time package where both apply.
var rfc3339Syntax = regexp.MustCompile(`^[0-9]{4}-[0-9]{2}-[0-9]{2}[Tt ][0-9]{2}:[0-9]{2}:[0-9]{2}(\.[0-9]+)?([Zz]|[+-][0-9]{2}:[0-9]{2})$`)

// longFraction matches more fraction digits than time.Parse keeps.
var longFraction = regexp.MustCompile(`\.[0-9]{10,}`)

// FuzzTimestamp checks the timestamp parser against independent readings:
// time.Parse for RFC 3339 and exact rational arithmetic for epoch numbers.
func FuzzTimestamp(f *testing.F) {
	for _, s := range []string{
		"2026-11-20T10:00:00Z", "2026-11-20T10:00:00.123456789+02:00", "2026-11-20t10:00:00.9999995z",
		"1969-12-31T23:59:59.9999995Z", "9999-12-31T23:59:59.999999Z", "0000-01-01T00:00:00-23:59", "0000-01-01 00:00:00+24:00",
		"2024-02-29 12:00:00+05:45", "2026-13-01T00:00:00Z", "2026-11-20T10:00:00.123456Z", "2024-02-29T23:59:59.999999Z", "yesterday", "",
		"1795168800", "1795168800.1234565", "1795168800123456789", "-1.5e3", "1e400", "99999999999", "100000000000",
	} {
		f.Add(s)
	}
	var day dayCache // shared across inputs, as in a decoder
	f.Fuzz(func(t *testing.T, s string) {
		us, err := parseTimestampText([]byte(s))
		if err == nil && (us < minMicros || us > maxMicros) {
			t.Fatalf("%q: %d out of range", s, us)
		}
		if fast, ok := parseUTCMicros([]byte(s), &day); ok && (err != nil || fast != us) {
			t.Fatalf("%q: fast path %d, want %d, %v", s, fast, us, err)
		}
		if isJSONNumber([]byte(s)) {
			want, ok := refEpoch(s)
			if !ok {
				return
			}
			if want < minMicros || want > maxMicros {
				if err == nil {
					t.Fatalf("%q: got %d, want out of range", s, us)
				}
				return
			}
			if err != nil || us != want {
				t.Fatalf("%q: got %d, %v; want %d", s, us, err, want)
			}
			return
		}
		if !rfc3339Syntax.MatchString(s) {
			if err == nil {
				t.Fatalf("%q: accepted outside the RFC 3339 syntax: %d", s, us)
			}
			return
		}
		if longFraction.MatchString(s) {
			return // time.Parse truncates to nanoseconds; TestTimestamp covers rounding
		}
		norm := []byte(s)
		norm[10] = 'T'
		if c := norm[len(norm)-1]; c == 'z' {
			norm[len(norm)-1] = 'Z'
		}
		ref, refErr := time.Parse(time.RFC3339Nano, string(norm))
		if (err == nil) != (refErr == nil) {
			if errors.Is(err, errTSOutOfRange) || errors.Is(err, errTSOffset) && (s[len(s)-2] >= '6' || s[len(s)-5:len(s)-3] == "24") {
				return // time.Parse has a wider range, and takes offset hour 24 and minutes ≥ 60, which RFC 3339 does not
			}
			t.Fatalf("%q: got %d, %v; time.Parse: %v, %v", s, us, err, ref, refErr)
		}
		if err == nil && us >= 0 && us != schemas.Micros(ref) {
			t.Fatalf("%q: got %d, time.Parse gives %d", s, us, schemas.Micros(ref))
		}
	})
}

// refEpoch reads an epoch number with math/big: seconds if written with a
// fraction or exponent, else by magnitude; rounded half away from zero. It
// reports false for exponents too large to evaluate cheaply.
func refEpoch(s string) (int64, bool) {
	if i := strings.IndexAny(s, "eE"); i >= 0 {
		if len(s)-i > 5 { // exponent of 4+ digits
			return 0, false
		}
	}
	r, ok := new(big.Rat).SetString(s)
	if !ok {
		return 0, false
	}
	var scale *big.Rat
	if strings.ContainsAny(s, ".eE") {
		scale = big.NewRat(1_000_000, 1)
	} else {
		abs := new(big.Rat).Abs(r)
		switch {
		case abs.Cmp(big.NewRat(1e11, 1)) < 0:
			scale = big.NewRat(1_000_000, 1)
		case abs.Cmp(big.NewRat(1e14, 1)) < 0:
			scale = big.NewRat(1_000, 1)
		case abs.Cmp(big.NewRat(1e17, 1)) < 0:
			scale = big.NewRat(1, 1)
		default:
			scale = big.NewRat(1, 1_000)
		}
	}
	r.Mul(r, scale)
	// Round half away from zero: trunc(|r| + 1/2) with r's sign.
	neg := r.Sign() < 0
	r.Abs(r)
	r.Add(r, big.NewRat(1, 2))
	q := new(big.Int).Quo(r.Num(), r.Denom())
	if neg {
		q.Neg(q)
	}
	if !q.IsInt64() {
		return maxMicros + 1, true // out of range either way
	}
	return q.Int64(), true
}
