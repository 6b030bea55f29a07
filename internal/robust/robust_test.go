package robust

import (
	"math"
	"testing"
)

// TestMedianSigma: hand-computed. 10 12 11 13 has median 11.5 and absolute
// deviations 1.5 0.5 0.5 1.5, whose median is 1: σ = 1.4826. An outlier
// moves neither much: 10 12 11 13 1000 has median 12, deviations 2 0 1 1
// 988, median 1.
func TestMedianSigma(t *testing.T) {
	tests := []struct {
		xs            []float64
		median, sigma float64
	}{
		{[]float64{10, 12, 11, 13}, 11.5, 1.4826},
		{[]float64{10, 12, 11, 13, 1000}, 12, 1.4826},
		{[]float64{7}, 7, 0},
	}
	for _, tt := range tests {
		in := append([]float64(nil), tt.xs...)
		m := Median(tt.xs)
		if m != tt.median {
			t.Errorf("Median(%v) = %v, want %v", tt.xs, m, tt.median)
		}
		if s := Sigma(tt.xs, m); math.Abs(s-tt.sigma) > 1e-12 {
			t.Errorf("Sigma(%v) = %v, want %v", tt.xs, s, tt.sigma)
		}
		for i := range in {
			if in[i] != tt.xs[i] {
				t.Errorf("Median reordered its input: %v", tt.xs)
				break
			}
		}
	}
	if !math.IsNaN(Median(nil)) {
		t.Error("Median of nothing is not NaN")
	}
}
