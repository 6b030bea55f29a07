package analyze

import (
	"testing"
)

// TestQuantilesContMatchesDuckDB: the quantiles_cont macro (queries/
// list_quantiles.sql), which the curves use for one sort instead of 101
// selections, gives exactly what DuckDB's own quantile_cont gives, on groups
// of every small size, with ties and NULLs.
func TestQuantilesContMatchesDuckDB(t *testing.T) {
	db := testDB(t)
	if _, err := db.ExecContext(t.Context(), query("list_quantiles")); err != nil {
		t.Fatal(err)
	}
	// Groups g of 0 to 40 values: random doubles, some repeated, some NULL.
	const q = `
WITH v AS (
    SELECT g, CASE WHEN hash(g, i) % 7 = 0 THEN NULL
                   WHEN hash(g, i) % 5 = 0 THEN 1.5
                   ELSE (hash(i, g) % 100000)::DOUBLE / 7.0 - 5000 END AS x
    FROM range(0, 41) g(g), range(0, 40) i(i) WHERE i < g
    UNION ALL SELECT 0, NULL
), per AS (
    SELECT g,
        quantile_cont(x, [0.0, 0.01, 0.1, 0.25, 0.333, 0.5, 0.9, 0.95, 0.99, 1.0]) AS want,
        quantiles_cont(list_sort(list(x) FILTER (WHERE x IS NOT NULL)),
            [0.0, 0.01, 0.1, 0.25, 0.333, 0.5, 0.9, 0.95, 0.99, 1.0]) AS got
    FROM v GROUP BY g
)
SELECT count(*), count(*) FILTER (WHERE got IS NOT DISTINCT FROM want), min(g) FILTER (WHERE got IS DISTINCT FROM want)
FROM per`
	var n, same int
	var first *int64
	if err := db.QueryRowContext(t.Context(), q).Scan(&n, &same, &first); err != nil {
		t.Fatal(err)
	}
	if n != 41 || same != n {
		t.Errorf("%d of %d groups agree; first that differs: %v", same, n, deref(first))
	}
}

func deref(p *int64) any {
	if p == nil {
		return nil
	}
	return *p
}
