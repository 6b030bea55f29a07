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
}

// ErrModelMismatch is returned when the runs served different models and the
// criteria do not allow it: token counts are tokenizer-specific.
var ErrModelMismatch = errors.New("the runs served different models")

// Criterion names, in report order.
const (
	Throughput  = "throughput"
	SuccessRate = "success_rate"
	GapFraction = "gap_fraction"
	RetryRate   = "retry_rate"
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
	}
	bm, cm := base.Summary.DataQuality.Models, cand.Summary.DataQuality.Models
	if len(bm) > 0 && len(cm) > 0 && !slices.Equal(bm, cm) {
		msg := fmt.Sprintf("baseline served %s, candidate %s: token counts are tokenizer-specific", strings.Join(bm, ", "), strings.Join(cm, ", "))
		if !c.AllowModelMismatch {
			return v, fmt.Errorf("%w: %s (Try: --allow-model-mismatch)", ErrModelMismatch, msg)
		}
		v.Guards = append(v.Guards, "model mismatch allowed: "+msg)
	}

	// Guards, each of which makes some criteria INCONCLUSIVE rather than wrong.
	var windowMismatch string
	if bw, cw := base.Summary.WindowWidth, cand.Summary.WindowWidth; bw > 0 && cw > 0 && bw != cw {
		// Backlog windows, their gap_fraction and the bootstrap's resampling
		// unit all depend on the width: different widths compare different things.
		windowMismatch = fmt.Sprintf("the runs were analysed with different window widths (baseline %s, candidate %s): analyse both with the same --window",
			seconds(bw), seconds(cw))
		v.Guards = append(v.Guards, windowMismatch)
	}
	bb, cb := backlogWindows(base.Windows), backlogWindows(cand.Windows)
	var fewBacklog string
	if len(bb) < c.MinBacklogWindows || len(cb) < c.MinBacklogWindows {
		fewBacklog = fmt.Sprintf("too few backlog windows (baseline %d, candidate %d; need %d)", len(bb), len(cb), c.MinBacklogWindows)
		v.Guards = append(v.Guards, fewBacklog)
	}
	var loadMismatch string
	if ba, ca := base.Summary.ArrivalRate, cand.Summary.ArrivalRate; ba != nil && ca != nil && *ba > 0 {
		if r := *ca / *ba; math.Abs(r-1) > c.LoadMismatch {
			loadMismatch = fmt.Sprintf("offered load differs by %s (arrival rate %s/s baseline, %s/s candidate; limit ±%s)",
				signed(r-1, fixed((r-1)*100, 0, math.Inf(1))+" %"), num(*ba), num(*ca), fixed(c.LoadMismatch*100, 0, math.Inf(1))+" %")
			v.Guards = append(v.Guards, loadMismatch)
		}
	}

	thr, boot := throughput(bb, cb, c)
	v.Bootstrap = boot
	crits := []schemas.Criterion{thr, successRate(base.Summary, cand.Summary, c), gapFraction(bb, cb, c), retryRate(base.Summary, cand.Summary, c, thr.Ratio)}
	for i := range crits {
		cr := &crits[i]
		if windowMismatch != "" {
			cr.Verdict, cr.Reason = schemas.Inconclusive, guardReason(windowMismatch, cr.Reason)
			continue
		}
		if fewBacklog != "" && (cr.Name == Throughput || cr.Name == GapFraction) && cr.Verdict != schemas.Inconclusive {
			cr.Verdict, cr.Reason = schemas.Inconclusive, guardReason(fewBacklog, cr.Reason)
		}
		if loadMismatch != "" && cr.Verdict != schemas.Inconclusive {
			cr.Verdict, cr.Reason = schemas.Inconclusive, guardReason(loadMismatch, cr.Reason)
		}
	}
	v.Criteria = crits
	v.Overall = overall(crits)
	return v, nil
}

func guardReason(guard, reason string) string {
	return "Inconclusive: " + guard + "; without this guard: " + lowerFirst(reason)
}

func lowerFirst(s string) string {
	if s == "" {
		return s
	}
	return strings.ToLower(s[:1]) + s[1:]
}

func overall(cs []schemas.Criterion) string {
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

// checkCriteria returns the first setting out of its range, naming its key.
func checkCriteria(c schemas.Criteria) *CriteriaError {
	bad := func(key, msg string, v any) *CriteriaError {
		return &CriteriaError{Key: key, Msg: fmt.Sprintf("%v: %s", v, msg)}
	}
	switch {
	case c.Confidence <= 0 || c.Confidence >= 1:
		return bad("confidence", "must be between 0 and 1, such as 0.95", c.Confidence)
	case c.Alpha <= 0 || c.Alpha >= 1:
		return bad("alpha", "must be between 0 and 1, such as 0.05", c.Alpha)
	case c.Resamples < 100:
		return bad("resamples", "must be at least 100", c.Resamples)
	case c.MinBacklogWindows < 1:
		return bad("min_backlog_windows", "must be at least 1", c.MinBacklogWindows)
	}
	for _, f := range []struct {
		key string
		v   float64
	}{
		{"success_tolerance", c.SuccessTolerance}, {"retry_tolerance", c.RetryTolerance},
		{"gap_tolerance", c.GapTolerance}, {"gap_floor", c.GapFloor}, {"load_mismatch", c.LoadMismatch},
	} {
		if f.v < 0 {
			return bad(f.key, "must not be negative", f.v)
		}
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
	cr := schemas.Criterion{Name: Throughput, Title: "Throughput improves", Metric: "retry_adjusted_system_tps over backlog windows"}
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
func successRate(b, c schemas.Summary, cr schemas.Criteria) schemas.Criterion {
	out := schemas.Criterion{Name: SuccessRate, Title: "Success rate not reduced", Metric: "success_rate (requests with a successful attempt)"}
	n1, x1, n2, x2 := b.Requests, b.SucceededRequests, c.Requests, c.SucceededRequests
	if n1 == 0 || n2 == 0 {
		out.Verdict = schemas.Inconclusive
		out.Reason = "One of the runs completed no request."
		return out
	}
	p1, p2 := float64(x1)/float64(n1), float64(x2)/float64(n2)
	d := p2 - p1
	out.Baseline, out.Candidate, out.Diff = &p1, &p2, &d
	pv := oneSidedP(x1, n1, x2, n2) // H1: p2 < p1
	out.PValue = &pv
	if -d > cr.SuccessTolerance && pv < cr.Alpha {
		out.Verdict = schemas.Fail
		out.Reason = fmt.Sprintf("Success rate fell from %s to %s (%s, %s).", pct(p1), pct(p2), pp(d), pValue(pv, cr.Alpha))
		return out
	}
	out.Verdict = schemas.Pass
	switch {
	case -d > cr.SuccessTolerance:
		out.Reason = fmt.Sprintf("Success rate %s → %s (%s), not significantly lower (%s).", pct(p1), pct(p2), pp(d), pValue(pv, cr.Alpha))
	default:
		out.Reason = fmt.Sprintf("Success rate %s → %s (%s), within the %s tolerance or better.", pct(p1), pct(p2), pp(d), tolerance(cr.SuccessTolerance))
	}
	return out
}

// retryRate: FAIL when the candidate's retry rate is higher by more than the
// tolerance and a one-sided two-proportion z-test rejects equality.
func retryRate(b, c schemas.Summary, cr schemas.Criteria, thrRatio *float64) schemas.Criterion {
	out := schemas.Criterion{Name: RetryRate, Title: "Retry rate does not increase", Metric: "retry_rate (attempts that are retries)"}
	n1, x1, n2, x2 := b.Attempts, b.RetryAttempts, c.Attempts, c.RetryAttempts
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
func gapFraction(bb, cb []schemas.Metrics, c schemas.Criteria) schemas.Criterion {
	out := schemas.Criterion{Name: GapFraction, Title: "gap_fraction decreases when backlog exists", Metric: "gap_fraction over backlog windows"}
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
