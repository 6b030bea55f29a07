package compare

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/tpsreport/tpsreport/internal/numfmt"
	"github.com/tpsreport/tpsreport/schemas"
)

// CanaryMethod names the resampling of a canary comparison in verdict.json.
const CanaryMethod = "circular block bootstrap of paired windows: the same blocks of time drawn for both groups, every replica's windows in them; t interval; Bonferroni over the criteria judged"

// MinGroupRequests is the fewest completed requests a canary group needs:
// below it the group is named and its criteria are INCONCLUSIVE.
const MinGroupRequests = 200

// EvaluateCanary decides the acceptance criteria for a canary: the
// candidate's runs are the canary's replicas, the baseline's the replicas
// it is compared with, each replica one run analysed alone over the same
// windows of one run (docs/acceptance.md "Canary comparisons"). A criterion
// pools each group's replicas, so throughput is per replica whatever the
// groups' sizes; its interval resamples the same blocks of time for both
// groups, so that the traffic both served cancels from the difference.
// g names the groups; the request counts are filled in.
func EvaluateCanary(ctx context.Context, base, cand []Run, c schemas.Criteria, g schemas.Canary) (schemas.Verdict, error) {
	if len(base) == 0 || len(cand) == 0 {
		return schemas.Verdict{}, errors.New("compare: a canary wants at least one replica in each group")
	}
	return evaluate(ctx, base, cand, c, &g)
}

// alignWindows keeps, in every selection, only the windows that start at an
// instant where every selection has one (and the requests completed in
// them), so that window k of one replica is window k of every other. The
// replicas of a canary are analysed over the same extent, so this drops
// windows only where the runs' cuts (an automatic warm-up) differ.
func alignWindows(sels ...[]selection) int {
	count := map[int64]int{}
	total := 0
	for _, ss := range sels {
		for _, s := range ss {
			total++
			for _, w := range s.windows {
				count[w.WindowStart.UnixMicro()]++
			}
		}
	}
	common := 0
	for _, n := range count {
		if n == total {
			common++
		}
	}
	for _, ss := range sels {
		for i := range ss {
			s := &ss[i]
			if len(s.windows) == common {
				continue
			}
			ws := slices.Clone(s.windows)
			sort.SliceStable(ws, func(a, b int) bool { return ws[a].WindowStart.Before(ws[b].WindowStart) })
			starts := make([]int64, len(ws))
			keep := make([]bool, len(ws))
			var kept []schemas.Metrics
			for k, w := range ws {
				starts[k] = w.WindowStart.UnixMicro()
				if count[starts[k]] == total {
					keep[k] = true
					kept = append(kept, w)
				} else {
					s.excluded++
					s.excludedRequests += w.Requests
				}
			}
			if s.requests != nil {
				var rs []schemas.RequestLatency
				for _, q := range s.requests {
					if keep[windowOf(starts, q.Released)] {
						rs = append(rs, q)
					}
				}
				s.requests = rs
				if s.requests == nil {
					s.requests = []schemas.RequestLatency{}
				}
			}
			s.windows = kept
			s.counts = windowCounts(kept, s.counts.sloMet != nil)
		}
	}
	return common
}

// canaryTraffic is the guard on a canary's traffic: a balancer that gave
// the groups different work per replica (requests, offered load, token
// mix) makes their difference the traffic's. "" when it is comparable.
func canaryTraffic(base, cand []Run, g *schemas.Canary, limit float64) string {
	perReplica := func(runs []Run, get func(schemas.Summary) *float64) (float64, bool) {
		var s float64
		for _, r := range runs {
			v := get(r.Summary)
			if v == nil {
				return 0, false
			}
			s += *v
		}
		return s / float64(len(runs)), true
	}
	var parts []string
	if b, c := g.Baseline.RequestsPerReplica, g.Candidate.RequestsPerReplica; b > 0 {
		if r := c / b; math.Abs(r-1) > limit {
			parts = append(parts, fmt.Sprintf("requests per replica %s vs %s (the canary's %s of its peers')", num(b), num(c), pct(r)))
		}
	}
	offered := func(s schemas.Summary) *float64 { return s.OfferedRate }
	if b, ok := perReplica(base, offered); ok && b > 0 {
		if c, ok := perReplica(cand, offered); ok {
			if r := c / b; math.Abs(r-1) > limit {
				parts = append(parts, fmt.Sprintf("offered load per replica %s/s vs %s/s (%s)", num(b), num(c), change(r-1)))
			}
		}
	}
	if parts == nil {
		return ""
	}
	return fmt.Sprintf("the balancer did not give the groups comparable traffic: %s; baseline vs canary, limit ±%s",
		strings.Join(parts, ", "), fixed(limit*100, 0, math.Inf(1))+" %")
}

// fewRequests names a group with fewer than MinGroupRequests requests.
func fewRequests(g *schemas.Canary) string {
	var parts []string
	for _, gr := range []struct {
		name string
		g    schemas.CanaryGroup
	}{{"the canary", g.Candidate}, {"the baseline", g.Baseline}} {
		if gr.g.Requests < MinGroupRequests {
			parts = append(parts, fmt.Sprintf("%s (%s) completed %d requests", gr.name, strings.Join(gr.g.Replicas, ", "), gr.g.Requests))
		}
	}
	if parts == nil {
		return ""
	}
	return fmt.Sprintf("too few requests: %s; a group needs %d", strings.Join(parts, ", "), MinGroupRequests)
}

// canaryNote says what a canary comparison compared.
func canaryNote(g *schemas.Canary, width float64) string {
	group := func(gr schemas.CanaryGroup, rest string) string {
		sel := rest
		if len(gr.Selectors) > 0 {
			sel = strings.Join(gr.Selectors, " ")
		}
		return fmt.Sprintf("%s: %d replica%s (%s), %d spans", sel, len(gr.Replicas), plural(len(gr.Replicas)), strings.Join(gr.Replicas, ", "), gr.Spans)
	}
	s := fmt.Sprintf("canary of run %s over %d windows of %s, each replica analysed alone and the groups paired window by window: canary %s; baseline %s",
		g.Run, g.Windows, seconds(width), group(g.Candidate, ""), group(g.Baseline, "every other replica"))
	if g.UnassignedSpans > 0 {
		s += fmt.Sprintf("; %d spans in neither group", g.UnassignedSpans)
		if g.NoReplicaSpans > 0 {
			s += fmt.Sprintf(" (%d name no replica)", g.NoReplicaSpans)
		}
	}
	return s
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// pairedSpread resamples the two sides of a canary together: every run of
// both has the same windows (alignWindows), and each resample draws blocks
// of window places once, taking every run's windows at those places. The
// spread of the difference f(candidate) − f(baseline) over the resamples is
// the paired one: traffic that both groups served rises and falls in both
// and cancels. The block length comes from the autocorrelation of the
// difference's influence series (each side's summed over its runs, scaled
// by its total), at least a queue episode for a statistic of queued
// requests. It also returns each side's own spread over the same resamples,
// so that the verdict can say what the pairing gained.
func pairedSpread(ctx context.Context, base, cand side, s statistic, f func(float64) float64, b int, seed [2]uint64) (diff, sb, sc spread, ok bool) {
	n := -1
	for _, sd := range []side{base, cand} {
		for _, run := range sd {
			if n >= 0 && len(run) != n || len(run) > 0 && run[0].record {
				return diff, sb, sc, false
			}
			n = len(run)
		}
	}
	if n <= 0 {
		return diff, sb, sc, false
	}
	series := func(sd side) ([]float64, int) {
		out := make([]float64, n)
		var scale float64
		for _, run := range sd {
			for i, v := range s.influence(run) {
				out[i] += v
			}
			for k := range run {
				if s.lat < 0 {
					scale += run[k].sums[s.den]
				} else {
					scale += float64(len(run[k].lats[s.lat]))
				}
			}
		}
		informs := 0
		for i := range n {
			for _, run := range sd {
				if s.informs(&run[i]) {
					informs++
					break
				}
			}
		}
		if scale > 0 {
			for i := range out {
				out[i] /= scale
			}
		}
		return out, informs
	}
	ib, mb := series(base)
	ic, mc := series(cand)
	d := make([]float64, n)
	for i := range d {
		d[i] = ic[i] - ib[i]
	}
	blen := blockLength(d)
	if s.queued {
		for _, sd := range []side{base, cand} {
			for _, run := range sd {
				blen = max(blen, episodeLength(run))
			}
		}
	}
	blen = min(blen, n)
	lengths := func(sd side) []int {
		out := make([]int, len(sd))
		for i := range out {
			out[i] = blen
		}
		return out
	}
	diff.length, sb.length, sc.length = lengths(base), lengths(base), lengths(cand)
	blocks := float64(min(mb, mc)) / float64(blen)
	if blocks < 2 {
		diff.se, sb.se, sc.se = math.Inf(1), math.Inf(1), math.Inf(1)
		diff.df, sb.df, sc.df = 1, 1, 1
		return diff, sb, sc, true
	}
	wb, wc := newWeighed(base.all(), s), newWeighed(cand.all(), s)
	rng := rand.New(rand.NewPCG(seed[0], seed[1]))
	places := make([]int, 0, n)
	var pb, pc []int
	pick := func(sd side, out []int) []int {
		out = out[:0]
		off := 0
		for _, run := range sd {
			for _, i := range places {
				out = append(out, off+i)
			}
			off += len(run)
		}
		return out
	}
	var acc [3]welford
	for i := range b {
		if i%64 == 0 && ctx.Err() != nil {
			break
		}
		places = places[:0]
		for len(places) < n {
			start := rng.IntN(n)
			for j := 0; j < blen && len(places) < n; j++ {
				places = append(places, (start+j)%n)
			}
		}
		pb, pc = pick(base, pb), pick(cand, pc)
		vb, okb := wb.value(pb)
		vc, okc := wc.value(pc)
		if !okb || !okc {
			continue
		}
		fb, fc := f(vb), f(vc)
		if math.IsNaN(fb) || math.IsInf(fb, 0) || math.IsNaN(fc) || math.IsInf(fc, 0) {
			continue
		}
		acc[0].add(fc - fb)
		acc[1].add(fb)
		acc[2].add(fc)
	}
	diff.se, sb.se, sc.se = math.Sqrt(acc[0].variance()), math.Sqrt(acc[1].variance()), math.Sqrt(acc[2].variance())
	diff.df = math.Max(1, blocks-1)
	sb.df, sc.df = diff.df, diff.df
	if s.queued {
		diff.episodes = blen > blockLength(d)
	}
	return diff, sb, sc, true
}

// welford is a running mean and sum of squared deviations.
type welford struct {
	n        int
	mean, m2 float64
}

func (w *welford) add(x float64) {
	w.n++
	d := x - w.mean
	w.mean += d / float64(w.n)
	w.m2 += d * (x - w.mean)
}

func (w *welford) variance() float64 {
	if w.n < 2 {
		return 0
	}
	return w.m2 / float64(w.n-1)
}

// canaryRequests fills each group's request counts from its runs.
func canaryRequests(g *schemas.Canary, base, cand []Run) {
	for _, gr := range []struct {
		g    *schemas.CanaryGroup
		runs []Run
	}{{&g.Baseline, base}, {&g.Candidate, cand}} {
		gr.g.Requests = 0
		for _, r := range gr.runs {
			gr.g.Requests += r.Summary.Requests
		}
		gr.g.RequestsPerReplica = float64(gr.g.Requests) / float64(len(gr.runs))
	}
}

// Count writes a count, or a mean count, to whole units with thousands
// grouped: "3,412".
func Count(x float64) string { return numfmt.Group(strconv.FormatFloat(math.Round(x), 'f', 0, 64)) }

// PairingText says how many times as wide each criterion's interval would
// be with the groups resampled apart rather than paired: "... throughput
// 2.4×, ttft 1.3×"; "" when nothing was paired.
func PairingText(cs []schemas.Criterion) string {
	var parts []string
	for _, c := range cs {
		if k := c.Resampling.Narrowing(); k > 0 {
			parts = append(parts, fmt.Sprintf("%s %s×", c.Name, strconv.FormatFloat(k, 'f', 1, 64)))
		}
	}
	if parts == nil {
		return ""
	}
	return "resampled apart, not paired, the groups would give intervals this many times as wide: " + strings.Join(parts, ", ")
}
