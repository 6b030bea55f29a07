package analyze

import (
	"bytes"
	"encoding/json"
	"io/fs"
	"log/slog"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/tpsreport/tpsreport/analyze/oracle"
	"github.com/tpsreport/tpsreport/schemas"
)

// TestShuffleAndRepeat: the input order of spans changes nothing, and the same
// input analysed twice gives byte-identical summary.json and curves.json.
func TestShuffleAndRepeat(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(42, 1))
	spans, samples := oracle.RandomSpans(r, 400, oracle.DefaultGenOptions())
	shuffled := append([]schemas.Span(nil), spans...)
	r.Shuffle(len(shuffled), func(i, j int) { shuffled[i], shuffled[j] = shuffled[j], shuffled[i] })

	var outs [][]byte
	for _, in := range [][]schemas.Span{spans, spans, shuffled} {
		dir := writeDataset(t, in, samples, nil)
		analyzeDir(t, dir, Options{})
		var all []byte
		for _, f := range []string{schemas.SummaryFile, schemas.CurvesFile} {
			b, err := os.ReadFile(filepath.Join(dir, f))
			if err != nil {
				t.Fatal(err)
			}
			all = append(all, b...)
		}
		outs = append(outs, all)
	}
	if !bytes.Equal(outs[0], outs[1]) {
		t.Error("the same input analysed twice gave different outputs")
	}
	if !bytes.Equal(outs[0], outs[2]) {
		t.Error("shuffling the spans changed the outputs")
	}
}

// TestEveryQueryRuns runs the analysis and Load on an empty dataset with the
// real schema, so every statement is parsed and bound by DuckDB, and checks that
// every file of queries/ is named by the code.
func TestEveryQueryRuns(t *testing.T) {
	dir := writeDataset(t, []schemas.Span{}, []schemas.Sample{}, nil)
	res := analyzeDir(t, dir, Options{})
	if len(res.Windows) != 1 || res.Summary.SystemTPS != nil {
		t.Errorf("empty dataset: got %d windows, system_tps %v; want 1 empty window and NULL", len(res.Windows), res.Summary.SystemTPS)
	}
	if _, err := Load(t.Context(), dir); err != nil {
		t.Fatal(err)
	}
	var src []byte
	files, _ := filepath.Glob("*.go")
	for _, f := range files {
		if matched, _ := filepath.Match("*_test.go", f); matched {
			continue
		}
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		src = append(src, b...)
	}
	// The statements expanded from a template (win_dists) are named by
	// their template's code; the files are what must be named.
	err := fs.WalkDir(queryFS, "queries", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".sql") {
			return err
		}
		name := strings.TrimSuffix(filepath.Base(path), ".sql")
		if !regexp.MustCompile(`"` + regexp.QuoteMeta(name) + `"`).Match(src) {
			t.Errorf("%s is not used by the code", path)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestLargeRunSameOutputs: a run analysed as a large and split one (more
// than largeRunSpans spans: its tables in a database file; more than
// splitRunSpans: a statement per distribution) gives byte-identical outputs
// to the same run analysed as the small one it is.
func TestLargeRunSameOutputs(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(7, 3))
	spans, samples := oracle.RandomSpans(r, 600, oracle.DefaultGenOptions())
	files := []string{schemas.SummaryFile, schemas.CurvesFile, schemas.WindowsFile, schemas.LatenciesFile, schemas.RequestsFile}
	var outs [2][][]byte
	var logs [2]bytes.Buffer
	for i, largeAt := range []int64{0, -1} {
		dir := writeDataset(t, spans, samples, nil)
		analyzeDir(t, dir, Options{Window: 20 * time.Second,
			Log: slog.New(slog.NewTextHandler(&logs[i], &slog.HandlerOptions{Level: slog.LevelDebug}))}, knobs{largeAt: largeAt})
		// The large run's database file went with the temp directory.
		if left, _ := filepath.Glob(filepath.Join(dir, ".analyze-*")); len(left) > 0 {
			t.Errorf("left behind: %q", left)
		}
		outs[i] = readOutputs(t, dir, files)
	}
	for i, f := range files {
		if !bytes.Equal(outs[0][i], outs[1][i]) {
			t.Errorf("%s differs when the run is analysed as a large one", f)
		}
	}
	// The large run attached and used a database of its own, ran the
	// distributions' pieces and their joins, not the parts, and read its
	// quantities from one scan.
	for _, want := range []struct {
		log     int
		name    string
		present bool
	}{{0, "win_dists_a ", true}, {0, "run_dist_ttft ", false}, {1, "win_dist_ttft ", true}, {1, "run_dist_e2e_req ", true},
		{1, "run_dists_c_join ", true}, {1, "win_dists_b ", false},
		{0, "checkpoint_work ", false}, {1, "attach_work ", true}, {1, "use_work ", true}, {1, "checkpoint_work ", true},
		{0, "quantities_large ", false}, {1, "quantities_large ", true}, {1, "quantities ", false}} {
		if got := strings.Contains(logs[want.log].String(), "name="+want.name); got != want.present {
			t.Errorf("log %d: step %q ran %v, want %v", want.log, want.name, got, want.present)
		}
	}
	var s schemas.Summary
	if err := json.Unmarshal(outs[1][0], &s); err != nil {
		t.Fatal(err)
	}
	if s.TTFT.N == 0 || s.TTFT.P90 == nil {
		t.Errorf("run ttft %+v: want a distribution", s.TTFT)
	}
}
