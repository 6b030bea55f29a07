package analyze

import (
	"bytes"
	"context"
	"errors"
	"io"
	"log/slog"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go"

	"github.com/tpsreport/tpsreport/analyze/oracle"
	"github.com/tpsreport/tpsreport/schemas"
)

// splice writes to out the columns cols, in that order, from the Parquet files
// srcs, row group g of the output from row group g of each, as planFiles and
// fileSplice.write do into a file: an errCannotSplice error, having written
// nothing, when the sources' row groups do not line up, a column is missing
// or a schema is not flat.
func splice(out io.Writer, srcs []*os.File, cols []spliceColumn) error {
	mds, err := footers(srcs)
	if err != nil {
		return err
	}
	return splicePlan(out, srcs, mds, cols, wholeParts(mds))
}

// TestRequestsSplicedMatchWritten: requests.parquet spliced from spans.parquet's
// column chunks (row groups of DuckDB's 122,880 rows, as ingest writes them)
// holds exactly what DuckDB writes whole when the row groups do not line up
// (100,000 rows): the same columns with the same types, the same values row
// by row, in the same order. parquet-go reads every row of the spliced file
// back, and each path is the one taken (the debug log says which).
func TestRequestsSplicedMatchWritten(t *testing.T) {
	if testing.Short() {
		t.Skip("analyzes 250,000 spans twice")
	}
	r := rand.New(rand.NewPCG(11, 5))
	var spans []schemas.Span
	for len(spans) < 250_000 {
		s, _ := oracle.RandomSpans(r, 2000, oracle.DefaultGenOptions())
		spans = append(spans, s...)
	}
	dirs := map[int64]string{}
	for _, rows := range []int64{122880, 100_000} {
		dir := t.TempDir()
		writeParquet(t, filepath.Join(dir, "spans.parquet"), spans, parquet.MaxRowsPerRowGroup(rows))
		var log bytes.Buffer
		opt := Options{Dir: dir, Log: slog.New(slog.NewTextHandler(&log, &slog.HandlerOptions{Level: slog.LevelDebug}))}
		if _, err := Run(t.Context(), opt); err != nil {
			t.Fatal(err)
		}
		spliced := strings.Contains(log.String(), "requests.parquet spliced\" from=spans.parquet")
		if spliced != (rows == 122880) {
			t.Errorf("row groups of %d rows: spliced %v", rows, spliced)
		}
		dirs[rows] = filepath.Join(dir, schemas.RequestsFile)
	}
	got, want := dirs[122880], dirs[100_000]

	db := testDB(t)
	var schemaDiff, rowDiff, n int64
	err := db.QueryRowContext(t.Context(), `
WITH g AS (SELECT column_name, column_type FROM (DESCRIBE SELECT * FROM read_parquet($1))),
     w AS (SELECT column_name, column_type FROM (DESCRIBE SELECT * FROM read_parquet($2)))
SELECT (SELECT count(*) FROM (SELECT * FROM g EXCEPT SELECT * FROM w)) + (SELECT count(*) FROM (SELECT * FROM w EXCEPT SELECT * FROM g))`,
		got, want).Scan(&schemaDiff)
	if err != nil {
		t.Fatal(err)
	}
	err = db.QueryRowContext(t.Context(), `
WITH g AS (SELECT * EXCLUDE (file_row_number), file_row_number AS i FROM read_parquet($1, file_row_number = true)),
     w AS (SELECT * EXCLUDE (file_row_number), file_row_number AS i FROM read_parquet($2, file_row_number = true))
SELECT (SELECT count(*) FROM (SELECT * FROM g EXCEPT ALL SELECT * FROM w)) + (SELECT count(*) FROM (SELECT * FROM w EXCEPT ALL SELECT * FROM g)),
       (SELECT count(*) FROM g)`,
		got, want).Scan(&rowDiff, &n)
	if err != nil {
		t.Fatal(err)
	}
	if schemaDiff != 0 || rowDiff != 0 || n != int64(len(spans)) {
		t.Errorf("spliced against written: %d column differences, %d row differences, %d rows of %d", schemaDiff, rowDiff, n, len(spans))
	}
	var groups int64
	if err := db.QueryRowContext(t.Context(), "SELECT count(DISTINCT row_group_id) FROM parquet_metadata(?)", got).Scan(&groups); err != nil {
		t.Fatal(err)
	}
	if groups < 2 {
		t.Errorf("the spliced file has %d row groups: the test does not cover several", groups)
	}

	// Another reader: parquet-go decodes every page of every column.
	f, err := os.Open(got)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	st, _ := f.Stat()
	pf, err := parquet.OpenFile(f, st.Size())
	if err != nil {
		t.Fatal(err)
	}
	var read int64
	buf := make([]parquet.Row, 1024)
	for _, rg := range pf.RowGroups() {
		rows := rg.Rows()
		for {
			k, err := rows.ReadRows(buf)
			read += int64(k)
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
		}
		rows.Close()
	}
	if read != int64(len(spans)) {
		t.Errorf("parquet-go read %d rows of %d", read, len(spans))
	}
}

// TestSpliceChecksItsSources: a splice refuses sources whose row groups differ
// or that lack a column (errCannotSplice), and writes nothing; it writes
// aligned columns in the order asked for.
func TestSpliceChecksItsSources(t *testing.T) {
	dir := t.TempDir()
	type a struct {
		X int64 `parquet:"x"`
	}
	type b struct {
		Y int64 `parquet:"y"`
	}
	writeParquet(t, filepath.Join(dir, "a.parquet"), []a{{1}, {2}, {3}}, parquet.MaxRowsPerRowGroup(2))
	writeParquet(t, filepath.Join(dir, "b.parquet"), []b{{1}, {2}, {3}}, parquet.MaxRowsPerRowGroup(3))
	writeParquet(t, filepath.Join(dir, "c.parquet"), []b{{4}, {5}, {6}}, parquet.MaxRowsPerRowGroup(2))
	open := func(name string) *os.File {
		f, err := os.Open(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { f.Close() })
		return f
	}
	var out bytes.Buffer
	// written writes what out holds to the file name in dir, for DuckDB.
	written := func(name string) string {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, out.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	err := splice(&out, []*os.File{open("a.parquet"), open("b.parquet")}, []spliceColumn{{"x", 0}, {"y", 1}})
	if !errors.Is(err, errCannotSplice) || out.Len() != 0 {
		t.Errorf("row groups of 2 and 3 rows: err %v, %d bytes written", err, out.Len())
	}
	err = splice(&out, []*os.File{open("a.parquet"), open("c.parquet")}, []spliceColumn{{"x", 0}, {"z", 1}})
	if !errors.Is(err, errCannotSplice) || out.Len() != 0 {
		t.Errorf("no column z: err %v, %d bytes written", err, out.Len())
	}
	// Aligned: y then x, read back by DuckDB in that order.
	if err := splice(&out, []*os.File{open("a.parquet"), open("c.parquet")}, []spliceColumn{{"y", 1}, {"x", 0}}); err != nil {
		t.Fatal(err)
	}
	path := written("out.parquet")
	var got string
	if err := testDB(t).QueryRowContext(t.Context(), "SELECT string_agg(y || ':' || x, ' ' ORDER BY file_row_number) FROM read_parquet(?, file_row_number = true)", path).Scan(&got); err != nil {
		t.Fatal(err)
	}
	if got != "4:1 5:2 6:3" {
		t.Errorf("spliced rows %q, want 4:1 5:2 6:3", got)
	}

	// Files of no rows (no row group) splice into a file of no rows with
	// the columns asked for.
	writeParquet(t, filepath.Join(dir, "a0.parquet"), []a{})
	writeParquet(t, filepath.Join(dir, "b0.parquet"), []b{})
	out.Reset()
	if err := splice(&out, []*os.File{open("a0.parquet"), open("b0.parquet")}, []spliceColumn{{"x", 0}, {"y", 1}}); err != nil {
		t.Fatal(err)
	}
	empty := written("empty.parquet")
	var cols string
	var n int64
	if err := testDB(t).QueryRowContext(t.Context(), "SELECT string_agg(column_name, ','), (SELECT count(*) FROM read_parquet($1)) FROM (DESCRIBE SELECT * FROM read_parquet($1))", empty).Scan(&cols, &n); err != nil {
		t.Fatal(err)
	}
	if cols != "x,y" || n != 0 {
		t.Errorf("empty splice: columns %s, %d rows; want x,y and none", cols, n)
	}

	// A part may take its row groups from several files: x from a's first
	// row group then x2's second, beside c's y.
	writeParquet(t, filepath.Join(dir, "x2.parquet"), []a{{7}, {8}, {9}}, parquet.MaxRowsPerRowGroup(2))
	srcs := []*os.File{open("a.parquet"), open("c.parquet"), open("x2.parquet")}
	mds, err := footers(srcs)
	if err != nil {
		t.Fatal(err)
	}
	out.Reset()
	parts := []splicePart{
		{schema: 0, groups: []partRowGroup{{file: 0, rg: 0}, {file: 2, rg: 1}}},
		{schema: 1, groups: []partRowGroup{{file: 1, rg: 0}, {file: 1, rg: 1}}},
	}
	if err := splicePlan(&out, srcs, mds, []spliceColumn{{"x", 0}, {"y", 1}}, parts); err != nil {
		t.Fatal(err)
	}
	mixed := written("mixed.parquet")
	if err := testDB(t).QueryRowContext(t.Context(), "SELECT string_agg(x || ':' || y, ' ' ORDER BY file_row_number) FROM read_parquet(?, file_row_number = true)", mixed).Scan(&got); err != nil {
		t.Fatal(err)
	}
	if got != "1:4 2:5 9:6" {
		t.Errorf("spliced from several files %q, want 1:4 2:5 9:6", got)
	}
	// A part's file must have the column.
	parts[0].groups[1] = partRowGroup{file: 1, rg: 1} // c has no x
	out.Reset()
	if err := splicePlan(&out, srcs, mds, []spliceColumn{{"x", 0}, {"y", 1}}, parts); !errors.Is(err, errCannotSplice) || out.Len() != 0 {
		t.Errorf("a part's file without the column: err %v, %d bytes written", err, out.Len())
	}
}

// TestFileSpliceWrittenLater: planFiles checks the sources and creates
// nothing; the file appears only when written, and the temporary sources go
// once it is written, given up (close) or interrupted (a done context),
// which leaves no partial file.
func TestFileSpliceWrittenLater(t *testing.T) {
	cols := []spliceColumn{{"y", 1}, {"x", 0}}
	paths, out := xyFiles(t, 2, 2)
	fs, err := planFiles(out, paths, cols)
	if err != nil {
		t.Fatal(err)
	}
	fs.temps = paths[1:]
	if fileExists(out) {
		t.Fatal("planFiles created the output")
	}
	if err := fs.write(t.Context()); err != nil {
		t.Fatal(err)
	}
	var got string
	if err := testDB(t).QueryRowContext(t.Context(), "SELECT string_agg(y || ':' || x, ' ' ORDER BY file_row_number) FROM read_parquet(?, file_row_number = true)", out).Scan(&got); err != nil {
		t.Fatal(err)
	}
	if got != "4:1 5:2 6:3" || fileExists(paths[1]) || !fileExists(paths[0]) {
		t.Errorf("written: rows %q (want 4:1 5:2 6:3), temp b left %v, a kept %v", got, fileExists(paths[1]), fileExists(paths[0]))
	}

	paths, out = xyFiles(t, 2, 2)
	if fs, err = planFiles(out, paths, cols); err != nil {
		t.Fatal(err)
	}
	fs.temps = paths[1:]
	fs.close()
	if fileExists(out) || fileExists(paths[1]) {
		t.Errorf("given up: output there %v, temp b left %v", fileExists(out), fileExists(paths[1]))
	}

	paths, out = xyFiles(t, 2, 2)
	if fs, err = planFiles(out, paths, cols); err != nil {
		t.Fatal(err)
	}
	fs.temps = paths[1:]
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if err := fs.write(ctx); !errors.Is(err, context.Canceled) || fileExists(out) || fileExists(paths[1]) {
		t.Errorf("interrupted: err %v, output there %v, temp b left %v", err, fileExists(out), fileExists(paths[1]))
	}

	// Sources that do not line up are refused when planned, with nothing
	// created and the sources left for the caller.
	paths, out = xyFiles(t, 2, 3)
	if _, err := planFiles(out, paths, cols); !errors.Is(err, errCannotSplice) || fileExists(out) || !fileExists(paths[1]) {
		t.Errorf("row groups of 2 and 3 rows: err %v, output there %v, b kept %v", err, fileExists(out), fileExists(paths[1]))
	}
}

// xyFiles writes a.parquet (x: 1, 2, 3) and b.parquet (y: 4, 5, 6), in row
// groups of groupA and groupB rows, into a directory of their own, and
// names a splice's output there.
func xyFiles(t *testing.T, groupA, groupB int64) (paths []string, out string) {
	type a struct {
		X int64 `parquet:"x"`
	}
	type b struct {
		Y int64 `parquet:"y"`
	}
	dir := t.TempDir()
	paths = []string{filepath.Join(dir, "a.parquet"), filepath.Join(dir, "b.parquet")}
	writeParquet(t, paths[0], []a{{1}, {2}, {3}}, parquet.MaxRowsPerRowGroup(groupA))
	writeParquet(t, paths[1], []b{{4}, {5}, {6}}, parquet.MaxRowsPerRowGroup(groupB))
	return paths, filepath.Join(dir, "out.parquet")
}

// TestRequestsSpliceTask: the analysis writes a planned splice whether or
// not requests_splice started it, and gives up an unstarted one on its
// error paths (stop), removing its temporary files.
func TestRequestsSpliceTask(t *testing.T) {
	an := &analysis{ctx: t.Context(), log: slog.New(slog.DiscardHandler)}
	plan := func(t *testing.T) (*runState, string, string) {
		paths, out := xyFiles(t, 2, 2)
		fs, err := planFiles(out, paths, []spliceColumn{{"x", 0}, {"y", 1}})
		if err != nil {
			t.Fatal(err)
		}
		fs.temps = paths[1:]
		return &runState{requests: &spliceTask{fs: fs, from: "a.parquet"}}, out, paths[1]
	}
	for _, started := range []bool{true, false} {
		st, out, temp := plan(t)
		if started {
			if err := an.startRequests(st); err != nil {
				t.Fatal(err)
			}
		}
		if err := an.waitRequests(st); err != nil {
			t.Fatal(err)
		}
		if !fileExists(out) || fileExists(temp) || st.requests != nil {
			t.Errorf("started %v: written %v, temp left %v, task left %v", started, fileExists(out), fileExists(temp), st.requests != nil)
		}
	}
	st, out, temp := plan(t)
	st.requests.stop()
	if fileExists(out) || fileExists(temp) {
		t.Errorf("given up: written %v, temp left %v", fileExists(out), fileExists(temp))
	}
}
