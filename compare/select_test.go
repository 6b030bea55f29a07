package compare

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// sortedQuantile is the q-quantile of xs by sorting a copy, interpolating
// linearly between closest ranks (numpy's default): the reference that
// quantileInPlace's selection must equal.
func sortedQuantile(xs []float64, q float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	pos := q * float64(len(s)-1)
	i := int(math.Floor(pos))
	if i >= len(s)-1 {
		return s[len(s)-1]
	}
	return s[i] + (pos-float64(i))*(s[i+1]-s[i])
}

// TestQuantileInPlace: selection gives exactly the sorted quantile, on
// sizes from 1 up, with many ties.
func TestQuantileInPlace(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for trial := range 2000 {
		n := 1 + rng.IntN(200)
		if trial%50 == 0 {
			n = 1 + rng.IntN(20000)
		}
		xs := make([]float64, n)
		for i := range xs {
			switch trial % 3 {
			case 0:
				xs[i] = rng.Float64()
			case 1:
				xs[i] = float64(rng.IntN(5)) // many ties
			default:
				xs[i] = float64(i) // already sorted
			}
		}
		for _, q := range []float64{0, 0.5, 0.95, 0.99, 1, rng.Float64()} {
			want := sortedQuantile(xs, q)
			if got := quantileInPlace(slices.Clone(xs), q); got != want {
				t.Fatalf("trial %d n %d q %v: select %v, sort %v", trial, n, q, got, want)
			}
		}
	}
}
