package analyze

import (
	"fmt"
	"testing"
)

// TestCurveConcMerged: a large run's merge (curve_merge.go, in a build with
// the duckdb_arrow tag) gives each stream's midpoint the pool's in_flight
// that the ASOF join (curve_conc.sql) gives, and both the hand-computed one:
// a midpoint before the first segment, at a segment's first µs, inside one,
// at its end (hi), between segments and after the last, and two midpoints at
// one instant. The merge reads a slice of 1, 2, 3 and all the midpoints at a
// time, so that a slice ends before, inside and after a segment.
func TestCurveConcMerged(t *testing.T) {
	t.Parallel()
	a := readerAnalysis(t)
	ctx, db := a.ctx, a.db
	const h = int64(3_600_000_000)
	segments := [][3]int64{ // lo, hi, in_flight
		{h - 10, h + 100, 3},
		{h + 100, h + 200, 5},
		{2 * h, 2*h + 50, 7}, // after a gap
		{2*h + 50, 4*h + 10, 2},
		{5*h + 5, 5*h + 6, 9},
	}
	mids := [][2]int64{ // midpoint, in_flight there
		{h - 20, 0}, {h - 10, 3}, {h, 3}, {h, 3}, {h + 150, 5}, {h + 200, 0}, {2*h - 1, 0}, {2 * h, 7}, {2*h + 49, 7},
		{3*h + 7, 2}, {4 * h, 2}, {4*h + 10, 0}, {5 * h, 0}, {5*h + 5, 9}, {5*h + 6, 0},
	}
	for _, macros := range []string{"span_metrics", "state_macros", "sweep"} {
		if err := a.exec(macros); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := db.ExecContext(ctx, "CREATE TABLE pool_segments (lo BIGINT, hi BIGINT, in_flight BIGINT, queue_depth BIGINT)"); err != nil {
		t.Fatal(err)
	}
	for _, s := range segments {
		if _, err := db.ExecContext(ctx, "INSERT INTO pool_segments VALUES (?, ?, ?, 0)", s[0], s[1], s[2]); err != nil {
			t.Fatal(err)
		}
	}
	// A successful span whose stream lasts two µs around each midpoint; its
	// output tokens, i, tell the rows apart (stream_tps = i · 500000). The
	// extent holds them all.
	if _, err := db.ExecContext(ctx, `CREATE TABLE spans (ok BOOLEAN, queued_us BIGINT, admitted_us BIGINT,
		first_token_us BIGINT, last_token_us BIGINT, released_us BIGINT, output_tokens BIGINT)`); err != nil {
		t.Fatal(err)
	}
	want := map[int64]int64{}
	for i, m := range mids {
		if _, err := db.ExecContext(ctx, "INSERT INTO spans VALUES (true, ?, ?, ?, ?, ?, ?)",
			m[0]-3, m[0]-2, m[0]-1, m[0]+1, m[0]+1, i+1); err != nil {
			t.Fatal(err)
		}
		want[int64(i+1)*500000] = m[1]
	}
	if _, err := db.ExecContext(ctx, "CREATE TABLE params AS SELECT 0::BIGINT AS t0, ?::BIGINT AS t1", 6*h); err != nil {
		t.Fatal(err)
	}
	if err := a.exec("curve_values"); err != nil {
		t.Fatal(err)
	}
	forms := []string{"curve_conc"}
	if curveMerge {
		if err := a.exec("curve_mids_sorted"); err != nil {
			t.Fatal(err)
		}
		forms = append(forms, "merged 1", "merged 2", "merged 3", "merged 100")
	}
	for _, form := range forms {
		st := &runState{}
		if form == "curve_conc" {
			if err := a.exec("curve_conc"); err != nil {
				t.Fatal(err)
			}
		} else {
			fmt.Sscanf(form, "merged %d", &st.k.curveSlice)
			if err := a.curveConcMerged(st); err != nil {
				t.Fatal(err)
			}
		}
		rows, err := db.QueryContext(ctx, "SELECT in_flight, stream_tps FROM curve_conc")
		if err != nil {
			t.Fatal(err)
		}
		got := map[int64]int64{}
		for rows.Next() {
			var inf int64
			var tps float64
			if err := rows.Scan(&inf, &tps); err != nil {
				t.Fatal(err)
			}
			got[int64(tps)] = inf
		}
		if err := rows.Err(); err != nil {
			t.Fatal(err)
		}
		rows.Close()
		if st.curveRelease != nil {
			if err := a.curveConcDone(st); err != nil {
				t.Fatal(err)
			}
		}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("%s: in_flight by stream_tps\n got %v\nwant %v", form, got, want)
		}
	}
}
