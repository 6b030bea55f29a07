//go:build duckdb_arrow

package analyze

import (
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// The pool's segments come from a sweep in Go of its steps (span_steps), a
// slice of time at a time, with the state carried from one slice to the
// next. The spans are read once, a chunk at a time, and their steps made in
// Go as span_steps makes them (gapRows), each filed in its slice's file
// (stepFiles): DuckDB hands over a span's three instants rather than its
// rows of steps. Then each slice's are sorted by a radix sort
// and swept, and the segments are the Arrow stream that
// pool_sweep_segments.sql stores as pool_segments. The SQL path
// (state_events.sql, then pool_segments.sql) sorts every step of the run in
// one statement, externally past memory, and sweeps them on one thread
// (BENCHMARKS.md). Both give the same rows in the same order:
// TestPoolSweep checks them against each other and against hand-computed
// segments.
//
// The segments are sweep.sql's: for each instant hi at which some step
// applies, the segment [lo, hi) from the instant before, with the in_flight
// (inf) and queue_depth (qd) that every step before hi makes, unless both
// are 0.

// poolSweep tells whether this build sweeps the pool in Go: only a build
// with DuckDB's Arrow interface can pass it the segments.
const poolSweep = true

// The sweep's sizes (sweepSizes): a slice holds about 4 Mi steps, 64 MB to
// sort (the keys and the sort's buffer), but never less than a minute's;
// the steps are read for 4 Mi spans at a time, and streamed 1 Mi segments a
// batch.
const (
	poolSweepBucket = 60_000_000
	poolSweepRows   = 1 << 22
	poolSweepChunk  = 1 << 22
	poolSweepBatch  = 1 << 20
)

// sweepSizes are the sweeps' sizes: the test's (knobs.sweep), or the
// defaults above.
func (st *runState) sweepSizes() sweepSizes {
	z := st.k.sweep
	if z.bucket == 0 {
		z.bucket, z.rows = poolSweepBucket, poolSweepRows
	}
	if z.chunk == 0 {
		z.chunk = poolSweepChunk
	}
	if z.batch == 0 {
		z.batch = poolSweepBatch
	}
	return z
}

// poolSweepSegments sweeps the pool's steps into pool_segments.
func (a *analysis) poolSweepSegments(st *runState) error {
	z := st.sweepSizes()
	bins, err := a.sweepBins(z.bucket)
	if err != nil {
		return err
	}
	slices, total := cutSlices(stepBins(bins), z.bucket, z.rows, 1<<58)
	files := newStepFiles(st.tmpDir, slices)
	defer files.remove()
	// With some wait located, the attribution's steps are made from the
	// same spans and filed for its sweep (gap_sweep.go), in slices cut from
	// the same bins.
	var gap *gapFiles
	if st.located {
		if gap, err = a.newGapFiles(st, bins, z); err != nil {
			return err
		}
		defer func() {
			if st.gapFiles != gap {
				gap.files.remove()
			}
		}()
	}
	start := time.Now()
	if err := a.distributeSteps(files, gap, z.chunk); err != nil {
		return err
	}
	var steps int64
	for _, n := range files.counts {
		steps += n
	}
	// The slices hold every step once: the bins counted them all.
	if steps != total {
		return fmt.Errorf("analyze pool_sweep_spans: made %d steps, the bins counted %d", steps, total)
	}
	if gap != nil {
		if err := gap.check(); err != nil {
			return err
		}
	}
	read := time.Since(start)

	s := &poolSweeper{sliceKeys: sliceKeys{ctx: a.ctx, files: files, name: "pool_sweep"}, batch: z.batch}
	defer s.stop()
	stream := &batchStream{schema: segmentSchema, next: s.sweep}
	if err := a.storeStream(stream, "pool_sweep", "pool_sweep_segments"); err != nil {
		return err
	}
	if s.next != len(slices) {
		return fmt.Errorf("analyze pool_sweep_segments: swept %d slices of %d", s.next, len(slices))
	}
	a.log.Debug("pool sweep", "slices", len(slices), "steps", total, "segments", s.segments,
		"read", read.Round(time.Millisecond), "sort", s.sortTime.Round(time.Millisecond))
	st.gapFiles = gap
	return nil
}

// sweepBins counts the run's steps and engine arrivals by bin of bucket
// µs (pool_sweep_bins): bin, steps, arrivals.
func (a *analysis) sweepBins(bucket int64) ([][3]int64, error) {
	r, err := a.db.QueryContext(a.ctx, query("pool_sweep_bins"), sql.Named("bucket", bucket))
	if err != nil {
		return nil, fmt.Errorf("analyze pool_sweep_bins: %w", err)
	}
	defer r.Close()
	var bins [][3]int64
	for r.Next() {
		var b [3]int64
		if err := r.Scan(&b[0], &b[1], &b[2]); err != nil {
			return nil, fmt.Errorf("analyze pool_sweep_bins: %w", err)
		}
		bins = append(bins, b)
	}
	if err := r.Err(); err != nil {
		return nil, fmt.Errorf("analyze pool_sweep_bins: %w", err)
	}
	return bins, nil
}

// distributeSteps reads the spans that step the pool's state for chunk
// spans at a time (pool_sweep_spans: the spans table's rows in order, which
// DuckDB reads without a scan of the others) and files their steps, as
// span_steps makes them, in their slices' files: gapRows' rows, less those
// of an engine arrival alone, which step neither in_flight nor
// queue_depth. With gap, the pool replicas' spans' rows go to its files
// too, whole.
func (a *analysis) distributeSteps(files *stepFiles, gap *gapFiles, chunk int64) error {
	var rows int64
	if err := a.db.QueryRowContext(a.ctx, query("pool_sweep_rows")).Scan(&rows); err != nil {
		return fmt.Errorf("analyze pool_sweep_rows: %w", err)
	}
	var steps []gapStep
	for from := int64(0); from < rows; from += chunk {
		err := eachBatch(a.ctx, a.db, "pool_sweep_spans", func(rec arrow.RecordBatch) error {
			rid, ok := rec.Column(0).(*array.Int32)
			ok = ok && rid.NullN() == 0
			var in [4]*array.Int64
			for i := range in {
				var oki bool
				in[i], oki = rec.Column(1 + i).(*array.Int64)
				ok = ok && oki
			}
			if !ok {
				return errors.New("not an INTEGER replica and four BIGINT instants")
			}
			rids := rid.Int32Values()
			q, e, at, r := in[0].Int64Values(), in[1].Int64Values(), in[2].Int64Values(), in[3].Int64Values()
			for i := range q {
				steps = gapRows(steps[:0], gapInstants{
					q: q[i], e: e[i], a: at[i], r: r[i],
					hq: in[0].IsValid(i), he: gap != nil && in[1].IsValid(i), ha: in[2].IsValid(i), hr: in[3].IsValid(i),
				})
				for _, st := range steps {
					if di, dq, _, _ := gapStepOf(st.code); di != 0 || dq != 0 {
						if err := files.add(st.at, int8(di), int8(dq)); err != nil {
							return err
						}
					}
				}
				if gap != nil {
					if err := gap.add(rids[i], steps); err != nil {
						return err
					}
				}
			}
			return nil
		}, sql.Named("from", from), sql.Named("to", from+chunk))
		if err != nil {
			return err
		}
	}
	if err := files.done(); err != nil {
		return fmt.Errorf("analyze pool_sweep_spans: %w", err)
	}
	if gap != nil {
		if err := gap.files.done(); err != nil {
			return fmt.Errorf("analyze pool_sweep_spans: %w", err)
		}
	}
	return nil
}

// poolSweeper is the sweep: each batch of its stream (batchStream) holds up
// to batch segments in order of time.
type poolSweeper struct {
	sliceKeys
	batch int
	// segments made, for the debug log.
	segments int64
	// The sweep's state: the steps before the instant at, which is the last
	// one whose steps have applied (have: some has).
	inf, qd int64
	at      int64
	have    bool
}

// segmentSchema is the sweep's batches' schema: pool_segments' columns.
var segmentSchema = arrow.NewSchema([]arrow.Field{
	{Name: "lo", Type: arrow.PrimitiveTypes.Int64},
	{Name: "hi", Type: arrow.PrimitiveTypes.Int64},
	{Name: "in_flight", Type: arrow.PrimitiveTypes.Int64},
	{Name: "queue_depth", Type: arrow.PrimitiveTypes.Int64},
}, nil)

// sweep sweeps on until it has a batch of segments or the steps run out
// (nil then).
func (s *poolSweeper) sweep() (arrow.RecordBatch, error) {
	b := array.NewRecordBuilder(memory.DefaultAllocator, segmentSchema)
	defer b.Release()
	var cols [4]*array.Int64Builder
	for i := range cols {
		cols[i] = b.Field(i).(*array.Int64Builder)
		cols[i].Reserve(s.batch)
	}
	n := 0
	for n < s.batch {
		if s.pos == len(s.keys) {
			if s.next == len(s.files.slices) {
				break
			}
			if err := s.read(); err != nil {
				return nil, err
			}
			continue
		}
		// The steps of one instant apply together: the segment that ends
		// there has the state from before all of them.
		off := s.keys[s.pos] >> stepCodeBits
		t := s.base + int64(off)
		if s.have && t > s.at && (s.inf != 0 || s.qd != 0) {
			cols[0].UnsafeAppend(s.at)
			cols[1].UnsafeAppend(t)
			cols[2].UnsafeAppend(s.inf)
			cols[3].UnsafeAppend(s.qd)
			n++
		}
		for ; s.pos < len(s.keys) && s.keys[s.pos]>>stepCodeBits == off; s.pos++ {
			di, dq := stepOf(s.keys[s.pos])
			s.inf += di
			s.qd += dq
		}
		s.at, s.have = t, true
	}
	if n == 0 {
		return nil, nil
	}
	s.segments += int64(n)
	return b.NewRecordBatch(), nil
}
