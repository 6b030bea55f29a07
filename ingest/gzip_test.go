package ingest

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/klauspost/compress/gzip"

	"github.com/tpsreport/tpsreport/schemas"
)

// gzipped compresses s as one gzip member.
func gzipped(t *testing.T, s string) []byte {
	t.Helper()
	var b bytes.Buffer
	zw := gzip.NewWriter(&b)
	if _, err := zw.Write([]byte(s)); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// TestRunGzipTrailingGarbage: as gzip(1) does, bytes after the last gzip
// member that do not start another one are ignored with a warning, and
// every member before them is read; a cut member is still an error.
func TestRunGzipTrailingGarbage(t *testing.T) {
	a, spansA := validInput(0, 4)
	b, spansB := validInput(4, 10)
	two := append(gzipped(t, a), gzipped(t, b)...)
	for _, tt := range []struct {
		name    string
		data    []byte
		spans   int
		warning bool
		err     string
	}{
		{"two members", two, 10, false, ""},
		{"text after", append(append([]byte{}, two...), "garbage\n"...), 10, true, ""},
		{"zeros after", append(append([]byte{}, two...), make([]byte, 512)...), 10, true, ""},
		{"one byte of a magic after", append(append([]byte{}, two...), 0x1f), 10, true, ""},
		{"cut second member", two[:len(two)-4], 0, false, "unexpected EOF (truncated gzip?)"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			in := filepath.Join(dir, "in.jsonl.gz")
			writeFile(t, in, tt.data)
			var logs bytes.Buffer
			out := filepath.Join(dir, "out")
			m, err := Run(context.Background(), Options{RunID: "baseline", Format: "spans", OutDir: out, Inputs: []string{in}, Log: newTestLogger(&logs)})
			if tt.err != "" {
				if err == nil || err.Error() != `read "`+in+`": `+tt.err {
					t.Fatalf("error %v, want %s", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if want := (schemas.Counts{Read: int64(tt.spans), Written: int64(tt.spans)}); m.Counts != want {
				t.Errorf("counts %+v, want %+v", m.Counts, want)
			}
			diffSpans(t, readSpans(t, out), append(append([]schemas.Span{}, spansA...), spansB...))
			if m.Inputs[0].Size != int64(len(tt.data)) || m.Inputs[0].SHA256 != sha(tt.data) {
				t.Errorf("input %+v: the size and hash are not the whole file's", m.Inputs[0])
			}
			warn := "level=WARN msg=\"" + in + ": decompression OK, trailing garbage ignored (bytes after the gzip data)\""
			if got := strings.Contains(logs.String(), warn); got != tt.warning {
				t.Errorf("warning %v, want %v; log:\n%s", got, tt.warning, logs.String())
			}
		})
	}
}
