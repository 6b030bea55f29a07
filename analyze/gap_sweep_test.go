package analyze

import (
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// gapSpan is a span of the attribution's tests: its replica (rid, named
// r<rid>, each with cap 1) and queued_at, engine_arrived_at, admitted_at and
// released_at in µs, a NULL where nil.
type gapSpan struct {
	rid        int32
	q, e, a, r *int64
}

// gapTables are the attribution's tables after the sweep, each row as text,
// sorted: gap_replica and replica_segments.
type gapTables struct {
	replica, segments []string
}

// attribution runs the pool's and the attribution's sweeps (with opt: the
// SQL or the sweep in Go) over spans of replicas 1..replicas, in a run of
// extent [t0, t1), and gives their tables.
func attribution(t *testing.T, spans []gapSpan, replicas int64, t0, t1 int64, opt knobs) gapTables {
	t.Helper()
	a := stateDB(t, spans)
	for _, q := range []string{
		"CREATE TABLE replica_ids AS SELECT 'r' || i AS rep, i::INTEGER AS rid, true AS named FROM range(1, $1 + 1) AS t(i)",
		"CREATE TABLE caps AS SELECT rep, 1::BIGINT AS cap FROM replica_ids",
	} {
		var args []any
		if strings.Contains(q, "$1") {
			args = append(args, replicas)
		}
		if _, err := a.db.ExecContext(a.ctx, q, args...); err != nil {
			t.Fatal(err)
		}
	}
	st := &runState{k: opt, tmpDir: t.TempDir(), located: true, replicaCount: replicas, t0: t0, t1: t1}
	if err := a.runNamed(st, "pool_rids", "state_events", "pool_segments", "pool_sweep", "pool_sweep_located",
		"gap_steps", "gap_sweep", "replica_sweep_gap", "replica_segments_gap", "replica_segments_swept",
		"gap_replica", "gap_replica_swept"); err != nil {
		t.Fatal(err)
	}
	if left, _ := filepath.Glob(filepath.Join(st.tmpDir, "*")); len(left) > 0 {
		t.Errorf("the sweep left %q behind", left)
	}
	return gapTables{
		replica:  tableRows(t, a, "(SELECT rid, lo, hi, in_flight, queue_depth, eq, gq, cap FROM gap_replica)"),
		segments: tableRows(t, a, "(SELECT rid, in_flight, queued, len, len_qd, typeof(len), typeof(len_qd) FROM replica_segments)"),
	}
}

// TestGapSweep: the attribution's segments of two replicas by hand, from
// the SQL (gap_steps.sql, gap_replica.sql, replica_segments.sql) and, in a
// build with the duckdb_arrow tag, the sweep in Go (gap_sweep.go) with
// slices from one step to all of them. On r1 a wait at the gateway, then in
// the engine's queue (A), and one that reached the engine as it queued (B);
// on r2 a wait of no known place (C), one whose arrival is its admission
// (D), an admission and release at one instant (E), and two waits after
// the extent's end (F, G), whose group of two in flight has no length
// within it. The extent [12, 55) clips the groups' lengths.
func TestGapSweep(t *testing.T) {
	t.Parallel()
	spans := []gapSpan{
		{1, i64(10), i64(15), i64(30), i64(50)}, // A
		{1, i64(20), i64(20), i64(40), i64(60)}, // B
		{2, i64(10), nil, i64(20), i64(30)},     // C
		{2, i64(25), i64(35), i64(35), i64(45)}, // D
		{2, nil, nil, i64(70), i64(70)},         // E
		{2, i64(80), nil, i64(90), i64(95)},     // F
		{2, i64(82), nil, i64(90), i64(95)},     // G
	}
	want := gapTables{
		replica: []string{ // rid lo hi in_flight queue_depth eq gq cap
			"1 10 15 0 1 0 1 1",
			"1 15 20 0 1 1 0 1",
			"1 20 30 0 2 2 0 1",
			"1 30 40 1 1 1 0 1",
			"2 10 20 0 1 0 0 1",
			"2 25 30 1 1 0 1 1",
			"2 30 35 0 1 0 1 1",
			"2 80 82 0 1 0 0 1",
			"2 82 90 0 2 0 0 1",
		},
		segments: []string{ // rid in_flight queued len len_qd
			"1 0 true 18 28 HUGEINT HUGEINT",
			"1 1 false 5 0 HUGEINT HUGEINT",
			"1 1 true 10 10 HUGEINT HUGEINT",
			"1 2 false 10 0 HUGEINT HUGEINT",
			"2 0 true 13 13 HUGEINT HUGEINT",
			"2 1 false 15 0 HUGEINT HUGEINT",
			"2 1 true 5 5 HUGEINT HUGEINT",
			"2 2 false <nil> <nil> HUGEINT HUGEINT",
		},
	}
	for name, opt := range sweepForms() {
		got := attribution(t, spans, 2, 12, 55, opt)
		if !slices.Equal(got.replica, want.replica) {
			t.Errorf("%s: gap_replica\n got %q\nwant %q", name, got.replica, want.replica)
		}
		if !slices.Equal(got.segments, want.segments) {
			t.Errorf("%s: replica_segments\n got %q\nwant %q", name, got.segments, want.segments)
		}
	}
}

// TestGapSweepRandom: on random spans of five replicas, many of them at a
// few instants, some arrivals before, at, inside and after their waits,
// and some NULLs, the sweep in Go gives the SQL's tables with every
// slicing.
func TestGapSweepRandom(t *testing.T) {
	t.Parallel()
	if !poolSweep {
		t.Skip("this build has no sweep in Go (build with -tags duckdb_arrow)")
	}
	r := rand.New(rand.NewPCG(11, 5))
	val := func(base, spread int64) *int64 {
		if r.IntN(30) == 0 {
			return nil
		}
		return i64(base + r.Int64N(spread))
	}
	var spans []gapSpan
	for range 3000 {
		q := val(1000, 400)
		if q == nil {
			q = i64(1200)
		}
		a := val(*q, 40)
		var e *int64
		switch r.IntN(5) {
		case 0:
			e = q
		case 1:
			e = a
		case 2:
			e = val(*q-10, 60)
		default:
			e = val(*q, 40)
		}
		spans = append(spans, gapSpan{int32(1 + r.IntN(5)), val(*q-3, 6), e, a, val(*q+20, 200)})
	}
	want := attribution(t, spans, 5, 1100, 1300, statementsFor("swept"))
	if len(want.replica) < 500 || len(want.segments) < 20 {
		t.Fatalf("%d segments, %d groups: want a sweep to compare", len(want.replica), len(want.segments))
	}
	for name, opt := range map[string]knobs{
		"slices of 37 steps": {sweep: sweepSizes{bucket: 1, rows: 37, chunk: 101, batch: 11}},
		"bins of 25 µs":      {sweep: sweepSizes{bucket: 25, rows: 500, chunk: 1000, batch: 100}},
		"defaults":           {},
	} {
		got := attribution(t, spans, 5, 1100, 1300, opt)
		if !slices.Equal(got.replica, want.replica) {
			t.Errorf("%s: %d gap_replica rows against the SQL's %d, or others", name, len(got.replica), len(want.replica))
		}
		if !slices.Equal(got.segments, want.segments) {
			t.Errorf("%s: replica_segments\n got %q\nwant %q", name, got.segments, want.segments)
		}
	}
}

// TestGapCode: every step of the attribution packs into its own code and
// back, below a replica's and an offset's bits.
func TestGapCode(t *testing.T) {
	t.Parallel()
	seen := map[uint64]bool{}
	for di := int64(-1); di <= 1; di++ {
		for dq := int64(-1); dq <= 1; dq++ {
			for de := int64(-1); de <= 1; de++ {
				for dg := int64(-1); dg <= 1; dg++ {
					c := gapCode(di, dq, de, dg)
					if c >= 1<<gapCodeBits || seen[c] {
						t.Fatalf("gapCode(%d, %d, %d, %d) = %d", di, dq, de, dg, c)
					}
					seen[c] = true
					key := uint64(12345)<<20 | 77<<gapCodeBits | c
					if a, b, c2, d := gapStepOf(key); a != di || b != dq || c2 != de || d != dg {
						t.Errorf("gapStepOf(gapCode(%d, %d, %d, %d)) = %d, %d, %d, %d", di, dq, de, dg, a, b, c2, d)
					}
				}
			}
		}
	}
}

// TestGapKeyBits: the bits below the offset hold the largest replica's
// number and the code, and the span leaves room for a bin above it; a bin
// too wide for the offsets is refused.
func TestGapKeyBits(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		maxRid, bucket int64
		low            int
		span           uint64
	}{
		{0, 60_000_000, 7, 1<<57 - 60_000_000},
		{1, 60_000_000, 8, 1<<56 - 60_000_000},
		{5, 1000, 10, 1<<54 - 1000},
		{1<<31 - 1, 60_000_000, 38, 1<<26 - 60_000_000},
	} {
		low, span, err := gapKeyBits(tc.maxRid, tc.bucket)
		if err != nil || low != tc.low || span != tc.span {
			t.Errorf("gapKeyBits(%d, %d) = %d, %d, %v; want %d, %d", tc.maxRid, tc.bucket, low, span, err, tc.low, tc.span)
		}
	}
	if _, _, err := gapKeyBits(1<<31-1, 1<<26); err == nil {
		t.Error("bins of 2^26 µs beside 2^31 replicas were taken")
	}
}

// TestGapRowsMatchSQL: gapRows makes the rows gap_steps.sql makes, span by
// span, and without the arrivals the pool's steps span_steps.sql makes
// (the pool's sweep in Go keeps those with a step of in_flight or
// queue_depth), on random spans whose instants are often equal, often
// NULL, and whose arrivals fall before, at, inside and after their waits.
func TestGapRowsMatchSQL(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(3, 14))
	val := func() *int64 {
		if r.IntN(6) == 0 {
			return nil
		}
		return i64(r.Int64N(6))
	}
	var spans []gapSpan
	for i := range 2000 {
		spans = append(spans, gapSpan{int32(1 + i%3), val(), val(), val(), val()})
	}
	a := stateDB(t, spans)
	if _, err := a.db.ExecContext(a.ctx, "CREATE TABLE pool_rids AS SELECT range::INTEGER AS rid FROM range(1, 4)"); err != nil {
		t.Fatal(err)
	}
	var want, wantPool []string
	for _, s := range spans {
		in := gapInstants{}
		for i, v := range []*int64{s.q, s.e, s.a, s.r} {
			if v != nil {
				*[]*int64{&in.q, &in.e, &in.a, &in.r}[i] = *v
				*[]*bool{&in.hq, &in.he, &in.ha, &in.hr}[i] = true
			}
		}
		for _, st := range gapRows(nil, in) {
			di, dq, de, dg := gapStepOf(st.code)
			want = append(want, fmt.Sprintln(s.rid, st.at, di, dq, de, dg))
		}
		in.he = false
		for _, st := range gapRows(nil, in) {
			if di, dq, _, _ := gapStepOf(st.code); di != 0 || dq != 0 {
				wantPool = append(wantPool, fmt.Sprint(s.rid, " ", st.at, " ", di, " ", dq))
			}
		}
	}
	slices.Sort(want)
	slices.Sort(wantPool)
	if got := tableRows(t, a, "(SELECT rid, at_us, d_in_flight, d_queue_depth FROM span_steps)"); !slices.Equal(got, wantPool) {
		t.Errorf("span_steps has %d rows, gapRows made %d for the pool, or others", len(got), len(wantPool))
	}
	if err := a.exec("gap_steps"); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, row := range tableRows(t, a, "(SELECT rid, at_us, d_in_flight, d_queue_depth, d_engine_queue, d_gateway_queue FROM gap_steps)") {
		got = append(got, row+"\n")
	}
	if len(want) < 1000 {
		t.Fatalf("%d rows: want more to compare", len(want))
	}
	if !slices.Equal(got, want) {
		t.Errorf("gap_steps has %d rows, gapRows made %d, or others", len(got), len(want))
	}
}

// TestReplicaGroups: the groups sum their segments' lengths clipped to the
// extent [10, 100) and weighted by queue_depth, keep a group whose every
// segment lies outside it (not inside), carry a sum past 64 bits, and come
// out in order of replica, in_flight, then queued, whether kept in the
// arrays or, for an in_flight past maxGroupInf, in the map.
func TestReplicaGroups(t *testing.T) {
	t.Parallel()
	g := newReplicaGroups(10, 100, 2)
	g.add(2, 0, 20, 3, 0)               // 10 inside
	g.add(1, 50, 150, maxGroupInf+5, 2) // 50 inside, weighted 100
	g.add(2, 90, 95, 3, 0)              // 5 more
	g.add(1, 100, 120, 1, 1)            // outside
	g.add(2, 40, 60, 3, 1<<62)          // 20 · 2^62 = 5 · 2^64
	g.add(1, 20, 30, maxGroupInf+5, 1)  // 10 more, weighted 10
	want := []replicaGroup{
		{rid: 1, inf: 1, queued: true, seen: true},
		{rid: 1, inf: maxGroupInf + 5, queued: true, seen: true, inside: true, length: 60, lenQdLo: 110},
		{rid: 2, inf: 3, queued: false, seen: true, inside: true, length: 15},
		{rid: 2, inf: 3, queued: true, seen: true, inside: true, length: 20, lenQdHi: 5},
	}
	if got := g.rows(); !slices.Equal(got, want) {
		t.Errorf("groups\n got %+v\nwant %+v", got, want)
	}
}
