package analyze

import (
	"context"
	"database/sql"
	"fmt"
	"path/filepath"
	"slices"
	"time"

	"github.com/tpsreport/tpsreport/internal/dataset"
	"github.com/tpsreport/tpsreport/schemas"
)

// disaggregation reads a run's stages (stages.parquet) into summary.json's
// disaggregation: each attempt's latency budget, its parts' distributions,
// the median and p95 attempts' budgets, and the state of each worker and
// worker role over the run extent (docs/metrics.md "Disaggregated
// serving"); and writes the same per window, budget.parquet and
// roles.parquet. The statements are the stage_* of queries/7-run.
func (a *analysis) disaggregation(st *runState) error {
	t0, t1 := sql.Named("t0", st.t0), sql.Named("t1", st.t1)
	width := sql.Named("width", st.width)
	run := func(name string, args ...any) error {
		if _, err := a.db.ExecContext(a.ctx, query(name), args...); err != nil {
			return fmt.Errorf("analyze %s: %w", name, err)
		}
		return nil
	}
	if err := run("stage_load", sql.Named("path", st.stagesPath)); err != nil {
		return err
	}
	if st.samplesPath != "" {
		if err := run("stage_caps", sql.Named("path", st.samplesPath)); err != nil {
			return err
		}
	} else if err := run("stage_caps_none"); err != nil {
		return err
	}
	for _, name := range []string{"stage_budget", "stage_steps"} {
		if err := run(name, t0, t1); err != nil {
			return err
		}
	}
	if err := run("stage_role_steps"); err != nil {
		return err
	}
	d := &schemas.Disaggregation{Budget: map[string]schemas.Percentiles{}, Roles: []schemas.RoleState{}, Workers: []schemas.WorkerState{}}
	whole := sql.Named("whole", true)
	if err := a.budgetRun(d, t0, t1, width, whole); err != nil {
		return err
	}
	if err := a.kvBytes(d); err != nil {
		return err
	}
	if err := a.loggedParts(d); err != nil {
		return err
	}
	var err error
	if d.Median, err = a.budgetPick(0.5); err != nil {
		return err
	}
	if d.P95, err = a.budgetPick(0.95); err != nil {
		return err
	}
	if err := a.workerStates(d, float64(st.t1-st.t0)/1e6); err != nil {
		return err
	}
	if d.Roles, err = a.roleStates(t0, t1, width, whole); err != nil {
		return err
	}
	if st.durations == 0 {
		windows := sql.Named("whole", false)
		if err := a.copyRows("stage_budget_run", filepath.Join(st.tmpDir, schemas.BudgetFile), "", t0, t1, width, windows); err != nil {
			return err
		}
		if err := a.copyRows("stage_role_state", filepath.Join(st.tmpDir, schemas.RolesFile), "", t0, t1, width, windows); err != nil {
			return err
		}
	}
	st.disagg = d
	return nil
}

// budgetRun reads the parts' distributions over the run (stage_budget_run).
func (a *analysis) budgetRun(d *schemas.Disaggregation, args ...any) error {
	rows, err := a.db.QueryContext(a.ctx, query("stage_budget_run"), args...)
	if err != nil {
		return fmt.Errorf("analyze stage_budget_run: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var lo, hi time.Time
		var part string
		p, dst := scanPercentiles()
		if err := rows.Scan(append([]any{&lo, &hi, &part}, dst...)...); err != nil {
			return fmt.Errorf("analyze stage_budget_run: %w", err)
		}
		if part == "extent" {
			d.Extent = p.get()
			d.Attempts = d.Extent.N
		} else {
			d.Budget[part] = p.get()
		}
	}
	return rows.Err()
}

// loggedParts reads which parts of the budget some stage logs
// (stage_logged), in schemas.BudgetParts order.
func (a *analysis) loggedParts(d *schemas.Disaggregation) error {
	rows, err := a.db.QueryContext(a.ctx, query("stage_logged"))
	if err != nil {
		return fmt.Errorf("analyze stage_logged: %w", err)
	}
	defer rows.Close()
	seen := map[string]bool{}
	for rows.Next() {
		var part string
		if err := rows.Scan(&part); err != nil {
			return fmt.Errorf("analyze stage_logged: %w", err)
		}
		seen[part] = true
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("analyze stage_logged: %w", err)
	}
	d.Logged = []string{}
	for _, p := range schemas.BudgetParts {
		if seen[p] {
			d.Logged = append(d.Logged, p)
		}
	}
	return nil
}

// kvBytes reads the distribution of the KV transfers' bytes, where logged.
func (a *analysis) kvBytes(d *schemas.Disaggregation) error {
	p, dst := scanPercentiles()
	err := a.db.QueryRowContext(a.ctx, query("stage_kv_bytes")).Scan(dst...)
	if err == sql.ErrNoRows {
		return nil
	}
	if err != nil {
		return fmt.Errorf("analyze stage_kv_bytes: %w", err)
	}
	v := p.get()
	d.KVTransferBytes = &v
	return nil
}

// scannedPercentiles receives a percentile object's columns n, p50, p90,
// p95, p99, mean, max.
type scannedPercentiles struct {
	n int64
	v [6]sql.NullFloat64
}

func scanPercentiles() (*scannedPercentiles, []any) {
	p := &scannedPercentiles{}
	dst := []any{&p.n}
	for i := range p.v {
		dst = append(dst, &p.v[i])
	}
	return p, dst
}

func (p *scannedPercentiles) get() schemas.Percentiles {
	out := schemas.Percentiles{N: p.n}
	for i, dst := range []**float64{&out.P50, &out.P90, &out.P95, &out.P99, &out.Mean, &out.Max} {
		if p.v[i].Valid {
			*dst = ptr(p.v[i].Float64)
		}
	}
	return out
}

// budgetPick reads the budget of the attempt nearest the quantile q of the
// extents; none without attempts.
func (a *analysis) budgetPick(q float64) (schemas.BudgetRequest, error) {
	var r schemas.BudgetRequest
	var extent int64
	parts := make([]int64, len(schemas.BudgetParts))
	dst := []any{&r.RequestID, &r.Attempt, &extent}
	for i := range parts {
		dst = append(dst, &parts[i])
	}
	err := a.db.QueryRowContext(a.ctx, query("stage_budget_pick"), sql.Named("q", q)).Scan(dst...)
	if err == sql.ErrNoRows {
		return r, nil
	}
	if err != nil {
		return r, fmt.Errorf("analyze stage_budget_pick: %w", err)
	}
	r.Extent = float64(extent) / 1e6
	r.Parts = map[string]float64{}
	for i, name := range schemas.BudgetParts {
		r.Parts[name] = float64(parts[i]) / 1e6
	}
	return r, nil
}

// workerStates reads each worker's state over the run (stage_worker_state),
// in the order of schemas.WorkerRoles, then by name.
func (a *analysis) workerStates(d *schemas.Disaggregation, secs float64) error {
	rows, err := a.db.QueryContext(a.ctx, query("stage_worker_state"))
	if err != nil {
		return fmt.Errorf("analyze stage_worker_state: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var w schemas.WorkerState
		var logged bool
		var busy, queue float64
		var gap int64
		if err := rows.Scan(&w.Replica, &w.Role, &w.Cap, &logged, &w.Attempts, &busy, &queue, &gap); err != nil {
			return fmt.Errorf("analyze stage_worker_state: %w", err)
		}
		w.CapSource = CapInferred
		if logged {
			w.CapSource = CapFromSamples
		}
		w.GapTime = float64(gap) / 1e6
		if secs > 0 {
			w.MeanQueue = queue / 1e6 / secs
			if w.Cap > 0 {
				w.Utilization = ptr(busy / 1e6 / secs / float64(w.Cap))
			}
		}
		d.Workers = append(d.Workers, w)
	}
	if err := rows.Err(); err != nil {
		return err
	}
	slices.SortStableFunc(d.Workers, func(x, y schemas.WorkerState) int {
		return roleRank(x.Role) - roleRank(y.Role)
	})
	return nil
}

// roleStates reads each role's state over the run (stage_role_state), in
// the order of schemas.WorkerRoles.
func (a *analysis) roleStates(args ...any) ([]schemas.RoleState, error) {
	rows, err := a.db.QueryContext(a.ctx, query("stage_role_state"), args...)
	if err != nil {
		return nil, fmt.Errorf("analyze stage_role_state: %w", err)
	}
	defer rows.Close()
	out := []schemas.RoleState{}
	for rows.Next() {
		var r schemas.RoleState
		var lo, hi time.Time
		var secs float64
		var util sql.NullFloat64
		if err := rows.Scan(&lo, &hi, &secs, &r.Role, &r.Workers, &r.Slots, &util, &r.MeanQueue, &r.GapTime, &r.GapFraction,
			&r.HeldTime, &r.HeldFraction, &r.RouterTime, &r.RouterShare, &r.IdleFraction, &r.BacklogOtherFree, &r.BacklogOtherFreeFraction); err != nil {
			return nil, fmt.Errorf("analyze stage_role_state: %w", err)
		}
		if util.Valid {
			r.Utilization = ptr(util.Float64)
		}
		out = append(out, r)
	}
	return out, rows.Err()
}

// roleRank orders worker roles as schemas.WorkerRoles does, any other last.
func roleRank(role string) int {
	if i := slices.Index(schemas.WorkerRoles, role); i >= 0 {
		return i
	}
	return len(schemas.WorkerRoles)
}

// LoadDisagg reads budget.parquet and roles.parquet of an analysed run with
// stages, in their order; nil, nil and no error for a run without them.
func LoadDisagg(ctx context.Context, dir string) ([]schemas.BudgetWindow, []schemas.RoleWindow, error) {
	man, err := readManifest(dir)
	if err != nil {
		return nil, nil, err
	}
	if err := dataset.Verify(dir, &man, analyzeHint(dir), schemas.BudgetFile, schemas.RolesFile); err != nil {
		return nil, nil, err
	}
	budgetPath, rolesPath := filepath.Join(dir, schemas.BudgetFile), filepath.Join(dir, schemas.RolesFile)
	if !fileExists(budgetPath) || !fileExists(rolesPath) {
		return nil, nil, nil
	}
	sqldb, conns, err := openDB(ctx, "", 1, memoryLimit)
	if err != nil {
		return nil, nil, err
	}
	defer sqldb.Close()
	db := conns[0]
	defer db.Close()

	var budget []schemas.BudgetWindow
	rows, err := db.QueryContext(ctx, query("load_budget"), budgetPath)
	if err != nil {
		return nil, nil, fmt.Errorf("read %s: %w", budgetPath, err)
	}
	for rows.Next() {
		var b schemas.BudgetWindow
		var lo, hi int64
		p, dst := scanPercentiles()
		if err := rows.Scan(append([]any{&lo, &hi, &b.Part}, dst...)...); err != nil {
			rows.Close()
			return nil, nil, fmt.Errorf("read %s: %w", budgetPath, err)
		}
		b.WindowStart, b.WindowEnd, b.Percentiles = schemas.Time(lo), schemas.Time(hi), p.get()
		budget = append(budget, b)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, nil, fmt.Errorf("read %s: %w", budgetPath, err)
	}

	var roles []schemas.RoleWindow
	if rows, err = db.QueryContext(ctx, query("load_roles"), rolesPath); err != nil {
		return nil, nil, fmt.Errorf("read %s: %w", rolesPath, err)
	}
	defer rows.Close()
	for rows.Next() {
		var w schemas.RoleWindow
		var lo, hi int64
		var util sql.NullFloat64
		r := &w.RoleState
		if err := rows.Scan(&lo, &hi, &w.WindowSeconds, &r.Role, &r.Workers, &r.Slots, &util, &r.MeanQueue, &r.GapTime, &r.GapFraction,
			&r.HeldTime, &r.HeldFraction, &r.RouterTime, &r.RouterShare, &r.IdleFraction, &r.BacklogOtherFree, &r.BacklogOtherFreeFraction); err != nil {
			return nil, nil, fmt.Errorf("read %s: %w", rolesPath, err)
		}
		w.WindowStart, w.WindowEnd = schemas.Time(lo), schemas.Time(hi)
		if util.Valid {
			r.Utilization = ptr(util.Float64)
		}
		roles = append(roles, w)
	}
	return budget, roles, rows.Err()
}
