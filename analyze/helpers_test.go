package analyze

import (
	"context"
	"database/sql"
	"fmt"
	"log/slog"
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
	return testConns(t, 1)[0]
}

// testConns opens an analysis database for t with n connections, closed
// when t ends.
func testConns(t testing.TB, n int) []*sql.Conn {
	t.Helper()
	db, conns, err := openDB(context.Background(), t.TempDir(), n, memoryLimit)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		for _, c := range conns {
			c.Close()
		}
		db.Close()
	})
	return conns
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

// analyzeDir runs the analysis with the options given, and the knobs when
// given.
func analyzeDir(t testing.TB, dir string, opt Options, k ...knobs) *schemas.RunResult {
	t.Helper()
	opt.Dir = dir
	var kn knobs
	if len(k) > 0 {
		kn = k[0]
	}
	res, err := runWith(context.Background(), opt, kn)
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

// legacySpan is a row of spans.parquet as ingest wrote it before the column
// engine_arrived_at: schemas.Span without that field.
type legacySpan struct {
	RunID            string  `parquet:"run_id,dict,zstd"`
	Source           string  `parquet:"source,dict,zstd"`
	SpanID           string  `parquet:"span_id,zstd"`
	RequestID        string  `parquet:"request_id,zstd"`
	Attempt          *int32  `parquet:"attempt,optional,zstd"`
	RetryCause       *string `parquet:"retry_cause,optional,dict,zstd"`
	Model            *string `parquet:"model,optional,dict,zstd"`
	Replica          *string `parquet:"replica,optional,dict,zstd"`
	QueuedAt         *int64  `parquet:"queued_at,optional,timestamp(microsecond:utc),zstd"`
	AdmittedAt       *int64  `parquet:"admitted_at,optional,timestamp(microsecond:utc),zstd"`
	FirstTokenAt     *int64  `parquet:"first_token_at,optional,timestamp(microsecond:utc),zstd"`
	LastTokenAt      *int64  `parquet:"last_token_at,optional,timestamp(microsecond:utc),zstd"`
	ReleasedAt       *int64  `parquet:"released_at,optional,timestamp(microsecond:utc),zstd"`
	InputTokens      *int64  `parquet:"input_tokens,optional,zstd"`
	OutputTokens     *int64  `parquet:"output_tokens,optional,zstd"`
	CachedTokens     *int64  `parquet:"cached_tokens,optional,zstd"`
	Status           string  `parquet:"status,dict,zstd"`
	Error            *string `parquet:"error,optional,dict,zstd"`
	HTTPStatus       *int32  `parquet:"http_status,optional,zstd"`
	TimeResolutionUS *int32  `parquet:"time_resolution_us,optional,zstd"`
	TimeOrigin       *string `parquet:"time_origin,optional,dict,zstd"`
}

// writeLegacySpans writes spans to path without the column engine_arrived_at.
func writeLegacySpans(t testing.TB, path string, spans []schemas.Span) {
	t.Helper()
	rows := make([]legacySpan, len(spans))
	for i, sp := range spans {
		rows[i] = legacySpan{sp.RunID, sp.Source, sp.SpanID, sp.RequestID, sp.Attempt, sp.RetryCause, sp.Model,
			sp.Replica, sp.QueuedAt, sp.AdmittedAt, sp.FirstTokenAt, sp.LastTokenAt, sp.ReleasedAt, sp.InputTokens,
			sp.OutputTokens, sp.CachedTokens, sp.Status, sp.Error, sp.HTTPStatus, sp.TimeResolutionUS, sp.TimeOrigin}
	}
	writeParquet(t, path, rows)
}

// readerAnalysis is an analysis of an empty database with a reader
// connection (the merge's and the sweep's tests), closed with the test.
func readerAnalysis(t *testing.T) *analysis {
	t.Helper()
	conns := testConns(t, 2)
	return &analysis{ctx: context.Background(), db: conns[0], reader: conns[1], log: slog.New(slog.DiscardHandler)}
}

// readOutputs reads the named files of dir, in order.
func readOutputs(t *testing.T, dir string, files []string) [][]byte {
	t.Helper()
	var out [][]byte
	for _, f := range files {
		b, err := os.ReadFile(filepath.Join(dir, f))
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, b)
	}
	return out
}
