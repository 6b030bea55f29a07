package analyze

import (
	"bytes"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go"

	"github.com/tpsreport/tpsreport/schemas"
)

// TestJoinedFileFromParts: the joined spans' file the statements write holds
// row i of the gateway part beside row i of the engine part, in the file's
// column order, whether the parts' row groups line up (spliced from their
// column chunks) or not (written by DuckDB side by side), and the parts are
// gone afterwards.
func TestJoinedFileFromParts(t *testing.T) {
	for _, tc := range []struct {
		gatewayGroups int
		spliced       bool
	}{
		{122880, true},
		{2048, false},
	} {
		t.Run(fmt.Sprint(tc.gatewayGroups), func(t *testing.T) {
			db := testDB(t)
			var log bytes.Buffer
			a := &analysis{ctx: t.Context(), db: db, log: slog.New(slog.NewTextHandler(&log, &slog.HandlerOptions{Level: slog.LevelDebug}))}
			st := &runState{tmpDir: t.TempDir()}
			const n = 10000
			parts := []struct {
				file, cols string
				groups     int
			}{
				{joinedGatewayPart, `'run' AS run_id, 's' || i AS span_id, 'r' || (i // 2) AS request_id, NULL::VARCHAR AS retry_cause,
					CASE WHEN i % 3 = 0 THEN 'error' ELSE 'ok' END AS status, NULL::VARCHAR AS error, NULL::INTEGER AS http_status`, tc.gatewayGroups},
				{joinedEnginePart, `'litellm+vllm-otel' AS source, (i % 2)::INTEGER AS attempt, 'm' AS model, 'vllm-' || (i % 4) AS replica,
					make_timestamp(i * 1000000) AS queued_at, make_timestamp(i * 1000000 + 5) AS engine_arrived_at,
					make_timestamp(i * 1000000 + 10) AS admitted_at, make_timestamp(i * 1000000 + 20) AS first_token_at,
					make_timestamp(i * 1000000 + 30) AS last_token_at, make_timestamp(i * 1000000 + 40) AS released_at,
					i AS input_tokens, 2 * i AS output_tokens, NULL::BIGINT AS cached_tokens, NULL::BIGINT AS time_resolution_us,
					NULL::VARCHAR AS time_origin, i - 7 AS gw`, 122880},
			}
			for _, p := range parts {
				q := fmt.Sprintf("COPY (SELECT %s FROM range(%d) t(i)) TO '%s' (FORMAT parquet, ROW_GROUP_SIZE %d)", p.cols, n, filepath.Join(st.tmpDir, p.file), p.groups)
				if _, err := db.ExecContext(t.Context(), q); err != nil {
					t.Fatal(err)
				}
			}
			if err := a.joinParts(filepath.Join(st.tmpDir, joinedGatewayPart), filepath.Join(st.tmpDir, joinedEnginePart), filepath.Join(st.tmpDir, joinedFile)); err != nil {
				t.Fatal(err)
			}
			if got := !strings.Contains(log.String(), "joined spans written whole"); got != tc.spliced {
				t.Errorf("spliced %v, want %v", got, tc.spliced)
			}
			for _, p := range parts {
				if _, err := os.Stat(filepath.Join(st.tmpDir, p.file)); !os.IsNotExist(err) {
					t.Errorf("%s: still there (%v)", p.file, err)
				}
			}
			path := filepath.Join(st.tmpDir, joinedFile)
			var cols string
			if err := db.QueryRowContext(t.Context(), "SELECT string_agg(column_name, ',') FROM (DESCRIBE SELECT * FROM read_parquet(?))", path).Scan(&cols); err != nil {
				t.Fatal(err)
			}
			var want []string
			for _, c := range joinedColumns {
				want = append(want, c.Name)
			}
			if cols != strings.Join(want, ",") {
				t.Errorf("columns %s, want %s", cols, strings.Join(want, ","))
			}
			var bad, rows int64
			err := db.QueryRowContext(t.Context(), `
				SELECT count(*) FILTER (WHERE span_id <> 's' || file_row_number OR request_id <> 'r' || (file_row_number // 2)
					OR attempt <> file_row_number % 2 OR replica <> 'vllm-' || (file_row_number % 4)
					OR (status = 'error') <> (file_row_number % 3 = 0) OR epoch_us(released_at) <> file_row_number * 1000000 + 40
					OR output_tokens <> 2 * file_row_number OR gw <> file_row_number - 7),
					count(*)
				FROM read_parquet(?, file_row_number = true)`, path).Scan(&bad, &rows)
			if err != nil {
				t.Fatal(err)
			}
			if bad != 0 || rows != n {
				t.Errorf("%d of %d rows not row i of both parts (want %d rows)", bad, rows, n)
			}
		})
	}
}

// TestJoinedColumnsAreSpans: the joined spans' file has every column of
// spans.parquet, in its order, and gw: a column added to the spans reaches a
// joined run's analysis too.
func TestJoinedColumnsAreSpans(t *testing.T) {
	var want []string
	for _, f := range parquet.SchemaOf(schemas.Span{}).Fields() {
		want = append(want, f.Name())
	}
	want = append(want, "gw")
	var got []string
	for _, c := range joinedColumns {
		got = append(got, c.Name)
	}
	if !slices.Equal(got, want) {
		t.Errorf("joinedColumns %v, want spans.parquet's %v and gw", got, want)
	}
}
