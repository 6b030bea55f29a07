package analyze

import (
	"database/sql"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go"

	"github.com/tpsreport/tpsreport/schemas"
)

// TestRequestsOutFindsSpansByIdx: requests.parquet is written from span_src in
// its order, with the attempt numbers analyze filled in and the delivered flags
// looked up by idx (attempt_list, delivered_bits), whatever the order of the
// spans table and with gaps in idx, as the gateway-engine join leaves them.
func TestRequestsOutFindsSpansByIdx(t *testing.T) {
	db := testDB(t)
	a := &analysis{ctx: t.Context(), db: db, log: slog.New(slog.NewTextHandler(io.Discard, nil))}
	if err := a.exec("span_metrics"); err != nil {
		t.Fatal(err)
	}
	// Request x: three spans the source did not number, at idx 0, 2 and 5;
	// a and c succeeded, c released first, so c is delivered and the attempts
	// follow queued_at. Request y: one span numbered 3 by the source, delivered.
	if _, err := db.ExecContext(t.Context(), `CREATE VIEW span_src AS
		SELECT 'run' AS run_id, 'test' AS source, span_id, request_id, attempt::INTEGER AS attempt,
			NULL AS retry_cause, NULL AS model, NULL AS replica, status, NULL AS error, NULL::INTEGER AS http_status,
			make_timestamp(q) AS queued_at, NULL::TIMESTAMPTZ AS engine_arrived_at, make_timestamp(q) AS admitted_at, make_timestamp(r - 1) AS first_token_at,
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
	for _, name := range []string{"span_times", "replica_ids", "multi_requests", "load_spans"} {
		if err := a.exec(name); err != nil {
			t.Fatal(err)
		}
	}
	// Store the spans table out of input order: nothing may rely on its order.
	if _, err := db.ExecContext(t.Context(), "CREATE OR REPLACE TABLE spans AS SELECT * FROM spans ORDER BY idx DESC"); err != nil {
		t.Fatal(err)
	}
	if err := a.runNamed(&runState{}, "span_facts", "number_attempts", "request_facts", "request_ties",
		"delivered_bits", "attempt_list"); err != nil {
		t.Fatal(err)
	}
	if err := a.exec("request_spans_unnumbered"); err != nil {
		t.Fatal(err)
	}
	if err := a.exec("request_values"); err != nil {
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

// TestRequestsOutKeepsInputOrderAtScale: with spans.parquet in many row groups,
// which DuckDB scans on both threads, requests.parquet still has the spans in
// input order, with the attempts analyze numbered (attempt_list, through the
// join with its one row) and the delivered flags (delivered_bits) of each span.
// The spans span three blocks of delivered_blocks, and the row groups are
// such that one layout is spliced (the delivered column written from the
// blocks) and the other written whole (requests_out, joined with the blocks).
func TestRequestsOutKeepsInputOrderAtScale(t *testing.T) {
	if testing.Short() {
		t.Skip("135,000 spans in many row groups; TestRequestsOutFindsSpansByIdx is the fast case")
	}
	for _, tc := range []struct {
		rowGroup int64
		spliced  bool
	}{{122_880, true}, {1000, false}} {
		t.Run(fmt.Sprint(tc.rowGroup), func(t *testing.T) { requestsInInputOrder(t, tc.rowGroup, tc.spliced) })
	}
}

func requestsInInputOrder(t *testing.T, rowGroup int64, spliced bool) {
	rng := rand.New(rand.NewPCG(7, 9))
	var spans []schemas.Span
	wantAttempt := map[string]int64{}
	wantDelivered := map[string]bool{}
	for req := 0; len(spans) < 135_000; req++ {
		n := 1 + rng.IntN(3)
		numbered := rng.IntN(3) > 0
		rid := fmt.Sprintf("r%06d", req)
		first := -1
		var firstR int64
		base := *at(float64(rng.IntN(3600)))
		for i := range n {
			id := fmt.Sprintf("%s-%d", rid, i)
			q := base + int64(i)*1_000_000 + rng.Int64N(1000)
			r := q + 1_000 + rng.Int64N(5_000_000)
			status := "ok"
			if rng.IntN(3) == 0 {
				status = "error"
			}
			s := schemas.Span{RunID: "scale", Source: "test", SpanID: id, RequestID: rid, Status: status,
				QueuedAt: i64(q), AdmittedAt: i64(q), FirstTokenAt: i64(q + 500), LastTokenAt: i64(r - 100),
				ReleasedAt: i64(r), InputTokens: i64(10), OutputTokens: i64(5)}
			if numbered {
				s.Attempt = i32(int32(i))
			}
			// Queued in attempt order, so the numbering gives i too.
			wantAttempt[id] = int64(i)
			if status == "ok" && (first < 0 || r < firstR) {
				first, firstR = i, r
			}
			spans = append(spans, s)
		}
		for i := range n {
			wantDelivered[fmt.Sprintf("%s-%d", rid, i)] = i == first
		}
	}
	// Shuffle the spans so that input order is neither time nor request order.
	rng.Shuffle(len(spans), func(i, j int) { spans[i], spans[j] = spans[j], spans[i] })
	dir := t.TempDir()
	writeParquet(t, filepath.Join(dir, "spans.parquet"), spans, parquet.MaxRowsPerRowGroup(rowGroup))
	analyzeDir(t, dir, Options{})
	if by := fileCreatedBy(t, filepath.Join(dir, schemas.RequestsFile)); strings.Contains(by, "spliced") != spliced {
		t.Errorf("requests.parquet created by %q, want spliced %v", by, spliced)
	}
	got := readRequestList(t, dir)
	if len(got) != len(spans) {
		t.Fatalf("requests.parquet has %d rows, want %d", len(got), len(spans))
	}
	bad := 0
	for i, row := range got {
		id := spans[i].SpanID
		if row["span_id"] != id || row["attempt"] != float64(wantAttempt[id]) || row["delivered"] != wantDelivered[id] {
			if bad++; bad <= 5 {
				t.Errorf("row %d: got span %v attempt %v delivered %v, want %s attempt %d delivered %v",
					i, row["span_id"], row["attempt"], row["delivered"], id, wantAttempt[id], wantDelivered[id])
			}
		}
	}
	if bad > 0 {
		t.Errorf("%d of %d rows wrong", bad, len(got))
	}
}

// fileCreatedBy is the created_by of the Parquet file at path: a splice names
// itself there.
func fileCreatedBy(t *testing.T, path string) string {
	t.Helper()
	fh, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer fh.Close()
	md, err := readFooter(fh)
	if err != nil {
		t.Fatal(err)
	}
	return md.CreatedBy
}
