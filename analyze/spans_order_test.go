package analyze

import (
	"io"
	"log/slog"
	"testing"
)

// TestCompleteSpansRestoresInputOrder: requests.parquet is written from the spans
// table without an ORDER BY, so spans that span_src gave out of order (the
// gateway-engine join) must be stored sorted by idx, with their attempt numbers
// and delivered flags.
func TestCompleteSpansRestoresInputOrder(t *testing.T) {
	db, err := openDB(t.Context(), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	a := &analysis{ctx: t.Context(), db: db, log: slog.New(slog.NewTextHandler(io.Discard, nil))}
	// Three spans of request x stored in the order idx 2, 0, 1; the source
	// numbered none of them; 0 and 2 succeeded, 2 released first.
	if _, err := db.ExecContext(t.Context(), `CREATE TEMP TABLE spans AS
		SELECT * FROM (VALUES
			(2::BIGINT, 'c', 'x', NULL::INTEGER, 'ok', true, 30::BIGINT, 40::BIGINT, false),
			(0, 'a', 'x', NULL, 'ok', true, 10, 50, false),
			(1, 'b', 'x', NULL, 'error', false, 20, 45, false))
		AS t(idx, span_id, request_id, attempt, status, ok, q, r, delivered)`); err != nil {
		t.Fatal(err)
	}
	if err := a.completeSpans(); err != nil {
		t.Fatal(err)
	}
	rows, err := db.QueryContext(t.Context(), "SELECT idx, attempt, delivered FROM spans")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	type row struct {
		idx, attempt int64
		delivered    bool
	}
	var got []row
	for rows.Next() {
		var r row
		if err := rows.Scan(&r.idx, &r.attempt, &r.delivered); err != nil {
			t.Fatal(err)
		}
		got = append(got, r)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	want := []row{{0, 0, false}, {1, 1, false}, {2, 2, true}}
	if len(got) != len(want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("row %d: got %+v, want %+v", i, got[i], want[i])
		}
	}
}
