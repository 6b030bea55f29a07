package sim

import (
	"math"
	"math/rand/v2"
)

// Stream keys of the PCG streams of one run (see the package doc). A request's
// stream is streamRequest + its arrival number.
const (
	streamArrivals uint64 = 1
	streamBursts   uint64 = 2
	streamStalls   uint64 = 3
	streamDispatch uint64 = 4
	// Replica i's engine pauses use streamEngine + i.
	streamEngine  uint64 = 1 << 32
	streamRequest uint64 = 1 << 40
)

// rng is a PCG stream with the few draws the simulator needs. It holds the
// generator by value, so a request carries its own stream without allocating.
type rng struct{ pcg rand.PCG }

func newRNG(seed, stream uint64) rng {
	var r rng
	r.pcg.Seed(seed, splitmix64(stream))
	return r
}

// splitmix64 scrambles a stream key so that neighbouring keys seed unrelated
// PCG states.
func splitmix64(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
	x = (x ^ (x >> 27)) * 0x94d049bb133111eb
	return x ^ (x >> 31)
}

// float returns a uniform float64 in [0, 1).
func (r *rng) float() float64 { return float64(r.pcg.Uint64()>>11) * 0x1p-53 }

// exp returns an exponential variate with mean 1.
func (r *rng) exp() float64 { return -math.Log(1 - r.float()) }

// norm returns a standard normal variate (Box–Muller, one of the pair).
func (r *rng) norm() float64 {
	u1 := 1 - r.float() // (0, 1]
	u2 := r.float()
	return math.Sqrt(-2*math.Log(u1)) * math.Cos(2*math.Pi*u2)
}

// jitter returns mean·(1 + j·(2u−1)): uniform in mean·[1−j, 1+j].
func (r *rng) jitter(mean, j float64) float64 { return mean * (1 + j*(2*r.float()-1)) }

// length draws from l.
func (r *rng) length(l Length) int64 {
	x := math.Round(l.Median * math.Exp(l.Sigma*r.norm()))
	switch {
	case !(x >= float64(l.Min)): // also NaN
		return l.Min
	case x > float64(l.Max):
		return l.Max
	}
	return int64(x)
}
