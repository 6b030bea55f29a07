//go:build duckdb_arrow

package analyze

import (
	"errors"
	"fmt"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// The attribution's state per pool replica (docs/metrics.md "Where the
// idle time comes from") comes from a sweep in Go of its steps
// (gap_steps.sql's rows), as the pool's does (pool_sweep.go): the pool's
// sweep reads the spans once, a chunk at a time, makes both its steps and
// these as gap_steps.sql makes them (gapRows), and files each in its slice
// of time's file; then each slice's are sorted by a radix sort and swept,
// the state of every replica carried from one slice to the next. The SQL path sorts every step
// of the run by replica, then instant, in one statement (gap_steps), and
// sweeps them on one thread (gap_replica, and the replicas' own sweep from
// them when they are all the pool's: replica_sweep_gap, replica_segments).
// The slices are cut from the bins the pool's sweep counted, whose every
// instant the attribution's are among (pool_sweep_bins).
//
// The sweep gives what the SQL path's two sweeps give: gap_segments, which
// is gap_replica without the caps (known only later, from the replicas'
// segments); and, when the replicas are all the pool's (pooled), their
// segments summed as replica_segments.sql sums them (replicaGroups), which
// replica_segments_swept stores. Both paths give the same outputs byte for
// byte: TestVariantsAgree.

// newGapFiles makes the attribution's files, in slices cut from the pool's
// bins (pool_sweep_bins, whose every instant the attribution's are among),
// for the pool's replicas (pool_rid_list).
func (a *analysis) newGapFiles(st *runState, bins [][3]int64, z sweepSizes) (*gapFiles, error) {
	low, span, err := gapKeyBits(st.replicaCount, z.bucket)
	if err != nil {
		return nil, fmt.Errorf("analyze pool_sweep: %w", err)
	}
	g := &gapFiles{low: low, inPool: make([]bool, st.replicaCount+1)}
	r, err := a.db.QueryContext(a.ctx, query("pool_rid_list"))
	if err != nil {
		return nil, fmt.Errorf("analyze pool_rid_list: %w", err)
	}
	defer r.Close()
	for r.Next() {
		var rid int64
		if err := r.Scan(&rid); err != nil {
			return nil, fmt.Errorf("analyze pool_rid_list: %w", err)
		}
		if rid < 0 || rid > st.replicaCount {
			return nil, fmt.Errorf("analyze pool_rid_list: replica %d of %d", rid, st.replicaCount)
		}
		g.inPool[rid] = true
	}
	if err := r.Err(); err != nil {
		return nil, fmt.Errorf("analyze pool_rid_list: %w", err)
	}
	var sl []sweepSlice
	sl, g.bound = cutSlices(gapBins(bins), z.bucket, z.rows, span)
	g.files = newKeyFiles(st.tmpDir, "gap_sweep", sl, low)
	return g, nil
}

// gapSweepSegments sweeps the attribution's steps, which the pool's sweep
// filed (st.gapFiles), into gap_segments, and, when pooled, the replicas'
// segments into st.groups.
func (a *analysis) gapSweepSegments(st *runState) error {
	g := st.gapFiles
	st.gapFiles = nil
	if g == nil {
		return errors.New("analyze gap_sweep: the pool's sweep filed no steps")
	}
	defer g.files.remove()
	s := &gapSweeper{sliceKeys: sliceKeys{ctx: a.ctx, files: g.files, name: "gap_sweep"}, batch: st.sweepSizes().batch, low: g.low,
		state: make([]gapState, len(g.inPool))}
	defer s.stop()
	if conditions["pooled"](st) {
		s.groups = newReplicaGroups(st.t0, st.t1, len(g.inPool)-1)
	}
	stream := &batchStream{schema: gapSegmentSchema, next: s.sweep}
	if err := a.storeStream(stream, "gap_sweep", "gap_sweep_segments"); err != nil {
		return err
	}
	if s.next != len(g.files.slices) {
		return fmt.Errorf("analyze gap_sweep_segments: swept %d slices of %d", s.next, len(g.files.slices))
	}
	if s.groups != nil {
		st.groups = s.groups.rows()
	}
	a.log.Debug("gap sweep", "slices", len(g.files.slices), "segments", s.segments,
		"sort", s.sortTime.Round(time.Millisecond))
	return nil
}

// gapState is a replica's state in the sweep: the steps before the instant
// at, the last one whose steps have applied (have: some has).
type gapState struct {
	inf, qd, eq, gq int64
	at              int64
	have            bool
}

// gapSweeper is the sweep: each batch of its stream holds up to batch
// segments, in order of time, then replica.
type gapSweeper struct {
	sliceKeys
	batch int
	low   int // the key's bits below the offset
	// segments made, for the debug log.
	segments int64

	state  []gapState     // by rid
	groups *replicaGroups // nil unless pooled
}

// gapSegmentSchema is the sweep's batches' schema: gap_segments' columns.
var gapSegmentSchema = arrow.NewSchema([]arrow.Field{
	{Name: "rid", Type: arrow.PrimitiveTypes.Int32},
	{Name: "lo", Type: arrow.PrimitiveTypes.Int64},
	{Name: "hi", Type: arrow.PrimitiveTypes.Int64},
	{Name: "in_flight", Type: arrow.PrimitiveTypes.Int64},
	{Name: "queue_depth", Type: arrow.PrimitiveTypes.Int64},
	{Name: "eq", Type: arrow.PrimitiveTypes.Int64},
	{Name: "gq", Type: arrow.PrimitiveTypes.Int64},
}, nil)

// sweep sweeps on until it has a batch of segments or the steps run out
// (nil then). A replica's segment [lo, hi) runs between two instants at
// which it has steps, with the state from before hi's; gap_segments keeps
// those with requests queued (qd > 0), as gap_replica does, and the groups
// every one with in_flight or queue_depth, as sweep.sql gives them.
func (s *gapSweeper) sweep() (arrow.RecordBatch, error) {
	b := array.NewRecordBuilder(memory.DefaultAllocator, gapSegmentSchema)
	defer b.Release()
	ridCol := b.Field(0).(*array.Int32Builder)
	ridCol.Reserve(s.batch)
	var cols [6]*array.Int64Builder
	for i := range cols {
		cols[i] = b.Field(i + 1).(*array.Int64Builder)
		cols[i].Reserve(s.batch)
	}
	ridMask := uint64(1)<<(s.low-gapCodeBits) - 1
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
		// The rows of one replica at one instant apply together: the
		// segment that ends there has the state from before all of them.
		group := s.keys[s.pos] >> gapCodeBits
		t := s.base + int64(s.keys[s.pos]>>s.low)
		rid := int32(group & ridMask)
		g := &s.state[rid]
		if g.have && t > g.at {
			if g.qd > 0 {
				ridCol.UnsafeAppend(rid)
				for i, v := range [6]int64{g.at, t, g.inf, g.qd, g.eq, g.gq} {
					cols[i].UnsafeAppend(v)
				}
				n++
			}
			if s.groups != nil && (g.inf != 0 || g.qd != 0) {
				s.groups.add(rid, g.at, t, g.inf, g.qd)
			}
		}
		for ; s.pos < len(s.keys) && s.keys[s.pos]>>gapCodeBits == group; s.pos++ {
			di, dq, de, dg := gapStepOf(s.keys[s.pos])
			g.inf += di
			g.qd += dq
			g.eq += de
			g.gq += dg
		}
		g.at, g.have = t, true
	}
	if n == 0 {
		return nil, nil
	}
	s.segments += int64(n)
	return b.NewRecordBatch(), nil
}

// replicaGroupSchema is replica_groups' schema, which
// replica_segments_swept stores as replica_segments.
var replicaGroupSchema = arrow.NewSchema([]arrow.Field{
	{Name: "rid", Type: arrow.PrimitiveTypes.Int32},
	{Name: "in_flight", Type: arrow.PrimitiveTypes.Int64},
	{Name: "queued", Type: arrow.FixedWidthTypes.Boolean},
	{Name: "len", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
	{Name: "len_qd_hi", Type: arrow.PrimitiveTypes.Uint64},
	{Name: "len_qd_lo", Type: arrow.PrimitiveTypes.Uint64},
}, nil)

// storeReplicaGroups stores the replicas' summed segments that the
// attribution's sweep made (st.groups) as replica_segments.
func (a *analysis) storeReplicaGroups(st *runState) error {
	groups := st.groups
	st.groups = nil
	sent := false
	stream := &batchStream{schema: replicaGroupSchema, next: func() (arrow.RecordBatch, error) {
		if sent || len(groups) == 0 {
			return nil, nil
		}
		sent = true
		b := array.NewRecordBuilder(memory.DefaultAllocator, replicaGroupSchema)
		defer b.Release()
		for _, g := range groups {
			b.Field(0).(*array.Int32Builder).Append(g.rid)
			b.Field(1).(*array.Int64Builder).Append(g.inf)
			b.Field(2).(*array.BooleanBuilder).Append(g.queued)
			if g.inside {
				b.Field(3).(*array.Int64Builder).Append(g.length)
			} else {
				b.Field(3).(*array.Int64Builder).AppendNull()
			}
			b.Field(4).(*array.Uint64Builder).Append(g.lenQdHi)
			b.Field(5).(*array.Uint64Builder).Append(g.lenQdLo)
		}
		return b.NewRecordBatch(), nil
	}}
	return a.storeStream(stream, "replica_groups", "replica_segments_swept")
}
