package main

import (
	"database/sql"
	"path/filepath"
	"strings"
	"testing"
)

// TestCompare: the same rows written twice with different encodings compare
// equal; a changed value, a missing row, rows in another order and a column
// of another type do not, and the reason says which.
func TestCompare(t *testing.T) {
	db, err := sql.Open("duckdb", "")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	dir := t.TempDir()
	write := func(name, query, opts string) string {
		p := filepath.Join(dir, name)
		if _, err := db.Exec("COPY (" + query + ") TO '" + p + "' (FORMAT parquet" + opts + ")"); err != nil {
			t.Fatal(err)
		}
		return p
	}
	rows := "SELECT i, 'id-' || i AS s, CASE WHEN i % 7 = 0 THEN NULL ELSE i / 3 END AS d FROM range(1000) t(i)"
	base := write("base.parquet", rows, "")
	cases := []struct {
		name, query, opts, why string
	}{
		{"recoded", rows, ", COMPRESSION uncompressed, ROW_GROUP_SIZE 100", ""},
		{"changed", "SELECT i, 'id-' || i AS s, CASE WHEN i = 500 THEN 1 WHEN i % 7 = 0 THEN NULL ELSE i / 3 END AS d FROM range(1000) t(i)", "", "1 of 1000 rows differ, the first at row 500"},
		{"null", "SELECT i, 'id-' || i AS s, CASE WHEN i % 7 = 0 OR i = 1 THEN NULL ELSE i / 3 END AS d FROM range(1000) t(i)", "", "1 of 1000 rows differ, the first at row 1"},
		{"short", rows + " LIMIT 999", "", "1000 rows against 999"},
		{"reordered", rows + " ORDER BY i DESC", "", "1000 of 1000 rows differ, the first at row 0"},
		{"retyped", "SELECT i::INTEGER AS i, 'id-' || i AS s, CASE WHEN i % 7 = 0 THEN NULL ELSE i / 3 END AS d FROM range(1000) t(i)", "", "columns differ"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			same, why, err := compare(base, write(tc.name+".parquet", tc.query, tc.opts))
			if err != nil {
				t.Fatal(err)
			}
			if same != (tc.why == "") || !strings.HasPrefix(why, tc.why) {
				t.Errorf("same %v, %q; want %v, %q", same, why, tc.why == "", tc.why)
			}
		})
	}
}
