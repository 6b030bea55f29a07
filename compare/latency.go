package compare

import (
	"math"
	"strconv"
)

// LatencyQuantile is the quantile the latency criteria compare: the p95.
const LatencyQuantile = 0.95

// MaxBootstrapRequests bounds the requests per run that the latency
// bootstrap resamples: above it, an evenly spaced subsample in release order.
const MaxBootstrapRequests = 200_000

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
