package compare

import (
	"strconv"

	"github.com/tpsreport/tpsreport/internal/numfmt"
)

// LatencyQuantile is the quantile the latency criteria compare: the p95.
const LatencyQuantile = 0.95

// MaxBootstrapRequests bounds the requests per run that the latency
// bootstrap resamples: above it, an evenly spaced subsample in release order.
const MaxBootstrapRequests = 200_000

// latencyPair formats two latencies as the report's tables do, each in its
// own unit: "47.3 s → 1.88 s", "106 s → 634 ms", "21 ms → 34.5 ms".
func latencyPair(b, c float64) string {
	return numfmt.Seconds(b) + " → " + numfmt.Seconds(c)
}

// latencyChange formats a relative change of a latency, signed, as the
// report's tables do: "+84.2 %", "+4.2 %", "0.00 %" for one that rounds to
// nothing.
func latencyChange(d float64) string { return numfmt.Rel(d) }

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
