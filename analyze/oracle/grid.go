package oracle

import (
	"math"
	"math/big"
	"math/bits"
	"slices"

	"github.com/tpsreport/tpsreport/schemas"
)

// grid is the run extent [start, end] cut into the tumbling windows
// k = k0 … last of width w (docs/metrics.md "Windows"). Window i (0-based) is
// k = k0 + i.
type grid struct {
	w          int64
	start, end int64
	k0, last   int64
	n          int
}

func newGrid(start, end, w int64) grid {
	g := grid{w: w, start: start, end: end, k0: floorDiv(start, w)}
	switch {
	case end > start:
		g.last = floorDiv(end-1, w)
	case end == start:
		g.last = g.k0 // one window of 0 seconds
	default:
		g.last = g.k0 - 1 // no window (see the choice in Analyze)
	}
	g.n = int(g.last - g.k0 + 1)
	return g
}

// half is the same grid in half-microseconds.
func (g grid) half() grid {
	h := g
	h.w, h.start, h.end = 2*g.w, 2*g.start, 2*g.end
	return h
}

// bounds is window i ∩ [start, end].
func (g grid) bounds(i int) (lo, hi int64) {
	k := g.k0 + int64(i)
	return max(g.start, k*g.w), min(g.end, (k+1)*g.w)
}

// event returns the window of an event at instant t, and whether it counts
// (start ≤ t ≤ end); windows are half-open except the last, which also holds end.
func (g grid) event(t int64) (int, bool) {
	if t < g.start || t > g.end {
		return 0, false
	}
	return int(min(floorDiv(t, g.w), g.last) - g.k0), true
}

// spread calls f for every window that [lo, hi) ∩ [start, end] overlaps with
// positive length, with that overlap, and returns the overlap with [start, end].
func (g grid) spread(lo, hi int64, f func(i int, ov int64)) int64 {
	lo, hi = max(lo, g.start), min(hi, g.end)
	if hi <= lo {
		return 0
	}
	for k := floorDiv(lo, g.w); k <= floorDiv(hi-1, g.w); k++ {
		f(int(k-g.k0), min(hi, (k+1)*g.w)-max(lo, k*g.w))
	}
	return hi - lo
}

// prorate spreads quantity q uniformly over [a, b] (a point at a when b ≤ a)
// and hands each window's share, and the run's, to add.
func (g grid) prorate(q, a, b int64, add func(*acc, float64), run *acc, wins []*acc) {
	if b <= a {
		if i, ok := g.event(a); ok {
			add(run, float64(q))
			add(wins[i], float64(q))
		}
		return
	}
	// Choice: an interval with b > a that meets [start, end] in a single
	// instant only (b = start or a = end) has a zero overlap and gives
	// nothing; only b ≤ a makes a point.
	if ov := g.spread(a, b, func(i int, ov int64) { add(wins[i], share(q, ov, b-a)) }); ov > 0 {
		add(run, share(q, ov, b-a))
	}
}

// share is q·ov/d correctly rounded to float64 (d > 0).
func share(q, ov, d int64) float64 {
	if ov == d {
		return float64(q)
	}
	const exact = 1 << 53 // integers below it are exact in float64
	hi, lo := bits.Mul64(uint64(abs(q)), uint64(ov))
	if hi == 0 && lo < exact && d < exact {
		// numerator and denominator exact: one rounding, in the division
		v := float64(lo) / float64(d)
		if q < 0 {
			v = -v
		}
		return v
	}
	num := new(big.Int).Mul(big.NewInt(q), big.NewInt(ov))
	v, _ := new(big.Rat).SetFrac(num, big.NewInt(d)).Float64()
	return v
}

func abs(x int64) int64 {
	if x < 0 {
		return -x
	}
	return x
}

// floorDiv is ⌊a/b⌋ for b > 0.
func floorDiv(a, b int64) int64 {
	q := a / b
	if a%b != 0 && a < 0 {
		q--
	}
	return q
}

// ksum is a Neumaier compensated sum; callers add in a canonical order.
type ksum struct{ s, c float64 }

func (k *ksum) add(x float64) {
	t := k.s + x
	if math.Abs(k.s) >= math.Abs(x) {
		k.c += (k.s - t) + x
	} else {
		k.c += (x - t) + k.s
	}
	k.s = t
}

func (k ksum) value() float64 { return k.s + k.c }

// mean of xs, summed in ascending order (xs is sorted in place).
func mean(xs []float64) float64 {
	slices.Sort(xs)
	var k ksum
	for _, x := range xs {
		k.add(x)
	}
	return k.value() / float64(len(xs))
}

// percentiles summarises xs (sorted in place): linear interpolation between
// closest ranks at position (n−1)·q, numpy's default (its _lerp, exactly).
func percentiles(xs []float64) schemas.Percentiles {
	p := schemas.Percentiles{N: int64(len(xs))}
	if len(xs) == 0 {
		return p
	}
	p.Mean = ptr(mean(xs)) // sorts xs
	p.P50 = ptr(quantile(xs, 0.50))
	p.P90 = ptr(quantile(xs, 0.90))
	p.P95 = ptr(quantile(xs, 0.95))
	p.P99 = ptr(quantile(xs, 0.99))
	p.Max = ptr(xs[len(xs)-1])
	return p
}

// quantile of sorted xs, numpy method "linear".
func quantile(xs []float64, q float64) float64 {
	pos := float64(len(xs)-1) * q
	lo := math.Floor(pos)
	i := int(lo)
	j := min(i+1, len(xs)-1)
	a, b, t := xs[i], xs[j], pos-lo
	d := b - a
	if t >= 0.5 {
		return b - d*(1-t)
	}
	return a + d*t
}

// halfSeconds converts a half-µs measure to seconds.
func halfSeconds(h int64) float64 { return float64(h) / 2e6 }
