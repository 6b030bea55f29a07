package analyze

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/parquet-go/parquet-go"

	"github.com/tpsreport/tpsreport/schemas"
)

// writeDataset writes spans and samples as a run dataset in a new temp dir.
func writeDataset(t testing.TB, spans []schemas.Span, samples []schemas.Sample, man *schemas.Manifest) string {
	t.Helper()
	dir := t.TempDir()
	writeParquet(t, filepath.Join(dir, "spans.parquet"), spans)
	writeParquet(t, filepath.Join(dir, "samples.parquet"), samples)
	if man != nil {
		if err := writeJSON(filepath.Join(dir, "manifest.json"), man); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// testDB opens an analysis database for t with one connection, closed when t
// ends.
func testDB(t testing.TB) *sql.Conn {
	t.Helper()
	db, conns, err := openDB(context.Background(), t.TempDir(), 1)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		conns[0].Close()
		db.Close()
	})
	return conns[0]
}

// writeParquet writes rows to path with parquet-go's writer and options.
func writeParquet[T any](t testing.TB, path string, rows []T, opts ...parquet.WriterOption) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	w := parquet.NewGenericWriter[T](f, opts...)
	if _, err := w.Write(rows); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

// analyzeDir runs the analysis with the window width and options given.
func analyzeDir(t testing.TB, dir string, opt Options) *schemas.RunResult {
	t.Helper()
	opt.Dir = dir
	res, err := Run(context.Background(), opt)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// at is an instant s seconds after 2026-11-20T10:00:00Z, in µs.
func at(s float64) *int64 {
	base := time.Date(2026, 11, 20, 10, 0, 0, 0, time.UTC).UnixMicro()
	v := base + int64(s*1e6+0.5)
	return &v
}

func i64(v int64) *int64   { return &v }
func i32(v int32) *int32   { return &v }
func str(v string) *string { return &v }

// exec runs the named statement on a's connection.
func (a *analysis) exec(name string, args ...any) error {
	if _, err := a.db.ExecContext(a.ctx, query(name), args...); err != nil {
		return fmt.Errorf("analyze %s: %w", name, err)
	}
	return nil
}
