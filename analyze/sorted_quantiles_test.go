package analyze

import (
	"testing"
)

// TestSortedQuantilesMatchesDuckDB: the sorted_quantiles macro (queries/
// sorted_quantiles.sql), which the curves use for 101 quantiles from the
// sorted distinct values instead of 101 selections, gives exactly what
// DuckDB's own quantile_cont gives, on groups of every small size, with ties
// and NULLs; a group of NULLs only has no row.
func TestSortedQuantilesMatchesDuckDB(t *testing.T) {
	db := testDB(t)
	if _, err := db.ExecContext(t.Context(), query("sorted_quantiles")); err != nil {
		t.Fatal(err)
	}
	// Groups (metric) of 0 to 40 values: random doubles, some repeated, some NULL.
	const setup = `
CREATE TABLE vals AS
SELECT g AS metric, CASE WHEN hash(g, i) % 7 = 0 THEN NULL
                    WHEN hash(g, i) % 5 = 0 THEN 1.5
                    ELSE (hash(i, g) % 100000)::DOUBLE / 7.0 - 5000 END AS v
FROM range(0, 41) g(g), range(0, 40) i(i) WHERE i < g
UNION ALL SELECT 0, NULL`
	if _, err := db.ExecContext(t.Context(), setup); err != nil {
		t.Fatal(err)
	}
	const q = `
WITH want AS (
    SELECT metric, quantile_cont(v, [0.0, 0.01, 0.1, 0.25, 0.333, 0.5, 0.9, 0.95, 0.99, 1.0]) AS want
    FROM vals GROUP BY metric
), got AS (
    SELECT * FROM sorted_quantiles('vals', [0.0, 0.01, 0.1, 0.25, 0.333, 0.5, 0.9, 0.95, 0.99, 1.0])
)
SELECT count(*), count(*) FILTER (WHERE got.qs IS NOT DISTINCT FROM want.want),
       min(metric) FILTER (WHERE got.qs IS DISTINCT FROM want.want),
       count(*) FILTER (WHERE want.want IS NULL AND got.metric IS NULL)
FROM want LEFT JOIN got USING (metric)`
	var n, same, empty int
	var first *int64
	if err := db.QueryRowContext(t.Context(), q).Scan(&n, &same, &first, &empty); err != nil {
		t.Fatal(err)
	}
	if n != 41 || same != n {
		t.Errorf("%d of %d groups agree; first that differs: %v", same, n, deref(first))
	}
	if empty == 0 {
		t.Error("no group without values: the test does not cover them")
	}
}

func deref(p *int64) any {
	if p == nil {
		return nil
	}
	return *p
}
