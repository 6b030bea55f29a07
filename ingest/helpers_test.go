package ingest

import (
	"bytes"
	"io"
	"log/slog"
	"os"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/tpsreport/tpsreport/ingest/internal/scan"
	"github.com/tpsreport/tpsreport/schemas"
)

// updateGolden is set by UPDATE_GOLDEN=1: golden files are rewritten from
// what the code produces instead of compared with it.
var updateGolden = os.Getenv("UPDATE_GOLDEN") == "1"

// golden compares got with the golden file path, or rewrites the file.
func golden(t *testing.T, path string, got []byte) {
	t.Helper()
	if updateGolden {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with UPDATE_GOLDEN=1 to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs (UPDATE_GOLDEN=1 rewrites it):\n%s", path, lineDiff(string(want), string(got)))
	}
}

// lineDiff lists the lines that differ between want and got.
func lineDiff(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	var b strings.Builder
	for i := range max(len(w), len(g)) {
		var wl, gl string
		if i < len(w) {
			wl = w[i]
		}
		if i < len(g) {
			gl = g[i]
		}
		if wl != gl {
			b.WriteString("line " + strconv.Itoa(i+1) + ":\n  want " + wl + "\n  got  " + gl + "\n")
		}
	}
	return b.String()
}

// readRecords runs a spans Reader over r and returns copies of its records.
func readRecords(t *testing.T, name string, r io.Reader, maxLine int) []Record {
	t.Helper()
	if maxLine == 0 {
		maxLine = DefaultMaxLineBytes
	}
	return readAll(t, name, newSpansReader(Input{Name: name, R: r, MaxLineBytes: maxLine}))
}

// readAll reads every record of rd, each a copy that owns its Raw bytes (a
// Reader's Raw lasts until the next call to Next), and fails on rd's error.
func readAll(t *testing.T, name string, rd Reader) []Record {
	t.Helper()
	var recs []Record
	for rd.Next() {
		rec := *rd.Record()
		rec.Raw = bytes.Clone(rec.Raw)
		recs = append(recs, rec)
	}
	if err := rd.Err(); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return recs
}

// readBothPaths reads input twice with a reader of a JSON record format
// that has a one-pass scanner (lineDecoders): once as it runs, its lines
// decoded in parallel, once with the scanner off, so that every line takes
// the parsed path. open makes the reader over in and returns its
// jsonRecordReader. It returns both paths' records and the number of lines
// the scanner took.
func readBothPaths(t *testing.T, input string, open func(in Input) (Reader, *jsonRecordReader)) (scanned, parsed []Record, scannedLines int) {
	t.Helper()
	var took atomic.Int64
	read := func(scan bool) []Record {
		rd, jr := open(Input{Name: "diff", R: strings.NewReader(input), MaxLineBytes: DefaultMaxLineBytes})
		if scan {
			decoders := jr.lineDecoders
			jr.lineDecoders = func() lineDecoder {
				inner := decoders()
				return func(line []byte, out []Record) ([]Record, bool) {
					out, ok := inner(line, out)
					if ok {
						took.Add(1)
					}
					return out, ok
				}
			}
		} else {
			jr.lineDecoders = nil
		}
		return readAll(t, "diff", rd)
	}
	scanned, parsed = read(true), read(false)
	return scanned, parsed, int(took.Load())
}

// scanMatchesParsed holds a reader's one-pass scanner to its parsed path on
// one NDJSON line: when scanLine takes the line, the parser must accept it (with
// the reader's top-level keys, only) and decode must give the same record.
func scanMatchesParsed(t *testing.T, line string, scanLine func([]byte, []Record) ([]Record, bool), decode func(any, []byte, []Record) []Record, only map[string]bool) {
	t.Helper()
	if strings.ContainsAny(line, "\n") {
		return
	}
	scanned, ok := scanLine([]byte(line), nil)
	if !ok {
		return
	}
	if len(scanned) != 1 {
		t.Fatalf("scanLine gave %d records", len(scanned))
	}
	v, err := scan.ParseValue([]byte(line), nil, only)
	if err != nil {
		t.Fatalf("scanLine took a line the parser rejects: %v", err)
	}
	parsed := decode(v, []byte(line), nil)
	if msg := liteLLMRecordDiff(&scanned[0], &parsed[0]); msg != "" {
		t.Fatal(msg)
	}
}

// spansOf returns the spans among recs.
func spansOf(recs []Record) []schemas.Span {
	var out []schemas.Span
	for _, r := range recs {
		if r.Kind == KindSpan {
			out = append(out, r.Span)
		}
	}
	return out
}

// newTestLogger logs text without timestamps to w.
func newTestLogger(w io.Writer) *slog.Logger {
	return slog.New(slog.NewTextHandler(w, &slog.HandlerOptions{
		ReplaceAttr: func(groups []string, a slog.Attr) slog.Attr {
			if a.Key == slog.TimeKey && len(groups) == 0 {
				return slog.Attr{}
			}
			return a
		},
	}))
}
