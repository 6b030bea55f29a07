package analyze

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// sweepDB opens a database with the macros and the view span_steps over a
// table spans of the given (queued_us, admitted_us, released_us), a NULL
// where a value is nil, of replica 0 and no engine arrivals.
func sweepDB(t *testing.T, spans [][3]*int64) *analysis {
	t.Helper()
	var gs []gapSpan
	for _, s := range spans {
		gs = append(gs, gapSpan{q: s[0], a: s[1], r: s[2]})
	}
	return stateDB(t, gs)
}

// stateDB opens a database with the macros and the view span_steps over a
// table spans of the given spans.
func stateDB(t *testing.T, spans []gapSpan) *analysis {
	t.Helper()
	a := readerAnalysis(t)
	ctx := a.ctx
	for _, q := range []string{"span_metrics", "state_macros", "sweep"} {
		if err := a.exec(q); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := a.db.ExecContext(ctx, "CREATE TABLE spans (rid INTEGER, queued_us BIGINT, arrived_us BIGINT, admitted_us BIGINT, released_us BIGINT)"); err != nil {
		t.Fatal(err)
	}
	app, err := a.db.PrepareContext(ctx, "INSERT INTO spans VALUES (?, ?, ?, ?, ?)")
	if err != nil {
		t.Fatal(err)
	}
	defer app.Close()
	for _, s := range spans {
		args := []any{s.rid}
		for _, v := range []*int64{s.q, s.e, s.a, s.r} {
			if v != nil {
				args = append(args, *v)
			} else {
				args = append(args, nil)
			}
		}
		if _, err := app.ExecContext(ctx, args...); err != nil {
			t.Fatal(err)
		}
	}
	if err := a.exec("span_steps"); err != nil {
		t.Fatal(err)
	}
	return a
}

// poolSegments runs the pool's steps of the pipeline with opt and gives
// pool_segments in its stored order.
func poolSegments(t *testing.T, a *analysis, opt knobs) [][4]int64 {
	t.Helper()
	st := &runState{k: opt, tmpDir: t.TempDir()}
	if err := a.runNamed(st, "state_events", "pool_segments", "pool_sweep"); err != nil {
		t.Fatal(err)
	}
	rows, err := a.db.QueryContext(a.ctx, "SELECT lo, hi, in_flight, queue_depth FROM pool_segments")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out [][4]int64
	for rows.Next() {
		var s [4]int64
		if err := rows.Scan(&s[0], &s[1], &s[2], &s[3]); err != nil {
			t.Fatal(err)
		}
		out = append(out, s)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	if left, _ := filepath.Glob(filepath.Join(st.tmpDir, "*")); len(left) > 0 {
		t.Errorf("the sweep left %q behind", left)
	}
	return out
}

// sweepForms are the ways the tests make the pool's segments: the SQL, and
// the sweep with slices of one instant and of a few (bins of 1 and 25 µs),
// batches of a few segments, and the defaults.
func sweepForms() map[string]knobs {
	forms := map[string]knobs{"sql": statementsFor("swept")}
	if poolSweep {
		forms["slices of 1 step"] = knobs{sweep: sweepSizes{bucket: 1, rows: 1, chunk: 1, batch: 1}}
		forms["slices of 2 steps"] = knobs{sweep: sweepSizes{bucket: 1, rows: 2, chunk: 2, batch: 2}}
		forms["slices of 3 steps"] = knobs{sweep: sweepSizes{bucket: 1, rows: 3, chunk: 4, batch: 3}}
		forms["bins of 25 µs"] = knobs{sweep: sweepSizes{bucket: 25, rows: 4, chunk: 3, batch: 5}}
		forms["defaults"] = knobs{}
	}
	return forms
}

// TestPoolSweep: the pool's segments by hand, from both the SQL
// (state_events.sql, pool_segments.sql) and, in a build with the
// duckdb_arrow tag, the sweep in Go (pool_sweep.go) with slices from one
// step to all of them. The spans step at one instant together (20, 30, 40:
// at 40 one span is admitted and released, and the state stays), leave the
// state at 0 between 50 and 100 (no segment), have no release (admitted
// with no slot step), no instant at all, and an admission before the queue.
// The test fails when a segment takes the state after its last instant's
// steps, when the steps of one instant apply one at a time, or when the
// state is not carried from one slice to the next.
func TestPoolSweep(t *testing.T) {
	t.Parallel()
	a := sweepDB(t, [][3]*int64{
		{i64(10), i64(20), i64(50)},
		{i64(20), i64(20), i64(30)},
		{i64(30), i64(40), i64(40)},
		{i64(100), i64(110), nil},
		{nil, nil, i64(5)},
		{i64(200), i64(150), i64(160)},
	})
	want := [][4]int64{ // lo, hi, in_flight, queue_depth
		{10, 20, 0, 1},
		{20, 30, 2, 0},
		{30, 40, 1, 1},
		{40, 50, 1, 0},
		{100, 110, 0, 1},
		{150, 160, 1, 0},
	}
	for name, opt := range sweepForms() {
		if got := poolSegments(t, a, opt); fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("%s: pool_segments\n got %v\nwant %v", name, got, want)
		}
	}
}

// TestPoolSweepRandom: on random spans, many of them at a few instants and
// some with a NULL, the sweep gives the SQL's segments in the SQL's order
// with every slicing, and is refused nothing at the ends of the range of
// instants.
func TestPoolSweepRandom(t *testing.T) {
	t.Parallel()
	if !poolSweep {
		t.Skip("this build has no sweep in Go (build with -tags duckdb_arrow)")
	}
	r := rand.New(rand.NewPCG(7, 27))
	val := func(base, spread int64) *int64 {
		if r.IntN(40) == 0 {
			return nil
		}
		return i64(base + r.Int64N(spread))
	}
	var spans [][3]*int64
	for range 3000 {
		q := val(1000, 400)
		if q == nil {
			q = i64(1200)
		}
		spans = append(spans, [3]*int64{val(*q-5, 10), val(*q, 30), val(*q+20, 200)})
	}
	// Instants far apart: a slice that held them both would not fit a key.
	spans = append(spans, [3]*int64{i64(math.MinInt64 + 1), i64(math.MinInt64 + 2), i64(-1 << 61)})
	spans = append(spans, [3]*int64{i64(1 << 61), i64(1<<61 + 3), i64(math.MaxInt64 - 1)})
	a := sweepDB(t, spans)
	want := poolSegments(t, a, statementsFor("swept"))
	if len(want) < 500 {
		t.Fatalf("%d segments, want a sweep to compare", len(want))
	}
	for name, opt := range map[string]knobs{
		"slices of 37 steps": {sweep: sweepSizes{bucket: 1, rows: 37, chunk: 101, batch: 11}},
		"bins of 25 µs":      {sweep: sweepSizes{bucket: 25, rows: 500, chunk: 1000, batch: 100}},
		"defaults":           {},
	} {
		got := poolSegments(t, a, opt)
		if !slices.Equal(got, want) {
			t.Errorf("%s: %d segments against the SQL's %d, or in another order", name, len(got), len(want))
		}
	}
}

// TestCutSlices: the slices cover the bins once, each with at most rows
// steps but for a bin that holds more, and end before a bin 2^58 µs past
// their first.
func TestCutSlices(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		bins   [][2]int64
		bucket int64
		rows   int64
		want   []sweepSlice
	}{
		{nil, 10, 5, nil},
		{[][2]int64{{3, 100}}, 10, 5, []sweepSlice{{from: 30, last: true}}},
		{[][2]int64{{1, 2}, {2, 3}, {4, 1}}, 10, 5, []sweepSlice{{from: 10, to: 40}, {from: 40, last: true}}},
		{[][2]int64{{1, 2}, {2, 3}, {4, 1}}, 10, 6, []sweepSlice{{from: 10, last: true}}},
		{[][2]int64{{-2, 7}, {0, 1}, {9, 1}}, 10, 5, []sweepSlice{{from: -20, to: 0}, {from: 0, last: true}}},
		{[][2]int64{{math.MinInt64 / 10, 1}, {math.MinInt64/10 + 1, 1}}, 10, 1, []sweepSlice{{from: math.MinInt64 / 10 * 10, to: math.MinInt64/10*10 + 10}, {from: math.MinInt64/10*10 + 10, last: true}}},
		{[][2]int64{{math.MinInt64/10 - 1, 1}}, 10, 1, []sweepSlice{{from: math.MinInt64, last: true}}},
		{[][2]int64{{0, 1}, {1<<58 - 1, 1}, {1 << 58, 1}, {1<<58 + 1, 1}}, 1, 10, []sweepSlice{{from: 0, to: 1 << 58}, {from: 1 << 58, last: true}}},
		{[][2]int64{{math.MinInt64 / 10, 1}, {math.MaxInt64 / 10, 1}}, 10, 10, []sweepSlice{{from: math.MinInt64 / 10 * 10, to: math.MaxInt64 / 10 * 10}, {from: math.MaxInt64 / 10 * 10, last: true}}},
	} {
		got, total := cutSlices(tc.bins, tc.bucket, tc.rows, 1<<58)
		var n int64
		for _, b := range tc.bins {
			n += b[1]
		}
		if fmt.Sprint(got) != fmt.Sprint(tc.want) || total != n {
			t.Errorf("cutSlices(%v, %d, %d) = %v, %d; want %v, %d", tc.bins, tc.bucket, tc.rows, got, total, tc.want, n)
		}
	}
}

// TestRadixSort: the radix sort orders random keys as slices.Sort does,
// keys that share their high bytes or differ only there among them.
func TestRadixSort(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(3, 4))
	for _, mask := range []uint64{math.MaxUint64, 0xff, 0xffff_0000, 1<<63 | 0xf, 0} {
		for _, n := range []int{1, 2, 255, 257, 10_000} {
			keys := make([]uint64, n)
			for i := range keys {
				keys[i] = r.Uint64() & mask
			}
			want := slices.Clone(keys)
			slices.Sort(want)
			got, _ := radixSort(keys, make([]uint64, n))
			if !slices.Equal(got, want) {
				t.Errorf("mask %#x, %d keys: not sorted", mask, n)
			}
		}
	}
}

// TestStepCode: every step packs into a key's low bits and back.
func TestStepCode(t *testing.T) {
	t.Parallel()
	for di := int8(-1); di <= 1; di++ {
		for dq := int8(-1); dq <= 1; dq++ {
			c, err := stepCode(di, dq)
			if err != nil {
				t.Fatal(err)
			}
			if gi, gq := stepOf(12345<<stepCodeBits | c); gi != int64(di) || gq != int64(dq) {
				t.Errorf("step (%d, %d) came back as (%d, %d)", di, dq, gi, gq)
			}
		}
	}
	if _, err := stepCode(2, 0); err == nil {
		t.Error("a step of 2 packed")
	}
}

// BenchmarkRadixSort sorts a slice's worth of keys (poolSweepRows, 4 Mi)
// with 35-bit offsets, as the sweep's are at 10^8 spans a day, against
// slices.Sort of the same keys.
func BenchmarkRadixSort(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 2))
	keys := make([]uint64, 1<<22)
	for i := range keys {
		keys[i] = r.Uint64() & (1<<35 - 1)
	}
	work, buf := make([]uint64, len(keys)), make([]uint64, len(keys))
	b.Run("radix", func(b *testing.B) {
		for b.Loop() {
			copy(work, keys)
			radixSort(work, buf)
		}
	})
	b.Run("slices.Sort", func(b *testing.B) {
		for b.Loop() {
			copy(work, keys)
			slices.Sort(work)
		}
	})
}

// TestStepFiles: each step is filed in the slice that holds its instant, as
// its offset from the slice's start and its step, across buffers that fill
// and are written several times; a slice's file is gone once read; a step
// before the first slice, or with no slices at all, is refused.
func TestStepFiles(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	slices := []sweepSlice{{from: 100, to: 200}, {from: 200, to: 1000}, {from: 1000, last: true}}
	f := newStepFiles(dir, slices)
	f.bufCap = 16 // two keys a write
	steps := []struct {
		t      int64
		di, dq int8
	}{{150, 1, -1}, {100, 0, 1}, {999, -1, 0}, {200, 1, 0}, {5000, 0, -1}, {199, -1, 0}, {1000, 0, 1}, {150, 1, 0}}
	want := make([][]uint64, len(slices))
	for _, s := range steps {
		if err := f.add(s.t, s.di, s.dq); err != nil {
			t.Fatal(err)
		}
		i := 0
		for i < len(slices)-1 && s.t >= slices[i].to {
			i++
		}
		c, _ := stepCode(s.di, s.dq)
		want[i] = append(want[i], uint64(s.t-slices[i].from)<<stepCodeBits|c)
	}
	if err := f.done(); err != nil {
		t.Fatal(err)
	}
	var keys []uint64
	for i := range slices {
		var err error
		if keys, err = f.read(i, keys); err != nil {
			t.Fatal(err)
		}
		if fmt.Sprint(keys) != fmt.Sprint(want[i]) {
			t.Errorf("slice %d: keys %v, want %v", i, keys, want[i])
		}
	}
	if left, _ := filepath.Glob(filepath.Join(dir, "*")); len(left) > 0 {
		t.Errorf("files left after reading: %q", left)
	}
	if err := newStepFiles(dir, slices).add(99, 1, 0); err == nil {
		t.Error("a step before the first slice was filed")
	}
	if err := newStepFiles(dir, nil).add(99, 1, 0); err == nil {
		t.Error("a step was filed with no slices")
	}
}

// sliceFiles files random steps into three slices of dir and gives the
// files and, for each slice, its keys sorted.
func sliceFiles(t *testing.T, dir string) (*stepFiles, [][]uint64) {
	t.Helper()
	sl := []sweepSlice{{from: 0, to: 1000}, {from: 1000, to: 2000}, {from: 2000, last: true}}
	f := newStepFiles(dir, sl)
	want := make([][]uint64, len(sl))
	r := rand.New(rand.NewPCG(5, 6))
	for i := range sl {
		for range 50 + 10*i {
			off, di := r.Int64N(1000), int8(r.IntN(3)-1)
			if err := f.add(sl[i].from+off, di, 1); err != nil {
				t.Fatal(err)
			}
			c, _ := stepCode(di, 1)
			want[i] = append(want[i], uint64(off)<<stepCodeBits|c)
		}
		slices.Sort(want[i])
	}
	if err := f.done(); err != nil {
		t.Fatal(err)
	}
	return f, want
}

// TestSliceKeys: the slices come to the sweep in order, each sorted with
// its start, from the goroutine that reads them ahead, and each stays as it
// came while the next is read ahead into a swept slice's memory; stop ends
// the reader wherever the sweep is; a slice whose file is gone is an error
// naming it; once the context is cancelled a read gives its error.
func TestSliceKeys(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	t.Run("all", func(t *testing.T) {
		dir := t.TempDir()
		f, want := sliceFiles(t, dir)
		s := &sliceKeys{ctx: ctx, files: f, name: "test"}
		defer s.stop()
		for i := range want {
			if err := s.read(); err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(s.keys, want[i]) || s.base != f.slices[i].from || s.pos != 0 || s.next != i+1 {
				t.Fatalf("slice %d: keys %v base %d pos %d next %d, want %v base %d", i, s.keys, s.base, s.pos, s.next, want[i], f.slices[i].from)
			}
			// The reader runs ahead meanwhile.
			time.Sleep(20 * time.Millisecond)
			if !slices.Equal(s.keys, want[i]) {
				t.Fatalf("slice %d changed while the next was read: %v", i, s.keys)
			}
		}
		s.stop()
		if left, _ := filepath.Glob(filepath.Join(dir, "*")); len(left) > 0 {
			t.Errorf("files left after reading: %q", left)
		}
	})
	t.Run("stop early", func(t *testing.T) {
		f, want := sliceFiles(t, t.TempDir())
		s := &sliceKeys{ctx: ctx, files: f, name: "test"}
		if err := s.read(); err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(s.keys, want[0]) {
			t.Fatalf("slice 0: %v, want %v", s.keys, want[0])
		}
		stopped := make(chan struct{})
		go func() { s.stop(); close(stopped) }()
		select {
		case <-stopped:
		case <-time.After(10 * time.Second):
			t.Fatal("stop did not end the reader, which holds slice 1")
		}
		f.remove()
	})
	t.Run("missing file", func(t *testing.T) {
		f, _ := sliceFiles(t, t.TempDir())
		if err := os.Remove(f.path(1)); err != nil {
			t.Fatal(err)
		}
		s := &sliceKeys{ctx: ctx, files: f, name: "test"}
		defer s.stop()
		if err := s.read(); err != nil {
			t.Fatal(err)
		}
		err := s.read()
		if err == nil || !strings.Contains(err.Error(), "analyze test: ") || !strings.Contains(err.Error(), "pool_sweep_1.keys") {
			t.Fatalf("slice 1 without its file: %v", err)
		}
		f.remove()
	})
	t.Run("cancelled", func(t *testing.T) {
		f, _ := sliceFiles(t, t.TempDir())
		cctx, cancel := context.WithCancel(ctx)
		s := &sliceKeys{ctx: cctx, files: f, name: "test"}
		if err := s.read(); err != nil {
			t.Fatal(err)
		}
		cancel()
		if err := s.read(); !errors.Is(err, context.Canceled) {
			t.Fatalf("read after cancel: %v", err)
		}
		s.stop()
		f.remove()
	})
}
