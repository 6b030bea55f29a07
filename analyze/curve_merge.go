//go:build duckdb_arrow

package analyze

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	duckdb "github.com/duckdb/duckdb-go/v2"
)

// The concurrency curve gives each stream's midpoint the pool's in_flight
// by a merge in Go of two lists that are both in the order of time: the
// midpoints, sorted once (curve_mids_sorted.sql), and the pool's segments,
// which the sweep stores in that order already. curve_conc.sql's ASOF join
// gets the same values, but sorts the segments again with the midpoints:
// externally and mostly on one thread at 100 M spans (BENCHMARKS.md).
// DuckDB still bins the pairs (curves.sql): the merge is the Arrow stream
// that the view curve_conc reads, and it reads its inputs a slice at a time
// on a connection of its own (analysis.reader), so that its memory stays at
// one slice whatever the run's size.
//
// The value is curve_conc.sql's: that of the segment with the latest
// lo ≤ t while t < hi, else 0, and 0 before the first segment.
// TestCurveConcMerged checks the two against each other and against
// hand-computed values, TestVariantsAgree the outputs of whole runs.

// curveMerge tells whether this build merges the curve in Go: only a build
// with DuckDB's Arrow interface (the duckdb_arrow tag, which the Makefile
// sets) can pass it batches. Without it curve_conc.sql serves every run.
const curveMerge = true

// curveSliceRows is how many midpoints the merge reads at a time.
const curveSliceRows = 1 << 21

// curveConcMerged registers the merge of curve_mids_sorted with
// pool_segments, read through a.reader, as the Arrow stream curve_merge on
// a.db, and the view curve_conc over it (curve_conc_merged.sql). The stream
// is read once, by curves; curveConcDone releases it.
func (a *analysis) curveConcMerged(st *runState) error {
	var n int64
	if err := a.db.QueryRowContext(a.ctx, "SELECT count(*) FROM curve_mids_sorted").Scan(&n); err != nil {
		return fmt.Errorf("analyze curve_conc: %w", err)
	}
	slice := int64(curveSliceRows)
	if st.k.curveSlice != 0 {
		slice = st.k.curveSlice
	}
	m, stop := newCurveMerger(a.ctx, a.reader, n, slice)
	var release func()
	err := withArrow(a.db, func(ar *duckdb.Arrow) (err error) {
		release, err = ar.RegisterView(m, "curve_merge")
		return err
	})
	if err != nil {
		stop()
		return fmt.Errorf("analyze curve_conc_merged: %w", err)
	}
	st.curveRelease = func() error {
		// The view goes before the stream it scans, and the stream before
		// the goroutine that makes its batches.
		_, err := a.db.ExecContext(context.WithoutCancel(a.ctx), "DROP VIEW IF EXISTS curve_merge")
		release()
		stop()
		return errors.Join(err, m.Err())
	}
	if _, err := a.db.ExecContext(a.ctx, query("curve_conc_merged")); err != nil {
		return fmt.Errorf("analyze curve_conc_merged: %w", err)
	}
	return nil
}

// curveMerger is the merge: each batch of its stream (batchStream) is one
// slice of midpoints with their in_flight.
type curveMerger struct {
	ctx    context.Context
	reader *sql.Conn
	n      int64 // midpoints in all
	slice  int64 // midpoints a batch

	next int64 // the rowid of the next slice's first midpoint
	last int64 // the last midpoint merged (math.MinInt64 before the first)
	// upto is the lo of the last segment read (math.MinInt64 before the
	// first); the segment the last midpoint falls in, the latest to start
	// at or before it, is (hi, inf) once have.
	upto    int64
	have    bool
	hi, inf int64
}

// curveSchema is the merge's batches' schema.
var curveSchema = arrow.NewSchema([]arrow.Field{
	{Name: "in_flight", Type: arrow.PrimitiveTypes.Int64},
	{Name: "stream_tps", Type: arrow.PrimitiveTypes.Float64},
}, nil)

// newCurveMerger returns the merge's stream and the stop that ends the
// goroutine making its batches (prefetch: the merge queries DuckDB).
func newCurveMerger(ctx context.Context, reader *sql.Conn, n, slice int64) (*batchStream, func()) {
	m := &curveMerger{reader: reader, n: n, slice: slice, last: math.MinInt64, upto: math.MinInt64}
	next, stop := prefetch(ctx, func(ctx context.Context) (arrow.RecordBatch, error) {
		m.ctx = ctx
		return m.batch()
	})
	return &batchStream{schema: curveSchema, next: next}, stop
}

// batch merges the next slice of midpoints with the segments that start
// up to its last one (nil once every midpoint is merged).
func (m *curveMerger) batch() (arrow.RecordBatch, error) {
	if m.next >= m.n {
		return nil, nil
	}
	var ts []int64
	var tps []float64
	err := m.query("curve_merge_mids", func(rec arrow.RecordBatch) error {
		t, ok1 := rec.Column(0).(*array.Int64)
		v, ok2 := rec.Column(1).(*array.Float64)
		if !ok1 || !ok2 || t.NullN() > 0 || v.NullN() > 0 {
			return errors.New("curve_merge_mids: not BIGINT and DOUBLE values")
		}
		ts = append(ts, t.Int64Values()...)
		tps = append(tps, v.Float64Values()...)
		return nil
	}, sql.Named("from", m.next), sql.Named("to", m.next+m.slice))
	if err != nil {
		return nil, err
	}
	if len(ts) == 0 {
		return nil, fmt.Errorf("curve_merge_mids: no midpoint from row %d of %d", m.next, m.n)
	}
	m.next += m.slice
	var lo, hi, inf []int64
	err = m.query("curve_merge_segments", func(rec arrow.RecordBatch) error {
		var cols [3]*array.Int64
		for i := range cols {
			c, ok := rec.Column(i).(*array.Int64)
			if !ok || c.NullN() > 0 {
				return errors.New("curve_merge_segments: not BIGINT values")
			}
			cols[i] = c
		}
		lo = append(lo, cols[0].Int64Values()...)
		hi = append(hi, cols[1].Int64Values()...)
		inf = append(inf, cols[2].Int64Values()...)
		return nil
	}, sql.Named("after", m.upto), sql.Named("upto", ts[len(ts)-1]))
	if err != nil {
		return nil, err
	}
	// Each list's order is checked as it is merged: the merge is right
	// only if both are sorted.
	out := make([]int64, len(ts))
	j := 0
	for i, t := range ts {
		if t < m.last {
			return nil, fmt.Errorf("curve_conc: midpoint %d after %d: curve_mids_sorted is out of order", t, m.last)
		}
		m.last = t
		for ; j < len(lo) && lo[j] <= t; j++ {
			if lo[j] <= m.upto {
				return nil, fmt.Errorf("curve_conc: segment at %d after one at %d: pool_segments is out of order", lo[j], m.upto)
			}
			m.upto = lo[j]
			m.hi, m.inf, m.have = hi[j], inf[j], true
		}
		if m.have && t < m.hi {
			out[i] = m.inf
		}
	}
	b := array.NewRecordBuilder(memory.DefaultAllocator, curveSchema)
	defer b.Release()
	b.Field(0).(*array.Int64Builder).AppendValues(out, nil)
	b.Field(1).(*array.Float64Builder).AppendValues(tps, nil)
	return b.NewRecordBatch(), nil
}

// query runs the named statement on the reader connection and hands each
// batch of its rows to f.
func (m *curveMerger) query(name string, f func(arrow.RecordBatch) error, args ...any) error {
	return eachBatch(m.ctx, m.reader, name, f, args...)
}
