//go:build duckdb_arrow

package analyze

import (
	"errors"
	"fmt"
	"math"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// join_solo's pairs (join_solo.sql: the candidates whose gateway span and
// engine span have no other candidate) are settled here, in Go, from
// join_match's pairs read once: an array indexed by row number holds each
// span's one partner, or that it has none or several. join_solo.sql groups
// join_match by gateway span and by engine span, two hash aggregates of
// every pair, where this is one pass over them and one over the spans
// (BENCHMARKS.md). The pairs go back as the Arrow stream that
// join_solo_stream.sql stores as join_solo, in gateway row order. Both give
// the same pairs: TestJoinSolo checks them against each other and against
// hand-computed pairs. This runs when the statements matched the
// candidates (join_match.sql): in a run of more rows than the match in Go
// takes (join_go.go, maxMatchRows), which settles join_solo itself with the
// same partner array.

// soloInGo tells whether this build settles join_solo in Go: only a build
// with DuckDB's Arrow interface can pass it the pairs.
const soloInGo = true

// soloBatch is the rows of each batch the stream hands DuckDB.
const soloBatch = 1 << 20

// The partner array's values besides a partner's row number.
const (
	noPartner    = -1
	manyPartners = -2
)

// joinSoloGo settles join_solo from join_match's pairs.
func (a *analysis) joinSoloGo(st *runState) error {
	if st.spans > math.MaxInt32 {
		// Unreached: the condition soloed sends every run of more than
		// maxAssembleRows rows, far fewer than this, to join_solo.sql.
		return fmt.Errorf("analyze join_solo: %d spans overflow the partner array", st.spans)
	}
	p := newPartners(int(st.spans))
	var pairs int64
	err := eachBatch(a.ctx, a.db, "join_solo_pairs", func(rec arrow.RecordBatch) error {
		g, ok1 := rec.Column(0).(*array.Int64)
		e, ok2 := rec.Column(1).(*array.Int64)
		if !ok1 || !ok2 || g.NullN() > 0 || e.NullN() > 0 {
			return errors.New("not BIGINT values")
		}
		es := e.Int64Values()
		for i, gi := range g.Int64Values() {
			ei := es[i]
			if gi < 0 || gi >= st.spans || ei < 0 || ei >= st.spans {
				return fmt.Errorf("pair (%d, %d) outside the %d rows", gi, ei, st.spans)
			}
			p.add(int32(gi), int32(ei))
		}
		pairs += int64(len(es))
		return nil
	})
	if err != nil {
		return err
	}

	solo, err := a.storeSolo(p)
	if err != nil {
		return err
	}
	a.log.Debug("join solo", "pairs", pairs, "solo", solo)
	return nil
}

// partners holds each span's one partner among the candidate pairs, or
// that it has none or several: partner[i] is the one span row i pairs with
// (a gateway span's engine span, an engine span's gateway span), noPartner
// or manyPartners. The gateway's and the engine's row numbers are distinct
// rows of one file, so one array holds both; gateway marks which are the
// gateway's.
type partners struct {
	partner []int32
	gateway []uint64
}

func newPartners(n int) *partners {
	p := &partners{partner: make([]int32, n), gateway: make([]uint64, (n+63)/64)}
	for i := range p.partner {
		p.partner[i] = noPartner
	}
	return p
}

// add counts the candidate pair of gateway row gi and engine row ei.
func (p *partners) add(gi, ei int32) {
	p.meet(gi, ei)
	p.meet(ei, gi)
	p.gateway[gi/64] |= 1 << (gi % 64)
}

func (p *partners) meet(x, y int32) {
	switch q := p.partner[x]; q {
	case noPartner:
		p.partner[x] = y
	case y, manyPartners:
	default:
		p.partner[x] = manyPartners
	}
}

// solo tells whether row r is in a solo pair: its one partner has no
// other.
func (p *partners) solo(r int32) bool {
	q := p.partner[r]
	return q >= 0 && p.partner[q] == r
}

// storeSolo stores join_solo from p and gives its pairs' count.
func (a *analysis) storeSolo(p *partners) (int64, error) {
	s := &soloStream{p: p}
	stream := &batchStream{schema: soloSchema, next: s.next}
	if err := a.storeStream(stream, "join_solo_go", "join_solo_stream"); err != nil {
		return 0, err
	}
	if s.row != len(p.partner) {
		return 0, fmt.Errorf("analyze join_solo_stream: streamed %d rows of %d", s.row, len(p.partner))
	}
	return s.solo, nil
}

// soloSchema is the stream's schema: join_solo's columns.
var soloSchema = arrow.NewSchema([]arrow.Field{
	{Name: "gi", Type: arrow.PrimitiveTypes.Int64},
	{Name: "ei", Type: arrow.PrimitiveTypes.Int64},
}, nil)

// soloStream makes join_solo's batches: the gateway spans in row order
// whose one partner has no other.
type soloStream struct {
	p    *partners
	row  int   // the next row to look at
	solo int64 // pairs streamed
}

func (s *soloStream) next() (arrow.RecordBatch, error) {
	var gi, ei []int64
	p := s.p
	for ; s.row < len(p.partner) && len(gi) < soloBatch; s.row++ {
		if p.gateway[s.row/64]&(1<<(s.row%64)) != 0 && p.solo(int32(s.row)) {
			gi = append(gi, int64(s.row))
			ei = append(ei, int64(p.partner[s.row]))
		}
	}
	if len(gi) == 0 {
		return nil, nil
	}
	s.solo += int64(len(gi))
	b := array.NewRecordBuilder(memory.DefaultAllocator, soloSchema)
	defer b.Release()
	b.Field(0).(*array.Int64Builder).AppendValues(gi, nil)
	b.Field(1).(*array.Int64Builder).AppendValues(ei, nil)
	return b.NewRecordBatch(), nil
}
