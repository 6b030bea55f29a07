package analyze

import (
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"math/bits"

	"github.com/tpsreport/tpsreport/schemas"
)

// extent finds the run extent (or takes --from/--to) and checks the window
// count it gives.
func (a *analysis) extent(st *runState) error {
	var t0, t1 sql.NullInt64
	if err := a.db.QueryRowContext(a.ctx, query("extent")).Scan(&t0, &t1); err != nil {
		return fmt.Errorf("analyze extent: %w", err)
	}
	if !t0.Valid && st.stagesPath != "" {
		// Stages without a span: their own time is the run's.
		if err := a.db.QueryRowContext(a.ctx, query("stage_extent"), sql.Named("path", st.stagesPath)).Scan(&t0, &t1); err != nil {
			return fmt.Errorf("analyze stage_extent: %w", err)
		}
	}
	if st.opt.From != nil {
		t0 = sql.NullInt64{Int64: schemas.Micros(*st.opt.From), Valid: true}
		t1 = sql.NullInt64{Int64: schemas.Micros(*st.opt.To), Valid: true}
	}
	// With no instant at all there is no extent: write empty tables and NULL metrics.
	st.noExtent = !t0.Valid
	if st.noExtent {
		t0 = sql.NullInt64{Int64: 0, Valid: true}
		t1 = t0
	}
	st.t0, st.t1 = t0.Int64, t1.Int64
	return checkWindowCount(st.t0, st.t1, st.width)
}

// latencyKey is the packing of latencies_out's sort key: ttft_req_us above
// the low e2eBits bits, e2e_req_us in them, and a NULL of either as
// ttftNull or e2eNull, each above every value of its field.
type latencyKey struct {
	e2eBits           int
	ttftNull, e2eNull int64
}

// latencyKey sizes latencies_out's sort key from the delivered requests'
// latencies (latency_bits). latencies.parquet is ordered by completion, then
// by ttft_req_us, e2e_req_us and tpot_req: four keys of 9 bytes (a value and
// its NULL byte) pass the 32 bytes of DuckDB's fixed-size sort keys, which
// makes the sort slower (BENCHMARKS.md). When the two latencies fit one
// BIGINT side by side, latencies_out orders by that one key in their place;
// else latencies_out_wide keeps the four.
func (a *analysis) latencyKey(st *runState) error {
	var minT, maxT, minE, maxE sql.NullInt64
	if err := a.db.QueryRowContext(a.ctx, query("latency_bits")).Scan(&minT, &maxT, &minE, &maxE); err != nil {
		return fmt.Errorf("analyze latency_bits: %w", err)
	}
	st.latencyKey = packLatencies(minT, maxT, minE, maxE)
	return nil
}

// packLatencies sizes the packed key for ttft_req_us in [minT, maxT] and
// e2e_req_us in [minE, maxE] (NULL bounds: no value): each field holds its
// largest value and, above it, its NULL, and both fit 63 bits, so that the
// key is a BIGINT ≥ 0 whose order is that of the two, NULLS LAST. nil when
// they do not fit, or when a latency is negative (which ttft_us and
// t_total_us never give).
func packLatencies(minT, maxT, minE, maxE sql.NullInt64) *latencyKey {
	if minT.Int64 < 0 || minE.Int64 < 0 {
		return nil
	}
	// Len64(max + 1) bits hold max + 1, the NULL, with max < 2^63.
	bt, be := bits.Len64(uint64(maxT.Int64)+1), bits.Len64(uint64(maxE.Int64)+1)
	if bt+be > 63 {
		return nil
	}
	return &latencyKey{e2eBits: be, ttftNull: 1<<bt - 1, e2eNull: 1<<be - 1}
}

// runMix holds the offered load and the token mix of the run (run_mix.sql).
type runMix struct {
	first, last     sql.NullInt64 // attempt-0 arrivals, µs
	arrivals        int64
	meanIn, meanOut sql.NullFloat64
}

// runMix reads the offered load and the token mix.
func (a *analysis) runMix(st *runState) error {
	m := &st.mix
	err := a.db.QueryRowContext(a.ctx, query("run_mix"), sql.Named("t0", st.t0), sql.Named("t1", st.t1)).Scan(
		&m.first, &m.last, &m.arrivals, &m.meanIn, &m.meanOut)
	if err != nil {
		return fmt.Errorf("analyze run_mix: %w", err)
	}
	return nil
}

// into sets the summary's offered load (arrivals over the arrival span: a
// run that drains the same traffic sooner offers the same load) and token mix.
func (m runMix) into(sum *schemas.Summary) {
	if m.first.Valid && m.last.Valid && m.last.Int64 > m.first.Int64 {
		sum.ArrivalSpan = float64(m.last.Int64-m.first.Int64) / 1e6
		sum.OfferedRate = ptr(float64(m.arrivals) / sum.ArrivalSpan)
	}
	if m.meanIn.Valid {
		sum.MeanInputTokens = ptr(m.meanIn.Float64)
	}
	if m.meanOut.Valid {
		sum.MeanOutputTokens = ptr(m.meanOut.Float64)
	}
}

// spansRunID takes the run's id from its spans.
func (a *analysis) spansRunID(st *runState) error {
	if err := a.db.QueryRowContext(a.ctx, query("run_id")).Scan(&st.runID); err != nil {
		return fmt.Errorf("analyze run_id: %w", err)
	}
	return nil
}

// spanFacts reads whether some span has no attempt number.
func (a *analysis) spanFacts(st *runState) error {
	if err := a.db.QueryRowContext(a.ctx, query("span_facts")).Scan(&st.unnumbered); err != nil {
		return fmt.Errorf("analyze span_facts: %w", err)
	}
	return nil
}

// replicaCount counts the replicas the state is swept over, and those the
// spans name.
func (a *analysis) replicaCount(st *runState) error {
	if err := a.db.QueryRowContext(a.ctx, query("replica_count")).Scan(&st.replicaCount, &st.namedReplicas); err != nil {
		return fmt.Errorf("analyze replica_count: %w", err)
	}
	return nil
}

// resolveCaps resolves the cap of every replica and loads them into the caps
// table.
func (a *analysis) resolveCaps(st *runState) (err error) {
	st.caps, err = a.caps(st.opt.Cap, st.man)
	return err
}

func (a *analysis) caps(flag *int64, man schemas.Manifest) (resolvedCaps, error) {
	rows, err := a.db.QueryContext(a.ctx, query("replicas"))
	if err != nil {
		return resolvedCaps{}, fmt.Errorf("analyze replicas: %w", err)
	}
	defer rows.Close()
	var reps []replicaFacts
	for rows.Next() {
		var f replicaFacts
		var sc sql.NullInt64
		if err := rows.Scan(&f.Name, &f.InSpans, &sc, &f.MaxInFlight); err != nil {
			return resolvedCaps{}, fmt.Errorf("analyze replicas: %w", err)
		}
		if sc.Valid {
			f.SampleCap = &sc.Int64
		}
		reps = append(reps, f)
	}
	if err := rows.Err(); err != nil {
		return resolvedCaps{}, fmt.Errorf("analyze replicas: %w", err)
	}
	rc := resolveCaps(reps, capInputs{Flag: flag, Logs: man.MaxNumSeqs, LogsByName: man.MaxNumSeqsBy})
	if len(reps) == 0 {
		rc.Source = CapInferred
		if flag != nil {
			rc.Source, rc.Pool = CapFromFlag, *flag
		}
	}
	names := make([]string, 0, len(rc.Names))
	vals := make([]int64, 0, len(rc.Names))
	for _, n := range rc.Names {
		names = append(names, n)
		vals = append(vals, rc.ByReplica[n])
	}
	if _, err := a.db.ExecContext(a.ctx, query("caps"), sql.Named("names", names), sql.Named("caps", vals)); err != nil {
		return resolvedCaps{}, fmt.Errorf("analyze caps: %w", err)
	}
	return rc, nil
}

// located finds whether some span knows where it waited (the gap
// attribution's sweep runs only then), and whether a span that names no
// replica has a step of state (the condition pooled).
func (a *analysis) located(st *runState) error {
	if err := a.db.QueryRowContext(a.ctx, query("located")).Scan(&st.located, &st.unnamedSteps); err != nil {
		return fmt.Errorf("analyze located: %w", err)
	}
	return nil
}

// replicaStates reads each replica's state over the run (summary.json's
// replicas, when there are two or more).
func (a *analysis) replicaStates(st *runState) error {
	rows, err := a.db.QueryContext(a.ctx, query("replica_state"))
	if err != nil {
		return fmt.Errorf("analyze replica_state: %w", err)
	}
	defer rows.Close()
	secs := float64(st.t1-st.t0) / 1e6
	var out []schemas.ReplicaState
	for rows.Next() {
		var rs schemas.ReplicaState
		var capv, backlog, gap, engine, admission, unattributed int64
		var inf, qd float64
		if err := rows.Scan(&rs.Replica, &capv, &backlog, &gap, &inf, &qd, &engine, &admission, &unattributed); err != nil {
			return fmt.Errorf("analyze replica_state: %w", err)
		}
		rs.Cap = &capv
		rs.BacklogTime = float64(backlog) / 1e6
		rs.GapTime = float64(gap) / 1e6
		rs.EngineGapTime = float64(engine) / 1e6
		rs.AdmissionGapTime = float64(admission) / 1e6
		rs.UnattributedGapTime = float64(unattributed) / 1e6
		if secs > 0 {
			rs.GapFraction = ptr(rs.GapTime / secs)
			rs.MeanInFlight = ptr(inf / 1e6 / secs)
			rs.MeanQueueDepth = ptr(qd / 1e6 / secs)
			if capv > 0 {
				rs.Utilization = ptr(*rs.MeanInFlight / float64(capv))
			}
		}
		out = append(out, rs)
	}
	if err := rows.Err(); err != nil {
		return err
	}
	if len(out) >= 2 {
		st.replicas = out
	}
	return nil
}

// curves reads curves.json from curve_values over the run extent.
func (a *analysis) curves(st *runState) error {
	var s string
	if err := a.db.QueryRowContext(a.ctx, query("curves")).Scan(&s); err != nil {
		return fmt.Errorf("analyze curves: %w", err)
	}
	var c schemas.Curves
	if err := json.Unmarshal([]byte(s), &c); err != nil {
		return fmt.Errorf("analyze curves: %w", err)
	}
	if c.Concurrency == nil {
		c.Concurrency = []schemas.ConcurrencyPoint{}
	}
	st.curves = c
	return nil
}

// curveConcDone releases the merged curve's stream (curveConcMerged) once
// curves has read it, with the merge's error, if any.
func (a *analysis) curveConcDone(st *runState) error {
	release := st.curveRelease
	st.curveRelease = nil
	if release == nil {
		return errors.New("analyze curve_conc_done: no merged curve")
	}
	if err := release(); err != nil {
		return fmt.Errorf("analyze curve_conc: %w", err)
	}
	return nil
}
