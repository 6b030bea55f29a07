package analyze

import (
	"bytes"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"testing"

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
	for _, name := range queryNames() {
		if !regexp.MustCompile(`"` + regexp.QuoteMeta(name) + `"`).Match(src) {
			t.Errorf("queries/%s.sql is not used by the code", name)
		}
	}
}
