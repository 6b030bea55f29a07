// Package robust holds the location and spread that outliers barely move,
// shared by the steady-state rule (compare), the change points (history)
// and the index's noise bands (report).
package robust

import (
	"math"
	"slices"
)

// Median is the middle value of xs (the mean of the two middle ones); xs
// is left as it is. NaN for no value.
func Median(xs []float64) float64 {
	n := len(xs)
	if n == 0 {
		return math.NaN()
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

// madScale makes the median absolute deviation of normal data estimate its
// standard deviation: 1/Φ⁻¹(3/4).
const madScale = 1.4826

// Sigma is a robust standard deviation of xs about center: 1.4826 times
// the median of |x − center|.
func Sigma(xs []float64, center float64) float64 {
	dev := make([]float64, len(xs))
	for i, x := range xs {
		dev[i] = math.Abs(x - center)
	}
	return madScale * Median(dev)
}
