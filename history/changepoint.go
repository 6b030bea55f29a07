package history

import (
	"math"
	"math/rand/v2"
	"slices"
)

// The change points of a series are found by E-Divisive means (Matteson
// and James, "A Nonparametric Approach for Multiple Change Point Analysis
// of Multivariate Data", JASA 2014), the method MongoDB's performance CI
// and Apache Otava (formerly Hunter) run over nightly benchmark results:
//
//   - For a segment Z of n values and a split τ into X = Z[:τ] and
//     Y = Z[τ:], the energy statistic with α = 1 is
//     Q(τ) = (τ(n−τ)/n) · (2·mean|X−Y| − mean|X−X'| − mean|Y−Y'|),
//     where the means run over the pairs across and within the sides. It
//     is large where the values on the two sides differ in distribution.
//   - The split is the τ of the largest Q, each side at least MinSize
//     values long. Its significance is a permutation test: the segment's
//     values shuffled, the largest Q of each shuffle; p is the share of
//     shuffles (and the series itself) whose Q reaches the observed one.
//   - A significant split cuts the segment in two, and each part is
//     searched again, until no part holds a significant split.
//
// Nothing is assumed of the noise's distribution, and a change of spread
// counts as well as one of level. The shuffles are drawn from a generator
// seeded by the series itself, so that a series always gets the same
// answer.

// Options tune the search; the zero value takes the defaults.
type Options struct {
	// Alpha is the p-value at or below which a split is a change point
	// (default 0.01).
	Alpha float64
	// MinSize is the fewest values on each side of a split (default 4).
	MinSize int
	// Permutations bounds the shuffles of one test (default 499). The test
	// stops early once its p-value cannot reach Alpha.
	Permutations int
	// MinChange is the smallest change Find reports (default 0.01): a
	// relative change for most metrics, a difference for a fraction (0.01
	// is 1 pp). A long quiet series makes a shift of a fraction of a
	// percent significant, which no one would act on.
	MinChange float64
}

// WithDefaults is o with each unset field at its default.
func (o Options) WithDefaults() Options {
	if o.Alpha <= 0 {
		o.Alpha = 0.01
	}
	if o.MinSize < 2 {
		o.MinSize = 4
	}
	if o.Permutations <= 0 {
		o.Permutations = 499
	}
	if o.MinChange <= 0 {
		o.MinChange = 0.01
	}
	return o
}

// Split is one change point of a series: the first index after the change,
// and the test's p-value.
type Split struct {
	Index int
	P     float64
}

// ChangePoints returns the change points of xs in index order. NaN values
// are not allowed: the caller leaves out the nights without a value.
func ChangePoints(xs []float64, opt Options) []Split {
	opt = opt.WithDefaults()
	r := rand.New(rand.NewPCG(seedOf(xs), 0x7470737265706f72))
	var out []Split
	var search func(lo, hi int)
	search = func(lo, hi int) {
		seg := xs[lo:hi]
		tau, q := bestSplit(seg, opt.MinSize)
		if tau < 0 {
			return
		}
		p := permutationP(seg, q, opt, r)
		if p > opt.Alpha {
			return
		}
		out = append(out, Split{Index: lo + tau, P: p})
		search(lo, lo+tau)
		search(lo+tau, hi)
	}
	search(0, len(xs))
	slices.SortFunc(out, func(a, b Split) int { return a.Index - b.Index })
	return out
}

// bestSplit is the τ of the largest Q over the splits of z with at least
// minSize values on each side, and that Q; τ = −1 when z is too short.
func bestSplit(z []float64, minSize int) (int, float64) {
	return bestSplitOf(z, nil, minSize)
}

// bestSplitOf is bestSplit of the values z[perm[0]], z[perm[1]], …, or of
// z itself when perm is nil. It keeps running sums so that all the splits
// together cost O(n²): moving value t from the right side to the left
// changes the left's within sum by its distances to the values left of it,
// the right's by those to the values right of it, and the cross sum by
// both.
func bestSplitOf(z []float64, perm []int, minSize int) (int, float64) {
	n := len(z)
	if n < 2*minSize {
		return -1, 0
	}
	at := func(i int) float64 {
		if perm == nil {
			return z[i]
		}
		return z[perm[i]]
	}
	// toLeft[t] = Σ_{i<t} |z_i − z_t|, toRight[t] = Σ_{j>t} |z_t − z_j|.
	toLeft := make([]float64, n)
	toRight := make([]float64, n)
	for i := 0; i < n; i++ {
		zi := at(i)
		for j := i + 1; j < n; j++ {
			d := math.Abs(zi - at(j))
			toRight[i] += d
			toLeft[j] += d
		}
	}
	var within float64 // Σ_{i<j} |z_i − z_j| over all of z
	for _, v := range toRight {
		within += v
	}
	// Left = z[:τ], right = z[τ:]: start at τ = 0.
	var wl, cross float64
	wr := within
	best, bestQ := -1, math.Inf(-1)
	for tau := 1; tau <= n-minSize; tau++ {
		t := tau - 1 // the value that moves left
		wl += toLeft[t]
		wr -= toRight[t]
		cross += toRight[t] - toLeft[t]
		if tau < minSize {
			continue
		}
		m, k := float64(tau), float64(n-tau)
		e := 2*cross/(m*k) - wl/(m*(m-1)/2) - wr/(k*(k-1)/2)
		q := m * k / (m + k) * e
		if q > bestQ {
			best, bestQ = tau, q
		}
	}
	return best, bestQ
}

// permutationP is the permutation test's p-value of the largest Q, q, of
// z: (1 + the shuffles whose largest Q reaches q) / (1 + the shuffles). It
// stops as soon as the p-value it would give is above opt.Alpha whatever
// the shuffles left (Besag and Clifford's sequential test), so a segment
// without a change costs a few shuffles.
func permutationP(z []float64, q float64, opt Options, r *rand.Rand) float64 {
	perm := make([]int, len(z))
	for i := range perm {
		perm[i] = i
	}
	// Above this many exceedances p > Alpha, however many shuffles follow.
	limit := int(opt.Alpha * float64(opt.Permutations+1))
	exceed := 0
	for s := 1; s <= opt.Permutations; s++ {
		r.Shuffle(len(perm), func(i, j int) { perm[i], perm[j] = perm[j], perm[i] })
		if _, qs := bestSplitOf(z, perm, opt.MinSize); qs >= q*(1-1e-12) {
			exceed++
			if exceed > limit {
				return float64(exceed+1) / float64(s+1)
			}
		}
	}
	return float64(exceed+1) / float64(opt.Permutations+1)
}

// seedOf is a seed drawn from the values of xs (FNV-1a over their bits).
func seedOf(xs []float64) uint64 {
	h := uint64(14695981039346656037)
	for _, x := range xs {
		b := math.Float64bits(x)
		for i := 0; i < 8; i++ {
			h ^= b & 0xff
			h *= 1099511628211
			b >>= 8
		}
	}
	return h
}
