package compare

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"

	"github.com/tpsreport/tpsreport/schemas"
)

// LatencyQuantile is the quantile the latency criteria compare: the p95.
const LatencyQuantile = 0.95

// MaxBootstrapRequests bounds the requests per run that the latency
// bootstrap resamples: above it, an evenly spaced subsample in release order.
const MaxBootstrapRequests = 200_000

// latencyKind is one latency criterion: which request latency it reads and
// which tolerance applies.
type latencyKind struct {
	name, title, label, metric string
	stream                     uint64 // the bootstrap's random stream
	// value is the latency of a request, NaN when unknown.
	value     func(schemas.RequestLatency) float64
	tolerance func(schemas.Criteria) float64
}

var (
	ttftKind = latencyKind{name: TTFT, title: "TTFT does not regress", label: "TTFT",
		metric: "p95 of request TTFT (ttft_req, from first arrival across retries)", stream: 1,
		value:     func(r schemas.RequestLatency) float64 { return r.TTFT },
		tolerance: func(c schemas.Criteria) float64 { return c.TTFTTolerance }}
	tpotKind = latencyKind{name: TPOT, title: "TPOT does not regress", label: "TPOT",
		metric: "p95 of request TPOT (tpot_req)", stream: 2,
		value:     func(r schemas.RequestLatency) float64 { return r.TPOT },
		tolerance: func(c schemas.Criteria) float64 { return c.TPOTTolerance }}
)

// latency: r = candidate / baseline p95 of a request latency over the
// delivered requests, with a percentile bootstrap interval that resamples
// each run's requests independently. FAIL when r exceeds 1 + tolerance and
// the interval lies above 1; otherwise PASS. The note, when not empty, says
// that the bootstrap resampled a subsample.
func latency(k latencyKind, base, cand []schemas.RequestLatency, c schemas.Criteria) (schemas.Criterion, string) {
	cr := schemas.Criterion{Name: k.name, Title: k.title, Metric: k.metric, Scope: ScopeRequests}
	if base == nil || cand == nil {
		which := "either run"
		switch {
		case base != nil:
			which = "the candidate"
		case cand != nil:
			which = "the baseline"
		}
		cr.Verdict = schemas.Inconclusive
		cr.Reason = fmt.Sprintf("Request latencies were not available (not loaded for %s), so %s cannot be compared.", which, k.label)
		return cr, ""
	}
	bx, cx := latencyValues(k, base), latencyValues(k, cand)
	if len(bx) == 0 || len(cx) == 0 {
		which := "the baseline"
		if len(bx) > 0 {
			which = "the candidate"
		}
		cr.Verdict = schemas.Inconclusive
		cr.Reason = fmt.Sprintf("No delivered request of %s has a %s, so there is nothing to compare.", which, k.label)
		return cr, ""
	}
	bq, cq := selectQuantile(bx, LatencyQuantile), selectQuantile(cx, LatencyQuantile)
	cr.Baseline, cr.Candidate = &bq, &cq
	if bq <= 0 {
		cr.Verdict = schemas.Inconclusive
		cr.Reason = fmt.Sprintf("The baseline's %s p95 is 0, so no ratio exists.", k.label)
		return cr, ""
	}
	r := cq / bq
	cr.Ratio = &r

	bs, cs := sorted(subsample(bx)), sorted(subsample(cx))
	note := subsampleNote(k.label, len(bx), len(cx))
	rng := rand.New(rand.NewPCG(Seed, k.stream<<60|uint64(len(bs))<<30|uint64(len(cs))))
	ratios := make([]float64, 0, c.Resamples)
	for range c.Resamples {
		b, x := resampledQuantile(rng, bs, LatencyQuantile), resampledQuantile(rng, cs, LatencyQuantile)
		if b > 0 {
			ratios = append(ratios, x/b)
		}
	}
	if len(ratios) == 0 {
		cr.Verdict = schemas.Inconclusive
		cr.Reason = fmt.Sprintf("The baseline's %s p95 was 0 in every resample, so no interval exists.", k.label)
		return cr, note
	}
	slices.Sort(ratios)
	lo, hi := quantile(ratios, (1-c.Confidence)/2), quantile(ratios, 1-(1-c.Confidence)/2)
	cr.Lo, cr.Hi = &lo, &hi

	tol := k.tolerance(c)
	head := fmt.Sprintf("%s p95 %s (%s, ratio %.2f, %s interval %.2f–%.2f)", k.label, latencyPair(bq, cq), latencyChange(r-1), r, level(c.Confidence), lo, hi)
	switch {
	case r > 1+tol && lo > 1:
		cr.Verdict = schemas.Fail
		cr.Reason = fmt.Sprintf("%s: above the %s tolerance.", head, percent(tol))
	case r > 1+tol:
		cr.Verdict = schemas.Pass
		cr.Reason = fmt.Sprintf("%s: above the %s tolerance, but not significantly: the interval reaches 1.", head, percent(tol))
	case r > 1:
		cr.Verdict = schemas.Pass
		cr.Reason = fmt.Sprintf("%s: within the %s tolerance.", head, percent(tol))
	default:
		cr.Verdict = schemas.Pass
		cr.Reason = head + ": no slower."
	}
	return cr, note
}

// latencyValues are the known values of a latency in release order.
func latencyValues(k latencyKind, rs []schemas.RequestLatency) []float64 {
	out := make([]float64, 0, len(rs))
	for _, q := range sortedByRelease(rs) {
		if v := k.value(q); !math.IsNaN(v) {
			out = append(out, v)
		}
	}
	return out
}

func sorted(xs []float64) []float64 {
	out := slices.Clone(xs)
	slices.Sort(out)
	return out
}

// subsample takes MaxBootstrapRequests evenly spaced values of xs (in the
// order given) when xs holds more: value ⌊i·n/max⌋ for i = 0 … max−1.
func subsample(xs []float64) []float64 {
	n := len(xs)
	if n <= MaxBootstrapRequests {
		return xs
	}
	out := make([]float64, MaxBootstrapRequests)
	for i := range out {
		out[i] = xs[int(int64(i)*int64(n)/MaxBootstrapRequests)]
	}
	return out
}

func subsampleNote(label string, nb, nc int) string {
	var runs []string
	if nb > MaxBootstrapRequests {
		runs = append(runs, "the baseline's "+group(strconv.Itoa(nb)))
	}
	if nc > MaxBootstrapRequests {
		runs = append(runs, "the candidate's "+group(strconv.Itoa(nc)))
	}
	if runs == nil {
		return ""
	}
	return fmt.Sprintf("the %s interval resamples an evenly spaced subsample of %s of %s requests, in release order (the p95 itself is over all of them)",
		label, group(strconv.Itoa(MaxBootstrapRequests)), strings.Join(runs, " and of "))
}

// resampledQuantile is the q-quantile of one bootstrap resample of sorted
// xs: n values drawn with replacement. Resample value i is xs[⌊n·U_i⌋] with
// U_i uniform on [0, 1), and x ↦ xs[⌊n·x⌋] is non-decreasing, so the
// resample's k-th smallest value is xs[⌊n·U_(k)⌋], U_(k) the k-th smallest of
// n uniforms: Beta(k, n−k+1). The quantile interpolates between two
// neighbouring order statistics; given U_(k) = u, the next is u plus (1−u)
// times the least of n−k uniforms. So each resample costs O(1), not O(n log n).
func resampledQuantile(rng *rand.Rand, xs []float64, q float64) float64 {
	n := len(xs)
	pos := q * float64(n-1)
	a := int(pos) // 0-based rank: order statistic k = a+1
	if a >= n-1 {
		a = n - 1
	}
	u := betaSample(rng, float64(a+1), float64(n-a))
	at := func(u float64) float64 { return xs[min(int(u*float64(n)), n-1)] }
	lo := at(u)
	frac := pos - float64(a)
	if a >= n-1 || frac == 0 {
		return lo
	}
	next := u + (1-u)*(1-math.Pow(rng.Float64(), 1/float64(n-a-1)))
	return lo + frac*(at(next)-lo)
}

// betaSample draws from Beta(a, b), a, b ≥ 1, as G_a / (G_a + G_b).
func betaSample(rng *rand.Rand, a, b float64) float64 {
	x := gammaSample(rng, a)
	y := gammaSample(rng, b)
	return x / (x + y)
}

// gammaSample draws from Gamma(k, 1), k ≥ 1 (Marsaglia and Tsang, 2000).
func gammaSample(rng *rand.Rand, k float64) float64 {
	d := k - 1.0/3
	c := 1 / math.Sqrt(9*d)
	for {
		x := rng.NormFloat64()
		v := 1 + c*x
		if v <= 0 {
			continue
		}
		v = v * v * v
		u := rng.Float64()
		if u < 1-0.0331*x*x*x*x || math.Log(u) < 0.5*x*x+d*(1-v+math.Log(v)) {
			return d * v
		}
	}
}

// latencyPair formats two latencies in one unit: seconds when the larger
// is at least 0.1 s, else milliseconds: "0.82 s → 1.31 s", "21 ms → 34 ms".
func latencyPair(b, c float64) string {
	if max(b, c) >= 0.1 {
		return num(b) + " s → " + num(c) + " s"
	}
	return num(b*1000) + " ms → " + num(c*1000) + " ms"
}

// latencyChange formats a relative change of a latency, signed: whole
// percent from 10 % on ("+60 %"), one decimal below ("+4.2 %").
func latencyChange(d float64) string {
	decimals := 1
	if math.Abs(d) >= 0.1 {
		decimals = 0
	}
	return signed(d, fixed(d*100, decimals, math.Inf(1))+" %")
}

// percent formats a tolerance on a ratio: 0.1 is "10 %".
func percent(f float64) string {
	return strconv.FormatFloat(f*100, 'g', 4, 64) + " %"
}

// selectQuantile is quantile(sorted(xs), q) without sorting: the two values
// around rank q·(n−1) are found by selection, in linear time, on a copy of
// xs. At 10 M requests the sort took most of a latency criterion's time.
// xs must hold no NaN.
func selectQuantile(xs []float64, q float64) float64 {
	n := len(xs)
	if n == 0 {
		return math.NaN()
	}
	pos := q * float64(n-1)
	i := int(pos)
	if i >= n-1 {
		return slices.Max(xs)
	}
	w := slices.Clone(xs)
	lo := selectKth(w, i)
	// selectKth leaves every value after index i at least w[i]: the next
	// order statistic is the smallest of them.
	hi := slices.Min(w[i+1:])
	return lo + (pos-float64(i))*(hi-lo)
}

// selectKth reorders xs so that xs[k] is its k-th smallest value (0-based),
// every value before it no larger and every value after it no smaller, and
// returns xs[k] (Hoare's selection with a median-of-three pivot).
func selectKth(xs []float64, k int) float64 {
	lo, hi := 0, len(xs)-1
	for lo < hi {
		mid := lo + (hi-lo)/2
		// Median of three as the pivot, kept at mid.
		if xs[mid] < xs[lo] {
			xs[mid], xs[lo] = xs[lo], xs[mid]
		}
		if xs[hi] < xs[lo] {
			xs[hi], xs[lo] = xs[lo], xs[hi]
		}
		if xs[hi] < xs[mid] {
			xs[hi], xs[mid] = xs[mid], xs[hi]
		}
		pivot := xs[mid]
		i, j := lo, hi
		for i <= j {
			for xs[i] < pivot {
				i++
			}
			for xs[j] > pivot {
				j--
			}
			if i <= j {
				xs[i], xs[j] = xs[j], xs[i]
				i++
				j--
			}
		}
		switch {
		case k <= j:
			hi = j
		case k >= i:
			lo = i
		default:
			return xs[k]
		}
	}
	return xs[k]
}
