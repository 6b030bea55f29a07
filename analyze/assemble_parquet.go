package analyze

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/compress/zstd"
	"github.com/parquet-go/parquet-go/format"
)

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
