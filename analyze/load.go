package analyze

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"

	"github.com/parquet-go/parquet-go"

	"github.com/tpsreport/tpsreport/internal/dataset"
	"github.com/tpsreport/tpsreport/schemas"
)

// Load reads the results of an earlier Run from dir: summary.json, windows.parquet,
// curves.json and manifest.json.
func Load(ctx context.Context, dir string) (*schemas.RunResult, error) {
	res := &schemas.RunResult{}
	b, err := os.ReadFile(filepath.Join(dir, schemas.SummaryFile))
	if errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("%s has no %s: it was not analysed (Try: tpsreport analyze %s)", dir, schemas.SummaryFile, dir)
	}
	if err != nil {
		return nil, fmt.Errorf("read summary: %w", err)
	}
	// What is read must be the analysis the manifest describes.
	if res.Manifest, err = readManifest(dir); err != nil {
		return nil, err
	}
	if err := dataset.Verify(dir, &res.Manifest, analyzeHint(dir), schemas.SummaryFile, schemas.CurvesFile, schemas.WindowsFile); err != nil {
		return nil, err
	}
	if err := json.Unmarshal(b, &res.Summary); err != nil {
		return nil, fmt.Errorf("read %s: %w", filepath.Join(dir, schemas.SummaryFile), err)
	}
	if b, err = os.ReadFile(filepath.Join(dir, schemas.CurvesFile)); err != nil {
		return nil, fmt.Errorf("read curves: %w", err)
	}
	if err := json.Unmarshal(b, &res.Curves); err != nil {
		return nil, fmt.Errorf("read %s: %w", filepath.Join(dir, schemas.CurvesFile), err)
	}
	sqldb, conns, err := openDB(ctx, "", 1, memoryLimit)
	if err != nil {
		return nil, err
	}
	defer sqldb.Close()
	db := conns[0]
	defer db.Close()
	rows, err := db.QueryContext(ctx, query("load_windows"), filepath.Join(dir, schemas.WindowsFile))
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", filepath.Join(dir, schemas.WindowsFile), err)
	}
	defer rows.Close()
	res.Windows = []schemas.Metrics{}
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			return nil, fmt.Errorf("read windows: %w", err)
		}
		var m schemas.Metrics
		if err := json.Unmarshal([]byte(s), &m); err != nil {
			return nil, fmt.Errorf("read windows: %w", err)
		}
		res.Windows = append(res.Windows, m)
	}
	return res, rows.Err()
}

// LoadLatencies reads latencies.parquet of an analysed run: one row per
// delivered request, in completion order. A run analysed before the file
// existed has none: nil, and no error. It reads the file's columns with
// parquet-go rather than through DuckDB: at 10 M requests, scanning rows
// through database/sql took most of a compare's time. A NULL latency is NaN
// (schemas.RequestLatency).
func LoadLatencies(_ context.Context, dir string) ([]schemas.RequestLatency, error) {
	path := filepath.Join(dir, schemas.LatenciesFile)
	man, err := readManifest(dir)
	if err != nil {
		return nil, err
	}
	if err := dataset.Verify(dir, &man, analyzeHint(dir), schemas.LatenciesFile); err != nil {
		return nil, err
	}
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	pf, err := parquet.OpenFile(f, st.Size(), parquet.SkipPageIndex(true), parquet.SkipBloomFilters(true))
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	n := int(pf.NumRows())
	out := make([]schemas.RequestLatency, n)
	err = readColumn(pf, "completed_at", n, func(i int, v parquet.Value) {
		out[i].Released = v.Int64()
	})
	for _, c := range []struct {
		name string
		set  func(*schemas.RequestLatency, float64)
	}{
		{"ttft_req", func(r *schemas.RequestLatency, x float64) { r.TTFT = x }},
		{"tpot_req", func(r *schemas.RequestLatency, x float64) { r.TPOT = x }},
		{"e2e_req", func(r *schemas.RequestLatency, x float64) { r.E2E = x }},
	} {
		if err != nil {
			break
		}
		err = readColumn(pf, c.name, n, func(i int, v parquet.Value) {
			x := math.NaN()
			if !v.IsNull() {
				x = v.Double()
			}
			c.set(&out[i], x)
		})
	}
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	return out, nil
}

// readColumn calls set with each row's value of the flat column name, in
// row order; it requires exactly n values.
func readColumn(pf *parquet.File, name string, n int, set func(i int, v parquet.Value)) error {
	leaf, ok := pf.Schema().Lookup(name)
	if !ok {
		return fmt.Errorf("no column %s", name)
	}
	buf := make([]parquet.Value, 4096)
	i := 0
	for _, rg := range pf.RowGroups() {
		pages := rg.ColumnChunks()[leaf.ColumnIndex].Pages()
		for {
			p, err := pages.ReadPage()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				pages.Close()
				return err
			}
			vr := p.Values()
			for {
				k, err := vr.ReadValues(buf)
				for _, v := range buf[:k] {
					if i >= n {
						pages.Close()
						return fmt.Errorf("column %s: more than %d values", name, n)
					}
					set(i, v)
					i++
				}
				if errors.Is(err, io.EOF) {
					break
				}
				if err != nil {
					pages.Close()
					return err
				}
			}
			parquet.Release(p)
		}
		pages.Close()
	}
	if i != n {
		return fmt.Errorf("column %s: %d values, want %d", name, i, n)
	}
	return nil
}
