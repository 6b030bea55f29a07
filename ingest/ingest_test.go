package ingest

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"
	"github.com/parquet-go/parquet-go"

	"github.com/tpsreport/tpsreport/internal/dataset"
	"github.com/tpsreport/tpsreport/schemas"
	"github.com/tpsreport/tpsreport/sim"
)

// validLine returns the i-th valid line of the generated inputs and the span
// it must give (with run_id "baseline").
func validLine(i int) (string, schemas.Span) {
	status, want := "ok", schemas.StatusOK
	if i%10 == 9 {
		status, want = "failed", schemas.StatusError
	}
	line := fmt.Sprintf(`{"span_id":"s%03d","request_id":"r%02d","attempt":%d,"model":"m","replica":"vllm-%d",`+
		`"queued_at":"2026-11-20T10:%02d:%02d.%06dZ","released_at":%d.5,"input_tokens":%d,"output_tokens":%d,`+
		`"status":%q,"prompt":"never copied"}`,
		i, i/2, i%2, i%3, i/60, i%60, i, 1795168800+i+1, 100+i, i, status)
	sp := schemas.Span{
		RunID:        "baseline",
		Source:       "spans",
		SpanID:       fmt.Sprintf("s%03d", i),
		RequestID:    fmt.Sprintf("r%02d", i/2),
		Attempt:      schemas.Ptr(int32(i % 2)),
		Model:        schemas.Ptr("m"),
		Replica:      schemas.Ptr(fmt.Sprintf("vllm-%d", i%3)),
		QueuedAt:     schemas.Ptr(int64(t0 + i*1_000_000 + i)),
		ReleasedAt:   schemas.Ptr(int64(t0 + (i+1)*1_000_000 + 500_000)),
		InputTokens:  schemas.Ptr(int64(100 + i)),
		OutputTokens: schemas.Ptr(int64(i)),
		Status:       want,
	}
	return line, sp
}

// validInput returns lines [from, to) of the generated valid input.
func validInput(from, to int) (string, []schemas.Span) {
	var b strings.Builder
	var spans []schemas.Span
	for i := from; i < to; i++ {
		line, sp := validLine(i)
		b.WriteString(line + "\n")
		spans = append(spans, sp)
	}
	return b.String(), spans
}

// acceptanceInput is the acceptance case: exactly 100 valid lines
// mixed with broken ones. It returns the file contents, the spans, and the
// rejects the broken lines must produce (File left empty).
func acceptanceInput() (string, []schemas.Span, []schemas.Reject) {
	bigPrompt := strings.Repeat("p", 10<<20)
	broken := map[int]string{ // after valid line i, this broken line
		10: `{"span_id":"bad-json","status":"ok",`,
		20: `{"span_id":"bad-type","status":"ok","input_tokens":"512"}`,
		30: `{"span_id":"bad-ts","status":"ok","queued_at":"yesterday"}`,
		40: ``,
		50: `{"span_id":"big","status":"ok","prompt":"` + bigPrompt + `"}`,
		60: `{"request_id":"no-span-id","status":"ok"}`,
	}
	var b strings.Builder
	var spans []schemas.Span
	var rejects []schemas.Reject
	line := int64(0)
	for i := range 100 {
		l, sp := validLine(i)
		b.WriteString(l + "\n")
		line++
		spans = append(spans, sp)
		bad, ok := broken[i]
		if !ok {
			continue
		}
		b.WriteString(bad + "\n")
		line++
		col := func(value string) int { return strings.Index(bad, value) + 1 }
		switch i {
		case 10:
			rejects = append(rejects, schemas.Reject{Line: line, Column: len(bad) + 1, Kind: "bad_json",
				Reason: "invalid JSON: unexpected end of record looking for beginning of object key string", Raw: bad})
		case 20:
			rejects = append(rejects, schemas.Reject{Line: line, Column: col(`"512"`), Kind: "bad_type",
				Reason: "input_tokens: want a number, found string", Raw: bad})
		case 30:
			rejects = append(rejects, schemas.Reject{Line: line, Column: col(`"yesterday"`), Kind: "bad_timestamp",
				Reason: `queued_at: invalid timestamp "yesterday": want RFC 3339 (2026-11-20T10:00:00.123Z) or epoch seconds, ms, µs or ns`, Raw: bad})
		case 50:
			rejects = append(rejects, schemas.Reject{Line: line, Kind: "too_long",
				Reason: fmt.Sprintf("line is %d bytes, longer than the limit of 1048576 bytes", len(bad)),
				Raw:    `{"span_id":"big","status":"ok","prompt":"[removed]"`})
		case 60:
			rejects = append(rejects, schemas.Reject{Line: line, Kind: "missing_field", Reason: "missing span_id", Raw: bad})
		}
	}
	return b.String(), spans, rejects
}

func writeFile(t *testing.T, path string, data []byte) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

func sha(data []byte) string {
	h := sha256.Sum256(data)
	return hex.EncodeToString(h[:])
}

func readSpans(t *testing.T, dir string) []schemas.Span {
	t.Helper()
	spans, err := parquet.ReadFile[schemas.Span](filepath.Join(dir, schemas.SpansFile))
	if err != nil {
		t.Fatalf("read spans.parquet: %v", err)
	}
	return spans
}

func readRejects(t *testing.T, dir string) []schemas.Reject {
	t.Helper()
	f, err := os.Open(filepath.Join(dir, schemas.RejectsFile))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []schemas.Reject
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var r schemas.Reject
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatalf("rejects.jsonl: %v: %s", err, sc.Bytes())
		}
		out = append(out, r)
	}
	return out
}

func diffSpans(t *testing.T, got, want []schemas.Span) {
	t.Helper()
	if len(got) != len(want) {
		t.Errorf("got %d spans, want %d", len(got), len(want))
	}
	for i := range min(len(got), len(want)) {
		if !reflect.DeepEqual(got[i], want[i]) {
			gb, _ := json.Marshal(got[i])
			wb, _ := json.Marshal(want[i])
			t.Errorf("span %d:\n got  %s\n want %s", i, gb, wb)
			return
		}
	}
}

// TestRunAcceptance is the acceptance case.
func TestRunAcceptance(t *testing.T) {
	dir := t.TempDir()
	content, wantSpans, wantRejects := acceptanceInput()
	in := filepath.Join(dir, "logs", "mixed.jsonl")
	writeFile(t, in, []byte(content))
	out := filepath.Join(dir, "run=baseline")

	m, err := Run(context.Background(), Options{RunID: "baseline", Format: "spans", OutDir: out, Inputs: []string{in}, Version: "test"})
	if err != nil {
		t.Fatalf("Run: %v", err)
	}

	diffSpans(t, readSpans(t, out), wantSpans)

	gotRejects := readRejects(t, out)
	for i := range wantRejects {
		wantRejects[i].File = in
	}
	if !reflect.DeepEqual(gotRejects, wantRejects) {
		t.Errorf("rejects:\n got  %+v\n want %+v", gotRejects, wantRejects)
	}

	samples, err := parquet.ReadFile[schemas.Sample](filepath.Join(out, schemas.SamplesFile))
	if err != nil || len(samples) != 0 {
		t.Errorf("samples.parquet: %d rows, %v; want a valid empty file", len(samples), err)
	}

	wantManifest := &schemas.Manifest{
		RunID:   "baseline",
		Tool:    "tpsreport",
		Version: "test",
		Inputs: []schemas.InputFile{{Path: in, Format: "spans", Size: int64(len(content)), SHA256: sha([]byte(content)),
			Counts: schemas.Counts{Read: 106, Written: 100, Rejected: 5, Skipped: 1}}},
		Counts: schemas.Counts{Read: 106, Written: 100, Rejected: 5, Skipped: 1},
		RejectedBy: map[string]int64{
			"bad_json": 1, "bad_type": 1, "bad_timestamp": 1, "too_long": 1, "missing_field": 1,
		},
		SkippedBy: map[string]int64{"blank": 1},
		TimeRange: &schemas.TimeRange{
			Start: schemas.Time(t0),
			End:   schemas.Time(t0 + 100_000000 + 500_000),
		},
		FormatsDetected: []string{"spans"},
	}
	// files describes the data files as they are on disk.
	files, err := dataset.DescribeAll(out, schemas.SpansFile, schemas.SamplesFile, schemas.RejectsFile)
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != 3 || *files[0].Rows != 100 || *files[1].Rows != 0 || *files[2].Rows != 5 {
		t.Errorf("files: %+v, want spans 100 rows, samples 0, rejects 5", files)
	}
	wantManifest.Files = files
	if !reflect.DeepEqual(m, wantManifest) {
		t.Errorf("manifest:\n got  %+v\n want %+v", m, wantManifest)
	}
	c := m.Counts
	if c.Read != c.Written+c.Rejected+c.Skipped {
		t.Errorf("counts do not reconcile: %+v", c)
	}
	// manifest.json holds the same manifest.
	b, err := os.ReadFile(filepath.Join(out, schemas.ManifestFile))
	if err != nil {
		t.Fatal(err)
	}
	var onDisk schemas.Manifest
	if err := json.Unmarshal(b, &onDisk); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(&onDisk, wantManifest) {
		t.Errorf("manifest.json:\n got  %+v\n want %+v", onDisk, wantManifest)
	}
	// No prompt text anywhere in the outputs.
	for _, name := range []string{schemas.SpansFile, schemas.RejectsFile, schemas.ManifestFile} {
		b, _ := os.ReadFile(filepath.Join(out, name))
		if bytes.Contains(b, []byte("never copied")) || bytes.Contains(b, []byte("pppppppp")) {
			t.Errorf("%s holds prompt text", name)
		}
	}
	assertDir(t, out, []string{schemas.ManifestFile, schemas.RejectsFile, schemas.SamplesFile, schemas.SpansFile})
}

// TestRunStrict: the first malformed record is a *ParseError and nothing is
// written.
func TestRunStrict(t *testing.T) {
	dir := t.TempDir()
	content, _, wantRejects := acceptanceInput()
	in := filepath.Join(dir, "mixed.jsonl")
	writeFile(t, in, []byte(content))
	out := filepath.Join(dir, "out", "run=baseline")

	_, err := Run(context.Background(), Options{RunID: "baseline", Format: "spans", OutDir: out, Inputs: []string{in}, Strict: true})
	var pe *ParseError
	if !errors.As(err, &pe) {
		t.Fatalf("got %v (%T), want a *ParseError", err, err)
	}
	first := wantRejects[0]
	want := fmt.Sprintf("%s:%d:%d: %s", in, first.Line, first.Column, first.Reason)
	if err.Error() != want || !errors.Is(err, ErrBadJSON) {
		t.Errorf("got %q, want %q", err, want)
	}
	if _, err := os.Stat(filepath.Join(dir, "out")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("output directory was left behind: %v", err)
	}
}

// assertDir checks that dir holds exactly the named entries.
func assertDir(t *testing.T, dir string, want []string) {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range entries {
		got = append(got, e.Name())
	}
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("%s holds %q, want %q", dir, got, want)
	}
}

// snapshot returns the names and contents of the files in dir.
func snapshot(t *testing.T, dir string) map[string]string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	m := map[string]string{}
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		m[e.Name()] = string(b)
	}
	return m
}

// cancellingReader serves r and cancels its context after the first read,
// as an interrupt in the middle of an ingest would.
type cancellingReader struct {
	r      io.Reader
	cancel context.CancelFunc
}

func (c *cancellingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.cancel()
	return n, err
}

// TestRunAtomic: a failed ingest leaves an existing dataset as it was; a
// successful one replaces it and removes analyze's stale outputs.
func TestRunAtomic(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "run=x")
	old := map[string]string{
		schemas.SpansFile: "old spans", schemas.SamplesFile: "old samples", schemas.ManifestFile: `{"run_id":"x"}`, schemas.RejectsFile: "",
		"summary.json": "{}", "windows.parquet": "old", "requests.parquet": "old", "curves.json": "{}", "notes.txt": "mine",
	}
	for name, content := range old {
		writeFile(t, filepath.Join(out, name), []byte(content))
	}
	good, wantSpans := validInput(0, 100)
	goodPath := filepath.Join(dir, "good.jsonl")
	writeFile(t, goodPath, []byte(good))
	badPath := filepath.Join(dir, "bad.jsonl")
	writeFile(t, badPath, []byte(good+"{oops\n"))
	large := strings.Repeat(good, 200) // several batches

	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	midway, cancelMidway := context.WithCancel(context.Background())
	defer cancelMidway()

	failures := []struct {
		name string
		ctx  context.Context
		opt  Options
		want string
	}{
		{"strict", context.Background(), Options{Inputs: []string{badPath}, Strict: true}, badPath + ":101:2: invalid JSON"},
		{"cancelled", cancelled, Options{Inputs: []string{goodPath}}, "ingest interrupted: context canceled"},
		{"cancelled midway", midway, Options{Inputs: []string{"-"},
			Stdin: &cancellingReader{r: strings.NewReader(large), cancel: cancelMidway}}, "ingest interrupted: context canceled"},
		{"missing input", context.Background(), Options{Inputs: []string{goodPath, filepath.Join(dir, "nope.jsonl")}}, "open input"},
		{"unknown format", context.Background(), Options{Format: "nope", Inputs: []string{goodPath}}, `unknown format "nope"`},
		{"truncated gzip", context.Background(), Options{Inputs: []string{goodPath, writeTruncatedGzip(t, dir, good)}}, "truncated gzip"},
	}
	for _, tt := range failures {
		tt.opt.RunID, tt.opt.OutDir = "x", out
		_, err := Run(tt.ctx, tt.opt)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: got error %v, want one containing %q", tt.name, err, tt.want)
		}
		if got := snapshot(t, out); !reflect.DeepEqual(got, old) {
			t.Errorf("%s: output directory changed:\n got  %q\n want %q", tt.name, got, old)
		}
	}

	if _, err := Run(context.Background(), Options{RunID: "x", OutDir: out, Inputs: []string{goodPath}}); err != nil {
		t.Fatal(err)
	}
	assertDir(t, out, []string{schemas.SpansFile, schemas.SamplesFile, schemas.ManifestFile, schemas.RejectsFile, "notes.txt"})
	for i := range wantSpans {
		wantSpans[i].RunID = "x"
	}
	diffSpans(t, readSpans(t, out), wantSpans)
}

// TestRunRemovesLeftovers: an ingest removes what earlier ones that were
// killed left (SIGKILL leaves them): the temporary files of the versions that
// renamed file by file, and a dead process's stage beside the directory.
// Visible files that are not the dataset's stay.
func TestRunRemovesLeftovers(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "run")
	killed := []string{".spans.parquet.tmp-3k2j1", ".manifest.json.tmp-zz", ".rejects.jsonl.tmp-1", ".samples.parquet.tmp-a",
		".curves.json.old-7x", ".summary.json.old-1", ".analyze-123/duckdb_temp_storage-0.tmp"}
	kept := []string{"spans.parquet.tmp-x", "notes.txt"}
	for _, name := range append(slices.Clone(killed), kept...) {
		writeFile(t, filepath.Join(out, name), []byte("partial"))
	}
	writeFile(t, filepath.Join(out, schemas.SpansFile), []byte("old spans"))
	writeFile(t, filepath.Join(dir, ".run.stage-999999-k1", schemas.SpansFile), []byte("half"))
	defer dataset.SetTestHooks(nil, func(pid int) bool { return pid != 999999 })()
	good, _ := validInput(0, 10)
	in := filepath.Join(dir, "good.jsonl")
	writeFile(t, in, []byte(good))
	if _, err := Run(context.Background(), Options{RunID: "x", OutDir: out, Inputs: []string{in}}); err != nil {
		t.Fatal(err)
	}
	assertDir(t, out, append([]string{schemas.SpansFile, schemas.SamplesFile, schemas.ManifestFile, schemas.RejectsFile}, kept...))
	assertDir(t, dir, []string{"good.jsonl", "run"})
}

// TestRunKilledAtEveryStep: an ingest killed at any step of its commit
// leaves the old dataset, analysis included, or the new one; the next
// ingest cleans up.
func TestRunKilledAtEveryStep(t *testing.T) {
	dir := t.TempDir()
	good, _ := validInput(0, 10)
	in := filepath.Join(dir, "good.jsonl")
	writeFile(t, in, []byte(good))
	old := map[string]string{schemas.SpansFile: "old spans", schemas.ManifestFile: `{"run_id":"old","tool":"tpsreport"}`, schemas.SummaryFile: "{}"}
	var steps []string
	restore := dataset.SetTestHooks(func(s string) bool { steps = append(steps, s); return false }, nil)
	if _, err := Run(context.Background(), Options{RunID: "x", OutDir: filepath.Join(dir, "probe"), Inputs: []string{in}}); err != nil {
		t.Fatal(err)
	}
	restore()
	if len(steps) == 0 {
		t.Fatal("the commit has no steps")
	}
	for _, kill := range steps {
		out := filepath.Join(t.TempDir(), "run")
		for name, c := range old {
			writeFile(t, filepath.Join(out, name), []byte(c))
		}
		restore := dataset.SetTestHooks(func(s string) bool { return s == kill }, func(int) bool { return false })
		_, err := Run(context.Background(), Options{RunID: "x", OutDir: out, Inputs: []string{in}})
		if !errors.Is(err, dataset.ErrKilled) {
			t.Fatalf("killed at %s: %v", kill, err)
		}
		dataset.Recover(out)
		restore()
		got := snapshot(t, out)
		if !reflect.DeepEqual(got, old) {
			if _, ok := got[schemas.SummaryFile]; ok || got[schemas.SpansFile] == old[schemas.SpansFile] {
				t.Errorf("killed at %s: a mix of old and new: %q", kill, slices.Sorted(maps.Keys(got)))
			}
		}
		if entries, _ := os.ReadDir(filepath.Dir(out)); len(entries) != 1 {
			t.Errorf("killed at %s: left beside the dataset: %v", kill, entries)
		}
	}
}

// TestRunRefusesADirectoryThatIsNotADataset: ingest replaces the whole
// directory, so it refuses one that holds other files (review F6: it
// deleted a summary.json of someone else's).
func TestRunRefusesADirectoryThatIsNotADataset(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "home")
	mine := map[string]string{"summary.json": `{"my":"important"}`, "requests.parquet": "d", "windows.parquet": "d", ".spans.parquet.tmp-mine": "t"}
	for name, c := range mine {
		writeFile(t, filepath.Join(out, name), []byte(c))
	}
	good, _ := validInput(0, 10)
	in := filepath.Join(dir, "good.jsonl")
	writeFile(t, in, []byte(good))
	_, err := Run(context.Background(), Options{RunID: "x", OutDir: out, Inputs: []string{in}})
	want := fmt.Sprintf(`output directory %q holds files ["requests.parquet" "summary.json" "windows.parquet"] but no tpsreport dataset: ingest replaces the whole directory. Try an empty or new directory`, out)
	if err == nil || err.Error() != want {
		t.Errorf("got %v\nwant %s", err, want)
	}
	if got := snapshot(t, out); !reflect.DeepEqual(got, mine) {
		t.Errorf("directory changed: %q", got)
	}
	// An empty directory, or one with only hidden files, is fine.
	empty := filepath.Join(dir, "empty")
	writeFile(t, filepath.Join(empty, ".keep"), nil)
	if _, err := Run(context.Background(), Options{RunID: "x", OutDir: empty, Inputs: []string{in}}); err != nil {
		t.Errorf("empty directory: %v", err)
	}
}

func writeTruncatedGzip(t *testing.T, dir, content string) string {
	t.Helper()
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	zw.Write([]byte(content))
	zw.Close()
	p := filepath.Join(dir, "cut.jsonl.gz")
	writeFile(t, p, buf.Bytes()[:buf.Len()-10])
	return p
}

// TestRunInputs: directories, globs, stdin, .gz and .zst give the same spans.
func TestRunInputs(t *testing.T) {
	dir := t.TempDir()
	partA, spansA := validInput(0, 50)
	partB, spansB := validInput(50, 100)
	want := append(spansA, spansB...)

	// Plain files in a tree, with hidden files that must be skipped.
	writeFile(t, filepath.Join(dir, "tree", "a.jsonl"), []byte(partA))
	writeFile(t, filepath.Join(dir, "tree", "sub", "b.jsonl"), []byte(partB))
	writeFile(t, filepath.Join(dir, "tree", ".hidden.jsonl"), []byte("junk\n"))
	writeFile(t, filepath.Join(dir, "tree", ".git", "b.jsonl"), []byte("junk\n"))

	// Compressed: a multi-member gzip, a zstd file, and a gzip file whose
	// name does not say so.
	var gz bytes.Buffer
	for _, half := range []string{partA[:len(partA)/2+3], partA[len(partA)/2+3:]} {
		zw := gzip.NewWriter(&gz)
		zw.Write([]byte(half))
		zw.Close()
	}
	writeFile(t, filepath.Join(dir, "z", "a.jsonl.gz"), gz.Bytes())
	var zs bytes.Buffer
	ze, _ := zstd.NewWriter(&zs)
	ze.Write([]byte(partB))
	ze.Close()
	writeFile(t, filepath.Join(dir, "z", "b.jsonl.zst"), zs.Bytes())
	writeFile(t, filepath.Join(dir, "z", "a.log"), gz.Bytes())

	tests := []struct {
		name   string
		inputs []string
		stdin  string
		paths  []string // manifest input paths
		sizes  []int    // manifest input sizes
	}{
		{"directory", []string{"tree"}, "", []string{"tree/a.jsonl", "tree/sub/b.jsonl"}, []int{len(partA), len(partB)}},
		{"glob", []string{"tree/*.jsonl", "tree/s*/*"}, "", []string{"tree/a.jsonl", "tree/sub/b.jsonl"}, []int{len(partA), len(partB)}},
		{"stdin", []string{"-"}, partA + partB, []string{"-"}, []int{len(partA) + len(partB)}},
		{"stdin gzip", []string{"-", "z/b.jsonl.zst"}, gz.String(), []string{"-", "z/b.jsonl.zst"}, []int{gz.Len(), zs.Len()}},
		{"compressed", []string{"z/a.jsonl.gz", "z/b.jsonl.zst"}, "", []string{"z/a.jsonl.gz", "z/b.jsonl.zst"}, []int{gz.Len(), zs.Len()}},
		{"magic", []string{"z/a.log", "tree/sub/b.jsonl"}, "", []string{"z/a.log", "tree/sub/b.jsonl"}, []int{gz.Len(), len(partB)}},
		{"duplicates read once", []string{"tree/a.jsonl", "tree", "./tree/sub/b.jsonl"}, "", []string{"tree/a.jsonl", "tree/sub/b.jsonl"}, []int{len(partA), len(partB)}},
	}
	t.Chdir(dir)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "out")
			m, err := Run(context.Background(), Options{RunID: "baseline", OutDir: out, Inputs: tt.inputs, Stdin: strings.NewReader(tt.stdin)})
			if err != nil {
				t.Fatal(err)
			}
			diffSpans(t, readSpans(t, out), want)
			var paths []string
			var sizes []int
			for _, in := range m.Inputs {
				paths = append(paths, filepath.ToSlash(in.Path))
				sizes = append(sizes, int(in.Size))
				if in.Format != "spans" || len(in.SHA256) != 64 {
					t.Errorf("input %s: format %q, sha256 %q", in.Path, in.Format, in.SHA256)
				}
			}
			if !slices.Equal(paths, tt.paths) || !slices.Equal(sizes, tt.sizes) {
				t.Errorf("inputs %q sizes %v, want %q %v", paths, sizes, tt.paths, tt.sizes)
			}
			if m.Counts != (schemas.Counts{Read: 100, Written: 100}) {
				t.Errorf("counts %+v", m.Counts)
			}
		})
	}
	// The SHA-256 is of the stored (compressed) bytes.
	m, err := Run(context.Background(), Options{RunID: "r", OutDir: filepath.Join(t.TempDir(), "o"), Inputs: []string{"z/a.jsonl.gz"}})
	if err != nil {
		t.Fatal(err)
	}
	if m.Inputs[0].SHA256 != sha(gz.Bytes()) {
		t.Errorf("sha256 %s, want %s", m.Inputs[0].SHA256, sha(gz.Bytes()))
	}
}

// TestRunInputErrors pins the one-line errors of bad inputs.
func TestRunInputErrors(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	good, _ := validInput(0, 10)
	writeFile(t, "logs/a.jsonl", []byte(good))
	writeFile(t, "empty/.hidden", []byte(good))
	writeFile(t, "notgz.jsonl.gz", []byte(good))
	writeFile(t, "empty.jsonl.gz", nil)
	writeFile(t, "unknown.txt", []byte("hello\n"))
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write([]byte(good))
	zw.Close()
	writeFile(t, "cut.jsonl.gz", gz.Bytes()[:gz.Len()/2])
	writeFile(t, "cuttail.jsonl.gz", gz.Bytes()[:gz.Len()-4])
	var zs bytes.Buffer
	ze, _ := zstd.NewWriter(&zs)
	ze.Write([]byte(good))
	ze.Close()
	writeFile(t, "cut.jsonl.zst", zs.Bytes()[:zs.Len()-4])

	tests := []struct {
		inputs []string
		format string
		want   string
	}{
		{[]string{"logs/x.jsonl"}, "spans", `open input "logs/x.jsonl": no such file or directory`},
		{[]string{"logs/*.json"}, "spans", `no input matched "logs/*.json"`},
		{[]string{"logs/[.json"}, "spans", `bad input pattern "logs/[.json": syntax error in pattern`},
		{[]string{"empty"}, "spans", `no input files in directory "empty"`},
		{nil, "spans", `no input given (want files, directories, globs or - for stdin)`},
		{[]string{"cut.jsonl.gz"}, "spans", `read "cut.jsonl.gz": unexpected EOF (truncated gzip?)`},
		{[]string{"cuttail.jsonl.gz"}, "spans", `read "cuttail.jsonl.gz": unexpected EOF (truncated gzip?)`},
		{[]string{"cut.jsonl.zst"}, "spans", `read "cut.jsonl.zst": unexpected EOF (truncated zstd?)`},
		{[]string{"notgz.jsonl.gz"}, "spans", `read "notgz.jsonl.gz": not gzip data (wrong magic bytes)`},
		{[]string{"empty.jsonl.gz"}, "spans", `read "empty.jsonl.gz": unexpected EOF (truncated gzip?)`},
		{[]string{"unknown.txt"}, "auto", `cannot detect the format of "unknown.txt". Try --format with one of: ` + strings.Join(Formats(), ", ")},
		{[]string{"logs"}, "nope", `unknown format "nope"; valid formats: ` + strings.Join(Formats(), ", ") + `, auto`},
		{[]string{"logs"}, "vllm_otel", `unknown format "vllm_otel" (did you mean "vllm-otel"?); valid formats: ` + strings.Join(Formats(), ", ") + `, auto`},
		{[]string{"vllmotel:logs/a.jsonl"}, "auto", `unknown format "vllmotel" (did you mean "vllm-otel"?); valid formats: ` + strings.Join(Formats(), ", ") + `, auto`},
	}
	for _, tt := range tests {
		_, err := Run(context.Background(), Options{RunID: "r", Format: tt.format, OutDir: "out", Inputs: tt.inputs})
		if err == nil || err.Error() != tt.want {
			t.Errorf("%q: got error\n  %v\nwant\n  %s", tt.inputs, err, tt.want)
		}
		if err != nil && strings.Contains(err.Error(), "\n") {
			t.Errorf("%q: error is not one line: %q", tt.inputs, err)
		}
		if _, err := os.Stat("out"); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%q: output directory was created", tt.inputs)
		}
	}
}

// TestRunOutDirInsideInputs: a dataset written under an input directory is
// not read back as input on the next run.
func TestRunOutDirInsideInputs(t *testing.T) {
	dir := t.TempDir()
	good, _ := validInput(0, 20)
	writeFile(t, filepath.Join(dir, "logs", "a.jsonl"), []byte(good+"{broken\n"))
	opt := Options{RunID: "r", OutDir: filepath.Join(dir, "logs", "run=r"), Inputs: []string{filepath.Join(dir, "logs")}}
	for range 2 {
		m, err := Run(context.Background(), opt)
		if err != nil {
			t.Fatal(err)
		}
		if len(m.Inputs) != 1 || m.Counts != (schemas.Counts{Read: 21, Written: 20, Rejected: 1}) {
			t.Errorf("inputs %+v counts %+v", m.Inputs, m.Counts)
		}
	}
}

// TestRunDeterministic: the same inputs give byte-identical outputs.
func TestRunDeterministic(t *testing.T) {
	dir := t.TempDir()
	content, _, _ := acceptanceInput()
	// A relative input: rejects.jsonl names it, and its size and SHA-256
	// are in the golden manifest.
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	t.Chdir(dir)
	in := "in.jsonl"
	writeFile(t, in, []byte(content))
	var snaps []map[string]string
	for _, out := range []string{"a", "b"} {
		if _, err := Run(context.Background(), Options{RunID: "r", OutDir: filepath.Join(dir, out), Inputs: []string{in}, Version: "v1"}); err != nil {
			t.Fatal(err)
		}
		snaps = append(snaps, snapshot(t, filepath.Join(dir, out)))
	}
	if !reflect.DeepEqual(snaps[0], snaps[1]) {
		t.Error("two runs over the same input differ")
	}
	golden(t, filepath.Join(wd, "testdata/manifest.golden.json"), []byte(strings.ReplaceAll(snaps[0][schemas.ManifestFile], dir, "DIR")))
}

// TestRunAutoLogs: --format auto says which format it chose for which file.
func TestRunAutoLogs(t *testing.T) {
	dir := t.TempDir()
	good, _ := validInput(0, 3)
	in := filepath.Join(dir, "a.jsonl")
	writeFile(t, in, []byte(good))
	var logs bytes.Buffer
	log := newTestLogger(&logs)
	var progress bytes.Buffer
	_, err := Run(context.Background(), Options{RunID: "r", Format: "auto", OutDir: filepath.Join(dir, "o"), Inputs: []string{in}, Log: log, Progress: &progress})
	if err != nil {
		t.Fatal(err)
	}
	want := fmt.Sprintf(`level=INFO msg="detected input format" file=%s format=spans`, in)
	if !strings.Contains(logs.String(), want) {
		t.Errorf("log\n%s\ndoes not contain\n%s", logs.String(), want)
	}
	if progress.Len() == 0 {
		t.Error("no progress output")
	}
}

// TestSplitFormat: a FORMAT: prefix is a format when it looks like a name
// and the argument is no existing path; an unknown name is an error that
// suggests the nearest one.
func TestSplitFormat(t *testing.T) {
	t.Chdir(t.TempDir())
	writeFile(t, "logs:2026/a.jsonl", []byte("{}\n"))
	writeFile(t, "spans:x.jsonl", []byte("{}\n"))
	valid := strings.Join(Formats(), ", ") + ", auto"
	for _, tc := range []struct{ arg, format, path, err string }{
		{"litellm:gw/*.json", "litellm", "gw/*.json", ""},
		{"vllm-otel:-", "vllm-otel", "-", ""},
		{"auto:x.log", "auto", "x.log", ""},
		{"gw/a:b.json", "", "gw/a:b.json", ""},
		{"litellm:", "", "litellm:", ""},
		{"plain.jsonl", "", "plain.jsonl", ""},
		{"C:/logs/a.jsonl", "", "C:/logs/a.jsonl", ""},
		// Existing paths and matching globs with a colon stay paths.
		{"logs:2026/a.jsonl", "", "logs:2026/a.jsonl", ""},
		{"logs:2026/*.jsonl", "", "logs:2026/*.jsonl", ""},
		{"spans:x.jsonl", "", "spans:x.jsonl", ""},
		// Unknown names: a suggestion within two edits, else the list.
		{"vllmotel:engine/*.jsonl", "", "", `unknown format "vllmotel" (did you mean "vllm-otel"?); valid formats: ` + valid},
		{"vllm_otel:a.jsonl", "", "", `unknown format "vllm_otel" (did you mean "vllm-otel"?); valid formats: ` + valid},
		{"LiteLLM:gw.json", "", "", `unknown format "LiteLLM" (did you mean "litellm"?); valid formats: ` + valid},
		{"promethus:m.prom", "", "", `unknown format "promethus" (did you mean "prometheus"?); valid formats: ` + valid},
		{"nosuch:x", "", "", `unknown format "nosuch"; valid formats: ` + valid},
		{"logs:2027/*.jsonl", "", "", `unknown format "logs"; valid formats: ` + valid},
	} {
		f, p, err := splitFormat(tc.arg)
		if f != tc.format || p != tc.path || fmt.Sprint(err) != cmp.Or(tc.err, "<nil>") {
			t.Errorf("splitFormat(%q) = %q, %q, %v; want %q, %q, %s", tc.arg, f, p, err, tc.format, tc.path, cmp.Or(tc.err, "<nil>"))
		}
	}
}

// pngHead is the start of a PNG file: its signature and IHDR chunk.
var pngHead = []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\x0dIHDR\x00\x00\x01\x00\x00\x00\x00\xc8\x08\x06\x00\x00\x00")

// TestRunIgnoresUnknownFilesInDirectories: files found in a directory that
// no format recognises (the simulator's truth.json, a README, a chart) are
// left out with a warning and listed in the manifest; they count nowhere.
// A file named on the command line, or matched by a glob, is still an error,
// and so is a directory of which no file is read.
func TestRunIgnoresUnknownFilesInDirectories(t *testing.T) {
	dir := t.TempDir()
	sc, err := sim.Named("multi-replica")
	if err != nil {
		t.Fatal(err)
	}
	sc.MaxArrivals = 20
	logs := filepath.Join(dir, "sim")
	if _, err := sim.WriteFormats(logs, sc, 1, sim.FormatVLLMOTel); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(logs, "README.md"), []byte("# Simulated stall\n\nvllm-otel.jsonl: the engine's spans.\n"))
	writeFile(t, filepath.Join(logs, "charts", "ttft.png"), pngHead)
	otel := filepath.Join(logs, sim.FormatFile(sim.FormatVLLMOTel))

	alone, err := Run(context.Background(), Options{RunID: "r", OutDir: filepath.Join(dir, "alone"), Inputs: []string{otel}})
	if err != nil {
		t.Fatal(err)
	}
	var logBuf bytes.Buffer
	m, err := Run(context.Background(), Options{RunID: "r", OutDir: filepath.Join(dir, "out"), Inputs: []string{logs}, Log: newTestLogger(&logBuf)})
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	if !reflect.DeepEqual(m.Inputs, alone.Inputs) || m.Counts != alone.Counts || !maps.Equal(m.SkippedBy, alone.SkippedBy) {
		t.Errorf("inputs %+v counts %+v skipped %v,\nwant %+v %+v %v (the log alone)", m.Inputs, m.Counts, m.SkippedBy, alone.Inputs, alone.Counts, alone.SkippedBy)
	}
	ignored := []string{"README.md", "charts/ttft.png", "truth.json"} // walk order
	var want []schemas.IgnoredFile
	for _, name := range ignored {
		p := filepath.Join(logs, filepath.FromSlash(name))
		want = append(want, schemas.IgnoredFile{Path: p, Reason: "no format recognises it"})
		if line := fmt.Sprintf(`level=WARN msg="ignoring %s: no format recognises it"`, p); !strings.Contains(logBuf.String(), line) {
			t.Errorf("log\n%s\nlacks %s", logBuf.String(), line)
		}
	}
	if !reflect.DeepEqual(m.Ignored, want) {
		t.Errorf("ignored %+v, want %+v", m.Ignored, want)
	}
	b, err := os.ReadFile(filepath.Join(dir, "out", schemas.ManifestFile))
	if err != nil {
		t.Fatal(err)
	}
	var onDisk schemas.Manifest
	if err := json.Unmarshal(b, &onDisk); err != nil || !reflect.DeepEqual(onDisk.Ignored, want) {
		t.Errorf("manifest.json ignored_files %+v (%v), want %+v", onDisk.Ignored, err, want)
	}

	// Only unknown files: no input at all.
	only := filepath.Join(dir, "docs")
	writeFile(t, filepath.Join(only, "README.md"), []byte("# notes\n"))
	writeFile(t, filepath.Join(only, "truth.json"), []byte(`{"scenario":"stall","seed":7}`+"\n"))
	valid := strings.Join(Formats(), ", ")
	for _, tt := range []struct {
		inputs []string
		want   string
	}{
		{[]string{filepath.Join(logs, "truth.json")}, fmt.Sprintf("cannot detect the format of %q. Try --format with one of: %s", filepath.Join(logs, "truth.json"), valid)},
		{[]string{filepath.Join(logs, "*")}, fmt.Sprintf("cannot detect the format of %q. Try --format with one of: %s", filepath.Join(logs, "README.md"), valid)},
		{[]string{only}, fmt.Sprintf("no input in directory %q: no format recognises its files (README.md, truth.json). Try --format with one of: %s", only, valid)},
		{[]string{logs, only}, fmt.Sprintf("no input in directory %q: no format recognises its files (README.md, truth.json). Try --format with one of: %s", only, valid)},
	} {
		out := filepath.Join(dir, "failed")
		_, err := Run(context.Background(), Options{RunID: "r", OutDir: out, Inputs: tt.inputs})
		if err == nil || err.Error() != tt.want {
			t.Errorf("%q: got error\n  %v\nwant\n  %s", tt.inputs, err, tt.want)
		}
		if _, err := os.Stat(out); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%q: output directory was created", tt.inputs)
		}
	}
}

// TestRunDetected: the manifest says which formats --format auto chose.
func TestRunDetected(t *testing.T) {
	dir := t.TempDir()
	good, _ := validInput(0, 3)
	in := filepath.Join(dir, "a.jsonl")
	writeFile(t, in, []byte(good))
	for _, tt := range []struct {
		format, input string
		want          bool
	}{
		{"", in, true},
		{"auto", in, true},
		{"spans", in, false},
		{"auto", "spans:" + in, false},
		{"spans", "auto:" + in, true},
	} {
		m, err := Run(context.Background(), Options{RunID: "r", Format: tt.format, OutDir: filepath.Join(dir, "o"), Inputs: []string{tt.input}})
		if err != nil {
			t.Fatal(err)
		}
		if got := m.Inputs[0]; got.Detected != tt.want || got.Format != "spans" {
			t.Errorf("--format %q %s: format %q detected %v, want spans %v", tt.format, tt.input, got.Format, got.Detected, tt.want)
		}
	}
}

// TestRunReplaces: an ingest into a directory that holds a dataset says
// which run it replaces, and removes every output analyze derived from it.
func TestRunReplaces(t *testing.T) {
	dir := t.TempDir()
	good, _ := validInput(0, 10)
	in := filepath.Join(dir, "a.jsonl")
	writeFile(t, in, []byte(good))
	if !slices.Equal(schemas.DerivedFiles, []string{"summary.json", "windows.parquet", "requests.parquet", "latencies.parquet", "curves.json", "budget.parquet", "roles.parquet"}) {
		t.Errorf("DerivedFiles = %q", schemas.DerivedFiles)
	}
	for _, tt := range []struct {
		name     string
		manifest string // "" for none
		replaced string
		log      string
	}{
		{"named", `{"run_id": "nightly-2026-11-19", "tool": "tpsreport"}`, "nightly-2026-11-19", `level=WARN msg="OUT held run nightly-2026-11-19; replacing it"`},
		{"unreadable manifest", `{"run_id": `, "", `level=WARN msg="OUT held a dataset whose manifest names no run; replacing it"`},
		{"no manifest", "", "", `level=WARN msg="OUT held a dataset whose manifest names no run; replacing it"`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "run")
			old := map[string]string{schemas.SpansFile: "old spans", "notes.txt": "mine"}
			if tt.manifest != "" {
				old[schemas.ManifestFile] = tt.manifest
			}
			for _, name := range schemas.DerivedFiles {
				old[name] = "old " + name
			}
			for name, content := range old {
				writeFile(t, filepath.Join(out, name), []byte(content))
			}
			var logs bytes.Buffer
			m, err := Run(context.Background(), Options{RunID: "r", OutDir: out, Inputs: []string{in}, Log: newTestLogger(&logs)})
			if err != nil {
				t.Fatal(err)
			}
			if m.Replaced != tt.replaced {
				t.Errorf("replaced %q, want %q", m.Replaced, tt.replaced)
			}
			if want := strings.ReplaceAll(tt.log, "OUT", out); !strings.Contains(logs.String(), want) {
				t.Errorf("log\n%s\nlacks %s", logs.String(), want)
			}
			assertDir(t, out, []string{schemas.SpansFile, schemas.SamplesFile, schemas.ManifestFile, schemas.RejectsFile, "notes.txt"})
		})
	}
	// A fresh directory replaces nothing and says nothing of it.
	var logs bytes.Buffer
	m, err := Run(context.Background(), Options{RunID: "r", OutDir: filepath.Join(dir, "new"), Inputs: []string{in}, Log: newTestLogger(&logs)})
	if err != nil || m.Replaced != "" || strings.Contains(logs.String(), "replacing") {
		t.Errorf("fresh directory: replaced %q, err %v, log\n%s", m.Replaced, err, logs.String())
	}
}

// TestJoinRolesAreFormats: every source schemas gives a join role is the
// name of a format here, the source its spans carry.
func TestJoinRolesAreFormats(t *testing.T) {
	for _, role := range []schemas.Role{schemas.RoleGateway, schemas.RoleEngine} {
		for _, source := range schemas.SourcesOf(role) {
			if _, ok := formats[source]; !ok {
				t.Errorf("schemas gives %q the join role %s; no format is called so", source, role)
			}
		}
	}
}

// TestTTFTFrom: a run's TTFT starts at the earliest point its formats
// record: a gateway joined with an engine measures from the gateway, a load
// tool from the client's send; canonical spans say nothing of it.
func TestTTFTFrom(t *testing.T) {
	for _, tc := range []struct {
		formats []string
		want    string
	}{
		{[]string{"vllm-otel"}, TTFTEngine},
		{[]string{"litellm", "vllm-otel", "vllm-log"}, TTFTGateway},
		{[]string{"vllm-otel", "guidellm"}, TTFTClient},
		{[]string{"aiperf"}, TTFTClient},
		{[]string{"vllm-bench"}, TTFTClient},
		{[]string{"spans", "samples"}, ""},
		{[]string{"prometheus", "vllm-log"}, TTFTEngine},
		{nil, ""},
	} {
		if got := TTFTFrom(tc.formats); got != tc.want {
			t.Errorf("TTFTFrom(%v) = %q, want %q", tc.formats, got, tc.want)
		}
	}
}

// TestRunAutoCutFirstLine: a log cut at a byte offset (copytruncate, tail -c,
// a shipper's chunk) starts with the end of a line. Detection passes over
// it, the reader rejects it with its line and reason, and every other record
// is read: in a directory, as a file named alone, in each format the
// simulator writes (hostile-input review N3). A first line with a NUL or
// invalid UTF-8 likewise.
func TestRunAutoCutFirstLine(t *testing.T) {
	dir := t.TempDir()
	sc, err := sim.Named("light")
	if err != nil {
		t.Fatal(err)
	}
	sc.MaxArrivals = 30
	logs := filepath.Join(dir, "sim")
	formats := []string{sim.FormatSpans, sim.FormatLiteLLM, sim.FormatVLLMOTel}
	if _, err := sim.WriteFormats(logs, sc, 1, formats...); err != nil {
		t.Fatal(err)
	}
	for _, f := range formats {
		whole := filepath.Join(logs, sim.FormatFile(f))
		b, err := os.ReadFile(whole)
		if err != nil {
			t.Fatal(err)
		}
		// What the rest holds, after the first line: an OTLP line may hold
		// several spans.
		first := bytes.IndexByte(b, '\n')
		restFile := filepath.Join(dir, f, "rest.jsonl")
		writeFile(t, restFile, b[first+1:])
		rest, err := Run(context.Background(), Options{RunID: "r", Format: sim.IngestFormat(f), OutDir: filepath.Join(dir, f, "rest"), Inputs: []string{restFile}})
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range []struct {
			name string
			data []byte
		}{
			{"cut", b[first/2:]},
			{"nul", append([]byte("{\"x\x00\": 1}"), b[first:]...)},
			{"utf8", append([]byte("{\"\xff\xfe\": \"\xc3\x28\"}"), b[first:]...)},
		} {
			in := filepath.Join(dir, f, c.name, "logs", "part-2.jsonl")
			writeFile(t, in, c.data)
			for _, input := range []string{in, filepath.Dir(in)} {
				m, err := Run(context.Background(), Options{RunID: "r", OutDir: filepath.Join(dir, f, c.name, "out"), Inputs: []string{input}})
				if err != nil {
					t.Errorf("%s %s, %s: %v", f, c.name, input, err)
					continue
				}
				if len(m.Inputs) != 1 || m.Inputs[0].Format != sim.IngestFormat(f) || !m.Inputs[0].Detected {
					t.Errorf("%s %s, %s: inputs %+v, want one detected as %s", f, c.name, input, m.Inputs, f)
				}
				lost := m.Counts.Rejected + m.Counts.Skipped - rest.Counts.Rejected - rest.Counts.Skipped
				if lost != 1 || m.Counts.Written != rest.Counts.Written || m.Counts.Read != m.Counts.Written+m.Counts.Rejected+m.Counts.Skipped {
					t.Errorf("%s %s, %s: counts %+v, want the first line counted and the rest's %d written (the rest alone: %+v)", f, c.name, input, m.Counts, rest.Counts.Written, rest.Counts)
				}
			}
		}
	}
}
