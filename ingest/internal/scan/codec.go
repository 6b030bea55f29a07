package scan

import (
	"sync"

	"github.com/klauspost/compress/zstd"
	"github.com/parquet-go/parquet-go/compress"
	pqzstd "github.com/parquet-go/parquet-go/compress/zstd"
	pqformat "github.com/parquet-go/parquet-go/format"
)

// The codecs of spans.parquet's pages. Both write zstd frames, which any
// Parquet reader decodes as the ZSTD codec; they differ in the work spent.
var (
	// FastZstd: zstd's fastest level, for the DELTA_BINARY_PACKED columns.
	// Their bit-packed pages hold little that zstd could take out (at 10 M
	// spans every one came out of level 3 as large as it went in), and the
	// fastest level stores such a block as it is at several GB/s.
	FastZstd = &pqzstd.Codec{Level: pqzstd.SpeedFastest}

	// TextZstd: the fastest level that still entropy-codes literals, for
	// every other column. Ids are mostly literals that repeat nowhere (hex,
	// UUIDs), and Huffman coding is what shrinks them: the fastest level
	// alone stores them as they are, and level 3, parquet-go's default,
	// left SGLang's hex ids at 96 % of their size for more CPU
	// (BENCHMARKS.md, "spans.parquet's codecs").
	TextZstd compress.Codec = &litZstd{}
)

// litZstd is a Parquet codec: zstd at its fastest level with entropy coding
// of literals even in blocks without matches.
type litZstd struct {
	encoders sync.Pool // *zstd.Encoder
	decoder  pqzstd.Codec
}

func (c *litZstd) String() string                              { return "ZSTD" }
func (c *litZstd) CompressionCodec() pqformat.CompressionCodec { return pqformat.Zstd }

func (c *litZstd) Encode(dst, src []byte) ([]byte, error) {
	e, _ := c.encoders.Get().(*zstd.Encoder)
	if e == nil {
		var err error
		e, err = zstd.NewWriter(nil,
			zstd.WithEncoderLevel(zstd.SpeedFastest),
			zstd.WithAllLitEntropyCompression(true),
			zstd.WithEncoderConcurrency(1),
			zstd.WithZeroFrames(true),
			zstd.WithEncoderCRC(false))
		if err != nil {
			return dst[:0], err
		}
	}
	defer c.encoders.Put(e)
	return e.EncodeAll(src, dst[:0]), nil
}

func (c *litZstd) Decode(dst, src []byte) ([]byte, error) { return c.decoder.Decode(dst, src) }
