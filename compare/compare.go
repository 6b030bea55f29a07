package compare

import (
	"context"
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/tpsreport/tpsreport/schemas"
)

// Seed is the bootstrap's fixed seed.
const Seed uint64 = 20261120

// Run is one analysed run as compare needs it.
type Run struct {
	Summary schemas.Summary
	Windows []schemas.Metrics
	// Requests are the run's delivered requests (requests.parquet), for the
	// latency criteria; nil when they were not loaded, which makes those
	// criteria INCONCLUSIVE. An empty, non-nil slice means none was delivered.
	Requests []schemas.RequestLatency
}

// ErrModelMismatch is returned when the runs served different models and the
// criteria do not allow it: token counts are tokenizer-specific.
var ErrModelMismatch = errors.New("the runs served different models")

// Criterion names, in report order. They are also the keys that turn a
// criterion off in an acceptance file ("ttft: off").
const (
	Throughput    = "throughput"
	SuccessRate   = "success_rate"
	GapFraction   = "gap_fraction"
	RetryRate     = "retry_rate"
	TTFT          = "ttft"
	TPOT          = "tpot"
	SLOAttainment = "slo_attainment"
)

// Names lists the criteria in report order.
var Names = []string{Throughput, SuccessRate, GapFraction, RetryRate, TTFT, TPOT, SLOAttainment}

// Scopes of schemas.Criterion: what a criterion's values are over.
const (
	ScopeBacklog  = "backlog windows"
	ScopeRun      = "whole run"
	ScopeRequests = "delivered requests"
)

// Evaluate decides the acceptance criteria (docs/acceptance.md) for one
// candidate run against one baseline run.
func Evaluate(base, cand Run, c schemas.Criteria) (schemas.Verdict, error) {
	return EvaluateRuns(context.Background(), []Run{base}, []Run{cand}, c)
}

// EvaluateRuns decides the acceptance criteria (docs/acceptance.md) for the
// candidate runs against the baseline runs: one or more on each side
// (nights, or repeats of a load test). Every criterion pools its side's
// runs, and its interval resamples whole runs as well as blocks of windows
// within them, so that the variance between runs enters it. It stops with
// ctx's error when ctx is done.
func EvaluateRuns(ctx context.Context, base, cand []Run, c schemas.Criteria) (schemas.Verdict, error) {
	return evaluate(ctx, base, cand, c, nil)
}

// evaluate is EvaluateRuns, and EvaluateCanary when g is set.
func evaluate(ctx context.Context, base, cand []Run, c schemas.Criteria, g *schemas.Canary) (schemas.Verdict, error) {
	if len(base) == 0 || len(cand) == 0 {
		return schemas.Verdict{}, errors.New("compare: want at least one baseline run and one candidate run")
	}
	c, err := settle(c)
	if err != nil {
		return schemas.Verdict{}, err
	}
	bsum, csum := pooledSummary(base), pooledSummary(cand)
	v := schemas.Verdict{
		Baseline:      bsum.RunID,
		Candidate:     csum.RunID,
		BaselineRuns:  runIDs(base),
		CandidateRuns: runIDs(cand),
		Settings:      c,
		Guards:        []string{},
		Notes:         []string{},
	}
	on := func(name string) bool { return !slices.Contains(c.Off, name) }
	bm, cm := bsum.DataQuality.Models, csum.DataQuality.Models
	if len(bm) > 0 && len(cm) > 0 && !slices.Equal(bm, cm) {
		msg := fmt.Sprintf("baseline served %s, candidate %s: token counts are tokenizer-specific", strings.Join(bm, ", "), strings.Join(cm, ", "))
		if !c.AllowModelMismatch {
			return v, fmt.Errorf("%w: %s (Try: --allow-model-mismatch)", ErrModelMismatch, msg)
		}
		v.Notes = append(v.Notes, "model mismatch allowed: "+msg)
	}
	bsel, csel := selectRuns(base, c), selectRuns(cand, c)
	if g != nil {
		g.Windows = alignWindows(bsel, csel)
		canaryRequests(g, base, cand)
		v.Canary = g
		v.Baseline = g.Run + ": " + strings.Join(g.Baseline.Replicas, ", ")
		v.Candidate = g.Run + ": " + strings.Join(g.Candidate.Replicas, ", ")
	}

	// Guards, each of which makes some criteria INCONCLUSIVE rather than wrong.
	var windowMismatch string
	if bw, cw := widths(base), widths(cand); len(bw) > 1 || len(cw) > 1 || len(bw) == 1 && len(cw) == 1 && bw[0] != cw[0] {
		// Backlog windows, their gap_fraction and the resampling unit all
		// depend on the width: different widths compare different things.
		every := "both"
		if len(base)+len(cand) > 2 {
			every = "every run"
		}
		windowMismatch = fmt.Sprintf("the runs were analysed with different window widths (baseline %s, candidate %s): analyse %s with the same --window",
			secondsList(bw), secondsList(cw), every)
		v.Guards = append(v.Guards, windowMismatch)
	}
	bb, cb := backlogWindows(bsel), backlogWindows(csel)
	durations := durationsGuard(bsum, csum)
	if durations != "" && (on(Throughput) || on(GapFraction)) {
		v.Guards = append(v.Guards, durations)
	}
	if durations != "" {
		v.Notes = append(v.Notes, "the offered load and the window width are not compared: a run that carries durations only has neither",
			"a run that carries durations only has no instants, so no blocks of time: its requests are resampled one by one, as if independent")
	}
	var fewBacklog string
	if durations == "" && (len(bb) < c.MinBacklogWindows || len(cb) < c.MinBacklogWindows) && (on(Throughput) || on(GapFraction)) {
		fewBacklog = fmt.Sprintf("too few backlog windows (baseline %d, candidate %d; need %d)", len(bb), len(cb), c.MinBacklogWindows)
		v.Guards = append(v.Guards, fewBacklog)
	}
	loadMismatch := offeredLoadGuard(bsum, csum, c.LoadMismatch)
	if g != nil {
		// The groups split one run's traffic: what each replica got is
		// what must be comparable, and a group too small to judge is named.
		loadMismatch = canaryTraffic(base, cand, g, c.LoadMismatch)
		if few := fewRequests(g); few != "" {
			loadMismatch = strings.TrimPrefix(strings.Join([]string{loadMismatch, few}, "; "), "; ")
		}
	}
	if loadMismatch != "" {
		v.Guards = append(v.Guards, loadMismatch)
	}
	tokenMix := tokenMixGuard(bsum, csum, c.TokenMismatch)
	if tokenMix != "" {
		v.Guards = append(v.Guards, tokenMix)
	}
	hasSLO := bsum.SLO != nil || csum.SLO != nil
	var sloMismatch string
	if hasSLO {
		if sloMismatch = sloGuard(base, cand); sloMismatch != "" && on(SLOAttainment) {
			v.Guards = append(v.Guards, sloMismatch)
		}
	}
	// Notes: what the criteria were computed over, when it is not everything.
	if g != nil {
		v.Notes = append(v.Notes, canaryNote(g, bsum.WindowWidth))
	}
	for _, side := range []struct {
		name string
		runs []Run
	}{{"baseline", base}, {"candidate", cand}} {
		for _, r := range side.runs {
			for _, p := range r.Summary.DataQuality.Sampled {
				v.Notes = append(v.Notes, fmt.Sprintf("%s run %s: %s: %s", side.name, r.Summary.RunID, filepath.Base(p.File), p))
			}
		}
	}
	if c.WarmupAuto || c.CooldownAuto {
		for _, side := range []struct {
			name string
			sels []selection
		}{{"baseline", bsel}, {"candidate", csel}} {
			for _, s := range side.sels {
				k := s.cut
				k.Side = side.name
				v.Cuts = append(v.Cuts, k)
			}
		}
		v.Notes = append(v.Notes, autoNote(c, v.Cuts))
	}
	if c.Warmup > 0 || c.Cooldown > 0 || c.WarmupAuto || c.CooldownAuto {
		v.Notes = append(v.Notes, exclusionNote(c, bsel, csel))
	}
	if note := subsampleNote(bsel, csel); note != "" && (on(TTFT) || on(TPOT)) {
		v.Notes = append(v.Notes, note)
	}

	// The criteria judged, and the level each is judged at: the overall
	// verdict alarms when any of them does, so each is held to alpha/k
	// (Bonferroni) and together they alarm on an unchanged system in at
	// most alpha of comparisons.
	var defs []definition
	for _, d := range definitions {
		if on(d.name) && (d.name != SLOAttainment || hasSLO) {
			if g != nil {
				d = d.forCanary()
			}
			defs = append(defs, d)
		}
	}
	e := &evaluation{c: c, k: len(defs), base: sides(bsel, bsum.SLO != nil), cand: sides(csel, csum.SLO != nil),
		bb: len(bb), cb: len(cb), bsel: bsel, csel: csel, bSLO: bsum.SLO, cSLO: csum.SLO, sloGuard: sloMismatch, paired: g != nil}
	causes := gapCauses(bb, cb)
	if on(GapFraction) {
		v.GapCauses = causes
	}
	e.causesMoved = len(causesRose(causes, c.GapTolerance)) > 0
	method := BootstrapMethod
	if g != nil {
		method = CanaryMethod
	}
	v.Bootstrap = schemas.Bootstrap{Resamples: c.Resamples, Seed: Seed, Method: method,
		BaselineRuns: len(base), CandidateRuns: len(cand), BaselineWindows: e.base.windows(), CandidateWindows: e.cand.windows(),
		Criteria: len(defs), Alpha: c.Alpha}

	e.measure(ctx, defs)
	judged := make([]schemas.Criterion, 0, len(defs))
	var thrRatio *float64
	for _, d := range defs {
		if err := ctx.Err(); err != nil {
			return v, err
		}
		e.thrRatio = thrRatio
		cr := e.criterion(d)
		if err := ctx.Err(); err != nil {
			return v, err
		}
		if d.name == Throughput {
			thrRatio = cr.Ratio
		}
		if d.name == GapFraction {
			cr.Cause = causeSentence(causes, c.GapTolerance)
		}
		switch {
		case durations != "" && windowBased(cr.Name):
			cr.Verdict, cr.Reason = schemas.Inconclusive, durationsReason(durations)
			cr.Baseline, cr.Candidate, cr.Ratio, cr.Diff, cr.Lo, cr.Hi, cr.MDE, cr.MoreData, cr.Resampling = nil, nil, nil, nil, nil, nil, nil, nil, nil
		case windowMismatch != "":
			cr.Verdict, cr.Reason = schemas.Inconclusive, guardReason(windowMismatch, cr.Reason)
		case cr.Verdict == schemas.Inconclusive:
			// A criterion that cannot decide keeps its own reason.
		case fewBacklog != "" && (cr.Name == Throughput || cr.Name == GapFraction):
			cr.Verdict, cr.Reason = schemas.Inconclusive, guardReason(fewBacklog, cr.Reason)
		case loadMismatch != "":
			cr.Verdict, cr.Reason = schemas.Inconclusive, guardReason(loadMismatch, cr.Reason)
		case tokenMix != "":
			cr.Verdict, cr.Reason = schemas.Inconclusive, guardReason(tokenMix, cr.Reason)
		}
		judged = append(judged, cr)
	}
	v.Criteria = judged
	v.Overall = overall(judged)
	return v, nil
}

// windowBased reports whether criterion name is judged over windows (their
// rates and idle time), which a durations-only run does not have.
func windowBased(name string) bool { return name == Throughput || name == GapFraction }

// durationsGuard names the runs that carry durations only (summary.json
// durations_only): their spans share no clock, so they have no windows, no
// throughput and no idle time; "" when both runs have instants.
func durationsGuard(b, c schemas.Summary) string {
	var parts []string
	for _, r := range []struct {
		role string
		d    *schemas.DurationsOnly
	}{{"baseline", b.DurationsOnly}, {"candidate", c.DurationsOnly}} {
		if r.d != nil {
			parts = append(parts, fmt.Sprintf("the %s (%s)", r.role, strings.Join(r.d.Sources, ", ")))
		}
	}
	if parts == nil {
		return ""
	}
	verb := "carries"
	if len(parts) == 2 {
		verb = "carry"
	}
	return strings.Join(parts, " and ") + " " + verb + " durations only, no instants: no windows, so no throughput or gap_fraction to compare"
}

// durationsReason is the reason of a window-based criterion the durations
// guard leaves undecided.
func durationsReason(guard string) string {
	return "Inconclusive: " + guard + "; the latency criteria and success_rate still judge."
}

// offeredLoadGuard compares the offered load: the offered rate (arrivals
// over the arrival span), so that a candidate that drains the same traffic
// sooner offers the same load; the arrival rate over the run for runs
// analysed before the offered rate existed.
func offeredLoadGuard(b, c schemas.Summary, limit float64) string {
	name, ba, ca := "offered rate", b.OfferedRate, c.OfferedRate
	if ba == nil || ca == nil {
		name, ba, ca = "arrival rate", b.ArrivalRate, c.ArrivalRate
	}
	if ba == nil || ca == nil || *ba <= 0 {
		return ""
	}
	r := *ca / *ba
	if math.Abs(r-1) <= limit {
		return ""
	}
	return fmt.Sprintf("offered load differs by %s (%s %s/s baseline, %s/s candidate; limit ±%s)",
		change(r-1), name, num(*ba), num(*ca), fixed(limit*100, 0, math.Inf(1))+" %")
}

// tokenMixGuard compares the mean input tokens per request and the mean
// output tokens per delivered request: a different mix is different work.
func tokenMixGuard(b, c schemas.Summary, limit float64) string {
	var parts []string
	for _, m := range []struct {
		what   string
		ba, ca *float64
	}{
		{"mean input tokens per request", b.MeanInputTokens, c.MeanInputTokens},
		{"mean output tokens per delivered request", b.MeanOutputTokens, c.MeanOutputTokens},
	} {
		if m.ba == nil || m.ca == nil || *m.ba <= 0 {
			continue
		}
		if r := *m.ca / *m.ba; math.Abs(r-1) > limit {
			parts = append(parts, fmt.Sprintf("%s %s vs %s (%s)", m.what, num(*m.ba), num(*m.ca), change(r-1)))
		}
	}
	if parts == nil {
		return ""
	}
	return fmt.Sprintf("the token mix differs: %s; baseline vs candidate, limit ±%s", strings.Join(parts, ", "), fixed(limit*100, 0, math.Inf(1))+" %")
}

// change formats a relative change, signed, to whole percent: "−52 %".
func change(d float64) string {
	return signed(d, fixed(d*100, 0, math.Inf(1))+" %")
}

func guardReason(guard, reason string) string {
	return "Inconclusive: " + guard + "; without this guard: " + lowerFirst(reason)
}

// lowerFirst lowers a sentence's first letter unless it begins an acronym
// ("SLO attainment", "TTFT p95").
func lowerFirst(s string) string {
	if s == "" || len(s) > 1 && strings.ToUpper(s[1:2]) == s[1:2] && strings.ToLower(s[1:2]) != s[1:2] {
		return s
	}
	return strings.ToLower(s[:1]) + s[1:]
}

func overall(cs []schemas.Criterion) string {
	if len(cs) == 0 {
		return schemas.Inconclusive // every criterion turned off: nothing was judged
	}
	all := true
	for _, c := range cs {
		if c.Verdict == schemas.Fail {
			return schemas.Fail
		}
		all = all && c.Verdict == schemas.Pass
	}
	if all {
		return schemas.Pass
	}
	return schemas.Inconclusive
}

// moved says how a throughput ratio moved: "fell 27.7 %", "rose only 0.4 %".
func moved(r float64) string {
	switch {
	case r < 1:
		return "fell " + rel(1-r)
	case r > 1:
		return "rose only " + rel(r-1)
	}
	return "did not change"
}

// retryConsequence ends a failed retry-rate reason with what it means for
// the throughput result.
func retryConsequence(thrRatio *float64) string {
	switch {
	case thrRatio == nil:
		return ""
	case *thrRatio > 1:
		return ": part of the throughput gain is spent on retried work"
	case *thrRatio < 1:
		return ", and delivered throughput fell too"
	}
	return ""
}

// level formats a confidence level: 0.95 is "95 %".
func level(c float64) string {
	return strconv.FormatFloat(c*100, 'g', 4, 64) + " %"
}

// tolerance formats a tolerance on a difference of fractions: 0.001 is "0.1 pp".
func tolerance(f float64) string {
	return strconv.FormatFloat(f*100, 'g', 4, 64) + " pp"
}
