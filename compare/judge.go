package compare

import (
	"context"
	"fmt"
	"math"

	"github.com/tpsreport/tpsreport/schemas"
)

// A rule is which way a criterion's change counts.
type rule int

const (
	// improves: PASS when the candidate is better by at least the
	// tolerance and significantly better; FAIL when significantly below
	// the tolerance; otherwise INCONCLUSIVE (throughput).
	improves rule = iota
	// falls: PASS when lower by more than the tolerance and significantly
	// lower; FAIL when higher by more than the tolerance and significantly
	// higher; otherwise INCONCLUSIVE (gap_fraction).
	falls
	// noRise: FAIL when higher by more than the tolerance and
	// significantly higher; otherwise PASS (retry rate, TTFT, TPOT).
	noRise
	// noFall: FAIL when lower by more than the tolerance and
	// significantly lower; otherwise PASS (success rate, SLO attainment).
	noFall
)

// A definition is one criterion as data over the resampling engine: the
// statistic it computes on each side, whether the sides are compared as a
// ratio (candidate / baseline, intervals on its logarithm) or a difference
// (candidate − baseline), the rule and the tolerance. The sentences of its
// reasons are made from label and unit.
type definition struct {
	name, title, metric, scope string
	label                      string // "TTFT p95", "Success rate"
	stat                       statistic
	ratio                      bool
	rule                       rule
	tol                        func(schemas.Criteria) float64
	// data is what more of would shrink the interval: "backlog time".
	data string
	// stream is the criterion's own random stream: adding a criterion
	// changes no other criterion's resamples.
	stream uint64
}

var definitions = []definition{
	{name: Throughput, title: "Throughput improves", metric: "retry_adjusted_system_tps over backlog windows", scope: ScopeBacklog,
		label: "Delivered throughput under backlog", stat: ratioOf(sumBacklogTPS, sumBacklogWindows), ratio: true, rule: improves,
		tol: func(c schemas.Criteria) float64 { return c.MinImprovement }, data: "backlog time", stream: 1},
	{name: SuccessRate, title: "Success rate not reduced", metric: "success_rate (requests with a successful attempt)", scope: ScopeRun,
		label: "Success rate", stat: ratioOf(sumSucceeded, sumRequests), rule: noFall,
		tol: func(c schemas.Criteria) float64 { return c.SuccessTolerance }, data: "run time", stream: 2},
	{name: GapFraction, title: "gap_fraction decreases when backlog exists", metric: "gap_fraction over backlog windows", scope: ScopeBacklog,
		label: "Idle time under backlog", stat: ratioOf(sumBacklogGap, sumBacklogSeconds), rule: falls,
		tol: func(c schemas.Criteria) float64 { return c.GapTolerance }, data: "backlog time", stream: 3},
	{name: RetryRate, title: "Retry rate does not increase", metric: "retry_rate (attempts that are retries)", scope: ScopeRun,
		label: "Retry rate", stat: ratioOf(sumRetries, sumAttempts), rule: noRise,
		tol: func(c schemas.Criteria) float64 { return c.RetryTolerance }, data: "run time", stream: 4},
	{name: TTFT, title: "TTFT does not regress", metric: "p95 of request TTFT (ttft_req, from first arrival across retries)", scope: ScopeRequests,
		label: "TTFT p95", stat: quantileOf(latTTFT, LatencyQuantile).inQueue(), ratio: true, rule: noRise,
		tol: func(c schemas.Criteria) float64 { return c.TTFTTolerance }, data: "run time", stream: 5},
	{name: TPOT, title: "TPOT does not regress", metric: "p95 of request TPOT (tpot_req)", scope: ScopeRequests,
		label: "TPOT p95", stat: quantileOf(latTPOT, LatencyQuantile), ratio: true, rule: noRise,
		tol: func(c schemas.Criteria) float64 { return c.TPOTTolerance }, data: "run time", stream: 6},
	{name: SLOAttainment, title: "SLO attainment not reduced", metric: "slo_attainment (completed requests delivered within the SLO)", scope: ScopeRun,
		label: "SLO attainment", stat: ratioOf(sumSLOMet, sumRequests).inQueue(), rule: noFall,
		tol: func(c schemas.Criteria) float64 { return c.SLOTolerance }, data: "run time", stream: 7},
}

// forCanary is d as a canary comparison words it: each group's replicas
// are pooled, so its throughput is per replica.
func (d definition) forCanary() definition {
	switch d.name {
	case Throughput:
		d.title = "Throughput per replica improves"
		d.metric = "retry_adjusted_system_tps per replica, over each replica's backlog windows"
		d.label = "Delivered throughput per replica under backlog"
	case GapFraction:
		d.metric = "gap_fraction over each replica's backlog windows"
	}
	return d
}

// definitionOf returns the definition of criterion name.
func definitionOf(name string) definition {
	for _, d := range definitions {
		if d.name == name {
			return d
		}
	}
	panic("compare: no criterion " + name)
}

// twoSided reports whether both of a rule's outcomes claim a change (PASS
// as well as FAIL): an unchanged system can then alarm in either tail of
// the interval; a criterion that may only FAIL alarms in one.
func (r rule) twoSided() bool { return r == improves || r == falls }

// level is the confidence of a criterion's interval when k criteria are
// judged at false-alarm rate alpha: each criterion may alarm in alpha/k of
// comparisons (Bonferroni), in both tails of its interval or in one.
func (d definition) level(alpha float64, k int) float64 {
	tail := alpha / float64(k)
	if d.rule.twoSided() {
		tail /= 2
	}
	return 1 - 2*tail
}

// power is the share of comparisons in which an effect of the minimum
// detectable size is found.
const power = 0.8

// A judgement is what the engine says of one criterion: the two sides'
// values, the change (ratio or difference) with its interval, the smallest
// change the comparison can see, and how the sides were resampled.
type judgement struct {
	b, c       float64
	hasB, hasC bool    // whether each side's value is defined
	est        float64 // candidate / baseline, or candidate − baseline
	lo, hi     float64
	level      float64 // the interval's confidence
	mde        float64 // smallest change found in `power` of comparisons: relative for a ratio, absolute for a difference
	sb, sc     spread
	se, df, t  float64 // standard error of the transformed change, its degrees of freedom, the t quantile used
}

// open reports whether a side had too few windows that add to the
// statistic for its spread to be measured: the interval is then unbounded.
func (j judgement) open() bool { return math.IsInf(j.se, 1) }

// transform is the scale a definition's intervals are made on: the
// logarithm for a ratio, the value itself for a difference.
func (d definition) transform() func(float64) float64 {
	if d.ratio {
		return math.Log
	}
	return func(x float64) float64 { return x }
}

// judge measures definition d on the two sides at the given interval level,
// resampling them together when paired (pairedSpread). ok is false when the
// statistic is not defined on a side, or a ratio's baseline is not
// positive.
func (d definition) judge(ctx context.Context, base, cand side, level float64, c schemas.Criteria, paired bool) (judgement, bool) {
	var j judgement
	j.b, j.hasB = d.stat.value(base.all())
	j.c, j.hasC = d.stat.value(cand.all())
	if !j.hasB || !j.hasC || d.ratio && (j.b <= 0 || j.c <= 0) {
		return j, false
	}
	f := d.transform()
	j.level = level
	var sd spread
	var pairedOK bool
	if paired {
		sd, j.sb, j.sc, pairedOK = pairedSpread(ctx, base, cand, d.stat, f, c.Resamples, [2]uint64{Seed, d.stream<<32 | 3})
	}
	if pairedOK {
		j.se, j.df = sd.se, sd.df
		j.sb.episodes, j.sc.episodes = sd.episodes, sd.episodes
	} else {
		j.sb = resample(ctx, base, d.stat, f, c.Resamples, [2]uint64{Seed, d.stream<<32 | 1})
		j.sc = resample(ctx, cand, d.stat, f, c.Resamples, [2]uint64{Seed, d.stream<<32 | 2})
		j.se = math.Hypot(j.sb.se, j.sc.se)
		j.df = welch(j.sb, j.sc)
	}
	j.t = math.Inf(1)
	if !j.open() {
		j.t = studentQuantile(1-(1-level)/2, j.df)
	}
	diff := f(j.c) - f(j.b)
	lo, hi := diff-j.t*j.se, diff+j.t*j.se
	// The smallest change found in `power` of comparisons: its estimate
	// must clear both the tolerance and the interval's half-width, with
	// room for the estimate's own error.
	thr := d.tol(c)
	if d.ratio {
		thr = math.Log1p(thr)
	}
	mde := math.Max(math.Abs(thr), j.t*j.se) + normalQuantile(power)*j.se
	if d.ratio {
		j.est, j.lo, j.hi, j.mde = j.c/j.b, math.Exp(lo), math.Exp(hi), math.Expm1(mde)
	} else {
		// A difference of two fractions: the candidate's lies in [0, 1].
		j.est, j.lo, j.hi, j.mde = diff, math.Max(lo, -j.b), math.Min(hi, 1-j.b), mde
	}
	return j, true
}

// welch is the degrees of freedom of the difference of two sides'
// statistics (Welch–Satterthwaite), each side having its independent blocks
// less one.
func welch(b, c spread) float64 {
	vb, vc := b.se*b.se, c.se*c.se
	db, dc := b.df, c.df
	if vb+vc == 0 {
		return math.Inf(1)
	}
	return (vb + vc) * (vb + vc) / (vb*vb/db + vc*vc/dc)
}

// decide applies d's rule to judgement j.
func (d definition) decide(j judgement, c schemas.Criteria) string {
	tol := d.tol(c)
	one := 0.0
	if d.ratio {
		one = 1
	}
	switch d.rule {
	case improves:
		switch {
		case j.est >= one+tol && j.lo > one:
			return schemas.Pass
		case j.hi < one+tol:
			return schemas.Fail
		}
		return schemas.Inconclusive
	case falls:
		switch {
		case j.est < one-tol && j.hi < one:
			return schemas.Pass
		case j.est > one+tol && j.lo > one:
			return schemas.Fail
		}
		return schemas.Inconclusive
	case noRise:
		if j.est > one+tol && j.lo > one {
			return schemas.Fail
		}
		return schemas.Pass
	case noFall:
		if j.est < one-tol && j.hi < one {
			return schemas.Fail
		}
		return schemas.Pass
	}
	panic(fmt.Sprint("compare: unknown rule ", d.rule))
}

// moreData is how many times the data (backlog time, run time, runs) would
// make the interval narrow enough to decide an undecided change of the size
// observed: the standard error shrinks with the square root of the data.
// The distance to cover is from the change to the bound the decision needs:
// for throughput, from 1 to a change at or above the target (PASS) or from
// a change below it to the target (FAIL); for gap_fraction, from 0 to a
// change beyond the tolerance. 0 when the change is within the tolerance,
// so that no amount of data would make it count.
func (d definition) moreData(j judgement, c schemas.Criteria) float64 {
	f := d.transform()
	diff := f(j.c) - f(j.b)
	thr := d.tol(c)
	if d.ratio {
		thr = math.Log1p(thr)
	}
	var dist float64
	switch {
	case d.rule == improves && diff >= thr:
		dist = diff
	case d.rule == improves:
		dist = thr - diff
	case math.Abs(diff) > thr:
		dist = math.Abs(diff)
	}
	if dist <= 0 || j.se == 0 {
		return 0
	}
	return (j.t * j.se / dist) * (j.t * j.se / dist)
}
