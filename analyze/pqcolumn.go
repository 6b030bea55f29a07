package analyze

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"fmt"
	"math/bits"
	"os"
	"path/filepath"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/encoding/thrift"
	"github.com/parquet-go/parquet-go/format"
)

// A column file is a Parquet file of one flat, optional column: each row group
// is a data page (version 1) of DELTA_BINARY_PACKED integers, as ingest
// writes spans.parquet's, of PLAIN (bit-packed) booleans, or for strings of
// indexes into a dictionary page before it, compressed with zstd. The
// assembly writes the columns the join sets as column files, which splice.go
// then copies into the joined file chunk by chunk. parquet-go's writer takes
// each value as a parquet.Value, with level bookkeeping and page statistics
// per value; here a value is copied into the page as its bytes.
//
// Levels and indexes are in the RLE/bit-packed hybrid, one run per page (a
// repeated run when every value is the same, else bit-packed). Delta-encoded,
// instants shrink to a few bytes each before zstd, which then has a few bytes
// a value to compress rather than eight.
// Integer and boolean columns carry their chunk's minimum, maximum and null
// count, as DuckDB's writer gives them. writeRequests writes requests.parquet's
// delivered flags as a boolean column file.

// columnFile writes a column file.
type columnFile struct {
	path, name string
	el         format.SchemaElement
	order      format.ColumnOrder
	fh         *os.File
	w          *bufio.Writer
	n          int64 // bytes written
	rowGroups  []format.RowGroup
	rows       int64

	// the row group being filled
	def         []byte // definition level per row: 1 known, 0 NULL
	known64     []int64
	known32     []int32
	bools       []byte // bit-packed, least significant bit first
	plain       []byte // a dictionary page, or the encoded values
	idx         []uint32
	known       int64
	minV, maxV  int64
	page, zpage []byte
}

// newColumnFile creates the column file path of column name, of node's type
// (optional; INT32, INT64, BOOLEAN or BYTE_ARRAY).
func newColumnFile(path, name string, node parquet.Node) (*columnFile, error) {
	el, order, err := schemaElement(name, node)
	if err != nil {
		return nil, err
	}
	fh, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	c := &columnFile{path: path, name: name, el: el, order: order, fh: fh, w: bufio.NewWriterSize(fh, 1<<20)}
	if _, err := c.write([]byte(parquetMagic)); err != nil {
		fh.Close()
		return nil, err
	}
	return c, nil
}

// schemaElement is the schema element and sort order parquet-go gives column
// name of node's type: read back from a file with no rows that it writes.
func schemaElement(name string, node parquet.Node) (format.SchemaElement, format.ColumnOrder, error) {
	var buf bytes.Buffer
	w := parquet.NewWriter(&buf, parquet.NewSchema("joined", parquet.Group{name: node}))
	if err := w.Close(); err != nil {
		return format.SchemaElement{}, format.ColumnOrder{}, err
	}
	f, err := parquet.OpenFile(bytes.NewReader(buf.Bytes()), int64(buf.Len()))
	if err != nil {
		return format.SchemaElement{}, format.ColumnOrder{}, err
	}
	md := f.Metadata()
	if len(md.Schema) != 2 {
		return format.SchemaElement{}, format.ColumnOrder{}, fmt.Errorf("column %s: %d schema elements", name, len(md.Schema))
	}
	order := format.ColumnOrder{Value: &format.TypeDefinedOrder{}}
	if len(md.ColumnOrders) == 1 {
		order = md.ColumnOrders[0]
	}
	return md.Schema[1], order, nil
}

func (c *columnFile) write(b []byte) (int, error) {
	k, err := c.w.Write(b)
	c.n += int64(k)
	return k, err
}

// addInt adds a row to the row group being filled of an INT32 or INT64
// column: v, or NULL when !ok.
func (c *columnFile) addInt(v int64, ok bool) {
	if !ok {
		c.def = append(c.def, 0)
		return
	}
	c.def = append(c.def, 1)
	if c.known == 0 || v < c.minV {
		c.minV = v
	}
	if c.known == 0 || v > c.maxV {
		c.maxV = v
	}
	c.known++
	if c.el.Type.V == format.Int32 {
		c.known32 = append(c.known32, int32(v))
	} else {
		c.known64 = append(c.known64, v)
	}
}

// addBool adds a row to the row group being filled of a BOOLEAN column: v,
// never NULL.
func (c *columnFile) addBool(v bool) {
	if c.known%8 == 0 {
		c.bools = append(c.bools, 0)
	}
	b := int64(0)
	if v {
		b = 1
		c.bools[len(c.bools)-1] |= 1 << (c.known % 8)
	}
	if c.known == 0 || b < c.minV {
		c.minV = b
	}
	if c.known == 0 || b > c.maxV {
		c.maxV = b
	}
	c.def = append(c.def, 1)
	c.known++
}

// addIndex adds a row to the row group being filled of a string column: the
// dictionary entry i, or NULL when !ok.
func (c *columnFile) addIndex(i uint32, ok bool) {
	if !ok {
		c.def = append(c.def, 0)
		return
	}
	c.def = append(c.def, 1)
	c.idx = append(c.idx, i)
	c.known++
}

// endGroup writes the rows added since the last call as a row group; dict is
// a string column's dictionary (nil for an integer column).
func (c *columnFile) endGroup(dict [][]byte) error {
	start := c.n
	meta := format.ColumnMetaData{
		Type:         c.el.Type.V,
		PathInSchema: []string{c.name},
		Codec:        format.Zstd,
		NumValues:    int64(len(c.def)),
	}
	var raw int64 // uncompressed size, headers included
	if dict != nil {
		c.plain = c.plain[:0]
		for _, v := range dict {
			c.plain = binary.LittleEndian.AppendUint32(c.plain, uint32(len(v)))
			c.plain = append(c.plain, v...)
		}
		meta.DictionaryPageOffset = c.n
		hdr := format.PageHeader{Type: format.DictionaryPage,
			DictionaryPageHeader: thrift.New(format.DictionaryPageHeader{NumValues: int32(len(dict)), Encoding: format.Plain})}
		k, err := c.writePage(&hdr, c.plain)
		if err != nil {
			return err
		}
		raw += k
		meta.Encoding = []format.Encoding{format.Plain, format.RLE, format.RLEDictionary}
	} else {
		meta.Encoding = []format.Encoding{format.RLE, format.DeltaBinaryPacked}
		if c.el.Type.V == format.Boolean {
			meta.Encoding = []format.Encoding{format.RLE, format.Plain}
		}
		meta.Statistics = format.Statistics{NullCount: int64(len(c.def)) - c.known}
		if c.known > 0 {
			var lo, hi []byte
			switch c.el.Type.V {
			case format.Boolean:
				lo, hi = []byte{byte(c.minV)}, []byte{byte(c.maxV)}
			case format.Int32:
				lo, hi = binary.LittleEndian.AppendUint32(nil, uint32(int32(c.minV))), binary.LittleEndian.AppendUint32(nil, uint32(int32(c.maxV)))
			default:
				lo, hi = binary.LittleEndian.AppendUint64(nil, uint64(c.minV)), binary.LittleEndian.AppendUint64(nil, uint64(c.maxV))
			}
			meta.Statistics.Min, meta.Statistics.Max = lo, hi
			meta.Statistics.MinValue, meta.Statistics.MaxValue = lo, hi
		}
	}
	if dict != nil {
		meta.Statistics = format.Statistics{NullCount: int64(len(c.def)) - c.known}
	}

	// The data page: the definition levels (length-prefixed), then the
	// values or, for a string column, the indexes' bit width and the
	// indexes.
	page := c.page[:0]
	page = append(page, 0, 0, 0, 0)
	page = appendHybrid(page, c.def, 1)
	binary.LittleEndian.PutUint32(page, uint32(len(page)-4))
	enc := format.DeltaBinaryPacked
	var err error
	switch {
	case dict != nil:
		enc = format.RLEDictionary
		width := 1
		if len(dict) > 1 {
			width = bits.Len(uint(len(dict) - 1))
		}
		page = append(page, byte(width))
		page = appendHybrid(page, c.idx, width)
	case c.el.Type.V == format.Boolean:
		enc = format.Plain
		page = append(page, c.bools...)
	case c.el.Type.V == format.Int32:
		c.plain, err = parquet.DeltaBinaryPacked.EncodeInt32(c.plain[:0], c.known32)
		page = append(page, c.plain...)
	default:
		// The encoder writes from the start of the buffer it is given.
		c.plain, err = parquet.DeltaBinaryPacked.EncodeInt64(c.plain[:0], c.known64)
		page = append(page, c.plain...)
	}
	if err != nil {
		return err
	}
	c.page = page
	meta.DataPageOffset = c.n
	// The page's statistics hold its null count at least: the field is
	// always written, and a reader may trust a count of 0 to skip the
	// definition levels.
	hdr := format.PageHeader{Type: format.DataPage,
		DataPageHeader: thrift.New(format.DataPageHeader{NumValues: int32(len(c.def)), Encoding: enc,
			DefinitionLevelEncoding: format.RLE, RepetitionLevelEncoding: format.RLE, Statistics: meta.Statistics})}
	k, err := c.writePage(&hdr, page)
	if err != nil {
		return err
	}
	raw += k
	meta.TotalUncompressedSize = raw
	meta.TotalCompressedSize = c.n - start
	c.rowGroups = append(c.rowGroups, format.RowGroup{
		Columns:             []format.ColumnChunk{{FileOffset: start, MetaData: meta}},
		TotalByteSize:       raw,
		NumRows:             int64(len(c.def)),
		FileOffset:          start,
		TotalCompressedSize: c.n - start,
		Ordinal:             int16(len(c.rowGroups)),
	})
	c.rows += int64(len(c.def))
	c.def, c.idx, c.known64, c.known32, c.bools, c.known = c.def[:0], c.idx[:0], c.known64[:0], c.known32[:0], c.bools[:0], 0
	return nil
}

// writePage compresses body and writes it after its header hdr (whose sizes
// it sets); it returns the page's uncompressed size with its header.
func (c *columnFile) writePage(hdr *format.PageHeader, body []byte) (int64, error) {
	var err error
	c.zpage, err = fastZstd.Encode(c.zpage[:0], body)
	if err != nil {
		return 0, err
	}
	hdr.UncompressedPageSize, hdr.CompressedPageSize = int32(len(body)), int32(len(c.zpage))
	h, err := thrift.Marshal(new(thrift.CompactProtocol), hdr)
	if err != nil {
		return 0, err
	}
	if _, err := c.write(h); err != nil {
		return 0, err
	}
	if _, err := c.write(c.zpage); err != nil {
		return 0, err
	}
	return int64(len(h) + len(body)), nil
}

// close writes the footer and closes the file.
func (c *columnFile) close() error {
	md := format.FileMetaData{
		Version:      1,
		Schema:       []format.SchemaElement{{Name: "joined", NumChildren: thrift.New(int32(1))}, c.el},
		NumRows:      c.rows,
		RowGroups:    c.rowGroups,
		ColumnOrders: []format.ColumnOrder{c.order},
		CreatedBy:    "tpsreport",
	}
	footer, err := thrift.Marshal(new(thrift.CompactProtocol), &md)
	if err == nil {
		_, err = c.write(footer)
	}
	if err == nil {
		_, err = c.write(binary.LittleEndian.AppendUint32(nil, uint32(len(footer))))
	}
	if err == nil {
		_, err = c.write([]byte(parquetMagic))
	}
	if err == nil {
		err = c.w.Flush()
	}
	if cerr := c.fh.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("write %s: %w", filepath.Base(c.path), err)
	}
	return nil
}

// abort closes and removes the file after a failure.
func (c *columnFile) abort() {
	c.fh.Close()
	os.Remove(c.path)
}

// appendHybrid appends vs in the RLE/bit-packed hybrid encoding at bit width
// width (≤ 32): one repeated run when every value is the same, else one
// bit-packed run, padded with zeros to a multiple of 8 values.
func appendHybrid[T byte | uint32](b []byte, vs []T, width int) []byte {
	if len(vs) == 0 {
		return b
	}
	same := true
	for _, v := range vs[1:] {
		if v != vs[0] {
			same = false
			break
		}
	}
	if same {
		b = binary.AppendUvarint(b, uint64(len(vs))<<1)
		v := uint32(vs[0])
		for i := 0; i < (width+7)/8; i++ {
			b = append(b, byte(v>>(8*i)))
		}
		return b
	}
	groups := (len(vs) + 7) / 8
	b = binary.AppendUvarint(b, uint64(groups)<<1|1)
	var acc uint64
	n := 0
	for i := range groups * 8 {
		var v uint64
		if i < len(vs) {
			v = uint64(vs[i])
		}
		acc |= v << n
		n += width
		for n >= 8 {
			b = append(b, byte(acc))
			acc >>= 8
			n -= 8
		}
	}
	return b
}
