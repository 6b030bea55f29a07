package analyze

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/encoding/thrift"
	"github.com/parquet-go/parquet-go/format"
)

// A splice writes a Parquet file whose columns are columns of other Parquet
// files with the same rows in the same row groups, by copying their column
// chunks byte for byte: no page is decoded, re-encoded or compressed again.
// requests.parquet repeats most columns of spans.parquet (spliceRequests), and
// re-encoding them cost DuckDB about 6.5 of the 9 s its COPY took at 10 M
// spans.
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
	var srcs []*os.File
	for _, p := range paths {
		f, err := os.Open(p)
		if err != nil {
			return fmt.Errorf("splice %s: %w", filepath.Base(out), err)
		}
		defer f.Close()
		srcs = append(srcs, f)
	}
	f, err := os.Create(out)
	if err != nil {
		return fmt.Errorf("splice %s: %w", filepath.Base(out), err)
	}
	err = splice(f, srcs, cols)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(out)
		return err
	}
	return nil
}

// splice writes to out the columns cols, in that order, from the Parquet files
// srcs. It returns an errCannotSplice error, having written nothing, when the
// sources' row groups do not line up, a column is missing or a schema is not
// flat. When out is a file, the chunks are copied by the kernel
// (copy_file_range), without passing through this process.
func splice(out io.Writer, srcs []*os.File, cols []spliceColumn) error {
	mds := make([]*format.FileMetaData, len(srcs))
	for i, f := range srcs {
		md, err := readFooter(f)
		if err != nil {
			return fmt.Errorf("splice %s: %w", f.Name(), err)
		}
		mds[i] = md
	}
	for _, md := range mds[1:] {
		if len(md.RowGroups) != len(mds[0].RowGroups) {
			return fmt.Errorf("%w: %d row groups against %d", errCannotSplice, len(md.RowGroups), len(mds[0].RowGroups))
		}
		for g := range md.RowGroups {
			if md.RowGroups[g].NumRows != mds[0].RowGroups[g].NumRows {
				return fmt.Errorf("%w: row group %d has %d rows against %d", errCannotSplice, g, md.RowGroups[g].NumRows, mds[0].RowGroups[g].NumRows)
			}
		}
	}
	// Each output column's schema element, sort order (that of its
	// statistics; a file with statistics must name it) and leaf index in its
	// source.
	schema := []format.SchemaElement{{Name: "schema", NumChildren: thrift.New(int32(len(cols)))}}
	orders := make([]format.ColumnOrder, len(cols))
	leaf := make([]int, len(cols))
	for c, col := range cols {
		if col.Src < 0 || col.Src >= len(srcs) {
			return fmt.Errorf("splice: column %s: no source %d", col.Name, col.Src)
		}
		el, i, err := flatLeaf(mds[col.Src], col.Name)
		if err != nil {
			return fmt.Errorf("%w: %s: %w", errCannotSplice, srcs[col.Src].Name(), err)
		}
		schema = append(schema, el)
		leaf[c] = i
		orders[c] = format.ColumnOrder{Value: &format.TypeDefinedOrder{}}
		if co := mds[col.Src].ColumnOrders; i < len(co) {
			orders[c] = co[i]
		}
	}

	w := &countingWriter{w: out}
	if _, err := io.WriteString(w, parquetMagic); err != nil {
		return err
	}
	out0 := format.FileMetaData{
		Version:      1,
		Schema:       schema,
		NumRows:      mds[0].NumRows,
		ColumnOrders: orders,
		CreatedBy:    "tpsreport (column chunks spliced from " + createdBy(mds) + ")",
	}
	for g := range mds[0].RowGroups {
		rg := format.RowGroup{NumRows: mds[0].RowGroups[g].NumRows, FileOffset: w.n, Ordinal: int16(g)}
		for c, col := range cols {
			src := mds[col.Src].RowGroups[g].Columns[leaf[c]]
			if src.FilePath != "" {
				return fmt.Errorf("splice %s: column %s is in another file", srcs[col.Src].Name(), col.Name)
			}
			m := src.MetaData
			start := m.DataPageOffset
			if m.DictionaryPageOffset > 0 && m.DictionaryPageOffset < start {
				start = m.DictionaryPageOffset
			}
			if err := w.copyFrom(srcs[col.Src], start, m.TotalCompressedSize); err != nil {
				return fmt.Errorf("splice %s: %w", srcs[col.Src].Name(), err)
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

// readFooter reads the file metadata of the Parquet file f, with parquet-go's
// reader (its page indexes and bloom filters are not read: a splice leaves
// them out).
func readFooter(f *os.File) (*format.FileMetaData, error) {
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	pf, err := parquet.OpenFile(f, st.Size(), parquet.SkipPageIndex(true), parquet.SkipBloomFilters(true))
	if err != nil {
		return nil, err
	}
	return pf.Metadata(), nil
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

// createdBy lists the writers of the sources.
func createdBy(mds []*format.FileMetaData) string {
	var names []string
	for _, md := range mds {
		names = append(names, md.CreatedBy)
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
