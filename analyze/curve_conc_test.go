package analyze

import (
	"context"
	"fmt"
	"testing"
)

// TestCurveConcByHour: the hour-partitioned join of a large run
// (curve_conc_large) gives each stream's midpoint the pool's in_flight that
// the plain ASOF join (curve_conc) gives, and both the hand-computed one,
// where the partitions matter: a segment carried from an earlier hour, one
// that starts at an hour's first µs, an hour where no segment starts, a
// midpoint between segments, before the first and after the last.
func TestCurveConcByHour(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := testDB(t)
	a := &analysis{ctx: ctx, db: db}
	const h = int64(3_600_000_000)
	segments := [][3]int64{ // lo, hi, inf
		{h - 10, h + 100, 3}, // into hour 1
		{h + 100, h + 200, 5},
		{2 * h, 2*h + 50, 7},    // at hour 2's first µs
		{2*h + 50, 4*h + 10, 2}, // through hour 3, where none starts
		{5*h + 5, 5*h + 6, 9},
	}
	mids := [][2]int64{ // midpoint, in_flight there
		{h - 20, 0}, {h - 10, 3}, {h, 3}, {h + 150, 5}, {2*h - 1, 0}, {2 * h, 7}, {2*h + 49, 7},
		{3*h + 7, 2}, {4 * h, 2}, {4*h + 10, 0}, {5 * h, 0}, {5*h + 5, 9}, {5*h + 6, 0},
	}
	for _, macros := range []string{"span_metrics", "sweep"} {
		if err := a.exec(macros); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := db.ExecContext(ctx, "CREATE TABLE pool_segments (lo BIGINT, hi BIGINT, inf BIGINT, qd BIGINT)"); err != nil {
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
	for _, view := range []string{"curve_conc", "curve_conc_large"} {
		if err := a.exec(view); err != nil {
			t.Fatal(err)
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
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("%s: in_flight by stream_tps\n got %v\nwant %v", view, got, want)
		}
	}
}
