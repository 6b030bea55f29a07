package analyze

import (
	"bufio"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/parquet-go/parquet-go"

	"github.com/tpsreport/tpsreport/analyze/oracle"
	"github.com/tpsreport/tpsreport/schemas"
)

// TestVariantsTable: docs/pipeline.md "One object, two ways" lists the
// variants of variants.go, row for row: the object, its statements and its
// key (the condition, and the key by which a test has the statements make
// it).
func TestVariantsTable(t *testing.T) {
	f, err := os.Open(filepath.Join("..", "docs", "pipeline.md"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var rows [][]string
	in := false
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "| object | Go step | SQL |"):
			in = true
		case in && strings.HasPrefix(line, "|---"):
		case in && strings.HasPrefix(line, "| "):
			rows = append(rows, strings.Split(strings.Trim(line, "| "), " | "))
		case in:
			in = false
		}
	}
	code := regexp.MustCompile("`([^`]+)`")
	names := func(cell string) []string {
		var out []string
		for _, m := range code.FindAllStringSubmatch(cell, -1) {
			out = append(out, m[1])
		}
		return out
	}
	if len(rows) != len(variants) {
		t.Fatalf("docs/pipeline.md lists %d objects made two ways, variants.go %d", len(rows), len(variants))
	}
	for i, v := range variants {
		row := rows[i]
		if row[0] != v.object {
			t.Errorf("row %d: object %q, variants.go %q", i+1, row[0], v.object)
		}
		if got := names(row[2]); !slices.Equal(got, v.sql) {
			t.Errorf("%s: statements %q, variants.go %q", v.object, got, v.sql)
		}
		if got := names(row[4]); !slices.Equal(got, []string{v.key}) {
			t.Errorf("%s: key %q, variants.go %q", v.object, got, v.key)
		}
	}
}

// TestVariantsAgree: every object of variants.go is the same whichever of
// its makers makes it: each output of a whole analysis (summary.json,
// curves.json, windows.parquet, latencies.parquet) is byte for byte the
// same, and a joined run's requests.parquet row for row in the same order
// (the assembly lays out its row groups its own way), when its Go step makes it,
// cutting its work into slices of a few rows and as a large run, and when
// its statements do. The pool's runs are random runs of several replicas
// (one with unnamed replicas, which the attribution handles apart); the
// joined runs are joinedRun's, which exercise what the join sets. -short
// runs one dataset of each.
func TestVariantsAgree(t *testing.T) {
	t.Parallel()
	if !poolSweep {
		t.Skip("this build makes every object by its statements (build with -tags duckdb_arrow)")
	}
	type dataset struct {
		name    string
		joined  bool
		write   func(t *testing.T) string
		largeAt int64
	}
	pool := func(seed uint64, null float64) func(t *testing.T) string {
		return func(t *testing.T) string {
			gen := oracle.DefaultGenOptions()
			gen.NullReplicaRate = null
			spans, samples := oracle.RandomSpans(rand.New(rand.NewPCG(seed, 9)), 1500, gen)
			return writeDataset(t, spans, samples, nil)
		}
	}
	joined := func(layout string) func(t *testing.T) string {
		return func(t *testing.T) string {
			dir := t.TempDir()
			writeParquet(t, filepath.Join(dir, "spans.parquet"), joinedRun(1200, layout), parquet.MaxRowsPerRowGroup(500))
			return dir
		}
	}
	datasets := []dataset{
		{"pool", false, pool(31, 0), 0},
		{"joined", true, joined("side-by-side"), 0},
		{"pool-large", false, pool(32, 0), -1},
		{"pool-unnamed", false, pool(33, 0.05), 0},
		{"joined-gateway-first", true, joined("gateway-first"), -1},
	}
	if testing.Short() {
		datasets = datasets[:2]
	}
	for _, v := range variants {
		for _, d := range datasets {
			if d.joined != v.joined && !(d.joined && v.key == "packed") {
				continue
			}
			t.Run(fmt.Sprintf("%s/%s", v.key, d.name), func(t *testing.T) {
				t.Parallel()
				files := []string{schemas.SummaryFile, schemas.CurvesFile, schemas.WindowsFile, schemas.LatenciesFile}
				goKnobs := knobs{curveSlice: 7, sweep: sweepSizes{bucket: 1000, rows: 40, chunk: 50, batch: 9}, largeAt: d.largeAt, joinGroupRows: 500}
				sqlKnobs := goKnobs
				sqlKnobs.statements = statementsFor(v.key).statements
				var dirs [2]string
				for i, k := range []knobs{goKnobs, sqlKnobs} {
					dirs[i] = d.write(t)
					analyzeDir(t, dirs[i], Options{Window: 20 * time.Second}, k)
				}
				sameFiles(t, dirs, files...)
				if !d.joined {
					// The pool's runs exercise what the Go steps make: a
					// curve of several bins, waits at the engine and at
					// admission.
					b, err := os.ReadFile(filepath.Join(dirs[0], schemas.SummaryFile))
					if err != nil {
						t.Fatal(err)
					}
					for _, k := range []string{`"engine_gap_time"`, `"admission_gap_time"`} {
						if !regexp.MustCompile(k + `: [1-9]`).Match(b) {
							t.Errorf("summary.json has no %s above 0", k)
						}
					}
					var c schemas.Curves
					if b, err = os.ReadFile(filepath.Join(dirs[0], schemas.CurvesFile)); err != nil || json.Unmarshal(b, &c) != nil || len(c.Concurrency) < 5 {
						t.Errorf("curves.json: %d concurrency bins (%v), want a curve to compare", len(c.Concurrency), err)
					}
				}
				if d.joined {
					sameRows(t, dirs, schemas.RequestsFile)
				}
			})
		}
	}
}
