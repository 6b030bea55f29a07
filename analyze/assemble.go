package analyze

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/encoding"
	"github.com/parquet-go/parquet-go/format"

	"github.com/tpsreport/tpsreport/schemas"
)

// The joined spans' file (joined_file.sql) is assembled here, in Go, from
// spans.parquet and the pairs the join statements chose, instead of by the
// statements joined_gateway and joined_engine. Those put each engine span's
// columns beside its gateway span's by a hash join and then sorted them back
// into input order, the join's largest cost (BENCHMARKS.md). Here each column
// the join sets is read from spans.parquet once, every value is moved to the
// row of the span it ends up in (an array indexed by that row), and the column
// is written as a file of its own; the files are then spliced (splice.go)
// with the columns a span keeps from its own row, which are copied from
// spans.parquet's column chunks wherever its row groups line up with the
// joined file's. Memory stays at a few arrays of the joined spans' count
// whatever the number of columns.
//
// The values are joined_engine.sql's, column by column (assembleColumns);
// TestAssembleMatchesSQL checks the two against each other. When
// spans.parquet's columns are not the types read here (a file not written by
// ingest), errCannotAssemble says so and the statements write the file.

// errCannotAssemble reports a spans.parquet whose columns the assembly does
// not read; the join statements write the joined file instead.
var errCannotAssemble = errors.New("cannot assemble")

// joinRowGroupRows is the row group size of the joined file: DuckDB's
// (ROW_GROUP_SIZE, as requests_added is written) and ingest's, so that
// requests.parquet is spliced from the joined file and spans.parquet's row
// groups are copied into it.
const joinRowGroupRows = 122_880

// maxAssembleRows bounds the spans.parquet rows the assembly takes: its arrays
// hold about 80 bytes a joined span (5 a row of spans.parquet, and each of
// the two goroutines a column's values twice over), about 3 GB at 80 M rows,
// beside DuckDB's memory_limit. A larger run's joined file is written by the
// statements, which spill instead.
const maxAssembleRows = 80_000_000

// joinInputs are what the assembly reads besides spans.parquet: the pairs
// (gateway row gi, engine row ei) and the attempt numbers (row idx, number n),
// Parquet files DuckDB wrote (joined_pairs_out, joined_numbers_out), and
// the renames of unjoined gateway spans' replicas (join_renames).
type joinInputs struct {
	pairs, numbers string
	renames        map[string]string
	gateway        []string // sources that are gateways
	groupRows      int      // rows of a row group (joinRowGroupRows; a test's fewer)
}

// The columns of the joined file that a span keeps from its own row, and
// those the join sets (joinedColumns' parts 0 and 1).
var keptColumns, joinedSetCols = func() (kept, set []string) {
	for _, c := range joinedColumns {
		if c.Src == 0 {
			kept = append(kept, c.Name)
		} else if c.Name != "gw" {
			set = append(set, c.Name)
		}
	}
	return kept, append(set, "gw")
}()

// spanColumns are spans.parquet's columns as ingest writes them (the Span
// struct's), the types the assembly reads: it takes a file whose columns
// have these physical types, flat, with timestamps in µs.
var spanColumns = parquet.SchemaOf(schemas.Span{}).Fields()

// assembly is the state of one assembly: spans.parquet, where each of its
// rows goes, and the inputs.
type assembly struct {
	ctx    context.Context
	tmp    string // directory of the column files
	f      *parquet.File
	fields map[string]parquet.Field
	n      int   // rows of spans.parquet
	starts []int // first row of each of its row groups, then n

	// pos is, for each row of spans.parquet, the row of the joined file it
	// goes to: a span's own row, or for an engine span that joined, its
	// gateway span's. eng marks those engine spans: their values are the
	// join's (e below), the others' the row's own (s).
	pos  []int32
	eng  []bool
	outN int
	// paired marks the joined rows that joined an engine span.
	paired []bool
	// numbered: the joined rows with an attempt number from join_numbers,
	// ascending, and their numbers.
	numbered []int32
	numbers  []int32

	in     joinInputs
	groups []int // the joined file's row group sizes
	prefix int   // leading row groups copied from spans.parquet
}

// assemblyStats describes an assembled joined file: its rows, its row groups
// and how many of them were copied from spans.parquet; and the time each part
// of the assembly took.
type assemblyStats struct {
	rows, groups, copied   int
	place, columns, splice time.Duration
}

// assembleJoined writes the joined spans' file to out. It returns an
// errCannotAssemble error, having written nothing, when spans.parquet's
// columns are not what it reads.
func assembleJoined(ctx context.Context, out, tmpDir, spansPath string, in joinInputs) (assemblyStats, error) {
	f, closeFile, err := openParquet(spansPath)
	if err != nil {
		return assemblyStats{}, err
	}
	defer closeFile()
	a := &assembly{ctx: ctx, tmp: tmpDir, f: f, n: int(f.NumRows()), in: in}
	if err := a.checkSchema(); err != nil {
		return assemblyStats{}, err
	}
	if a.n > maxAssembleRows {
		return assemblyStats{}, fmt.Errorf("%w: %d spans, more than %d", errCannotAssemble, a.n, maxAssembleRows)
	}
	var stats assemblyStats
	t := time.Now()
	lap := func(d *time.Duration) {
		*d = time.Since(t)
		t = time.Now()
	}
	row := 0
	for _, rg := range f.RowGroups() {
		a.starts = append(a.starts, row)
		row += int(rg.NumRows())
	}
	a.starts = append(a.starts, a.n)
	if err := a.place(); err != nil {
		return assemblyStats{}, err
	}
	if err := a.readNumbers(); err != nil {
		return assemblyStats{}, err
	}
	a.layout()
	lap(&stats.place)

	var files []string
	defer func() {
		for _, p := range files {
			os.Remove(p)
		}
	}()
	kept, keptJobs := a.keptJobs()
	files = append(files, kept...)
	cols, err := a.assembleColumns(keptJobs)
	files = append(files, cols...)
	if err != nil {
		return assemblyStats{}, err
	}
	lap(&stats.columns)
	if err := a.splice(out, spansPath, kept, cols); err != nil {
		return assemblyStats{}, err
	}
	lap(&stats.splice)
	stats.rows, stats.groups, stats.copied = a.outN, len(a.groups), a.prefix
	return stats, nil
}

// checkSchema finds spans.parquet's columns and checks their types.
func (a *assembly) checkSchema() error {
	a.fields = fieldsOf(a.f)
	return checkColumns(a.f, a.fields, spanColumns)
}

// place reads the pairs and works out where each row of spans.parquet goes:
// the rows of the joined file are spans.parquet's in its order without the
// engine spans that joined, which go to their gateway span's row.
func (a *assembly) place() error {
	pf, closeFile, err := openParquet(a.in.pairs)
	if err != nil {
		return err
	}
	defer closeFile()
	// The two columns are read side by side. A NULL row number (none is)
	// reads as -1, out of range below.
	gi, ei := make([]int64, pf.NumRows()), make([]int64, pf.NumRows())
	var wg sync.WaitGroup
	errs := make([]error, 2)
	for c, col := range [][]int64{gi, ei} {
		wg.Go(func() {
			errs[c] = scanInt64s(pf, []string{"gi", "ei"}[c], func(r int, v int64, ok bool) { col[r], _ = coalesce(v, ok, -1, true) })
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("assemble pairs: %w", err)
	}
	a.eng = make([]bool, a.n)
	for _, e := range ei {
		if e < 0 || e >= int64(a.n) || a.eng[e] {
			return fmt.Errorf("assemble pairs: engine row %d out of range or paired twice", e)
		}
		a.eng[e] = true
	}
	a.pos = make([]int32, a.n)
	k := int32(0)
	for r, e := range a.eng {
		if !e {
			a.pos[r] = k
			k++
		}
	}
	a.outN = int(k)
	a.paired = make([]bool, a.outN)
	for i, g := range gi {
		if g < 0 || g >= int64(a.n) || a.eng[g] || a.paired[a.pos[g]] {
			return fmt.Errorf("assemble pairs: gateway row %d out of range, an engine span's or paired twice", g)
		}
		a.paired[a.pos[g]] = true
		a.pos[ei[i]] = a.pos[g]
	}
	return nil
}

// readNumbers reads join_numbers' attempt numbers, by joined row.
func (a *assembly) readNumbers() error {
	nf, closeFile, err := openParquet(a.in.numbers)
	if err != nil {
		return err
	}
	defer closeFile()
	type num struct{ at, n int32 }
	var nums []num
	if err := scanInt64s(nf, "idx", func(_ int, v int64, ok bool) {
		at := int32(-1)
		if ok && v >= 0 && v < int64(a.n) && !a.eng[v] {
			at = a.pos[v]
		}
		nums = append(nums, num{at: at})
	}); err != nil {
		return fmt.Errorf("assemble numbers: %w", err)
	}
	i := 0
	if err := scanInt64s(nf, "n", func(_ int, v int64, ok bool) {
		if i < len(nums) {
			nums[i].n = int32(v)
			if !ok {
				nums[i].at = -1
			}
		}
		i++
	}); err != nil {
		return fmt.Errorf("assemble numbers: %w", err)
	}
	for _, x := range nums {
		if x.at < 0 {
			return errors.New("assemble numbers: a number for no joined row")
		}
	}
	slices.SortFunc(nums, func(x, y num) int { return int(x.at) - int(y.at) })
	for i, x := range nums {
		if i > 0 && nums[i-1].at == x.at {
			return fmt.Errorf("assemble numbers: joined row %d numbered twice", x.at)
		}
		a.numbered = append(a.numbered, x.at)
		a.numbers = append(a.numbers, x.n)
	}
	return nil
}

// layout chooses the joined file's row groups: spans.parquet's leading row
// groups of groupRows rows that hold no engine span that joined are the
// joined file's first row groups as they are (their kept columns are copied);
// the rest of the rows follow in row groups of groupRows.
func (a *assembly) layout() {
	for g := range len(a.starts) - 1 {
		lo, hi := a.starts[g], a.starts[g+1]
		if hi-lo != a.in.groupRows || slices.Contains(a.eng[lo:hi], true) {
			break
		}
		a.prefix++
		a.groups = append(a.groups, hi-lo)
	}
	for at := a.starts[a.prefix]; at < a.outN; at += a.in.groupRows {
		a.groups = append(a.groups, min(a.in.groupRows, a.outN-at))
	}
}

// assembleColumns writes the columns the join sets, each to a file of its
// own (named by colFile), and runs the jobs kept that write the kept
// columns. The columns are independent jobs but for two chains (gw is made
// of four instants; replica's rename needs to know the gateway's spans, from
// source), run on two goroutines, longest first.
func (a *assembly) assembleColumns(kept []func(*colWorker) error) ([]string, error) {
	var files []string
	for _, c := range joinedSetCols {
		files = append(files, a.colFile(c))
	}
	jobs := []func(*colWorker) error{a.assembleTimes, a.assembleSourceReplica, a.assembleAttempt, a.assembleResolution}
	for _, name := range []string{"first_token_at", "last_token_at"} {
		jobs = append(jobs, a.assembleEngineTime(name))
	}
	for _, name := range []string{"input_tokens", "output_tokens", "cached_tokens"} {
		jobs = append(jobs, a.assembleTokens(name))
	}
	for _, name := range []string{"model", "time_origin"} {
		jobs = append(jobs, a.assembleEngineString(name))
	}
	jobs = append(jobs, kept...)
	next := make(chan func(*colWorker) error)
	errs := make([]error, 2)
	var wg sync.WaitGroup
	for i := range errs {
		wg.Go(func() {
			w := &colWorker{}
			for job := range next {
				if errs[i] == nil {
					errs[i] = job(w)
				}
			}
		})
	}
	for _, job := range jobs {
		if a.ctx.Err() != nil {
			break
		}
		next <- job
	}
	close(next)
	wg.Wait()
	return files, errors.Join(append(errs, a.ctx.Err())...)
}

// colWorker holds a goroutine's arrays of the rows' own values (s) and of
// the joined engine spans' (e), reused from column to column.
type colWorker struct {
	s, e   ints
	ss, es []uint32
}

func (w *colWorker) ints(n int) (s, e ints) {
	if len(w.s.v) != n {
		w.s, w.e = newInts(n), newInts(n)
	}
	return w.s, w.e
}

func (w *colWorker) strs(n int) (s, e []uint32) {
	if len(w.ss) != n {
		w.ss, w.es = make([]uint32, n), make([]uint32, n)
	}
	return w.ss, w.es
}

func (a *assembly) colFile(name string) string {
	return filepath.Join(a.tmp, "joined_col_"+name+".parquet")
}

// keptFile names the file of the i-th row group of kept columns written here.
func (a *assembly) keptFile(i int) string {
	return filepath.Join(a.tmp, "joined_kept_"+strconv.Itoa(i)+".parquet")
}

// keptJobs are the jobs that write the columns a span keeps from its own row
// for the joined file's row groups after the copied ones, each row group to
// a file of its own (files). The columns keep spans.parquet's types and
// encodings.
func (a *assembly) keptJobs() (files []string, jobs []func(*colWorker) error) {
	rest := a.groups[a.prefix:]
	// Where each row group's rows start in spans.parquet.
	from := make([]int, len(rest)+1)
	r := a.starts[a.prefix]
	for i, n := range rest {
		from[i] = r
		for n > 0 {
			if !a.eng[r] {
				n--
			}
			r++
		}
	}
	from[len(rest)] = a.n
	fields := parquet.Group{}
	for _, name := range keptColumns {
		node := parquet.Node(a.fields[name])
		if enc := a.encodingOf(name); enc != nil {
			node = parquet.Encoded(node, enc)
		}
		fields[name] = parquet.Compressed(node, fastZstd)
	}
	schema := parquet.NewSchema("joined", fields)
	for i := range rest {
		files = append(files, a.keptFile(i))
		jobs = append(jobs, func(*colWorker) error { return a.writeKeptGroup(files[i], schema, from[i], from[i+1]) })
	}
	return files, jobs
}

// encodingOf is the encoding of column name's values in spans.parquet's first
// row group (nil for PLAIN, or when it has no row group).
func (a *assembly) encodingOf(name string) encoding.Encoding {
	md := a.f.Metadata()
	if len(md.RowGroups) == 0 {
		return nil
	}
	c, err := column(a.f, name)
	if err != nil {
		return nil
	}
	encs := md.RowGroups[0].Columns[c].MetaData.Encoding
	switch {
	case slices.Contains(encs, format.RLEDictionary):
		return &parquet.RLEDictionary
	case slices.Contains(encs, format.DeltaLengthByteArray):
		return &parquet.DeltaLengthByteArray
	case slices.Contains(encs, format.DeltaBinaryPacked):
		return &parquet.DeltaBinaryPacked
	}
	return nil
}

// keptRows reports whether rows [lo, hi) of spans.parquet hold a joined
// span's own row: a row group of engine spans that all joined is not read.
func (a *assembly) keptRows(lo, hi int) bool {
	return slices.Contains(a.eng[lo:hi], false)
}

// writeKeptGroup writes one row group of kept columns: those of the rows of
// spans.parquet in [from, to) that are not engine spans that joined.
func (a *assembly) writeKeptGroup(path string, schema *parquet.Schema, from, to int) error {
	fh, err := os.Create(path)
	if err != nil {
		return err
	}
	w := parquet.NewWriter(fh, schema)
	var buf, keep []parquet.Value
	for c, cw := range w.ColumnWriters() {
		name := schema.Columns()[c][0]
		err = eachPage(a.f, name, from, to, a.keptRows, func(row int, p parquet.Page) error {
			var err error
			if buf, err = pageValues(p, buf); err != nil {
				return err
			}
			keep = keep[:0]
			for i, v := range buf {
				if r := row + i; r >= from && r < to && !a.eng[r] {
					keep = append(keep, v.Level(0, int(v.DefinitionLevel()), c))
				}
			}
			_, err = cw.WriteRowValues(keep)
			return err
		})
		if err != nil {
			break
		}
	}
	if err == nil {
		err = w.Flush()
	}
	if cerr := w.Close(); err == nil {
		err = cerr
	}
	if cerr := fh.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("assemble %s: %w", filepath.Base(path), err)
	}
	return nil
}

// splice writes the joined file to out: its kept columns from spans.parquet's
// leading row groups and the kept columns' files (part 0), each column the
// join sets from its file (parts 1...).
func (a *assembly) splice(out, spansPath string, kept, cols []string) error {
	paths := slices.Concat([]string{spansPath}, kept, cols)
	srcs := make([]*os.File, len(paths))
	for i, p := range paths {
		f, err := os.Open(p)
		if err != nil {
			return fmt.Errorf("assemble: %w", err)
		}
		defer f.Close()
		srcs[i] = f
	}
	mds, err := footers(srcs)
	if err != nil {
		return err
	}
	// The kept columns' schema is spans.parquet's (file 0), from which the
	// kept files' schema is made; each column file is its part's schema.
	parts := make([]splicePart, 1+len(cols))
	for g := range a.prefix {
		parts[0].groups = append(parts[0].groups, partRowGroup{file: 0, rg: g})
	}
	for i := range kept {
		parts[0].groups = append(parts[0].groups, partRowGroup{file: 1 + i, rg: 0})
	}
	for c := range cols {
		parts[1+c].schema = 1 + len(kept) + c
		for g := range a.groups {
			parts[1+c].groups = append(parts[1+c].groups, partRowGroup{file: 1 + len(kept) + c, rg: g})
		}
	}
	var spliced []spliceColumn
	for _, col := range joinedColumns {
		src := 0
		if i := slices.Index(joinedSetCols, col.Name); i >= 0 {
			src = 1 + i
		}
		spliced = append(spliced, spliceColumn{Name: col.Name, Src: src})
	}
	fh, err := os.Create(out)
	if err != nil {
		return fmt.Errorf("assemble: %w", err)
	}
	err = splicePlan(fh, srcs, mds, spliced, parts)
	if cerr := fh.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(out)
		return fmt.Errorf("assemble %s: %w", filepath.Base(out), err)
	}
	return nil
}
