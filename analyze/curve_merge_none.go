//go:build !duckdb_arrow

package analyze

import "errors"

// curveMerge: a build without DuckDB's Arrow interface (the duckdb_arrow
// tag) cannot stream the merge to DuckDB (curve_merge.go), so the
// concurrency curve comes from curve_conc.sql's ASOF join: the same values,
// slower.
const curveMerge = false

// curveConcMerged is never run in this build (the condition merged never
// holds).
func (a *analysis) curveConcMerged(*runState) error {
	return errors.New("analyze curve_conc: this build has no Arrow interface (build with -tags duckdb_arrow)")
}
