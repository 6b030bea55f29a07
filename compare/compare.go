package compare

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sort"
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

// Evaluate decides the acceptance criteria (docs/acceptance.md) for candidate
// against baseline.
func Evaluate(base, cand Run, c schemas.Criteria) (schemas.Verdict, error) {
	if err := validate(c); err != nil {
		return schemas.Verdict{}, err
	}
	v := schemas.Verdict{
		Baseline:  base.Summary.RunID,
		Candidate: cand.Summary.RunID,
		Settings:  c,
		Guards:    []string{},
		Notes:     []string{},
	}
	on := func(name string) bool { return !slices.Contains(c.Off, name) }
	bm, cm := base.Summary.DataQuality.Models, cand.Summary.DataQuality.Models
	if len(bm) > 0 && len(cm) > 0 && !slices.Equal(bm, cm) {
		msg := fmt.Sprintf("baseline served %s, candidate %s: token counts are tokenizer-specific", strings.Join(bm, ", "), strings.Join(cm, ", "))
		if !c.AllowModelMismatch {
			return v, fmt.Errorf("%w: %s (Try: --allow-model-mismatch)", ErrModelMismatch, msg)
		}
		v.Notes = append(v.Notes, "model mismatch allowed: "+msg)
	}
	bs, cs := selectRun(base, c), selectRun(cand, c)

	// Guards, each of which makes some criteria INCONCLUSIVE rather than wrong.
	var windowMismatch string
	if bw, cw := base.Summary.WindowWidth, cand.Summary.WindowWidth; bw > 0 && cw > 0 && bw != cw {
		// Backlog windows, their gap_fraction and the bootstrap's resampling
		// unit all depend on the width: different widths compare different things.
		windowMismatch = fmt.Sprintf("the runs were analysed with different window widths (baseline %s, candidate %s): analyse both with the same --window",
			seconds(bw), seconds(cw))
		v.Guards = append(v.Guards, windowMismatch)
	}
	bb, cb := backlogWindows(bs.windows), backlogWindows(cs.windows)
	durations := durationsGuard(base.Summary, cand.Summary)
	if durations != "" && (on(Throughput) || on(GapFraction)) {
		v.Guards = append(v.Guards, durations)
	}
	if durations != "" {
		v.Notes = append(v.Notes, "the offered load and the window width are not compared: a run that carries durations only has neither")
	}
	var fewBacklog string
	if durations == "" && (len(bb) < c.MinBacklogWindows || len(cb) < c.MinBacklogWindows) && (on(Throughput) || on(GapFraction)) {
		fewBacklog = fmt.Sprintf("too few backlog windows (baseline %d, candidate %d; need %d)", len(bb), len(cb), c.MinBacklogWindows)
		v.Guards = append(v.Guards, fewBacklog)
	}
	loadMismatch := offeredLoadGuard(base.Summary, cand.Summary, c.LoadMismatch)
	if loadMismatch != "" {
		v.Guards = append(v.Guards, loadMismatch)
	}
	tokenMix := tokenMixGuard(base.Summary, cand.Summary, c.TokenMismatch)
	if tokenMix != "" {
		v.Guards = append(v.Guards, tokenMix)
	}
	hasSLO := base.Summary.SLO != nil || cand.Summary.SLO != nil
	var sloMismatch string
	if hasSLO {
		if sloMismatch = sloGuard(base.Summary.SLO, cand.Summary.SLO); sloMismatch != "" && on(SLOAttainment) {
			v.Guards = append(v.Guards, sloMismatch)
		}
	}
	// Notes: what the criteria were computed over, when it is not everything.
	if c.Warmup > 0 || c.Cooldown > 0 {
		v.Notes = append(v.Notes, exclusionNote(c, bs, cs))
	}

	thr, boot := throughput(bb, cb, c)
	v.Bootstrap = boot
	causes := gapCauses(bb, cb)
	gap := gapFraction(bb, cb, c, len(causesRose(causes, c.GapTolerance)) > 0)
	if on(GapFraction) {
		v.GapCauses = causes
		gap.Cause = causeSentence(causes, c.GapTolerance)
	}
	crits := []schemas.Criterion{thr, successRate(bs.counts, cs.counts, c), gap, retryRate(bs.counts, cs.counts, c, thr.Ratio)}
	for _, k := range []latencyKind{ttftKind, tpotKind} {
		cr, note := latency(k, bs.requests, cs.requests, c)
		crits = append(crits, cr)
		if note != "" && on(k.name) {
			v.Notes = append(v.Notes, note)
		}
	}
	if hasSLO {
		crits = append(crits, sloAttainment(base.Summary.SLO, cand.Summary.SLO, bs.counts, cs.counts, c, sloMismatch))
	}
	judged := make([]schemas.Criterion, 0, len(crits))
	for _, cr := range crits {
		if !on(cr.Name) {
			continue
		}
		switch {
		case durations != "" && windowBased(cr.Name):
			cr.Verdict, cr.Reason = schemas.Inconclusive, durationsReason(durations)
			cr.Baseline, cr.Candidate, cr.Ratio, cr.Diff, cr.Lo, cr.Hi = nil, nil, nil, nil, nil, nil
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

func validate(c schemas.Criteria) error {
	if err := checkCriteria(c); err != nil {
		return err
	}
	return nil
}

// backlogWindows are the windows with backlog_time > 0.
func backlogWindows(ws []schemas.Metrics) []schemas.Metrics {
	var out []schemas.Metrics
	for _, w := range ws {
		if w.BacklogTime > 0 && w.WindowSeconds > 0 {
			out = append(out, w)
		}
	}
	return out
}

// BootstrapMethod names the throughput interval's bootstrap in verdict.json:
// the percentile interval of the resampled ratios, each run's backlog windows
// resampled with replacement, independently (the other fields of
// schemas.Bootstrap say how many and with which seed).
const BootstrapMethod = "percentile"

// throughput: r = mean candidate / mean baseline retry_adjusted_system_tps over
// backlog windows, with a percentile bootstrap interval that resamples the
// windows of each run independently.
func throughput(bb, cb []schemas.Metrics, c schemas.Criteria) (schemas.Criterion, schemas.Bootstrap) {
	cr := schemas.Criterion{Name: Throughput, Title: "Throughput improves", Metric: "retry_adjusted_system_tps over backlog windows", Scope: ScopeBacklog}
	boot := schemas.Bootstrap{Resamples: c.Resamples, Seed: Seed, BaselineWindows: len(bb), CandidateWindows: len(cb),
		Method: BootstrapMethod}
	bx, cx := tpsValues(bb), tpsValues(cb)
	if len(bx) == 0 || len(cx) == 0 {
		cr.Verdict = schemas.Inconclusive
		cr.Reason = "No backlog window in one of the runs, so there is no saturated throughput to compare."
		return cr, boot
	}
	bmean, cmean := mean(bx), mean(cx)
	cr.Baseline, cr.Candidate = &bmean, &cmean
	if bmean <= 0 {
		cr.Verdict = schemas.Inconclusive
		cr.Reason = "The baseline delivered no tokens in its backlog windows, so no ratio exists."
		return cr, boot
	}
	r := cmean / bmean
	cr.Ratio = &r
	rng := rand.New(rand.NewPCG(Seed, uint64(len(bx))<<32|uint64(len(cx))))
	ratios := make([]float64, 0, c.Resamples)
	for range c.Resamples {
		b := resampleMean(rng, bx)
		if b <= 0 {
			continue
		}
		ratios = append(ratios, resampleMean(rng, cx)/b)
	}
	sort.Float64s(ratios)
	lo, hi := quantile(ratios, (1-c.Confidence)/2), quantile(ratios, 1-(1-c.Confidence)/2)
	cr.Lo, cr.Hi = &lo, &hi
	target := 1 + c.MinImprovement
	switch {
	case r >= target && lo > 1:
		cr.Verdict = schemas.Pass
		cr.Reason = fmt.Sprintf("Delivered throughput under backlog rose %s (ratio %.3f, %s interval %.3f–%.3f, all above 1).", rel(r-1), r, level(c.Confidence), lo, hi)
	case hi < target:
		cr.Verdict = schemas.Fail
		cr.Reason = fmt.Sprintf("Delivered throughput under backlog %s (ratio %.3f); even the interval's top, %.3f, is below the required %.3f.", moved(r), r, hi, target)
	default:
		cr.Verdict = schemas.Inconclusive
		cr.Reason = fmt.Sprintf("Ratio %.3f with %s interval %.3f–%.3f: the data cannot tell an improvement of at least %s from noise.", r, level(c.Confidence), lo, hi, rel(c.MinImprovement))
	}
	return cr, boot
}

func tpsValues(ws []schemas.Metrics) []float64 {
	var out []float64
	for _, w := range ws {
		if w.RetryAdjustedSystemTPS != nil {
			out = append(out, *w.RetryAdjustedSystemTPS)
		}
	}
	return out
}

func resampleMean(rng *rand.Rand, xs []float64) float64 {
	var s float64
	for range xs {
		s += xs[rng.IntN(len(xs))]
	}
	return s / float64(len(xs))
}

func mean(xs []float64) float64 {
	var s float64
	for _, x := range xs {
		s += x
	}
	return s / float64(len(xs))
}

// quantile interpolates linearly between closest ranks of sorted xs.
func quantile(xs []float64, q float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	pos := q * float64(len(xs)-1)
	i := int(pos)
	if i >= len(xs)-1 {
		return xs[len(xs)-1]
	}
	return xs[i] + (pos-float64(i))*(xs[i+1]-xs[i])
}

// successRate: FAIL when the candidate's success rate is lower by more than the
// tolerance and a one-sided two-proportion z-test rejects equality.
func successRate(b, c counts, cr schemas.Criteria) schemas.Criterion {
	out := schemas.Criterion{Name: SuccessRate, Title: "Success rate not reduced", Metric: "success_rate (requests with a successful attempt)", Scope: ScopeRun}
	proportionDrop(&out, "Success rate", b.succeeded, b.requests, c.succeeded, c.requests, cr.SuccessTolerance, cr.Alpha)
	return out
}

// proportionDrop decides a rate that must not fall (success rate, SLO
// attainment): x1 of n1 in the baseline, x2 of n2 in the candidate. FAIL when
// it falls by more than tol and a one-sided two-proportion z-test rejects
// equality at alpha; INCONCLUSIVE when a run has nothing to count; otherwise
// PASS.
func proportionDrop(out *schemas.Criterion, label string, x1, n1, x2, n2 int64, tol, alpha float64) {
	if n1 == 0 || n2 == 0 {
		out.Verdict = schemas.Inconclusive
		out.Reason = "One of the runs completed no request."
		return
	}
	p1, p2 := float64(x1)/float64(n1), float64(x2)/float64(n2)
	d := p2 - p1
	out.Baseline, out.Candidate, out.Diff = &p1, &p2, &d
	pv := oneSidedP(x1, n1, x2, n2) // H1: p2 < p1
	out.PValue = &pv
	switch {
	case -d > tol && pv < alpha:
		out.Verdict = schemas.Fail
		out.Reason = fmt.Sprintf("%s fell from %s to %s (%s, %s).", label, pct(p1), pct(p2), pp(d), pValue(pv, alpha))
	case -d > tol:
		out.Verdict = schemas.Pass
		out.Reason = fmt.Sprintf("%s %s → %s (%s), not significantly lower (%s).", label, pct(p1), pct(p2), pp(d), pValue(pv, alpha))
	default:
		out.Verdict = schemas.Pass
		out.Reason = fmt.Sprintf("%s %s → %s (%s), within the %s tolerance or better.", label, pct(p1), pct(p2), pp(d), tolerance(tol))
	}
}

// retryRate: FAIL when the candidate's retry rate is higher by more than the
// tolerance and a one-sided two-proportion z-test rejects equality.
func retryRate(b, c counts, cr schemas.Criteria, thrRatio *float64) schemas.Criterion {
	out := schemas.Criterion{Name: RetryRate, Title: "Retry rate does not increase", Metric: "retry_rate (attempts that are retries)", Scope: ScopeRun}
	n1, x1, n2, x2 := b.attempts, b.retries, c.attempts, c.retries
	if n1 == 0 || n2 == 0 {
		out.Verdict = schemas.Inconclusive
		out.Reason = "One of the runs released no attempt."
		return out
	}
	p1, p2 := float64(x1)/float64(n1), float64(x2)/float64(n2)
	d := p2 - p1
	out.Baseline, out.Candidate, out.Diff = &p1, &p2, &d
	pv := oneSidedP(x2, n2, x1, n1) // H1: p2 > p1
	out.PValue = &pv
	if d > cr.RetryTolerance && pv < cr.Alpha {
		out.Verdict = schemas.Fail
		out.Reason = fmt.Sprintf("Retry rate rose from %s to %s (%s, %s)%s.", pct(p1), pct(p2), pp(d), pValue(pv, cr.Alpha), retryConsequence(thrRatio))
		return out
	}
	out.Verdict = schemas.Pass
	if d > cr.RetryTolerance {
		out.Reason = fmt.Sprintf("Retry rate %s → %s (%s), not significantly higher (%s).", pct(p1), pct(p2), pp(d), pValue(pv, cr.Alpha))
	} else {
		out.Reason = fmt.Sprintf("Retry rate %s → %s (%s), within the %s tolerance or lower.", pct(p1), pct(p2), pp(d), tolerance(cr.RetryTolerance))
	}
	return out
}

// oneSidedP is the p-value of a one-sided pooled two-proportion z-test of
// H1: xa/na > xb/nb.
func oneSidedP(xa, na, xb, nb int64) float64 {
	pa, pb := float64(xa)/float64(na), float64(xb)/float64(nb)
	p := float64(xa+xb) / float64(na+nb)
	se := math.Sqrt(p * (1 - p) * (1/float64(na) + 1/float64(nb)))
	if se == 0 {
		if pa > pb {
			return 0
		}
		return 1
	}
	z := (pa - pb) / se
	return 0.5 * math.Erfc(z/math.Sqrt2)
}

// gapFraction: g = Σ gap_time / Σ window_seconds over backlog windows.
// moved says that some cause of the idle time rose while the whole fell
// (gapCauses): the reason then does not claim the idle time went.
func gapFraction(bb, cb []schemas.Metrics, c schemas.Criteria, moved bool) schemas.Criterion {
	out := schemas.Criterion{Name: GapFraction, Title: "gap_fraction decreases when backlog exists", Metric: "gap_fraction over backlog windows", Scope: ScopeBacklog}
	if len(bb) == 0 {
		out.Verdict = schemas.Inconclusive
		out.Reason = "The baseline never had a backlog, so there was no idle time under load to remove."
		return out
	}
	gb := pooledGap(bb)
	out.Baseline = &gb
	if len(cb) == 0 {
		g := 0.0
		d := -gb
		out.Candidate, out.Diff = &g, &d
		if gb <= c.GapTolerance {
			out.Verdict = schemas.Inconclusive
			out.Reason = "The candidate had no backlog, and the baseline's gap_fraction was already within tolerance."
			return out
		}
		out.Verdict = schemas.Pass
		out.Reason = fmt.Sprintf("The candidate never had a backlog; the baseline idled %s of its backlog time.", pct(gb))
		return out
	}
	gc := pooledGap(cb)
	d := gc - gb
	out.Candidate, out.Diff = &gc, &d
	switch {
	case gb == 0 && gc == 0:
		out.Verdict = schemas.Pass
		out.Reason = fmt.Sprintf("Neither run had free slots while requests waited (gap_fraction 0 %% in both): there was no idle time left to remove, and both are under the %s floor.", pct(c.GapFloor))
	case gb < c.GapFloor && gc < c.GapFloor:
		out.Verdict = schemas.Pass
		out.Reason = fmt.Sprintf("Both runs are under the %s floor (%s → %s): there was no idle time left to remove.", pct(c.GapFloor), pct(gb), pct(gc))
	case d < -c.GapTolerance && moved:
		out.Verdict = schemas.Pass
		out.Reason = fmt.Sprintf("Idle time under backlog fell from %s to %s of the time, though some of it moved to another cause.", pct(gb), pct(gc))
	case d < -c.GapTolerance:
		out.Verdict = schemas.Pass
		out.Reason = fmt.Sprintf("Idle time under backlog fell from %s to %s of the time: the change removed idle slots, it did not just shift them.", pct(gb), pct(gc))
	case d > c.GapTolerance:
		out.Verdict = schemas.Fail
		out.Reason = fmt.Sprintf("Idle time under backlog rose from %s to %s of the time: requests waited while slots were free.", pct(gb), pct(gc))
	default:
		out.Verdict = schemas.Inconclusive
		out.Reason = fmt.Sprintf("gap_fraction %s → %s (%s) is within the %s tolerance.", pct(gb), pct(gc), pp(d), tolerance(c.GapTolerance))
	}
	return out
}

func pooledGap(ws []schemas.Metrics) float64 {
	var gap, secs float64
	for _, w := range ws {
		gap += w.GapTime
		secs += w.WindowSeconds
	}
	return gap / secs
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
