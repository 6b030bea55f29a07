package analyze

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/encoding/thrift"
	"github.com/parquet-go/parquet-go/format"
)

// A splice writes a Parquet file whose columns are columns of other Parquet
// files with the same rows in the same row groups, by copying their column
// chunks byte for byte: no page is decoded, re-encoded or compressed again.
// requests.parquet repeats most columns of spans.parquet (spliceRequests), and
// re-encoding them was most of the time DuckDB's COPY of the file took
// (BENCHMARKS.md, "The figures behind the code").
//
// Only the footer is new: the source schema elements and column chunk
// metadata, with the chunks' offsets moved to where they now are. The page
// indexes and bloom filters of the sources are left out (they are optional,
// and theirs would point into the source files); the statistics in each
// chunk's metadata are kept.

// spliceColumn names an output column: the leaf column Name of source file
// Src (an index into the sources of splice).
type spliceColumn struct {
	Name string
	Src  int
}

// errCannotSplice reports sources that a splice cannot combine, before it
// writes anything: their row groups differ in number or size (every row
// group of the output must be one row group of each source), a column is
// missing, or a schema is not flat. The caller writes the file another way.
var errCannotSplice = errors.New("cannot splice")

// parquetMagic opens and closes every Parquet file.
const parquetMagic = "PAR1"

// spliceFiles writes the file out by splice from the Parquet files at paths
// (cols' Src indexes paths); out is removed when the splice fails.
func spliceFiles(out string, paths []string, cols []spliceColumn) error {
	fs, err := planFiles(out, paths, cols)
	if err != nil {
		return err
	}
	return fs.write(context.Background())
}

// fileSplice is a splice of files whose sources are checked and open,
// to be written once (write) or given up (close).
type fileSplice struct {
	out   string
	srcs  []*os.File
	plan  *splicer
	temps []string // removed with the sources' closing
}

// planFiles opens the Parquet files at paths and plans the splice of cols
// from them into out, which it does not create yet: an errCannotSplice
// error says the sources cannot be spliced.
func planFiles(out string, paths []string, cols []spliceColumn) (*fileSplice, error) {
	fs := &fileSplice{out: out}
	for _, p := range paths {
		f, err := os.Open(p)
		if err != nil {
			fs.close()
			return nil, fmt.Errorf("splice %s: %w", filepath.Base(out), err)
		}
		fs.srcs = append(fs.srcs, f)
	}
	mds, err := footers(fs.srcs)
	if err == nil {
		fs.plan, err = planSplice(fs.srcs, mds, cols, wholeParts(mds))
	}
	if err != nil {
		fs.close()
		return nil, err
	}
	return fs, nil
}

// write writes the planned file and closes the sources; the file is
// removed when the splice fails or ctx is done first.
func (fs *fileSplice) write(ctx context.Context) error {
	defer fs.close()
	f, err := os.Create(fs.out)
	if err != nil {
		return fmt.Errorf("splice %s: %w", filepath.Base(fs.out), err)
	}
	err = fs.plan.write(ctx, f)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(fs.out)
		return err
	}
	return nil
}

// close closes the sources and removes the files temps.
func (fs *fileSplice) close() {
	for _, f := range fs.srcs {
		f.Close()
	}
	fs.srcs = nil
	for _, p := range fs.temps {
		os.Remove(p)
	}
	fs.temps = nil
}

// wholeParts are the parts of a splice that takes each column's row groups
// from one file, its Src, all of them.
func wholeParts(mds []*format.FileMetaData) []splicePart {
	parts := make([]splicePart, len(mds))
	for i, md := range mds {
		parts[i].schema = i
		for g := range md.RowGroups {
			parts[i].groups = append(parts[i].groups, partRowGroup{file: i, rg: g})
		}
	}
	return parts
}

// footers reads the file metadata of each of srcs.
func footers(srcs []*os.File) ([]*format.FileMetaData, error) {
	mds := make([]*format.FileMetaData, len(srcs))
	for i, f := range srcs {
		md, err := readFooter(f)
		if err != nil {
			return nil, fmt.Errorf("splice %s: %w", f.Name(), err)
		}
		mds[i] = md
	}
	return mds, nil
}

// partRowGroup is row group rg of source file file.
type partRowGroup struct{ file, rg int }

// splicePart is a part of a splice: the source row group of each of the
// output's row groups, and the file whose schema describes the part's
// columns (a part may have no row group).
type splicePart struct {
	schema int
	groups []partRowGroup
}

// splicePlan writes to out the columns cols from the Parquet files srcs
// (with footers mds), where a column's Src names a part: parts[Src].groups[g]
// is the source row group of the output's row group g. A part may take its
// row groups from several files, which must agree with its schema file on
// the column's type and repetition. It returns an errCannotSplice error,
// having written nothing, when the parts' row groups differ in number or
// size, a column is missing or a schema is not flat.
func splicePlan(out io.Writer, srcs []*os.File, mds []*format.FileMetaData, cols []spliceColumn, parts []splicePart) error {
	sp, err := planSplice(srcs, mds, cols, parts)
	if err != nil {
		return err
	}
	return sp.write(context.Background(), out)
}

// splicer is a splice planned by planSplice: its sources, checked, and the
// output's columns.
type splicer struct {
	srcs   []*os.File
	mds    []*format.FileMetaData
	cols   []spliceColumn
	parts  []splicePart
	schema []format.SchemaElement
	orders []format.ColumnOrder
	leaf   []map[int]int // by output column: its leaf index in each file it is read from
}

// planSplice checks that the columns cols can be spliced from srcs (with
// footers mds) in the parts parts, as splicePlan describes, and writes
// nothing.
func planSplice(srcs []*os.File, mds []*format.FileMetaData, cols []spliceColumn, parts []splicePart) (*splicer, error) {
	rows := func(p partRowGroup) int64 { return mds[p.file].RowGroups[p.rg].NumRows }
	first := parts[0].groups
	for _, part := range parts[1:] {
		if len(part.groups) != len(first) {
			return nil, fmt.Errorf("%w: %d row groups against %d", errCannotSplice, len(part.groups), len(first))
		}
		for g, p := range part.groups {
			if rows(p) != rows(first[g]) {
				return nil, fmt.Errorf("%w: row group %d has %d rows against %d", errCannotSplice, g, rows(p), rows(first[g]))
			}
		}
	}
	// Each output column's schema element, sort order (that of its
	// statistics; a file with statistics must name it) and leaf index in
	// each file it is read from.
	schema := []format.SchemaElement{{Name: "schema", NumChildren: thrift.New(int32(len(cols)))}}
	orders := make([]format.ColumnOrder, len(cols))
	leaf := make([]map[int]int, len(cols))
	for c, col := range cols {
		if col.Src < 0 || col.Src >= len(parts) {
			return nil, fmt.Errorf("splice: column %s: no source %d", col.Name, col.Src)
		}
		part := parts[col.Src]
		el, i, err := flatLeaf(mds[part.schema], col.Name)
		if err != nil {
			return nil, fmt.Errorf("%w: %s: %w", errCannotSplice, srcs[part.schema].Name(), err)
		}
		schema = append(schema, el)
		orders[c] = format.ColumnOrder{Value: &format.TypeDefinedOrder{}}
		if co := mds[part.schema].ColumnOrders; i < len(co) {
			orders[c] = co[i]
		}
		leaf[c] = map[int]int{part.schema: i}
		for _, p := range part.groups {
			if _, seen := leaf[c][p.file]; seen {
				continue
			}
			other, j, err := flatLeaf(mds[p.file], col.Name)
			if err != nil {
				return nil, fmt.Errorf("%w: %s: %w", errCannotSplice, srcs[p.file].Name(), err)
			}
			if other.Type != el.Type || other.RepetitionType != el.RepetitionType {
				return nil, fmt.Errorf("%w: column %s of %s is not of the type of %s's", errCannotSplice, col.Name,
					srcs[p.file].Name(), srcs[part.schema].Name())
			}
			leaf[c][p.file] = j
		}
	}
	return &splicer{srcs: srcs, mds: mds, cols: cols, parts: parts, schema: schema, orders: orders, leaf: leaf}, nil
}

// write writes the spliced file to out, checking ctx between column chunks.
func (sp *splicer) write(ctx context.Context, out io.Writer) error {
	srcs, mds, cols, parts, leaf := sp.srcs, sp.mds, sp.cols, sp.parts, sp.leaf
	rows := func(p partRowGroup) int64 { return mds[p.file].RowGroups[p.rg].NumRows }
	first := parts[0].groups
	var numRows int64
	for _, p := range first {
		numRows += rows(p)
	}

	w := &countingWriter{w: out}
	if _, err := io.WriteString(w, parquetMagic); err != nil {
		return err
	}
	out0 := format.FileMetaData{
		Version:      1,
		Schema:       sp.schema,
		NumRows:      numRows,
		ColumnOrders: sp.orders,
		CreatedBy:    "tpsreport (column chunks spliced from " + createdBy(mds) + ")",
	}
	for g := range first {
		rg := format.RowGroup{NumRows: rows(first[g]), FileOffset: w.n, Ordinal: int16(g)}
		for c, col := range cols {
			p := parts[col.Src].groups[g]
			src := mds[p.file].RowGroups[p.rg].Columns[leaf[c][p.file]]
			if src.FilePath != "" {
				return fmt.Errorf("splice %s: column %s is in another file", srcs[p.file].Name(), col.Name)
			}
			if err := ctx.Err(); err != nil {
				return err
			}
			m := src.MetaData
			start := m.DataPageOffset
			if m.DictionaryPageOffset > 0 && m.DictionaryPageOffset < start {
				start = m.DictionaryPageOffset
			}
			if err := w.copyFrom(srcs[p.file], start, m.TotalCompressedSize); err != nil {
				return fmt.Errorf("splice %s: %w", srcs[p.file].Name(), err)
			}
			moved := w.n - m.TotalCompressedSize - start
			m.DataPageOffset += moved
			if m.DictionaryPageOffset > 0 {
				m.DictionaryPageOffset += moved
			}
			if m.IndexPageOffset > 0 {
				m.IndexPageOffset += moved
			}
			m.BloomFilterOffset, m.BloomFilterLength = 0, 0
			m.PathInSchema = []string{col.Name}
			rg.Columns = append(rg.Columns, format.ColumnChunk{FileOffset: start + moved, MetaData: m})
			rg.TotalByteSize += m.TotalUncompressedSize
			rg.TotalCompressedSize += m.TotalCompressedSize
		}
		out0.RowGroups = append(out0.RowGroups, rg)
	}
	footer, err := thrift.Marshal(new(thrift.CompactProtocol), &out0)
	if err != nil {
		return fmt.Errorf("splice: footer: %w", err)
	}
	if _, err := w.Write(footer); err != nil {
		return err
	}
	if err := binary.Write(w, binary.LittleEndian, uint32(len(footer))); err != nil {
		return err
	}
	_, err = io.WriteString(w, parquetMagic)
	return err
}

// readFooter reads the file metadata of the Parquet file f.
func readFooter(f *os.File) (*format.FileMetaData, error) {
	pf, err := parquetFile(f)
	if err != nil {
		return nil, err
	}
	return pf.Metadata(), nil
}

// parquetFile opens the Parquet file f with parquet-go's reader, without its
// page indexes and bloom filters (a splice leaves them out, and the assembly
// reads pages in order).
func parquetFile(f *os.File) (*parquet.File, error) {
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	return parquet.OpenFile(f, st.Size(), parquet.SkipPageIndex(true), parquet.SkipBloomFilters(true), parquet.ReadBufferSize(1<<20))
}

// flatLeaf finds the top-level leaf column name in md's schema: its schema
// element, and its index among the columns of a row group. Every column of a
// file spliced from must be a top-level leaf (a flat schema), so that the
// index of a column is its position among the root's children.
func flatLeaf(md *format.FileMetaData, name string) (format.SchemaElement, int, error) {
	if len(md.Schema) == 0 || int(md.Schema[0].NumChildren.V) != len(md.Schema)-1 {
		return format.SchemaElement{}, 0, errors.New("not a flat schema")
	}
	for i, el := range md.Schema[1:] {
		if el.NumChildren.V != 0 || el.RepetitionType.V == format.Repeated {
			return format.SchemaElement{}, 0, fmt.Errorf("column %s is nested or repeated", el.Name)
		}
		if el.Name == name {
			return el, i, nil
		}
	}
	return format.SchemaElement{}, 0, fmt.Errorf("no column %s", name)
}

// createdBy lists the writers of the sources, each once.
func createdBy(mds []*format.FileMetaData) string {
	var names []string
	for _, md := range mds {
		if !slices.Contains(names, md.CreatedBy) {
			names = append(names, md.CreatedBy)
		}
	}
	return strings.Join(names, ", ")
}

// countingWriter counts the bytes written through it: the offset of the next
// byte in the output.
type countingWriter struct {
	w io.Writer
	n int64
}

// copyFrom copies n bytes of f from offset off. To a file, io.Copy hands the
// copy to the kernel (os.File.ReadFrom of a limited *os.File).
func (c *countingWriter) copyFrom(f *os.File, off, n int64) error {
	if _, err := f.Seek(off, io.SeekStart); err != nil {
		return err
	}
	k, err := io.Copy(c.w, io.LimitReader(f, n))
	c.n += k
	if err == nil && k != n {
		err = fmt.Errorf("copied %d bytes of %d at offset %d: %w", k, n, off, io.ErrUnexpectedEOF)
	}
	return err
}

func (c *countingWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}
