package compare

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// TestSelectQuantile: selection gives exactly the sorted quantile, on sizes
// from 1 up, with many ties, and leaves its input alone.
func TestSelectQuantile(t *testing.T) {
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
		orig := slices.Clone(xs)
		for _, q := range []float64{0, 0.5, 0.95, 0.99, 1, rng.Float64()} {
			want := quantile(sorted(xs), q)
			if got := selectQuantile(xs, q); got != want {
				t.Fatalf("trial %d n %d q %v: select %v, sort %v", trial, n, q, got, want)
			}
		}
		if !slices.Equal(xs, orig) {
			t.Fatalf("trial %d: selectQuantile changed its input", trial)
		}
	}
}
