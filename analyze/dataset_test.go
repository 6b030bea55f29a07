package analyze

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tpsreport/tpsreport/internal/dataset"
	"github.com/tpsreport/tpsreport/schemas"
)

// describedDataset writes a dataset whose manifest lists its files, as
// ingest writes it.
func describedDataset(t *testing.T, n int) string {
	t.Helper()
	dir := writeDataset(t, someSpans(n), nil, nil)
	files, err := dataset.DescribeAll(dir, schemas.SpansFile, schemas.SamplesFile)
	if err != nil {
		t.Fatal(err)
	}
	if err := writeJSON(filepath.Join(dir, schemas.ManifestFile), schemas.Manifest{RunID: "r", Tool: "tpsreport", Files: files}); err != nil {
		t.Fatal(err)
	}
	return dir
}

func someSpans(n int) []schemas.Span {
	var spans []schemas.Span
	for i := range n {
		id := fmt.Sprint(i)
		s := float64(i)
		spans = append(spans, schemas.Span{RunID: "r", Source: "spans", SpanID: id, RequestID: id, Attempt: i32(0), Status: "ok",
			QueuedAt: at(s), AdmittedAt: at(s + 1), FirstTokenAt: at(s + 2), LastTokenAt: at(s + 70), ReleasedAt: at(s + 70),
			InputTokens: i64(100), OutputTokens: i64(101)})
	}
	return spans
}

// TestRunRefusesDataTheManifestDoesNotDescribe: spans.parquet of another
// ingest beside this manifest (review F10) is refused, naming the file and
// the command that rebuilds it.
func TestRunRefusesDataTheManifestDoesNotDescribe(t *testing.T) {
	dir := describedDataset(t, 3)
	writeParquet(t, filepath.Join(dir, schemas.SpansFile), someSpans(5))
	_, err := Run(t.Context(), Options{Dir: dir})
	var mm *dataset.MismatchError
	if !errors.As(err, &mm) || mm.Path != filepath.Join(dir, schemas.SpansFile) ||
		!strings.HasSuffix(err.Error(), "Try: tpsreport ingest --run r --out "+dir+" INPUT...") {
		t.Errorf("got %v, want a mismatch of spans.parquet with an ingest hint", err)
	}
}

// TestAnalysisIsDescribedAndVerified: analyze adds its outputs to the
// manifest; Load refuses a summary.json or windows.parquet of another
// analysis (review F3), and latencies.parquet likewise.
func TestAnalysisIsDescribedAndVerified(t *testing.T) {
	dir := describedDataset(t, 3)
	analyzeDir(t, dir, Options{})
	m, err := readManifest(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, f := range m.Files {
		names = append(names, f.Name)
	}
	if got, want := strings.Join(names, " "), "curves.json latencies.parquet requests.parquet samples.parquet spans.parquet summary.json windows.parquet"; got != want {
		t.Errorf("manifest files %s, want %s", got, want)
	}
	// Each entry is the file as it is, those described while the analysis
	// ran (requests.parquet, once spliced) as well as the others.
	for _, f := range m.Files {
		d, err := dataset.Describe(dir, f.Name)
		if err != nil {
			t.Fatal(err)
		}
		if d.Size != f.Size || d.SHA256 != f.SHA256 || (d.Rows == nil) != (f.Rows == nil) || (d.Rows != nil && *d.Rows != *f.Rows) {
			t.Errorf("manifest entry %+v, the file is %+v", f, d)
		}
	}
	if _, err := Load(t.Context(), dir); err != nil {
		t.Fatalf("Load of a whole analysis: %v", err)
	}
	for _, name := range []string{schemas.SummaryFile, schemas.WindowsFile, schemas.LatenciesFile} {
		p := filepath.Join(dir, name)
		good, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, append(good, ' '), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err = Load(t.Context(), dir)
		if err == nil {
			_, err = LoadLatencies(t.Context(), dir)
		}
		var mm *dataset.MismatchError
		if !errors.As(err, &mm) || mm.Path != p || !strings.HasSuffix(err.Error(), "Try: tpsreport analyze "+dir) {
			t.Errorf("%s changed: got %v, want a mismatch naming it with an analyze hint", name, err)
		}
		if err := os.WriteFile(p, good, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// TestRunKilledLeavesOldOrNewAnalysis: analyze killed at every step of
// its commit leaves the previous analysis or the new one, and the next
// writer removes the stage with DuckDB's spill (review F18).
func TestRunKilledLeavesOldOrNewAnalysis(t *testing.T) {
	for _, kill := range []string{"commit", "exchanged"} {
		dir := describedDataset(t, 3)
		analyzeDir(t, dir, Options{})                  // 2 windows of 60 s
		writeJSON(filepath.Join(dir, ".analyze-1"), 1) // an older version's spill
		restore := dataset.SetTestHooks(func(s string) bool { return s == kill }, func(int) bool { return false })
		_, err := Run(t.Context(), Options{Dir: dir, Window: 10e9})
		if !errors.Is(err, dataset.ErrKilled) {
			t.Fatalf("killed at %s: %v", kill, err)
		}
		dataset.Recover(dir)
		restore()
		res, err := Load(t.Context(), dir)
		if err != nil {
			t.Fatalf("killed at %s: %v", kill, err)
		}
		if want := map[string]int{"commit": 2, "exchanged": 8}[kill]; len(res.Windows) != want {
			t.Errorf("killed at %s: %d windows, want %d", kill, len(res.Windows), want)
		}
		for _, d := range []string{dir, filepath.Dir(dir)} {
			entries, _ := os.ReadDir(d)
			for _, e := range entries {
				if strings.HasPrefix(e.Name(), ".") {
					t.Errorf("killed at %s: %s left in %s", kill, e.Name(), d)
				}
			}
		}
	}
}
