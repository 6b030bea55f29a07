package analyze

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"

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
	if err := json.Unmarshal(b, &res.Summary); err != nil {
		return nil, fmt.Errorf("read %s: %w", filepath.Join(dir, schemas.SummaryFile), err)
	}
	if b, err = os.ReadFile(filepath.Join(dir, schemas.CurvesFile)); err != nil {
		return nil, fmt.Errorf("read curves: %w", err)
	}
	if err := json.Unmarshal(b, &res.Curves); err != nil {
		return nil, fmt.Errorf("read %s: %w", filepath.Join(dir, schemas.CurvesFile), err)
	}
	if res.Manifest, err = readManifest(dir); err != nil {
		return nil, err
	}
	sqldb, conns, err := openDB(ctx, "", 1)
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
// existed has none: nil, and no error.
func LoadLatencies(ctx context.Context, dir string) ([]schemas.RequestLatency, error) {
	path := filepath.Join(dir, schemas.LatenciesFile)
	if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	sqldb, conns, err := openDB(ctx, "", 1)
	if err != nil {
		return nil, err
	}
	defer sqldb.Close()
	db := conns[0]
	defer db.Close()
	rows, err := db.QueryContext(ctx, query("load_latencies"), sql.Named("path", path))
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	defer rows.Close()
	out := []schemas.RequestLatency{}
	for rows.Next() {
		var r schemas.RequestLatency
		var ttft, tpot, e2e sql.NullFloat64
		if err := rows.Scan(&r.Released, &ttft, &tpot, &e2e); err != nil {
			return nil, fmt.Errorf("read %s: %w", path, err)
		}
		r.TTFT, r.TPOT, r.E2E = nullable(ttft), nullable(tpot), nullable(e2e)
		out = append(out, r)
	}
	return out, rows.Err()
}

func nullable(v sql.NullFloat64) *float64 {
	if !v.Valid {
		return nil
	}
	return &v.Float64
}
