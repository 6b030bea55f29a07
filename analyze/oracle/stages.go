package oracle

import (
	"cmp"
	"math"
	"slices"

	"github.com/tpsreport/tpsreport/schemas"
)

// StageResult is what docs/metrics.md "Disaggregated serving" derives from a
// run's stages: summary.json's disaggregation and the rows of budget.parquet
// and roles.parquet.
type StageResult struct {
	Disaggregation schemas.Disaggregation
	Budget         []schemas.BudgetWindow
	Roles          []schemas.RoleWindow
}

// Stages derives the disaggregation of stages over the run extent [t0, t1]
// with windows of width µs, each worker's cap the largest of its samples'
// (else the most it ran at once). It reads docs/metrics.md to the letter,
// by brute force: every measure is evaluated on each elementary interval
// between two consecutive instants any stage, window bound or the extent
// names, by counting the stages that cover the interval's start.
func Stages(stages []schemas.Stage, samples []schemas.Sample, t0, t1, width int64) StageResult {
	type key struct {
		id      string
		attempt int32
	}
	attemptOf := func(s schemas.Stage) key { return key{s.RequestID, deref(s.Attempt, 0)} }
	role := func(s schemas.Stage) string { return deref(s.Role, "") }
	rep := func(s schemas.Stage) string { return deref(s.Replica, "") }

	// The attempts, and the window of each attempt's end.
	byAttempt := map[key][]schemas.Stage{}
	for _, s := range stages {
		byAttempt[attemptOf(s)] = append(byAttempt[attemptOf(s)], s)
	}
	lastWin := t0 / width
	if t1 > t0 {
		lastWin = (t1 - 1) / width
	}
	type attempt struct {
		k      key
		end    int64
		extent int64
		parts  map[string]int64
	}
	var attempts []attempt
	loggedParts := map[string]bool{}
	for k, ss := range byAttempt {
		first, last := ss[0].StartedAt, ss[0].EndedAt
		for _, s := range ss {
			first, last = min(first, s.StartedAt), max(last, s.EndedAt)
		}
		if last < t0 || last > t1 {
			continue
		}
		a := attempt{k: k, end: last, extent: last - first, parts: map[string]int64{}}
		for _, s := range ss {
			a.parts[budgetPart(s)] += s.EndedAt - s.StartedAt
			loggedParts[budgetPart(s)] = true
		}
		// Choice: the union by merging the stages sorted by start.
		sorted := slices.Clone(ss)
		slices.SortFunc(sorted, func(x, y schemas.Stage) int { return cmp.Compare(x.StartedAt, y.StartedAt) })
		covered, curS, curE := int64(0), sorted[0].StartedAt, sorted[0].EndedAt
		for _, s := range sorted[1:] {
			if s.StartedAt > curE {
				covered += curE - curS
				curS, curE = s.StartedAt, s.EndedAt
				continue
			}
			curE = max(curE, s.EndedAt)
		}
		covered += curE - curS
		a.parts[schemas.BudgetUnaccounted] = a.extent - covered
		attempts = append(attempts, a)
	}
	slices.SortFunc(attempts, func(x, y attempt) int {
		return cmp.Or(cmp.Compare(x.k.id, y.k.id), cmp.Compare(x.k.attempt, y.k.attempt))
	})

	var out StageResult
	d := &out.Disaggregation
	d.Attempts = int64(len(attempts))
	dists := func(as []attempt) (map[string]schemas.Percentiles, schemas.Percentiles) {
		parts := map[string]schemas.Percentiles{}
		for _, p := range schemas.BudgetParts {
			var xs []float64
			for _, a := range as {
				xs = append(xs, seconds(a.parts[p]))
			}
			parts[p] = percentiles(xs)
		}
		var ext []float64
		for _, a := range as {
			ext = append(ext, seconds(a.extent))
		}
		return parts, percentiles(ext)
	}
	d.Budget, d.Extent = dists(attempts)
	d.Logged = []string{}
	for _, p := range schemas.BudgetParts {
		if loggedParts[p] {
			d.Logged = append(d.Logged, p)
		}
	}
	pick := func(q float64) schemas.BudgetRequest {
		if len(attempts) == 0 {
			return schemas.BudgetRequest{}
		}
		var ext []float64
		for _, a := range attempts {
			ext = append(ext, float64(a.extent))
		}
		slices.Sort(ext)
		v := quantile(ext, q)
		best := attempts[0]
		for _, a := range attempts[1:] { // in (request_id, attempt) order: the first nearest wins
			if math.Abs(float64(a.extent)-v) < math.Abs(float64(best.extent)-v) {
				best = a
			}
		}
		r := schemas.BudgetRequest{RequestID: best.k.id, Attempt: best.k.attempt, Extent: seconds(best.extent), Parts: map[string]float64{}}
		for _, p := range schemas.BudgetParts {
			r.Parts[p] = seconds(best.parts[p])
		}
		return r
	}
	d.Median, d.P95 = pick(0.5), pick(0.95)
	var bytes []float64
	for _, s := range stages {
		if s.Stage == schemas.StageKVTransfer && s.Bytes != nil && slices.ContainsFunc(attempts, func(a attempt) bool { return a.k == attemptOf(s) }) {
			bytes = append(bytes, float64(*s.Bytes))
		}
	}
	if len(bytes) > 0 {
		p := percentiles(bytes)
		d.KVTransferBytes = &p
	}
	byWin := map[int64][]attempt{}
	for _, a := range attempts {
		w := min(a.end/width, lastWin)
		byWin[w] = append(byWin[w], a)
	}

	// The workers: each attempt's slot interval there, its queue stages.
	type wkey struct{ rep, role string }
	type interval struct{ s, e int64 }
	occ := map[wkey][]interval{}
	queue := map[wkey][]interval{}
	ran := map[wkey]map[key]bool{}
	for k, ss := range byAttempt {
		span := map[wkey]interval{}
		for _, s := range ss {
			w := wkey{rep(s), role(s)}
			switch {
			case w.role == "":
			case s.Stage == schemas.StageQueue:
				queue[w] = append(queue[w], interval{s.StartedAt, s.EndedAt})
			case s.Stage == schemas.StagePrefill || s.Stage == schemas.StageKVTransfer || s.Stage == schemas.StageDecode:
				iv, ok := span[w]
				if !ok {
					iv = interval{s.StartedAt, s.EndedAt}
				}
				span[w] = interval{min(iv.s, s.StartedAt), max(iv.e, s.EndedAt)}
			}
		}
		for w, iv := range span {
			occ[w] = append(occ[w], iv)
			if ran[w] == nil {
				ran[w] = map[key]bool{}
			}
			ran[w][k] = true
		}
	}
	var workers []wkey
	for w := range occ {
		workers = append(workers, w)
	}
	for w := range queue {
		if _, ok := occ[w]; !ok {
			workers = append(workers, w)
		}
	}
	slices.SortFunc(workers, func(x, y wkey) int {
		return cmp.Or(cmp.Compare(roleOrder(x.role), roleOrder(y.role)), cmp.Compare(x.role, y.role), cmp.Compare(x.rep, y.rep))
	})
	count := func(ivs []interval, at int64) int64 {
		n := int64(0)
		for _, iv := range ivs {
			if iv.s <= at && at < iv.e {
				n++
			}
		}
		return n
	}
	caps := map[wkey]int64{}
	logged := map[wkey]bool{}
	for _, w := range workers {
		for _, sm := range samples {
			if deref(sm.Replica, "") == w.rep && sm.Cap != nil {
				caps[w] = max(caps[w], int64(*sm.Cap))
				logged[w] = true
			}
		}
		if !logged[w] {
			// Choice: the most it ran at once over all its time, not only
			// inside the extent, as the analysis infers it.
			for _, iv := range occ[w] {
				caps[w] = max(caps[w], count(occ[w], iv.s))
			}
		}
	}

	// The elementary intervals.
	cuts := []int64{t0, t1}
	for _, s := range stages {
		cuts = append(cuts, s.StartedAt, s.EndedAt)
	}
	for w := t0 / width; w <= lastWin+1; w++ {
		cuts = append(cuts, w*width)
	}
	slices.Sort(cuts)
	cuts = slices.Compact(cuts)

	type roleAcc struct {
		busy, queue                    float64
		gap, held, router, idle, other int64
	}
	type workerAcc struct {
		busy, queue float64
		gap         int64
	}
	wacc := map[wkey]*workerAcc{}
	racc := map[int64]map[string]*roleAcc{} // by window, -1 the run
	roles := map[string]bool{}
	for _, w := range workers {
		wacc[w] = &workerAcc{}
		roles[w.role] = true
	}
	for i := 0; i+1 < len(cuts); i++ {
		a, b := cuts[i], cuts[i+1]
		if a < t0 || b > t1 {
			continue
		}
		dt := b - a
		type rstate struct {
			busy, free, q int64
			held          bool
		}
		rs := map[string]*rstate{}
		for r := range roles {
			rs[r] = &rstate{}
		}
		for _, w := range workers {
			inf, q, c := count(occ[w], a), count(queue[w], a), caps[w]
			busy, free := min(inf, c), max(c-inf, 0)
			wa := wacc[w]
			wa.busy += float64(busy * dt)
			wa.queue += float64(q * dt)
			if q > 0 && inf < c {
				wa.gap += dt
			}
			r := rs[w.role]
			r.busy += busy
			r.free += free
			r.q += q
			r.held = r.held || q > 0 && free > 0
		}
		for _, win := range []int64{-1, a / width} {
			if racc[win] == nil {
				racc[win] = map[string]*roleAcc{}
			}
			for r, st := range rs {
				ra := racc[win][r]
				if ra == nil {
					ra = &roleAcc{}
					racc[win][r] = ra
				}
				ra.busy += float64(st.busy * dt)
				ra.queue += float64(st.q * dt)
				if st.q > 0 && st.free > 0 {
					ra.gap += dt
				}
				switch {
				case st.held:
					ra.held += dt
				case st.q > 0 && st.free > 0:
					ra.router += dt
				}
				if st.busy == 0 {
					ra.idle += dt
				}
				other := map[string]string{schemas.RolePrefill: schemas.RoleDecode, schemas.RoleDecode: schemas.RolePrefill}[r]
				if o, ok := rs[other]; ok && st.q > 0 && o.free > 0 && o.q == 0 {
					ra.other += dt
				}
			}
		}
	}
	runSecs := seconds(t1 - t0)
	d.Workers = []schemas.WorkerState{}
	for _, w := range workers {
		wa := wacc[w]
		ws := schemas.WorkerState{Replica: w.rep, Role: w.role, Cap: caps[w], CapSource: "inferred", Attempts: int64(len(ran[w])), GapTime: seconds(wa.gap)}
		if logged[w] {
			ws.CapSource = "samples"
		}
		if runSecs > 0 {
			ws.MeanQueue = wa.queue / 1e6 / runSecs
			if ws.Cap > 0 {
				ws.Utilization = ptr(wa.busy / 1e6 / runSecs / float64(ws.Cap))
			}
		}
		d.Workers = append(d.Workers, ws)
	}
	roleState := func(r string, ra *roleAcc, secs float64) schemas.RoleState {
		st := schemas.RoleState{Role: r}
		for _, w := range workers {
			if w.role == r {
				st.Workers++
				st.Slots += caps[w]
			}
		}
		if ra == nil {
			ra = &roleAcc{}
		}
		st.GapTime, st.HeldTime, st.RouterTime, st.BacklogOtherFree = seconds(ra.gap), seconds(ra.held), seconds(ra.router), seconds(ra.other)
		if secs > 0 {
			if st.Slots > 0 {
				st.Utilization = ptr(ra.busy / 1e6 / secs / float64(st.Slots))
			}
			st.MeanQueue = ra.queue / 1e6 / secs
			st.GapFraction, st.HeldFraction, st.RouterShare = st.GapTime/secs, st.HeldTime/secs, st.RouterTime/secs
			st.IdleFraction = seconds(ra.idle) / secs
			st.BacklogOtherFreeFraction = st.BacklogOtherFree / secs
		}
		return st
	}
	roleNames := make([]string, 0, len(roles))
	for r := range roles {
		roleNames = append(roleNames, r)
	}
	slices.SortFunc(roleNames, func(x, y string) int { return cmp.Or(cmp.Compare(roleOrder(x), roleOrder(y)), cmp.Compare(x, y)) })
	d.Roles = []schemas.RoleState{}
	if t1 > t0 {
		for _, r := range roleNames {
			d.Roles = append(d.Roles, roleState(r, racc[-1][r], runSecs))
		}
	}

	for w := t0 / width; w <= lastWin; w++ {
		lo, hi := max(w*width, t0), min((w+1)*width, t1)
		if as := byWin[w]; len(as) > 0 {
			parts, extent := dists(as)
			out.Budget = append(out.Budget, schemas.BudgetWindow{WindowStart: schemas.Time(lo), WindowEnd: schemas.Time(hi), Part: "extent", Percentiles: extent})
			for _, p := range schemas.BudgetParts {
				out.Budget = append(out.Budget, schemas.BudgetWindow{WindowStart: schemas.Time(lo), WindowEnd: schemas.Time(hi), Part: p, Percentiles: parts[p]})
			}
		}
		if hi <= lo {
			continue
		}
		for _, r := range roleNames {
			out.Roles = append(out.Roles, schemas.RoleWindow{WindowStart: schemas.Time(lo), WindowEnd: schemas.Time(hi),
				WindowSeconds: seconds(hi - lo), RoleState: roleState(r, racc[w][r], seconds(hi-lo))})
		}
	}
	return out
}

// budgetPart is the part of the latency budget a stage counts in.
func budgetPart(s schemas.Stage) string {
	switch s.Stage {
	case schemas.StageQueue:
		if deref(s.Role, "") == schemas.RoleDecode {
			return schemas.BudgetDecodeQueue
		}
		return schemas.BudgetPrefillQueue
	case schemas.StageGateway:
		return schemas.BudgetGateway
	case schemas.StageRouter:
		return schemas.BudgetRouter
	case schemas.StagePrefill:
		return schemas.BudgetPrefill
	case schemas.StageKVTransfer:
		return schemas.BudgetKVTransfer
	}
	return schemas.BudgetDecode
}

// roleOrder orders roles as schemas.WorkerRoles, any other after.
func roleOrder(r string) int {
	if i := slices.Index(schemas.WorkerRoles, r); i >= 0 {
		return i
	}
	return len(schemas.WorkerRoles)
}
