//go:build duckdb_arrow

package analyze

import (
	"context"
	"database/sql"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	duckdb "github.com/duckdb/duckdb-go/v2"
)

// The hand-over of columns made in Go to DuckDB, two ways: an Arrow stream
// (DuckDB's Arrow interface, which needs duckdb-go's duckdb_arrow tag) and
// a table function filling DuckDB's own data chunks (no tag). Both hand
// over handRows rows of four BIGINT columns from Go slices, batch by
// batch, to one statement that sums them. This is the measurement behind
// the choice of one build (BENCHMARKS.md "Handing columns to DuckDB").
const handRows = 4 << 20

func handColumns() [4][]int64 {
	var cols [4][]int64
	for c := range cols {
		cols[c] = make([]int64, handRows)
		for i := range cols[c] {
			cols[c][i] = int64(i*(c+1)) % 1000
		}
	}
	return cols
}

var handSchema = arrow.NewSchema([]arrow.Field{
	{Name: "a", Type: arrow.PrimitiveTypes.Int64}, {Name: "b", Type: arrow.PrimitiveTypes.Int64},
	{Name: "c", Type: arrow.PrimitiveTypes.Int64}, {Name: "d", Type: arrow.PrimitiveTypes.Int64},
}, nil)

const handQuery = "SELECT sum(a), sum(b), sum(c), sum(d) FROM "

func handConn(b *testing.B) *sql.Conn {
	db, err := sql.Open("duckdb", "")
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { db.Close() })
	c, err := db.Conn(context.Background())
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { c.Close() })
	return c
}

func BenchmarkHandOver(b *testing.B) {
	cols := handColumns()
	var want [4]int64
	for c := range cols {
		for _, v := range cols[c] {
			want[c] += v
		}
	}
	check := func(b *testing.B, row *sql.Row) {
		var got [4]int64
		if err := row.Scan(&got[0], &got[1], &got[2], &got[3]); err != nil {
			b.Fatal(err)
		}
		if got != want {
			b.Fatalf("sums %v, want %v", got, want)
		}
	}
	b.Run("arrow", func(b *testing.B) {
		conn := handConn(b)
		const batch = 122880
		for b.Loop() {
			at := 0
			next := func() (arrow.RecordBatch, error) {
				if at >= handRows {
					return nil, nil
				}
				end := min(at+batch, handRows)
				rb := array.NewRecordBuilder(memory.DefaultAllocator, handSchema)
				defer rb.Release()
				for c := range cols {
					rb.Field(c).(*array.Int64Builder).AppendValues(cols[c][at:end], nil)
				}
				at = end
				return rb.NewRecordBatch(), nil
			}
			var release func()
			if err := withArrow(conn, func(ar *duckdb.Arrow) error {
				var err error
				release, err = ar.RegisterView(&batchStream{schema: handSchema, next: next}, "hand_arrow")
				return err
			}); err != nil {
				b.Fatal(err)
			}
			check(b, conn.QueryRowContext(context.Background(), handQuery+"hand_arrow"))
			release()
		}
	})
	b.Run("chunk", func(b *testing.B) {
		conn := handConn(b)
		bigint, err := duckdb.NewTypeInfo(duckdb.TYPE_BIGINT)
		if err != nil {
			b.Fatal(err)
		}
		err = duckdb.RegisterTableUDF(conn, "hand_chunk", duckdb.ChunkTableFunction{
			BindArguments: func(map[string]any, ...any) (duckdb.ChunkTableSource, error) {
				return &handSource{cols: cols, t: bigint}, nil
			},
		})
		if err != nil {
			b.Fatal(err)
		}
		for b.Loop() {
			check(b, conn.QueryRowContext(context.Background(), handQuery+"hand_chunk()"))
		}
	})
}

// handSource fills DuckDB's data chunks from the Go columns.
type handSource struct {
	cols [4][]int64
	t    duckdb.TypeInfo
	at   int
}

func (s *handSource) ColumnInfos() []duckdb.ColumnInfo {
	return []duckdb.ColumnInfo{{Name: "a", T: s.t}, {Name: "b", T: s.t}, {Name: "c", T: s.t}, {Name: "d", T: s.t}}
}

func (s *handSource) Cardinality() *duckdb.CardinalityInfo {
	return &duckdb.CardinalityInfo{Cardinality: handRows, Exact: true}
}

func (s *handSource) Init() {}

func (s *handSource) FillChunk(chunk duckdb.DataChunk) error {
	n := min(2048, handRows-s.at)
	for c := range s.cols {
		for i, v := range s.cols[c][s.at : s.at+n] {
			if err := duckdb.SetChunkValue(chunk, c, i, v); err != nil {
				return err
			}
		}
	}
	s.at += n
	return chunk.SetSize(n)
}
