//go:build !duckdb_arrow

package analyze

import (
	"errors"
	"fmt"
)

// A build without DuckDB's Arrow interface (the duckdb_arrow tag) cannot
// stream batches from Go to DuckDB: the concurrency curve comes from
// curve_conc.sql's ASOF join rather than the merge (curve_merge.go), and
// the pool's segments from state_events.sql and pool_segments.sql rather
// than the sweep (pool_sweep.go), and the attribution's from gap_steps.sql
// and gap_replica.sql rather than gap_sweep.go, and join_solo from join_solo.sql rather
// than join_solo.go, and the join's candidates from join_raw.sql,
// join_match.sql and join_cand.sql rather than join_go.go. The same values,
// slower.
const (
	curveMerge = false
	poolSweep  = false
	soloInGo   = false
	matchInGo  = false
)

var errNoArrow = errors.New("this build has no Arrow interface (build with -tags duckdb_arrow)")

// curveConcMerged is never run in this build (the condition merged never
// holds).
func (a *analysis) curveConcMerged(*runState) error {
	return fmt.Errorf("analyze curve_conc: %w", errNoArrow)
}

// poolSweepSegments is never run in this build (the condition swept never
// holds).
func (a *analysis) poolSweepSegments(*runState) error {
	return fmt.Errorf("analyze pool_sweep: %w", errNoArrow)
}

// gapSweepSegments is never run in this build (the condition swept never
// holds).
func (a *analysis) gapSweepSegments(*runState) error {
	return fmt.Errorf("analyze gap_sweep: %w", errNoArrow)
}

// storeReplicaGroups is never run in this build (the condition swept never
// holds).
func (a *analysis) storeReplicaGroups(*runState) error {
	return fmt.Errorf("analyze replica_segments_swept: %w", errNoArrow)
}

// joinSoloGo is never run in this build (the condition soloed never
// holds).
func (a *analysis) joinSoloGo(*runState) error {
	return fmt.Errorf("analyze join_solo: %w", errNoArrow)
}

// joinGo is never run in this build (the condition matched never holds).
func (a *analysis) joinGo(*runState) error {
	return fmt.Errorf("analyze join_go: %w", errNoArrow)
}
