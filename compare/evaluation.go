package compare

import (
	"context"
	"fmt"
	"math"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/tpsreport/tpsreport/internal/numfmt"
	"github.com/tpsreport/tpsreport/schemas"
)

// BootstrapMethod names the resampling in verdict.json (docs/acceptance.md
// "How the intervals are made").
const BootstrapMethod = "circular block bootstrap of windows, runs resampled when several; t interval; Bonferroni over the criteria judged"

// evaluation holds what every criterion of one comparison reads.
type evaluation struct {
	c          schemas.Criteria
	k          int // criteria judged
	base, cand side
	bb, cb     int // backlog windows of each side
	bsel, csel []selection
	bSLO, cSLO *schemas.SLO
	sloGuard   string
	// causesMoved says that some cause of the idle time rose while the
	// whole fell: the gap reason then does not claim the idle time went.
	causesMoved bool
	thrRatio    *float64 // the throughput ratio, for the retry reason
	// paired resamples the sides together (a canary: pairedSpread).
	paired bool

	judged map[string]judged // measure's judgements, by criterion
}

// judged is a criterion's judgement and whether it has one (judge's ok).
type judged struct {
	j  judgement
	ok bool
}

// measure judges every criterion of defs that has numbers to judge, side
// by side on the machine's cores: each resamples on a random stream of its
// own, so the verdict is the same whatever their order.
func (e *evaluation) measure(ctx context.Context, defs []definition) {
	e.judged = make(map[string]judged, len(defs))
	var mu sync.Mutex
	var wg sync.WaitGroup
	sem := make(chan struct{}, runtime.GOMAXPROCS(0))
	for _, d := range defs {
		if e.undecidable(d) != "" || d.name == GapFraction && e.cb == 0 {
			continue
		}
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			j, ok := d.judge(ctx, e.base, e.cand, d.level(e.c.Alpha, e.k), e.c, e.paired)
			mu.Lock()
			e.judged[d.name] = judged{j, ok}
			mu.Unlock()
		}()
	}
	wg.Wait()
}

// windows counts a side's windows.
func (sd side) windows() int {
	n := 0
	for _, r := range sd {
		n += len(r)
	}
	return n
}

// criterion decides definition d.
func (e *evaluation) criterion(d definition) schemas.Criterion {
	cr := schemas.Criterion{Name: d.name, Title: d.title, Metric: d.metric, Scope: d.scope}
	if why := e.undecidable(d); why != "" {
		cr.Verdict, cr.Reason = schemas.Inconclusive, why
		return cr
	}
	if d.name == GapFraction && e.cb == 0 {
		return e.gapWithoutBacklog(cr)
	}
	jd := e.judged[d.name] // measure judged every criterion that reaches here
	j, ok := jd.j, jd.ok
	if !ok {
		cr.Verdict, cr.Reason = schemas.Inconclusive, e.noValue(d, j)
		if j.hasB {
			cr.Baseline = &j.b
		}
		if j.hasC {
			cr.Candidate = &j.c
		}
		return cr
	}
	cr.Baseline, cr.Candidate = &j.b, &j.c
	est, lo, hi, mde := j.est, j.lo, j.hi, j.mde
	if d.ratio {
		cr.Ratio = &est
	} else {
		cr.Diff = &est
	}
	if !j.open() {
		cr.Lo, cr.Hi, cr.MDE = &lo, &hi, &mde
		lvl := j.level
		cr.Level = &lvl
		cr.Resampling = &schemas.Resampling{
			Baseline:         sideResampling(e.base, j.sb),
			Candidate:        sideResampling(e.cand, j.sc),
			StandardError:    j.se,
			DegreesOfFreedom: finiteOr(j.df, 0),
		}
		if e.paired {
			cr.Resampling.Paired = true
			cr.Resampling.UnpairedStandardError = finiteOr(math.Hypot(j.sb.se, j.sc.se), 0)
		}
	}
	cr.Verdict = d.decide(j, e.c)
	if d.name == GapFraction && j.b < e.c.GapFloor && j.c < e.c.GapFloor {
		cr.Verdict = schemas.Pass
	}
	if cr.Verdict == schemas.Inconclusive {
		if k := d.moreData(j, e.c); k > 1 && !math.IsInf(k, 0) {
			cr.MoreData = &k
		}
	}
	cr.Reason = e.reason(d, j, cr.Verdict, cr.MoreData)
	if d.name == SLOAttainment && e.sloGuard != "" {
		cr.Verdict, cr.Reason = schemas.Inconclusive, guardReason(e.sloGuard, cr.Reason)
	}
	return cr
}

func finiteOr(x, or float64) float64 {
	if math.IsInf(x, 0) || math.IsNaN(x) {
		return or
	}
	return x
}

func sideResampling(sd side, sp spread) schemas.SideResampling {
	return schemas.SideResampling{Runs: len(sd), Windows: sd.windows(), BlockWindows: sp.length, StandardError: finiteOr(sp.se, 0)}
}

// gapWithoutBacklog decides gap_fraction when the candidate never had a
// backlog: it had no idle time under load. (The guard on too few backlog
// windows leaves this INCONCLUSIVE whenever it is on.)
func (e *evaluation) gapWithoutBacklog(cr schemas.Criterion) schemas.Criterion {
	d := definitionOf(GapFraction)
	gb, _ := d.stat.value(e.base.all())
	g, diff := 0.0, -gb
	cr.Baseline, cr.Candidate, cr.Diff = &gb, &g, &diff
	if gb <= e.c.GapTolerance {
		cr.Verdict = schemas.Inconclusive
		cr.Reason = "The candidate had no backlog, and the baseline's gap_fraction was already within tolerance."
		return cr
	}
	cr.Verdict = schemas.Pass
	cr.Reason = fmt.Sprintf("The candidate never had a backlog; the baseline idled %s of its backlog time.", pct(gb))
	return cr
}

// undecidable says why d cannot be judged on these runs before any number
// is computed; "" when it can.
func (e *evaluation) undecidable(d definition) string {
	switch d.name {
	case Throughput:
		if e.bb == 0 || e.cb == 0 {
			return "No backlog window in one of the runs, so there is no saturated throughput to compare."
		}
	case GapFraction:
		if e.bb == 0 {
			return "The baseline never had a backlog, so there was no idle time under load to remove."
		}
	case SuccessRate, SLOAttainment:
		if e.base.sum(sumRequests) == 0 || e.cand.sum(sumRequests) == 0 {
			return "One of the runs completed no request."
		}
		if d.name == SLOAttainment {
			if e.bSLO == nil || e.cSLO == nil {
				return "Inconclusive: " + e.sloGuard + "."
			}
			if !sloKnown(e.bsel) || !sloKnown(e.csel) {
				return "slo_met was not recorded for every window of one of the runs: analyse both again with --slo."
			}
		}
	case RetryRate:
		if e.base.sum(sumAttempts) == 0 || e.cand.sum(sumAttempts) == 0 {
			return "One of the runs released no attempt."
		}
	case TTFT, TPOT:
		label := strings.TrimSuffix(d.label, " p95")
		bl, cl := loaded(e.bsel), loaded(e.csel)
		if !bl || !cl {
			which := "either run"
			switch {
			case bl:
				which = "the candidate"
			case cl:
				which = "the baseline"
			}
			return fmt.Sprintf("Request latencies were not available (not loaded for %s), so %s cannot be compared.", which, label)
		}
		bn, cn := e.base.latencies(d.stat.lat), e.cand.latencies(d.stat.lat)
		if bn == 0 || cn == 0 {
			which := "the baseline"
			if bn > 0 {
				which = "the candidate"
			}
			return fmt.Sprintf("No delivered request of %s has a %s, so there is nothing to compare.", which, label)
		}
	}
	return ""
}

// noValue says why a criterion that could be judged has no ratio.
func (e *evaluation) noValue(d definition, j judgement) string {
	switch d.name {
	case Throughput:
		return "The baseline delivered no tokens in its backlog windows, so no ratio exists."
	case TTFT, TPOT:
		if j.b <= 0 {
			return fmt.Sprintf("The baseline's %s is 0, so no ratio exists.", d.label)
		}
		return fmt.Sprintf("The candidate's %s is 0, so no ratio on a logarithmic scale exists.", d.label)
	}
	return "There is nothing to compare."
}

// sum adds a side's windows' sum i.
func (sd side) sum(i int) float64 {
	var s float64
	for _, r := range sd {
		for _, u := range r {
			s += u.sums[i]
		}
	}
	return s
}

// latencies counts a side's known latencies of kind lat.
func (sd side) latencies(lat int) int {
	n := 0
	for _, r := range sd {
		for _, u := range r {
			n += len(u.lats[lat])
		}
	}
	return n
}

func loaded(sels []selection) bool {
	for _, s := range sels {
		if s.requests == nil {
			return false
		}
	}
	return true
}

func sloKnown(sels []selection) bool {
	for _, s := range sels {
		if s.counts.sloMet == nil {
			return false
		}
	}
	return true
}

// selectRuns selects the part of each run the criteria judge: an
// automatic warm-up or cool-down is found run by run.
func selectRuns(runs []Run, c schemas.Criteria) []selection {
	out := make([]selection, len(runs))
	for i, r := range runs {
		rc, cut := autoCut(r, c)
		out[i] = selectRun(r, rc)
		out[i].cut = cut
	}
	return out
}

// sides turns selections into the runs of windows the engine resamples: each
// run's windows in time order, each with its sums and the latencies of the
// delivered requests completed in it (the window holding the instant: the
// last one starting at or before it). Above MaxBootstrapRequests requests
// on a side, the resamples read an evenly spaced subsample of each run's
// requests in release order; the side's value is over all of them.
func sides(sels []selection, slo bool) side {
	total := 0
	for _, s := range sels {
		total += len(s.requests)
	}
	sd := make(side, len(sels))
	for i, s := range sels {
		if len(s.windows) == 0 {
			sd[i] = records(s)
			continue
		}
		ws := make([]schemas.Metrics, len(s.windows))
		copy(ws, s.windows)
		sort.SliceStable(ws, func(a, b int) bool { return ws[a].WindowStart.Before(ws[b].WindowStart) })
		run := make([]unit, len(ws))
		starts := make([]int64, len(ws))
		for k, w := range ws {
			starts[k] = w.WindowStart.UnixMicro()
			u := &run[k]
			// Rounding may leave a window backlogged throughout a
			// microsecond short of its length.
			u.emptied = w.BacklogTime < w.WindowSeconds-1e-6
			if w.BacklogTime > 0 && w.WindowSeconds > 0 {
				if w.RetryAdjustedSystemTPS != nil {
					u.sums[sumBacklogTPS], u.sums[sumBacklogWindows] = *w.RetryAdjustedSystemTPS, 1
				}
				u.sums[sumBacklogGap], u.sums[sumBacklogSeconds] = w.GapTime, w.WindowSeconds
			}
			u.sums[sumRequests], u.sums[sumSucceeded] = float64(w.Requests), float64(w.SucceededRequests)
			u.sums[sumAttempts], u.sums[sumRetries] = float64(w.Attempts), float64(w.RetryAttempts)
			if slo && w.SLOMet != nil {
				u.sums[sumSLOMet] = float64(*w.SLOMet)
			}
		}
		if len(run) > 0 {
			every := 1.0
			if total > MaxBootstrapRequests {
				every = float64(total) / MaxBootstrapRequests
			}
			next := 0.0
			for n, q := range sortedByRelease(s.requests) {
				u := &run[windowOf(starts, q.Released)]
				keep := float64(n) >= next
				if keep {
					next += every
				}
				for lat, x := range [nLats]float64{q.TTFT, q.TPOT} {
					if math.IsNaN(x) {
						continue
					}
					u.lats[lat] = append(u.lats[lat], x)
					if total > MaxBootstrapRequests && keep {
						u.sub[lat] = append(u.sub[lat], x)
					}
				}
			}
			if total > MaxBootstrapRequests {
				for k := range run {
					for lat := range nLats {
						if run[k].sub[lat] == nil {
							run[k].sub[lat] = []float64{}
						}
					}
				}
			}
		}
		sd[i] = run
	}
	return sd
}

// records are the units of a run without windows (durations only): one
// unit for each delivered request's latencies, and one for each completed
// request and each attempt (the first of them succeeded, or retries), so
// that the rates are the run's own. Without instants there is no time to
// take blocks of: the units are resampled one by one.
func records(s selection) []unit {
	n := max(len(s.requests), int(s.counts.requests), int(s.counts.attempts))
	out := make([]unit, n)
	for i := range out {
		u := &out[i]
		u.record, u.emptied = true, true
		if i < int(s.counts.requests) {
			u.sums[sumRequests] = 1
			if i < int(s.counts.succeeded) {
				u.sums[sumSucceeded] = 1
			}
			if s.counts.sloMet != nil && i < int(*s.counts.sloMet) {
				u.sums[sumSLOMet] = 1
			}
		}
		if i < int(s.counts.attempts) {
			u.sums[sumAttempts] = 1
			if i < int(s.counts.retries) {
				u.sums[sumRetries] = 1
			}
		}
	}
	for i, q := range s.requests {
		for lat, x := range [nLats]float64{q.TTFT, q.TPOT} {
			if !math.IsNaN(x) {
				out[i].lats[lat] = []float64{x}
			}
		}
	}
	return out
}

// backlogWindows are the windows of every selection with backlog_time > 0.
func backlogWindows(sels []selection) []schemas.Metrics {
	var out []schemas.Metrics
	for _, s := range sels {
		for _, w := range s.windows {
			if w.BacklogTime > 0 && w.WindowSeconds > 0 {
				out = append(out, w)
			}
		}
	}
	return out
}

// pooledSummary is the summary a side's guards read: for one run its own;
// for several, their run ids joined, the mean of their rates and token
// means, and what any of them says of durations, models and SLOs.
func pooledSummary(runs []Run) schemas.Summary {
	if len(runs) == 1 {
		return runs[0].Summary
	}
	out := runs[0].Summary
	out.RunID = strings.Join(runIDs(runs), ", ")
	mean := func(get func(schemas.Summary) *float64) *float64 {
		var s float64
		for _, r := range runs {
			v := get(r.Summary)
			if v == nil {
				return nil
			}
			s += *v
		}
		s /= float64(len(runs))
		return &s
	}
	out.OfferedRate = mean(func(s schemas.Summary) *float64 { return s.OfferedRate })
	out.ArrivalRate = mean(func(s schemas.Summary) *float64 { return s.ArrivalRate })
	out.MeanInputTokens = mean(func(s schemas.Summary) *float64 { return s.MeanInputTokens })
	out.MeanOutputTokens = mean(func(s schemas.Summary) *float64 { return s.MeanOutputTokens })
	var models []string
	for _, r := range runs {
		if r.Summary.DurationsOnly != nil && out.DurationsOnly == nil {
			out.DurationsOnly = r.Summary.DurationsOnly
		}
		if r.Summary.SLO != nil && out.SLO == nil {
			out.SLO = r.Summary.SLO
		}
		for _, m := range r.Summary.DataQuality.Models {
			if !slices.Contains(models, m) {
				models = append(models, m)
			}
		}
	}
	sort.Strings(models)
	out.DataQuality.Models = models
	return out
}

func runIDs(runs []Run) []string {
	out := make([]string, len(runs))
	for i, r := range runs {
		out[i] = r.Summary.RunID
	}
	return out
}

// widths lists the distinct window widths the runs were analysed with, in
// the order first seen (a width of 0, unknown, is left out).
func widths(runs []Run) []float64 {
	var out []float64
	for _, r := range runs {
		w := r.Summary.WindowWidth
		if w > 0 && !slices.Contains(out, w) {
			out = append(out, w)
		}
	}
	return out
}

func secondsList(ws []float64) string {
	if len(ws) == 0 {
		return "unknown"
	}
	parts := make([]string, len(ws))
	for i, w := range ws {
		parts[i] = seconds(w)
	}
	return strings.Join(parts, " and ")
}

// subsampleNote says when a side's latency resamples read a subsample.
func subsampleNote(bsel, csel []selection) string {
	count := func(sels []selection) int {
		n := 0
		for _, s := range sels {
			n += len(s.requests)
		}
		return n
	}
	nb, nc := count(bsel), count(csel)
	var runs []string
	if nb > MaxBootstrapRequests {
		runs = append(runs, "the baseline's "+numfmt.Group(strconv.Itoa(nb)))
	}
	if nc > MaxBootstrapRequests {
		runs = append(runs, "the candidate's "+numfmt.Group(strconv.Itoa(nc)))
	}
	if runs == nil {
		return ""
	}
	return fmt.Sprintf("the latency intervals resample an evenly spaced subsample of %s of %s requests, in release order (the p95s themselves are over all of them)",
		numfmt.Group(strconv.Itoa(MaxBootstrapRequests)), strings.Join(runs, " and of "))
}
