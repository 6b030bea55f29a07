package compare

import "math"

// studentQuantile is the p-quantile (p in (0.5, 1)) of Student's t
// distribution with df degrees of freedom (df > 0, not necessarily whole),
// found by bisection on its distribution function.
func studentQuantile(p, df float64) float64 {
	if math.IsInf(df, 1) || df > 1e7 {
		return normalQuantile(p)
	}
	lo, hi := 0.0, 1.0
	for studentCDF(hi, df) < p {
		hi *= 2
		if hi > 1e12 {
			return hi
		}
	}
	for range 200 {
		m := (lo + hi) / 2
		if studentCDF(m, df) < p {
			lo = m
		} else {
			hi = m
		}
		if hi-lo <= 1e-12*hi {
			break
		}
	}
	return (lo + hi) / 2
}

// studentCDF is P(T ≤ t) for T with Student's t distribution of df degrees
// of freedom: 1 − I_x(df/2, 1/2)/2 with x = df/(df+t²) for t ≥ 0.
func studentCDF(t, df float64) float64 {
	x := df / (df + t*t)
	tail := 0.5 * regIncBeta(df/2, 0.5, x)
	if t >= 0 {
		return 1 - tail
	}
	return tail
}

// normalQuantile is the p-quantile of the standard normal distribution.
func normalQuantile(p float64) float64 {
	return math.Sqrt2 * math.Erfinv(2*p-1)
}

// regIncBeta is the regularized incomplete beta function I_x(a, b), by the
// continued fraction of Numerical Recipes (betacf, evaluated with Lentz's
// method), using the symmetry I_x(a, b) = 1 − I_{1−x}(b, a) where the
// fraction converges faster.
func regIncBeta(a, b, x float64) float64 {
	switch {
	case x <= 0:
		return 0
	case x >= 1:
		return 1
	}
	la, _ := math.Lgamma(a + b)
	lb, _ := math.Lgamma(a)
	lc, _ := math.Lgamma(b)
	front := math.Exp(la - lb - lc + a*math.Log(x) + b*math.Log1p(-x))
	if x < (a+1)/(a+b+2) {
		return front * betaFraction(a, b, x) / a
	}
	return 1 - front*betaFraction(b, a, 1-x)/b
}

func betaFraction(a, b, x float64) float64 {
	qab, qap, qam := a+b, a+1, a-1
	c, d := 1.0, nonZero(1-qab*x/qap)
	d = 1 / d
	h := d
	// step multiplies h by the next factor of the continued fraction whose
	// numerator is aa, and returns that factor.
	step := func(aa float64) float64 {
		d = 1 / nonZero(1+aa*d)
		c = nonZero(1 + aa/c)
		h *= d * c
		return d * c
	}
	for m := 1; m <= 1000; m++ {
		fm := float64(m)
		m2 := 2 * fm
		step(fm * (b - fm) * x / ((qam + m2) * (a + m2)))
		if del := step(-(a + fm) * (qab + fm) * x / ((a + m2) * (qap + m2))); math.Abs(del-1) < 1e-15 {
			break
		}
	}
	return h
}

// nonZero keeps Lentz's method off a division by zero.
func nonZero(v float64) float64 {
	const tiny = 1e-300
	if math.Abs(v) < tiny {
		return tiny
	}
	return v
}
