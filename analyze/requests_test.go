package analyze

import (
	"database/sql"
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/tpsreport/tpsreport/schemas"
)

// readRequests reads requests.parquet of dir back with DuckDB, keyed by span_id.
func readRequests(t testing.TB, dir string) map[string]map[string]any {
	t.Helper()
	db := testDB(t)
	rows, err := db.QueryContext(t.Context(), `SELECT span_id, to_json(x)::VARCHAR FROM read_parquet(?) x`, filepath.Join(dir, schemas.RequestsFile))
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	out := map[string]map[string]any{}
	for rows.Next() {
		var id sql.NullString
		var js string
		if err := rows.Scan(&id, &js); err != nil {
			t.Fatal(err)
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(js), &m); err != nil {
			t.Fatal(err)
		}
		out[id.String] = m
	}
	return out
}

// readRequestList reads requests.parquet of dir in row order.
func readRequestList(t testing.TB, dir string) []map[string]any {
	t.Helper()
	db := testDB(t)
	rows, err := db.QueryContext(t.Context(), `SELECT to_json(x)::VARCHAR FROM read_parquet(?) x`, filepath.Join(dir, schemas.RequestsFile))
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []map[string]any
	for rows.Next() {
		var js string
		if err := rows.Scan(&js); err != nil {
			t.Fatal(err)
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(js), &m); err != nil {
			t.Fatal(err)
		}
		out = append(out, m)
	}
	return out
}
