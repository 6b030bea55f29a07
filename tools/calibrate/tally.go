package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/tpsreport/tpsreport/compare"
	"github.com/tpsreport/tpsreport/schemas"
	"golang.org/x/sync/errgroup"
)

// outcome is the verdict of one pair.
type outcome struct {
	pair
	overall  string
	verdicts map[string]schemas.Criterion // by criterion name
}

// evaluate compares every pair with the default criteria, workers at a
// time; the outcomes are in the pairs' order.
func evaluate(ctx context.Context, c *corpus, ps []pair, workers int, cr schemas.Criteria) ([]outcome, error) {
	load := func(keys []runKey) ([]compare.Run, error) {
		var out []compare.Run
		for _, k := range keys {
			r, err := c.run(ctx, k)
			if err != nil {
				return nil, err
			}
			out = append(out, r)
		}
		return out, nil
	}
	out := make([]outcome, len(ps))
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(workers)
	for i, p := range ps {
		g.Go(func() error {
			b, err := load(p.base)
			if err != nil {
				return err
			}
			cd, err := load(p.cand)
			if err != nil {
				return err
			}
			v, err := compare.EvaluateRuns(gctx, b, cd, cr)
			if err != nil {
				return fmt.Errorf("compare %s with %s: %w", p.base[0].dir(c.root), p.cand[0].dir(c.root), err)
			}
			o := outcome{pair: p, overall: v.Overall, verdicts: map[string]schemas.Criterion{}}
			for _, cr := range v.Criteria {
				o.verdicts[cr.Name] = cr
			}
			out[i] = o
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	return out, nil
}

// alarm reports whether a criterion's verdict on an A/A pair claims a
// change: any FAIL, and a PASS that says the candidate is better (throughput,
// and gap_fraction unless both runs are under its floor).
func alarm(cr schemas.Criterion, floor float64) bool {
	switch {
	case cr.Verdict == schemas.Fail:
		return true
	case cr.Verdict != schemas.Pass:
		return false
	case cr.Name == compare.Throughput:
		return true
	case cr.Name == compare.GapFraction:
		return cr.Baseline == nil || cr.Candidate == nil || *cr.Baseline >= floor || *cr.Candidate >= floor
	}
	return false
}

// tableHeader is what the table says about how it was made.
type tableHeader struct {
	pairs   int
	date    time.Time
	command string
}

// judged are the criteria the table has a column for.
var judged = []string{compare.Throughput, compare.SuccessRate, compare.GapFraction, compare.RetryRate, compare.TTFT, compare.TPOT, compare.SLOAttainment}

// writeTable writes the calibration table in Markdown.
func writeTable(b *strings.Builder, res []outcome, h tableHeader) {
	floor := schemas.DefaultCriteria().GapFloor
	fmt.Fprintf(b, "Measured %s with `%s` (%d A/A pairs of one run against one per scenario and input path, a third as many of three against three; %d pairs per effect).\n\n",
		h.date.Format("2006-01-02"), h.command, h.pairs, h.pairs)
	fmt.Fprintln(b, "**False alarms** (A/A pairs: an overall PASS or FAIL on an unchanged system; per criterion, a FAIL or a PASS that claims an improvement):")
	fmt.Fprintln(b)
	fmt.Fprintf(b, "| scenario | input | runs per side | pairs | overall PASS / FAIL | false-alarm rate (95 %% interval) | %s |\n", strings.Join(judged, " | "))
	fmt.Fprintf(b, "|---|---|---|---|---|---|%s\n", strings.Repeat("---|", len(judged)))
	type row struct {
		scenario, path string
		runs           string
	}
	var rows []row
	counts := map[row][]outcome{}
	for _, o := range res {
		if o.effect != nil {
			continue
		}
		r := row{o.base[0].scenario, o.base[0].path, runsText(o.pair)}
		if _, ok := counts[r]; !ok {
			rows = append(rows, r)
		}
		counts[r] = append(counts[r], o)
	}
	slices.SortStableFunc(rows, func(a, b row) int { return strings.Compare(a.runs, b.runs) })
	line := func(name, path string, runs string, os []outcome) {
		var pass, fail int
		per := map[string]int{}
		for _, o := range os {
			switch o.overall {
			case schemas.Pass:
				pass++
			case schemas.Fail:
				fail++
			}
			for _, n := range judged {
				if cr, ok := o.verdicts[n]; ok && alarm(cr, floor) {
					per[n]++
				}
			}
		}
		var cols []string
		for _, n := range judged {
			cols = append(cols, fmt.Sprint(per[n]))
		}
		fmt.Fprintf(b, "| %s | %s | %s | %d | %d / %d | %s | %s |\n", name, path, runs, len(os), pass, fail,
			rateCI(pass+fail, len(os)), strings.Join(cols, " | "))
	}
	all := map[string][]outcome{}
	var kinds []string
	for _, r := range rows {
		line(r.scenario, r.path, r.runs, counts[r])
		if _, ok := all[r.runs]; !ok {
			kinds = append(kinds, r.runs)
		}
		all[r.runs] = append(all[r.runs], counts[r]...)
	}
	for _, k := range kinds {
		line("**all**", "both", k, all[k])
	}

	fmt.Fprintln(b)
	fmt.Fprintln(b, "**Detection** (effect pairs: the unchanged scenario against the changed one, each with its own traffic):")
	fmt.Fprintln(b)
	fmt.Fprintln(b, "| effect | scenario | input | runs per side | pairs | change measured (median) | found by its criterion | overall as expected | opposite verdict |")
	fmt.Fprintln(b, "|---|---|---|---|---|---|---|---|---|")
	var effectRows []effectRow
	ecount := map[effectRow][]outcome{}
	for _, o := range res {
		if o.effect == nil {
			continue
		}
		r := effectRow{o.effect, o.base[0].path, runsText(o.pair)}
		if _, ok := ecount[r]; !ok {
			effectRows = append(effectRows, r)
		}
		ecount[r] = append(ecount[r], o)
	}
	slices.SortStableFunc(effectRows, func(a, b effectRow) int { return strings.Compare(a.runs, b.runs) })
	for _, r := range effectRows {
		os := ecount[r]
		var found, byCrit, opposite int
		var changes []float64
		for _, o := range os {
			if cr, ok := o.verdicts[r.e.criterion]; ok {
				switch {
				case cr.Ratio != nil:
					changes = append(changes, *cr.Ratio-1)
				case cr.Diff != nil:
					changes = append(changes, *cr.Diff)
				}
			}
			if o.overall == r.e.want {
				found++
			}
			if cr, ok := o.verdicts[r.e.criterion]; ok && cr.Verdict == r.e.want {
				byCrit++
			}
			if o.overall != schemas.Inconclusive && o.overall != r.e.want {
				opposite++
			}
		}
		fmt.Fprintf(b, "| %s | %s | %s | %s | %d | %s | %s (%s %s) | %s (%s) | %d |\n", r.e.label, r.e.base, r.path, r.runs, len(os),
			medianChange(r.e.criterion, changes), rateCI(byCrit, len(os)), r.e.criterion, r.e.want, rateCI(found, len(os)), r.e.want, opposite)
	}
	fmt.Fprintln(b)
	fmt.Fprintln(b, "**Smallest effects found in at least 80 % of pairs** (of those above, by the criterion meant to see them):")
	fmt.Fprintln(b)
	for _, r := range smallestFound(effectRows, ecount) {
		fmt.Fprintln(b, "- "+r)
	}
}

// effectRow is a row of the detection table: an effect, the input path and
// the runs a side.
type effectRow struct {
	e    *effect
	path string
	runs string // runsText
}

// runsText says how many runs a pair has a side.
func runsText(p pair) string { return fmt.Sprint(len(p.base)) }

// medianChange writes the median change a criterion measured over the
// pairs: relative for a ratio, in percentage points for a rate.
func medianChange(criterion string, xs []float64) string {
	if len(xs) == 0 {
		return "–"
	}
	slices.Sort(xs)
	m := xs[len(xs)/2]
	if len(xs)%2 == 0 {
		m = (xs[len(xs)/2-1] + xs[len(xs)/2]) / 2
	}
	switch criterion {
	case compare.Throughput, compare.TTFT, compare.TPOT:
		return fmt.Sprintf("%s %+.1f %%", criterion, 100*m)
	}
	return fmt.Sprintf("%s %+.2f pp", criterion, 100*m)
}

// smallestFound says, for each kind of effect and number of runs, the
// smallest of its sizes that its criterion found in at least 80 % of pairs.
func smallestFound(rows []effectRow, count map[effectRow][]outcome) []string {
	type kind struct {
		criterion, base, runs string
	}
	best := map[kind]string{}
	var order []kind
	for _, r := range rows {
		os := count[r]
		if len(os) == 0 {
			continue
		}
		e := os[0].effect
		k := kind{e.criterion, e.base, runsText(os[0].pair)}
		if _, ok := best[k]; !ok {
			order = append(order, k)
			best[k] = ""
		}
		found := 0
		for _, o := range os {
			if o.verdicts[e.criterion].Verdict == e.want {
				found++
			}
		}
		if best[k] == "" && 5*found >= 4*len(os) {
			best[k] = fmt.Sprintf("%s (%s, %s a side): %s, in %d of %d pairs", e.criterion, e.base, k.runs, e.label, found, len(os))
		}
	}
	var out []string
	for _, k := range order {
		if best[k] == "" {
			best[k] = fmt.Sprintf("%s (%s, %s a side): none of the sizes tried", k.criterion, k.base, k.runs)
		}
		out = append(out, best[k])
	}
	return out
}

// rateCI writes k of n as a percentage with its Clopper–Pearson 95 % interval.
func rateCI(k, n int) string {
	if n == 0 {
		return "–"
	}
	lo, hi := clopperPearson(k, n, 0.05)
	return fmt.Sprintf("%.1f %% (%.1f–%.1f)", 100*float64(k)/float64(n), 100*lo, 100*hi)
}

// clopperPearson is the exact binomial interval of k successes in n trials
// at level 1−alpha: lo solves P(X ≥ k | lo) = alpha/2, hi solves
// P(X ≤ k | hi) = alpha/2.
func clopperPearson(k, n int, alpha float64) (lo, hi float64) {
	if k > 0 {
		lo = bisect(func(p float64) bool { return 1-binomCDF(k-1, n, p) < alpha/2 })
	}
	hi = 1
	if k < n {
		hi = bisect(func(p float64) bool { return binomCDF(k, n, p) > alpha/2 })
	}
	return lo, hi
}

// bisect finds the p in [0, 1] where below(p) turns from true to false.
func bisect(below func(float64) bool) float64 {
	lo, hi := 0.0, 1.0
	for range 60 {
		m := (lo + hi) / 2
		if below(m) {
			lo = m
		} else {
			hi = m
		}
	}
	return (lo + hi) / 2
}

// binomCDF is P(X ≤ k) for X ~ Binomial(n, p).
func binomCDF(k, n int, p float64) float64 {
	if p <= 0 {
		return 1
	}
	if p >= 1 {
		if k >= n {
			return 1
		}
		return 0
	}
	var s float64
	for i := 0; i <= k; i++ {
		lg1, _ := math.Lgamma(float64(n + 1))
		lg2, _ := math.Lgamma(float64(i + 1))
		lg3, _ := math.Lgamma(float64(n - i + 1))
		s += math.Exp(lg1 - lg2 - lg3 + float64(i)*math.Log(p) + float64(n-i)*math.Log1p(-p))
	}
	return math.Min(s, 1)
}

// Markers of the calibration tables in a Markdown file.
const (
	beginMarker = "<!-- calibrate:begin -->"
	endMarker   = "<!-- calibrate:end -->"
	canaryBegin = "<!-- calibrate-canary:begin -->"
	canaryEnd   = "<!-- calibrate-canary:end -->"
)

// writeMarkdown replaces what lies between the markers of path with table.
func writeMarkdown(path, table string) error {
	return writeMarkdownAt(path, beginMarker, endMarker, table)
}

// writeMarkdownAt replaces what lies between the markers begin and end of
// path with table.
func writeMarkdownAt(path, beginMarker, endMarker, table string) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	i, j := bytes.Index(b, []byte(beginMarker)), bytes.Index(b, []byte(endMarker))
	if i < 0 || j < i {
		return fmt.Errorf("%s has no %s … %s section", path, beginMarker, endMarker)
	}
	var out bytes.Buffer
	out.Write(b[:i+len(beginMarker)])
	out.WriteString("\n" + table)
	out.Write(b[j:])
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, out.Bytes(), 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

// showPairs prints the verdicts of the pairs of a scenario (A/A) or an
// effect, criterion by criterion.
func showPairs(w io.Writer, res []outcome, name string) {
	for _, o := range res {
		if (o.effect == nil && o.base[0].scenario != name) || (o.effect != nil && o.effect.name != name) {
			continue
		}
		fmt.Fprintf(w, "%s %s seeds %v vs %v: %s\n", o.base[0].scenario, o.base[0].path, seeds(o.base), seeds(o.cand), o.overall)
		for _, n := range judged {
			if cr, ok := o.verdicts[n]; ok {
				fmt.Fprintf(w, "  %-12s %-13s %s [sees %s]\n", n, cr.Verdict, cr.Reason, compare.MDEText(cr))
			}
		}
	}
}

func seeds(ks []runKey) []uint64 {
	var out []uint64
	for _, k := range ks {
		out = append(out, k.seed)
	}
	return out
}

// zTable prints, for each scenario and criterion, the spread of the A/A
// changes in units of their standard errors: about 1 when the intervals
// are as wide as the noise.
func zTable(w io.Writer, res []outcome) {
	type key struct{ sc, crit string }
	zs := map[key][]float64{}
	var scs []string
	for _, o := range res {
		if o.effect != nil || len(o.base) != 1 {
			continue
		}
		if !slices.Contains(scs, o.base[0].scenario) {
			scs = append(scs, o.base[0].scenario)
		}
		for _, n := range judged {
			cr, ok := o.verdicts[n]
			if !ok || cr.Resampling == nil || cr.Resampling.StandardError == 0 {
				continue
			}
			var d float64
			if cr.Ratio != nil {
				d = math.Log(*cr.Ratio)
			} else {
				d = *cr.Diff
			}
			zs[key{o.base[0].scenario, n}] = append(zs[key{o.base[0].scenario, n}], d/cr.Resampling.StandardError)
		}
	}
	fmt.Fprintf(w, "%-14s", "rms z")
	for _, n := range judged {
		fmt.Fprintf(w, " %14s", n)
	}
	fmt.Fprintln(w)
	for _, sc := range scs {
		fmt.Fprintf(w, "%-14s", sc)
		for _, n := range judged {
			z := zs[key{sc, n}]
			var s float64
			for _, v := range z {
				s += v * v
			}
			fmt.Fprintf(w, " %8.2f (%3d)", math.Sqrt(s/float64(max(1, len(z)))), len(z))
		}
		fmt.Fprintln(w)
	}
}

// alarmBound is the most alarms of n pairs that a method alarming at rate
// p gives in 95 % of runs: the least k with P(X ≤ k) ≥ 0.95, X binomial.
func alarmBound(n int, p float64) int {
	for k := 0; k < n; k++ {
		if binomCDF(k, n, p) >= 0.95 {
			return k
		}
	}
	return n
}

// dedupe lists keys without repeats, in their first order.
func dedupe(keys []runKey) []runKey {
	var out []runKey
	seen := map[runKey]bool{}
	for _, k := range keys {
		if !seen[k] {
			seen[k] = true
			out = append(out, k)
		}
	}
	return out
}
