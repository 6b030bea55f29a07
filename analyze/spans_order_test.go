package analyze

import (
	"database/sql"
	"io"
	"log/slog"
	"testing"
)

// TestRequestsOutFindsSpansByIdx: requests.parquet is written from span_src in
// its order, with the attempt numbers analyze filled in and the delivered flags
// looked up by idx (attempt_list, delivered_bits), whatever the order of the
// spans table and with gaps in idx, as the gateway-engine join leaves them.
func TestRequestsOutFindsSpansByIdx(t *testing.T) {
	db, err := openDB(t.Context(), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	a := &analysis{ctx: t.Context(), db: db, log: slog.New(slog.NewTextHandler(io.Discard, nil))}
	if err := a.exec("span_metrics"); err != nil {
		t.Fatal(err)
	}
	// Request x: three spans the source did not number, at idx 0, 2 and 5;
	// a and c succeeded, c released first, so c is delivered and the attempts
	// follow queued_at. Request y: one span numbered 3 by the source, delivered.
	if _, err := db.ExecContext(t.Context(), `CREATE TEMP VIEW span_src AS
		SELECT 'run' AS run_id, 'test' AS source, span_id, request_id, attempt::INTEGER AS attempt,
			NULL AS retry_cause, NULL AS model, NULL AS replica, status, NULL AS error, NULL::INTEGER AS http_status,
			make_timestamp(q) AS queued_at, make_timestamp(q) AS admitted_at, make_timestamp(r - 1) AS first_token_at,
			make_timestamp(r - 1) AS last_token_at, make_timestamp(r) AS released_at,
			1 AS input_tokens, 1 AS output_tokens, NULL::BIGINT AS cached_tokens,
			NULL::BIGINT AS time_resolution_us, NULL AS time_origin, idx::BIGINT AS idx, NULL::BIGINT AS gw
		FROM (VALUES
			(0, 'a', 'x', NULL, 'ok', 10, 50),
			(2, 'b', 'x', NULL, 'error', 20, 45),
			(5, 'c', 'x', NULL, 'ok', 30, 40),
			(6, 'd', 'y', 3, 'ok', 5, 60))
		AS t(idx, span_id, request_id, attempt, status, q, r)`); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"replica_ids", "load_spans"} {
		if err := a.exec(name); err != nil {
			t.Fatal(err)
		}
	}
	// Store the spans table out of input order: nothing may rely on its order.
	if _, err := db.ExecContext(t.Context(), "CREATE OR REPLACE TEMP TABLE spans AS SELECT * FROM spans ORDER BY idx DESC"); err != nil {
		t.Fatal(err)
	}
	if err := a.completeSpans(); err != nil {
		t.Fatal(err)
	}
	rows, err := db.QueryContext(t.Context(), "SELECT span_id, attempt, delivered FROM ("+query("requests_out")+")")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	type row struct {
		span      string
		attempt   sql.NullInt64
		delivered bool
	}
	var got []row
	for rows.Next() {
		var r row
		if err := rows.Scan(&r.span, &r.attempt, &r.delivered); err != nil {
			t.Fatal(err)
		}
		got = append(got, r)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	n := func(v int64) sql.NullInt64 { return sql.NullInt64{Int64: v, Valid: true} }
	want := []row{{"a", n(0), false}, {"b", n(1), false}, {"c", n(2), true}, {"d", n(3), true}}
	if len(got) != len(want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("row %d: got %+v, want %+v", i, got[i], want[i])
		}
	}
}
