package analyze

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// joinSolo fills join_match with the pairs (gateway row, engine row) of a
// run of n spans, runs the join_solo steps with opt and gives join_solo's
// pairs sorted.
func joinSolo(t *testing.T, n int64, pairs [][2]int64, opt knobs) [][2]int64 {
	t.Helper()
	a := readerAnalysis(t)
	if err := a.exec("span_metrics"); err != nil {
		t.Fatal(err)
	}
	q := "CREATE TABLE join_match (gi BIGINT, ei BIGINT)"
	if _, err := a.db.ExecContext(a.ctx, q); err != nil {
		t.Fatal(err)
	}
	if len(pairs) > 0 {
		var vals []string
		for _, p := range pairs {
			vals = append(vals, fmt.Sprintf("(%d, %d)", p[0], p[1]))
		}
		if _, err := a.db.ExecContext(a.ctx, "INSERT INTO join_match VALUES "+strings.Join(vals, ", ")); err != nil {
			t.Fatal(err)
		}
	}
	st := &runState{k: opt, tmpDir: t.TempDir(), gateway: 1, engine: 1, spans: n}
	if got := conditions["soloed"](st); got != (soloInGo && !opt.statements["soloed"]) {
		t.Fatalf("soloed = %v with %+v", got, opt)
	}
	if err := a.runNamed(st, "join_solo", "join_solo_go"); err != nil {
		t.Fatal(err)
	}
	rows, err := a.db.QueryContext(a.ctx, "SELECT gi, ei FROM join_solo")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	out := [][2]int64{}
	for rows.Next() {
		var p [2]int64
		if err := rows.Scan(&p[0], &p[1]); err != nil {
			t.Fatal(err)
		}
		out = append(out, p)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	slices.SortFunc(out, func(x, y [2]int64) int { return int(x[0] - y[0]) })
	return out
}

// soloForms are the ways the tests settle join_solo: the SQL and, in a
// build with the duckdb_arrow tag, Go.
func soloForms() map[string]knobs {
	forms := map[string]knobs{"sql": statementsFor("soloed")}
	if soloInGo {
		forms["go"] = knobs{}
	}
	return forms
}

// TestJoinSolo: join_solo's pairs by hand, from join_solo.sql and
// join_solo.go. A pair listed twice (it shares two keys) is solo; a
// gateway span with two engine spans, and an engine span with two gateway
// spans, settle nothing, not even for their partners' other pairs; pairs
// beyond the first block of 65,536 rows count as the first's do.
func TestJoinSolo(t *testing.T) {
	t.Parallel()
	pairs := [][2]int64{
		{0, 10},
		{1, 11}, {1, 11},
		{2, 12}, {2, 13},
		{3, 14}, {4, 14},
		{7, 17},
		{70000, 70001},
		{70002, 9},
	}
	want := [][2]int64{{0, 10}, {1, 11}, {7, 17}, {70000, 70001}, {70002, 9}}
	// A run of more rows than the assembly takes settles join_solo by the
	// statement, which spills where the partner array would not fit.
	if conditions["soloed"](&runState{spans: maxAssembleRows + 1}) {
		t.Errorf("join_solo settled in Go for %d rows", maxAssembleRows+1)
	}
	for name, opt := range soloForms() {
		if got := joinSolo(t, 70003, pairs, opt); !slices.Equal(got, want) {
			t.Errorf("%s: join_solo = %v, want %v", name, got, want)
		}
		if got := joinSolo(t, 5, nil, opt); len(got) != 0 {
			t.Errorf("%s: join_solo of no pair = %v", name, got)
		}
	}
}

// TestJoinSoloRandom: join_solo.go gives join_solo.sql's pairs on random
// candidates, from nearly every span solo to nearly none.
func TestJoinSoloRandom(t *testing.T) {
	t.Parallel()
	if !soloInGo {
		t.Skip("this build settles join_solo in SQL only")
	}
	for seed := range uint64(6) {
		r := rand.New(rand.NewPCG(seed, 27))
		const spans = 400
		var pairs [][2]int64
		for range 50 + seed*60 {
			gi := 2 * r.Int64N(spans/2)
			pairs = append(pairs, [2]int64{gi, 2*r.Int64N(spans/2) + 1})
		}
		want := joinSolo(t, spans, pairs, statementsFor("soloed"))
		got := joinSolo(t, spans, pairs, knobs{})
		if !slices.Equal(got, want) {
			t.Errorf("seed %d: go %v, sql %v", seed, got, want)
		}
		if seed == 0 && len(want) == 0 {
			t.Error("seed 0 has no solo pair: the test compares nothing")
		}
	}
}
