package analyze

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/compress/zstd"
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

// fieldsOf gives f's top-level fields by name.
func fieldsOf(f *parquet.File) map[string]parquet.Field {
	fields := map[string]parquet.Field{}
	for _, fl := range f.Schema().Fields() {
		fields[fl.Name()] = fl
	}
	return fields
}

// checkColumns checks that f (whose fields are fields) has each of
// spans.parquet's columns cols, flat and of the type ingest writes
// (timestamps in µs), else returns an errCannotAssemble error.
func checkColumns(f *parquet.File, fields map[string]parquet.Field, cols []parquet.Field) error {
	for _, want := range cols {
		name := want.Name()
		fl, ok := fields[name]
		if _, err := column(f, name); !ok || err != nil || !fl.Leaf() || fl.Repeated() {
			return fmt.Errorf("%w: spans.parquet has no flat column %s", errCannotAssemble, name)
		}
		if kind := want.Type().Kind(); fl.Type().Kind() != kind {
			return fmt.Errorf("%w: column %s is %s, not %s", errCannotAssemble, name, fl.Type().Kind(), kind)
		}
		if isTimestamp(want.Type()) && (!isTimestamp(fl.Type()) || !isMicros(fl.Type())) {
			return fmt.Errorf("%w: column %s is not a timestamp in µs", errCannotAssemble, name)
		}
	}
	return nil
}

// isTimestamp reports whether t is a timestamp; isMicros whether in µs.
func isTimestamp(t parquet.Type) bool { return timestampOf(t) != nil }

func isMicros(t parquet.Type) bool {
	_, ok := timestampOf(t).Unit.Value.(*format.MicroSeconds)
	return ok
}

func timestampOf(t parquet.Type) *format.TimestampType {
	if lt := t.LogicalType(); lt != nil {
		ts, _ := lt.Value.(*format.TimestampType)
		return ts
	}
	return nil
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

// openParquet opens a Parquet file for reading.
func openParquet(path string) (*parquet.File, func(), error) {
	fh, err := os.Open(path)
	if err != nil {
		return nil, nil, fmt.Errorf("assemble: %w", err)
	}
	pf, err := parquetFile(fh)
	if err != nil {
		fh.Close()
		return nil, nil, fmt.Errorf("assemble %s: %w", filepath.Base(path), err)
	}
	return pf, func() { fh.Close() }, nil
}

// column returns the leaf index of a column of f.
func column(f *parquet.File, name string) (int, error) {
	for i, path := range f.Schema().Columns() {
		if len(path) == 1 && path[0] == name {
			return i, nil
		}
	}
	return 0, fmt.Errorf("no column %s", name)
}

// eachPage calls fn with every page of column name of f, in row order, and
// the row of f the page starts at; rows [from, to) only are wanted, and row
// groups outside them are not read, nor those whose rows [lo, hi) keep (when
// not nil) rejects.
func eachPage(f *parquet.File, name string, from, to int, keep func(lo, hi int) bool, fn func(row int, p parquet.Page) error) error {
	c, err := column(f, name)
	if err != nil {
		return err
	}
	row := 0
	for _, rg := range f.RowGroups() {
		n := int(rg.NumRows())
		if row+n <= from || row >= to || keep != nil && !keep(row, row+n) {
			row += n
			continue
		}
		pages := rg.ColumnChunks()[c].Pages()
		for {
			p, err := pages.ReadPage()
			if err == io.EOF {
				break
			}
			if err != nil {
				pages.Close()
				return err
			}
			err = fn(row, p)
			row += int(p.NumRows())
			parquet.Release(p)
			if err != nil {
				pages.Close()
				return err
			}
		}
		pages.Close()
	}
	return nil
}

// pageValues reads every value of page p (nulls included, with their levels).
func pageValues(p parquet.Page, buf []parquet.Value) ([]parquet.Value, error) {
	buf = slices.Grow(buf[:0], int(p.NumValues()))[:int(p.NumValues())]
	r := p.Values()
	n := 0
	for n < len(buf) {
		k, err := r.ReadValues(buf[n:])
		n += k
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
	}
	return buf[:n], nil
}

// scanInt64s calls fn with each row's value of an INT64 or INT32 column of f.
func scanInt64s(f *parquet.File, name string, fn func(row int, v int64, ok bool)) error {
	var buf []parquet.Value
	return eachPage(f, name, 0, int(f.NumRows()), nil, func(row int, p parquet.Page) error {
		def := p.DefinitionLevels()
		if p.Dictionary() == nil {
			data := p.Data()
			switch p.Type().Kind() {
			case parquet.Int64:
				eachLevel(row, def, data.Int64(), fn)
				return nil
			case parquet.Int32:
				eachLevel(row, def, data.Int32(), fn)
				return nil
			}
		}
		var err error
		if buf, err = pageValues(p, buf); err != nil {
			return err
		}
		for i, v := range buf {
			if v.IsNull() {
				fn(row+i, 0, false)
			} else if v.Kind() == parquet.Int32 {
				fn(row+i, int64(v.Int32()), true)
			} else {
				fn(row+i, v.Int64(), true)
			}
		}
		return nil
	})
}

// eachLevel calls fn for the rows of a page of a flat column: vals are its
// non-null values, def its definition levels (none when the column is
// required).
func eachLevel[T int32 | int64](row int, def []byte, vals []T, fn func(row int, v int64, ok bool)) {
	if len(def) == 0 {
		for i, v := range vals {
			fn(row+i, int64(v), true)
		}
		return
	}
	j := 0
	for i, d := range def {
		if d != 0 {
			fn(row+i, int64(vals[j]), true)
			j++
		} else {
			fn(row+i, 0, false)
		}
	}
}

// scanStrings calls fn with each row's value of a BYTE_ARRAY column of f;
// the bytes are valid during the call only.
func scanStrings(f *parquet.File, name string, fn func(row int, b []byte, ok bool)) error {
	var buf []parquet.Value
	return eachPage(f, name, 0, int(f.NumRows()), nil, func(row int, p parquet.Page) error {
		return pageStrings(row, p, &buf, fn)
	})
}

// pageStrings calls fn with the values of page p of a flat BYTE_ARRAY
// column, whose first row is row. A page that is not dictionary-encoded
// holds its values as one array of bytes and their offsets, read as they
// are; the others are read value by value, into buf.
func pageStrings(row int, p parquet.Page, buf *[]parquet.Value, fn func(row int, b []byte, ok bool)) error {
	if p.Dictionary() == nil && p.Type().Kind() == parquet.ByteArray {
		data := p.Data()
		vals, offs := data.ByteArray()
		def := p.DefinitionLevels()
		if len(def) == 0 {
			for i := 0; i+1 < len(offs); i++ {
				fn(row+i, vals[offs[i]:offs[i+1]], true)
			}
			return nil
		}
		j := 0
		for i, d := range def {
			if d == 0 {
				fn(row+i, nil, false)
				continue
			}
			if j+1 >= len(offs) {
				return fmt.Errorf("a page holds %d values, fewer than its levels say", len(offs)-1)
			}
			fn(row+i, vals[offs[j]:offs[j+1]], true)
			j++
		}
		return nil
	}
	var err error
	if *buf, err = pageValues(p, *buf); err != nil {
		return err
	}
	for i, v := range *buf {
		fn(row+i, v.ByteArray(), !v.IsNull())
	}
	return nil
}

// fastZstd compresses the files written here as DuckDB's COPY does in
// analyze (level 1).
var fastZstd = &zstd.Codec{Level: zstd.SpeedFastest}

// writeInts writes the column file path of integer column name, of node's
// type, in row groups of sizes groups: row k is value(k), NULL when not ok.
func writeInts(path, name string, node parquet.Node, groups []int, value func(k int) (int64, bool)) error {
	c, err := newColumnFile(path, name, node)
	if err != nil {
		return err
	}
	k := 0
	for _, n := range groups {
		for range n {
			c.addInt(value(k))
			k++
		}
		if err := c.endGroup(nil); err != nil {
			c.abort()
			return fmt.Errorf("write %s: %w", filepath.Base(path), err)
		}
	}
	return c.close()
}

// writeStrings writes the column file path of string column name: row k is
// the string t.vals[value(k)], NULL for 0. The table may grow as the rows are
// written.
func writeStrings(path, name string, groups []int, t *strTable, value func(k int) uint32) error {
	c, err := newColumnFile(path, name, stringNode)
	if err != nil {
		return err
	}
	k := 0
	for _, n := range groups {
		for range n {
			id := value(k)
			c.addIndex(id-1, id != 0)
			k++
		}
		if err := c.endGroup(t.vals[1:]); err != nil {
			c.abort()
			return fmt.Errorf("write %s: %w", filepath.Base(path), err)
		}
	}
	return c.close()
}

// Column types of the columns the join sets, as joined_engine.sql writes
// them (DuckDB writes every column optional).
var (
	timestampNode = parquet.Optional(parquet.Encoded(parquet.Timestamp(parquet.Microsecond), &parquet.DeltaBinaryPacked))
	int64Node     = parquet.Optional(parquet.Encoded(parquet.Int(64), &parquet.DeltaBinaryPacked))
	int32Node     = parquet.Optional(parquet.Encoded(parquet.Int(32), &parquet.DeltaBinaryPacked))
	stringNode    = parquet.Optional(parquet.Encoded(parquet.String(), &parquet.RLEDictionary))
)

// ints is one int64 value per joined row, with whether it is known.
type ints struct {
	v  []int64
	ok []bool
}

func newInts(n int) ints { return ints{v: make([]int64, n), ok: make([]bool, n)} }

func (x ints) clear() { clear(x.ok) }

// readInts reads column name into s (the rows' own values) and e (the values
// of the engine spans that joined, at their gateway span's row).
func (a *assembly) readInts(name string, s, e ints) error {
	s.clear()
	e.clear()
	err := scanInt64s(a.f, name, func(r int, v int64, ok bool) {
		d := a.pos[r]
		if a.eng[r] {
			e.v[d], e.ok[d] = v, ok
		} else {
			s.v[d], s.ok[d] = v, ok
		}
	})
	if err != nil {
		return fmt.Errorf("assemble %s: %w", name, err)
	}
	return nil
}

// strTable numbers the distinct strings of a column from 1.
type strTable struct {
	ids  map[string]uint32
	vals [][]byte
}

func newStrTable() *strTable { return &strTable{ids: map[string]uint32{}, vals: [][]byte{nil}} }

func (t *strTable) id(b []byte) uint32 {
	if id, ok := t.ids[string(b)]; ok {
		return id
	}
	id := uint32(len(t.vals))
	t.ids[string(b)] = id
	t.vals = append(t.vals, slices.Clone(b))
	return id
}

// readStrs reads string column name into s and e, as readInts. A page of a
// dictionary-encoded column holds the indexes of its values in the chunk's
// dictionary: each dictionary entry is numbered once, not each row's bytes.
func (a *assembly) readStrs(name string, s, e []uint32, t *strTable) error {
	clear(s)
	clear(e)
	err := scanStrIDs(a.f, name, t, func(r int, id uint32) {
		if id == 0 {
			return
		}
		if a.eng[r] {
			e[a.pos[r]] = id
		} else {
			s[a.pos[r]] = id
		}
	})
	if err != nil {
		return fmt.Errorf("assemble %s: %w", name, err)
	}
	return nil
}

// scanStrIDs calls fn with each row's value of a BYTE_ARRAY column of f as
// its number in t, 0 when NULL. A page of a dictionary-encoded column holds
// the indexes of its values in the chunk's dictionary: each dictionary entry
// is numbered once, not each row's bytes.
func scanStrIDs(f *parquet.File, name string, t *strTable, fn func(row int, id uint32)) error {
	var dict parquet.Dictionary
	var ids []uint32 // table ids of dict's entries
	var buf []parquet.Value
	return eachPage(f, name, 0, int(f.NumRows()), nil, func(row int, p parquet.Page) error {
		d := p.Dictionary()
		if d == nil {
			return pageStrings(row, p, &buf, func(r int, b []byte, ok bool) {
				if ok {
					fn(r, t.id(b))
				} else {
					fn(r, 0)
				}
			})
		}
		if d != dict {
			dict, ids = d, ids[:0]
			for i := range d.Len() {
				ids = append(ids, t.id(d.Index(int32(i)).ByteArray()))
			}
		}
		data := p.Data()
		idx := data.Int32()
		def := p.DefinitionLevels()
		if len(def) == 0 {
			for i, x := range idx {
				fn(row+i, ids[x])
			}
			return nil
		}
		j := 0
		for i, d := range def {
			if d != 0 {
				fn(row+i, ids[idx[j]])
				j++
			} else {
				fn(row+i, 0)
			}
		}
		return nil
	})
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

// coalesce returns the first known of (v1, ok1), (v2, ok2).
func coalesce(v1 int64, ok1 bool, v2 int64, ok2 bool) (int64, bool) {
	if ok1 {
		return v1, true
	}
	return v2, ok2
}

// assembleTimes writes queued_at, engine_arrived_at, admitted_at,
// released_at and gw (joined_engine.sql): a joined span's queued_at is the
// gateway's (else the engine's), its engine_arrived_at the engine's (else
// the engine's queued_at), admitted_at the engine's and released_at the
// engine's (else the gateway's); gw is the gateway's total time minus the
// engine's, the engine's measured from its queued_at, else admitted_at.
func (a *assembly) assembleTimes(w *colWorker) error {
	s, e := w.ints(a.outN)
	eq, gw := newInts(a.outN), newInts(a.outN)
	// queued_at: gw starts as −(gateway's queued_at).
	if err := a.readInts("queued_at", s, e); err != nil {
		return err
	}
	copy(eq.v, e.v)
	copy(eq.ok, e.ok)
	for k := range a.outN {
		gw.v[k], gw.ok[k] = -s.v[k], a.paired[k] && s.ok[k]
	}
	err := writeInts(a.colFile("queued_at"), "queued_at", timestampNode, a.groups, func(k int) (int64, bool) {
		if a.paired[k] {
			return coalesce(s.v[k], s.ok[k], e.v[k], e.ok[k])
		}
		return s.v[k], s.ok[k]
	})
	if err != nil {
		return err
	}
	if err := a.readInts("engine_arrived_at", s, e); err != nil {
		return err
	}
	err = writeInts(a.colFile("engine_arrived_at"), "engine_arrived_at", timestampNode, a.groups, func(k int) (int64, bool) {
		if a.paired[k] {
			return coalesce(e.v[k], e.ok[k], eq.v[k], eq.ok[k])
		}
		return s.v[k], s.ok[k]
	})
	if err != nil {
		return err
	}
	// admitted_at: gw adds the engine's start, its queued_at else admitted_at.
	if err := a.readInts("admitted_at", s, e); err != nil {
		return err
	}
	for k := range a.outN {
		start, ok := coalesce(eq.v[k], eq.ok[k], e.v[k], e.ok[k])
		gw.v[k] += start
		gw.ok[k] = gw.ok[k] && ok
	}
	err = writeInts(a.colFile("admitted_at"), "admitted_at", timestampNode, a.groups, func(k int) (int64, bool) {
		if a.paired[k] {
			return e.v[k], e.ok[k]
		}
		return s.v[k], s.ok[k]
	})
	if err != nil {
		return err
	}
	// released_at: gw adds the gateway's release, less the engine's.
	if err := a.readInts("released_at", s, e); err != nil {
		return err
	}
	for k := range a.outN {
		gw.v[k] += s.v[k] - e.v[k]
		gw.ok[k] = gw.ok[k] && s.ok[k] && e.ok[k]
	}
	err = writeInts(a.colFile("released_at"), "released_at", timestampNode, a.groups, func(k int) (int64, bool) {
		if a.paired[k] {
			return coalesce(e.v[k], e.ok[k], s.v[k], s.ok[k])
		}
		return s.v[k], s.ok[k]
	})
	if err != nil {
		return err
	}
	return writeInts(a.colFile("gw"), "gw", int64Node, a.groups, func(k int) (int64, bool) {
		return gw.v[k], gw.ok[k]
	})
}

// assembleEngineTime writes first_token_at or last_token_at: a joined span's
// is the engine's.
func (a *assembly) assembleEngineTime(name string) func(*colWorker) error {
	return func(w *colWorker) error {
		s, e := w.ints(a.outN)
		if err := a.readInts(name, s, e); err != nil {
			return err
		}
		return writeInts(a.colFile(name), name, timestampNode, a.groups, func(k int) (int64, bool) {
			if a.paired[k] {
				return e.v[k], e.ok[k]
			}
			return s.v[k], s.ok[k]
		})
	}
}

// assembleTokens writes a token count: a joined span's is the engine's,
// else the gateway's.
func (a *assembly) assembleTokens(name string) func(*colWorker) error {
	return func(w *colWorker) error {
		s, e := w.ints(a.outN)
		if err := a.readInts(name, s, e); err != nil {
			return err
		}
		return writeInts(a.colFile(name), name, int64Node, a.groups, func(k int) (int64, bool) {
			if a.paired[k] {
				return coalesce(e.v[k], e.ok[k], s.v[k], s.ok[k])
			}
			return s.v[k], s.ok[k]
		})
	}
}

// assembleResolution writes time_resolution_us: a joined span's is the
// coarser of the two, NULL when both are exact.
func (a *assembly) assembleResolution(w *colWorker) error {
	s, e := w.ints(a.outN)
	if err := a.readInts("time_resolution_us", s, e); err != nil {
		return err
	}
	return writeInts(a.colFile("time_resolution_us"), "time_resolution_us", int32Node, a.groups, func(k int) (int64, bool) {
		if a.paired[k] {
			var r int64
			if s.ok[k] {
				r = s.v[k]
			}
			if e.ok[k] && e.v[k] > r {
				r = e.v[k]
			}
			return r, r != 0
		}
		return s.v[k], s.ok[k]
	})
}

// assembleAttempt writes attempt: the row's own, else join_numbers', else 0
// for a span with a request_id.
func (a *assembly) assembleAttempt(w *colWorker) error {
	s, e := w.ints(a.outN)
	if err := a.readInts("attempt", s, e); err != nil {
		return err
	}
	hasRequest, err := a.requestIDs()
	if err != nil {
		return err
	}
	next := 0
	return writeInts(a.colFile("attempt"), "attempt", int32Node, a.groups, func(k int) (int64, bool) {
		for next < len(a.numbered) && int(a.numbered[next]) < k {
			next++
		}
		if s.ok[k] {
			return s.v[k], true
		}
		if next < len(a.numbered) && int(a.numbered[next]) == k {
			return int64(a.numbers[next]), true
		}
		return 0, hasRequest == nil || hasRequest[k]
	})
}

// requestIDs reports, per joined row, whether its span has a request_id; nil
// when every span has one (the column is required, as ingest writes it).
func (a *assembly) requestIDs() ([]bool, error) {
	if a.fields["request_id"].Required() {
		return nil, nil
	}
	has := make([]bool, a.outN)
	err := scanStrings(a.f, "request_id", func(r int, _ []byte, ok bool) {
		if !a.eng[r] {
			has[a.pos[r]] = ok
		}
	})
	if err != nil {
		return nil, fmt.Errorf("assemble request_id: %w", err)
	}
	return has, nil
}

// assembleSourceReplica writes source and replica. A joined span's source is
// the gateway's and the engine's, joined by +; its replica the engine's, else
// the gateway's, and an unjoined gateway span's replica is renamed
// (join_renames; NULL when its replica has no rename).
func (a *assembly) assembleSourceReplica(w *colWorker) error {
	s, e := w.strs(a.outN)
	t := newStrTable()
	if err := a.readStrs("source", s, e, t); err != nil {
		return err
	}
	isGw := make([]bool, a.outN)
	gateway := make([]bool, len(t.vals))
	for i, v := range t.vals {
		gateway[i] = i > 0 && slices.Contains(a.in.gateway, string(v))
	}
	for k, id := range s {
		isGw[k] = gateway[id]
	}
	joined := map[[2]uint32]uint32{}
	err := writeStrings(a.colFile("source"), "source", a.groups, t, func(k int) uint32 {
		if !a.paired[k] {
			return s[k]
		}
		if s[k] == 0 || e[k] == 0 {
			return 0
		}
		key := [2]uint32{s[k], e[k]}
		id, ok := joined[key]
		if !ok {
			id = t.id(slices.Concat(t.vals[s[k]], []byte("+"), t.vals[e[k]]))
			joined[key] = id
		}
		return id
	})
	if err != nil {
		return err
	}
	t = newStrTable()
	if err := a.readStrs("replica", s, e, t); err != nil {
		return err
	}
	renamed := make([]uint32, len(t.vals))
	for i, v := range t.vals[1:] {
		if r, ok := a.in.renames[string(v)]; ok {
			renamed[1+i] = t.id([]byte(r))
		}
	}
	return writeStrings(a.colFile("replica"), "replica", a.groups, t, func(k int) uint32 {
		switch {
		case a.paired[k] && e[k] != 0:
			return e[k]
		case a.paired[k]:
			return s[k]
		case isGw[k]:
			return renamed[s[k]]
		default:
			return s[k]
		}
	})
}

// assembleEngineString writes model or time_origin: a joined span's is the
// engine's, else the gateway's.
func (a *assembly) assembleEngineString(name string) func(*colWorker) error {
	return func(w *colWorker) error {
		s, e := w.strs(a.outN)
		t := newStrTable()
		if err := a.readStrs(name, s, e, t); err != nil {
			return err
		}
		return writeStrings(a.colFile(name), name, a.groups, t, func(k int) uint32 {
			if a.paired[k] && e[k] != 0 {
				return e[k]
			}
			return s[k]
		})
	}
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
