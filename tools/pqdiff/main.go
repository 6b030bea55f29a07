// Command pqdiff compares the rows of two Parquet files, in order: the same
// columns with the same types, and row i of one equal to row i of the other
// (NULL equal to NULL). Two files DuckDB or a splice wrote differently can
// hold the same table; scripts/analyze-identical.sh uses it when the bytes
// differ.
//
//	go run ./tools/pqdiff A.parquet B.parquet
//
// It exits 0 when the rows are the same, 1 when they differ (saying how), 2
// on an error.
package main

import (
	"database/sql"
	"fmt"
	"os"
	"strings"

	_ "github.com/duckdb/duckdb-go/v2"
)

func main() {
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: pqdiff A.parquet B.parquet")
		os.Exit(2)
	}
	same, why, err := compare(os.Args[1], os.Args[2])
	if err != nil {
		fmt.Fprintln(os.Stderr, "pqdiff:", err)
		os.Exit(2)
	}
	if !same {
		fmt.Println(why)
		os.Exit(1)
	}
}

// compare reports whether the files at a and b hold the same rows in the same
// order, and if not, why not.
func compare(a, b string) (bool, string, error) {
	db, err := sql.Open("duckdb", "")
	if err != nil {
		return false, "", err
	}
	defer db.Close()
	read := func(p string) string {
		return "read_parquet('" + strings.ReplaceAll(p, "'", "''") + "', file_row_number = true, hive_partitioning = false)"
	}
	schema := func(p string) (string, error) {
		rows, err := db.Query("SELECT column_name || ' ' || column_type FROM (DESCRIBE SELECT * FROM " + read(p) + ")")
		if err != nil {
			return "", err
		}
		defer rows.Close()
		var cols []string
		for rows.Next() {
			var c string
			if err := rows.Scan(&c); err != nil {
				return "", err
			}
			cols = append(cols, c)
		}
		return strings.Join(cols, ", "), rows.Err()
	}
	sa, err := schema(a)
	if err != nil {
		return false, "", err
	}
	sb, err := schema(b)
	if err != nil {
		return false, "", err
	}
	if sa != sb {
		return false, fmt.Sprintf("columns differ:\n  %s\n  %s", sa, sb), nil
	}
	var na, nb int64
	if err := db.QueryRow("SELECT (SELECT count(*) FROM "+read(a)+"), (SELECT count(*) FROM "+read(b)+")").Scan(&na, &nb); err != nil {
		return false, "", err
	}
	if na != nb {
		return false, fmt.Sprintf("%d rows against %d", na, nb), nil
	}
	var first sql.NullInt64
	var n int64
	q := "SELECT min(x.file_row_number), count(*) FROM " + read(a) + " x JOIN " + read(b) +
		" y ON x.file_row_number = y.file_row_number WHERE x IS DISTINCT FROM y"
	if err := db.QueryRow(q).Scan(&first, &n); err != nil {
		return false, "", err
	}
	if n > 0 {
		return false, fmt.Sprintf("%d of %d rows differ, the first at row %d", n, na, first.Int64), nil
	}
	return true, "", nil
}
