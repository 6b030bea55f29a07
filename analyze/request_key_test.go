package analyze

import (
	"database/sql"
	"errors"
	"io"
	"log/slog"
	"slices"
	"strings"
	"testing"
)

// TestRequestKey: the spans table's req (load_spans) makes the requests
// request_id makes, NULL included: a span without a request_id has a NULL
// key whether it is alone or not, so its arrival never completes (win_events)
// and a first attempt of it hides every unlinked retry (quality_spans), as
// NOT IN over request_ids does; a solo span's key is its idx, and a request
// of several spans shares a negative key.
func TestRequestKey(t *testing.T) {
	type keyRow struct {
		idx  int64
		req  sql.NullInt64
		solo bool
	}
	null := sql.NullInt64{}
	key := func(v int64) sql.NullInt64 { return sql.NullInt64{Int64: v, Valid: true} }
	// The named requests of both cases: b (idx 1, 2) a first attempt that
	// failed and a retry that succeeded, released last at 60; c (idx 3) a
	// retry without a first attempt; d (idx 4) one span, released at 55.
	named := `(1, 'b', 0, 'error', 20, 30), (2, 'b', 1, 'ok', 35, 60),
		(3, 'c', 1, 'ok', 5, 40), (4, 'd', 0, 'ok', 15, 55)`
	cases := []struct {
		name      string
		unnamed   string // rows (idx, request_id, attempt, status, q, r) without a request_id
		keys      []keyRow
		arrivals  int64
		completed int64
	}{{
		name:    "one span without a request_id",
		unnamed: `(0, NULL, 0, 'ok', 10, 50)`,
		keys:    []keyRow{{0, null, true}, {1, key(-2), false}, {2, key(-2), false}, {3, key(3), true}, {4, key(4), true}},
		// Arrivals at idx 0, 1 and 4; idx 0's request has no id, so only
		// b's and d's complete.
		arrivals: 3, completed: 2,
	}, {
		name:    "two spans without a request_id",
		unnamed: `(0, NULL, 0, 'ok', 10, 50), (5, NULL, 1, 'ok', 12, 52)`,
		keys:    []keyRow{{0, null, false}, {1, key(-2), false}, {2, key(-2), false}, {3, key(3), true}, {4, key(4), true}, {5, null, false}},
		// idx 5 is a retry, no arrival; the NULL request joins no facts.
		arrivals: 3, completed: 2,
	}}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			db := testDB(t)
			a := &analysis{ctx: t.Context(), db: db, log: slog.New(slog.NewTextHandler(io.Discard, nil))}
			for _, name := range []string{"span_metrics", "state_macros", "sweep"} {
				if err := a.exec(name); err != nil {
					t.Fatal(err)
				}
			}
			if _, err := db.ExecContext(t.Context(), `CREATE VIEW span_src AS
				SELECT 'run' AS run_id, 'test' AS source, 's' || idx AS span_id, request_id, attempt::INTEGER AS attempt,
					NULL AS retry_cause, NULL AS model, NULL AS replica, status, NULL AS error, NULL::INTEGER AS http_status,
					make_timestamp(q) AS queued_at, NULL::TIMESTAMPTZ AS engine_arrived_at, make_timestamp(q) AS admitted_at,
					make_timestamp(r - 1) AS first_token_at, make_timestamp(r - 1) AS last_token_at, make_timestamp(r) AS released_at,
					1 AS input_tokens, 1 AS output_tokens, NULL::BIGINT AS cached_tokens,
					NULL::BIGINT AS time_resolution_us, NULL AS time_origin, idx::BIGINT AS idx, NULL::BIGINT AS gw
				FROM (VALUES `+c.unnamed+`, `+named+`) AS t(idx, request_id, attempt, status, q, r)`); err != nil {
				t.Fatal(err)
			}
			for _, name := range []string{"span_times", "replica_ids", "multi_requests", "load_spans"} {
				if err := a.exec(name); err != nil {
					t.Fatal(err)
				}
			}
			rows, err := db.QueryContext(t.Context(), "SELECT idx, req, solo FROM spans ORDER BY idx")
			if err != nil {
				t.Fatal(err)
			}
			var keys []keyRow
			for rows.Next() {
				var r keyRow
				if err := rows.Scan(&r.idx, &r.req, &r.solo); err != nil {
					t.Fatal(err)
				}
				keys = append(keys, r)
			}
			if err := errors.Join(rows.Err(), rows.Close()); err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(keys, c.keys) {
				t.Errorf("spans (idx, req, solo) = %v, want %v", keys, c.keys)
			}

			st := &runState{t0: 0, t1: 100, width: 1000}
			if err := a.runNamed(st, "span_facts", "request_facts", "request_ties"); err != nil {
				t.Fatal(err)
			}
			// c's retry is unlinked only if no first attempt lacks an id.
			var unlinked int64
			err = db.QueryRowContext(t.Context(), "SELECT unlinked_retries FROM ("+strings.TrimSuffix(strings.TrimSpace(query("quality_spans")), ";")+")",
				sql.Named("t0", st.t0), sql.Named("t1", st.t1)).Scan(&unlinked)
			if err != nil {
				t.Fatal(err)
			}
			if unlinked != 0 {
				t.Errorf("unlinked_retries = %d, want 0", unlinked)
			}
			if err := a.runNamed(st, "params_events", "logical_requests", "win_events"); err != nil {
				t.Fatal(err)
			}
			var arrivals, completed, requests int64
			err = db.QueryRowContext(t.Context(), "SELECT sum(arrivals), sum(completed_arrivals), sum(requests) FROM win_events").
				Scan(&arrivals, &completed, &requests)
			if err != nil {
				t.Fatal(err)
			}
			// Four requests: the one without an id, b, c and d.
			if arrivals != c.arrivals || completed != c.completed || requests != 4 {
				t.Errorf("arrivals, completed arrivals, requests = %d, %d, %d; want %d, %d, 4",
					arrivals, completed, requests, c.arrivals, c.completed)
			}
		})
	}
}
