package compare

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"

	"github.com/tpsreport/tpsreport/internal/numfmt"
	"github.com/tpsreport/tpsreport/internal/robust"
	"github.com/tpsreport/tpsreport/schemas"
)

// MSER batches: White's MSER-5 rule averages the series in batches of
// five, which smooths window-to-window noise, but a rule judged on few
// batches is itself noisy: a run of fewer than mserMinBatches batches of
// five is judged window by window (MSER).
const (
	mserBatch      = 5
	mserMinBatches = 50
)

// mser is the truncation rule of White (1997), MSER: of the series z, the
// number d of leading values to drop that minimises the standard error of
// the mean of what is left, Σ_{i≥d} (z_i − z̄_d)² / (n − d)². The search
// stops at half of z, as the rule prescribes: past it, few values are left
// and their statistic means little. steady is false when the best d is that
// bound, the rule's sign that z never settled (it is then better not to
// cut).
func mser(z []float64) (d int, steady bool) {
	n := len(z)
	if n < 4 {
		return 0, true
	}
	// Suffix sums give every d's statistic in one pass from the end.
	best, bestD := 0.0, 0
	var sum, sumSq float64
	stat := make([]float64, n)
	for i := n - 1; i >= 0; i-- {
		sum += z[i]
		sumSq += z[i] * z[i]
		m := float64(n - i)
		ss := sumSq - sum*sum/m
		if ss < 0 {
			ss = 0 // rounding
		}
		stat[i] = ss / (m * m)
	}
	for i := 0; i <= n/2; i++ {
		if i == 0 || stat[i] < best {
			best, bestD = stat[i], i
		}
	}
	return bestD, bestD < n/2
}

// mserShift is how far, in robust standard errors, the values MSER would
// cut must lie from the rest for the cut to stand: on a steady series the
// rule's statistic is itself noisy, and its smallest value often lies at a
// d whose leading values differ from the rest by chance alone. The
// threshold is high because d is the best of many.
const mserShift = 3

// shifted says whether z's first d values differ from the rest by more
// than mserShift standard errors of the difference of their medians. The
// rest's spread stands for both (a warm-up is short), measured robustly
// (1.4826 times the median absolute deviation) so that a drain at the end
// does not hide a ramp at the start.
func shifted(z []float64, d int) bool {
	if d == 0 || d >= len(z)-1 {
		return false
	}
	var sum float64
	for _, v := range z[:d] {
		sum += v
	}
	head := sum / float64(d)
	rest := robust.Median(z[d:])
	sigma := robust.Sigma(z[d:], rest)
	se := sigma * math.Sqrt(1/float64(d)+1/float64(len(z)-d))
	return math.Abs(head-rest) > mserShift*se
}

// batched is the series of means of consecutive batches of size b (the
// last, partial batch dropped).
func batched(x []float64, b int) []float64 {
	out := make([]float64, 0, len(x)/b)
	for i := 0; i+b <= len(x); i += b {
		var s float64
		for _, v := range x[i : i+b] {
			s += v
		}
		out = append(out, s/float64(b))
	}
	return out
}

// steadyCut finds how many windows (in time order) of a run's warm-up and
// cool-down to cut: MSER-5 on its throughput series (the criteria's first
// measure: retry-adjusted system TPS, a window without one as 0), the
// warm-up from the front, then the cool-down from the back of what is
// left. Short runs are judged in batches of one window.
func steadyCut(tps []float64, warmup, cooldown bool) (front, back int, method, unsteady string) {
	b := mserBatch
	method = "MSER-5"
	if len(tps) < mserBatch*mserMinBatches {
		b, method = 1, "MSER"
	}
	z := batched(tps, b)
	var notes []string
	if warmup {
		d, ok := mser(z)
		if ok && shifted(z, d) {
			front = d
		} else if !ok {
			notes = append(notes, "no warm-up found: the series does not settle in its first half")
		}
	}
	if cooldown {
		rest := slices.Clone(z[front:])
		slices.Reverse(rest)
		d, ok := mser(rest)
		if ok && shifted(rest, d) {
			back = d
		} else if !ok {
			notes = append(notes, "no cool-down found: the series does not settle in its last half")
		}
	}
	return front * b, back * b, method, strings.Join(notes, "; ")
}

// autoCut turns a run's automatic warm-up or cool-down into seconds, the
// form selectRun cuts by: the warm-up up to the start of the first window
// kept, the cool-down from the end of the last one kept.
func autoCut(r Run, c schemas.Criteria) (schemas.Criteria, schemas.RunCut) {
	cut := schemas.RunCut{Run: r.Summary.RunID}
	if !c.WarmupAuto && !c.CooldownAuto || len(r.Windows) == 0 {
		return c, cut
	}
	ws := slices.Clone(r.Windows)
	sort.SliceStable(ws, func(a, b int) bool { return ws[a].WindowStart.Before(ws[b].WindowStart) })
	tps := make([]float64, len(ws))
	for i, w := range ws {
		if w.RetryAdjustedSystemTPS != nil {
			tps[i] = *w.RetryAdjustedSystemTPS
		}
	}
	front, back, method, unsteady := steadyCut(tps, c.WarmupAuto, c.CooldownAuto)
	cut.Method, cut.Unsteady = method, unsteady
	start, end := runExtent(r)
	if c.WarmupAuto {
		c.Warmup = 0
		if front > 0 {
			c.Warmup = ws[front].WindowStart.Sub(start).Seconds()
			cut.WarmupWindows = front
		}
		cut.WarmupSeconds = c.Warmup
	}
	if c.CooldownAuto {
		c.Cooldown = 0
		if back > 0 {
			c.Cooldown = end.Sub(windowEnd(ws[len(ws)-1-back])).Seconds()
			cut.CooldownWindows = back
		}
		cut.CooldownSeconds = c.Cooldown
	}
	return c, cut
}

// autoNote says what the steady-state rule cut from each run.
func autoNote(c schemas.Criteria, cuts []schemas.RunCut) string {
	var what []string
	if c.WarmupAuto {
		what = append(what, "warm-up")
	}
	if c.CooldownAuto {
		what = append(what, "cool-down")
	}
	span := func(secs float64, n int) string {
		if n == 0 {
			return "none"
		}
		return fmt.Sprintf("%s (%d %s)", numfmt.Seconds(secs), n, pluralWindows(n))
	}
	var parts []string
	for _, k := range cuts {
		var cut []string
		if c.WarmupAuto {
			cut = append(cut, "warm-up "+span(k.WarmupSeconds, k.WarmupWindows))
		}
		if c.CooldownAuto {
			cut = append(cut, "cool-down "+span(k.CooldownSeconds, k.CooldownWindows))
		}
		p := fmt.Sprintf("%s %s: %s", k.Side, k.Run, strings.Join(cut, ", "))
		if k.Unsteady != "" {
			p += " (" + k.Unsteady + ")"
		}
		parts = append(parts, p)
	}
	method := "MSER-5"
	if len(cuts) > 0 {
		method = cuts[0].Method
		for _, k := range cuts[1:] {
			if k.Method != method {
				method = "MSER-5 (MSER in runs of fewer than 50 windows)"
				break
			}
		}
	}
	return fmt.Sprintf("%s found in each run's throughput by %s: %s", strings.Join(what, " and "), method, strings.Join(parts, "; "))
}

func pluralWindows(n int) string {
	if n == 1 {
		return "window"
	}
	return "windows"
}
