package compare

import (
	"context"
	"math"
	"math/rand/v2"
	"slices"
)

// The resampling engine (docs/acceptance.md "How the intervals are made").
// Requests that queue together share their fate, failures come in bursts and
// a saturated queue lasts minutes, so nothing here resamples single requests
// or single windows as if they were independent: a run is a sequence of
// windows in time order, and a resample of it is made of blocks of
// consecutive windows (a circular block bootstrap), each window carrying
// what the criteria sum over it and the requests completed in it. With
// several runs on a side, the runs are resampled too, then blocks within
// each run drawn. Every criterion is a statistic over such a multiset of
// windows.

// Sums a window carries, by index into unit.sums.
const (
	sumBacklogTPS     = iota // retry_adjusted_system_tps of a backlog window, else 0
	sumBacklogWindows        // 1 for a backlog window with a throughput, else 0
	sumBacklogGap            // gap_time of a backlog window, else 0
	sumBacklogSeconds        // window_seconds of a backlog window, else 0
	sumRequests              // requests completed
	sumSucceeded             // of them, with a successful attempt
	sumAttempts              // attempts released
	sumRetries               // of them, with attempt > 0
	sumSLOMet                // completed requests delivered within the SLO
	nSums
)

// Request latencies a window carries, by index into unit.lats.
const (
	latTTFT = iota
	latTPOT
	nLats
)

// A unit is one window of one run: its sums, and the latencies of the
// delivered requests completed in it, in release order.
type unit struct {
	sums [nSums]float64
	lats [nLats][]float64
	// sub, where not nil, is the subsample of lats the resamples read
	// (MaxBootstrapRequests).
	sub [nLats][]float64
	// emptied says that the queue was empty at some instant of the window
	// (backlog_time < window_seconds): a queue episode ends in it.
	emptied bool
	// record says that the unit is one record of a run without instants
	// (durations only, docs/metrics.md): such a run has no time to take
	// blocks of, and its records are resampled one by one.
	record bool
}

// A side is the runs of one configuration (the baseline's, or the
// candidate's): each run's windows in time order.
type side [][]unit

// A statistic is one number over a multiset of windows: the ratio of two of
// their sums, Σ num / Σ den, or (lat ≥ 0) the q-quantile of the latencies of
// their requests.
type statistic struct {
	num, den int
	lat      int
	q        float64
	// queued says that the statistic's requests share their fate within a
	// queue episode (their TTFT is the queue they waited in): its blocks
	// are at least a queue episode long (episodeLength).
	queued bool
}

func ratioOf(num, den int) statistic { return statistic{num: num, den: den, lat: -1} }

func quantileOf(lat int, q float64) statistic { return statistic{lat: lat, q: q} }

// inQueue marks s as shared within queue episodes.
func (s statistic) inQueue() statistic { s.queued = true; return s }

// episodeLength is the mean length, in windows, of a run's queue episodes:
// an episode runs from one window in which the queue emptied to the next,
// so a run whose queue never emptied is one episode however long it is.
// The requests of one episode waited in one queue: a resample can only
// take them together.
func episodeLength(run []unit) int {
	episodes := 0
	for i, u := range run {
		if u.emptied || i == len(run)-1 {
			episodes++
		}
	}
	if episodes == 0 {
		return 1
	}
	return int(math.Ceil(float64(len(run)) / float64(episodes)))
}

// value computes the statistic over the windows us, every request of
// theirs; false when it is not defined there (no denominator, no latency).
// The resamples' values are weighed's.
func (s statistic) value(us []*unit) (float64, bool) {
	if s.lat < 0 {
		var n, d float64
		for _, u := range us {
			n += u.sums[s.num]
			d += u.sums[s.den]
		}
		if d <= 0 {
			return 0, false
		}
		return n / d, true
	}
	var buf []float64
	for _, u := range us {
		buf = append(buf, u.lats[s.lat]...)
	}
	if len(buf) == 0 {
		return 0, false
	}
	return quantileInPlace(buf, s.q), true
}

// informs reports whether window u adds to the statistic: it has some of
// its denominator, or latencies.
func (s statistic) informs(u *unit) bool {
	if s.lat < 0 {
		return u.sums[s.den] > 0
	}
	return len(u.lats[s.lat]) > 0
}

// all lists every window of a side.
func (sd side) all() []*unit {
	var out []*unit
	for r := range sd {
		for i := range sd[r] {
			out = append(out, &sd[r][i])
		}
	}
	return out
}

// influence is a run's series, window by window, of what each window adds
// to the statistic's error: for a ratio R = Σn/Σd, nᵢ − R·dᵢ; for a
// q-quantile Q, the window's requests at or below Q less q times their
// number. Its autocorrelation sets the block length.
func (s statistic) influence(run []unit) []float64 {
	us := make([]*unit, len(run))
	for i := range run {
		us[i] = &run[i]
	}
	v, ok := s.value(us)
	out := make([]float64, len(run))
	if !ok {
		return out
	}
	for i, u := range run {
		if s.lat < 0 {
			out[i] = u.sums[s.num] - v*u.sums[s.den]
			continue
		}
		var below float64
		for _, x := range u.lats[s.lat] {
			if x <= v {
				below++
			}
		}
		out[i] = below - s.q*float64(len(u.lats[s.lat]))
	}
	return out
}

// blockLength is the circular block bootstrap's block length for series x,
// chosen from its own autocorrelation by the rule of Politis and White
// (2004) as corrected by Patton, Politis and White (2009): the
// autocorrelations are summed with a flat-top kernel up to twice the first
// lag after which K of them in a row are insignificant, and the block
// length that minimises the variance estimate's mean squared error follows
// from that sum. It is at least 1 and at most min(3√n, n/3), and 1 when
// the autocorrelations sum to less than 0.
func blockLength(x []float64) int {
	n := len(x)
	if n < 4 {
		return 1
	}
	var mean float64
	for _, v := range x {
		mean += v
	}
	mean /= float64(n)
	acov := func(k int) float64 {
		var s float64
		for i := k; i < n; i++ {
			s += (x[i] - mean) * (x[i-k] - mean)
		}
		return s / float64(n)
	}
	r0 := acov(0)
	if r0 <= 0 {
		return 1
	}
	kn := max(5, int(math.Ceil(math.Sqrt(math.Log10(float64(n))))))
	mmax := min(int(math.Ceil(math.Sqrt(float64(n))))+kn, n-1)
	bmax := max(1, int(math.Ceil(math.Min(3*math.Sqrt(float64(n)), float64(n)/3))))
	crit := 2 * math.Sqrt(math.Log10(float64(n))/float64(n))
	rho := make([]float64, mmax+1)
	for k := 1; k <= mmax; k++ {
		rho[k] = acov(k) / r0
	}
	mhat := mmax
	for m := 0; m+kn <= mmax; m++ {
		quiet := true
		for k := m + 1; k <= m+kn; k++ {
			if math.Abs(rho[k]) >= crit {
				quiet = false
				break
			}
		}
		if quiet {
			mhat = m
			break
		}
	}
	big := min(2*max(mhat, 1), mmax)
	flatTop := func(t float64) float64 {
		t = math.Abs(t)
		switch {
		case t <= 0.5:
			return 1
		case t <= 1:
			return 2 * (1 - t)
		}
		return 0
	}
	g, g0 := 0.0, r0
	for k := 1; k <= big; k++ {
		lam := flatTop(float64(k) / float64(big))
		rk := acov(k)
		g += 2 * lam * float64(k) * rk
		g0 += 2 * lam * rk
	}
	// When the autocorrelations sum to less than nothing (a series that
	// swings back and forth, as throughput does between admission pauses)
	// the windows' own spread overstates the mean's: resampling them one by
	// one errs on the wide side, and the rule's optimum would not exist.
	if g0 <= r0 || g == 0 {
		return 1
	}
	d := 4.0 / 3 * g0 * g0
	b := math.Pow(2*g*g/d, 1.0/3) * math.Pow(float64(n), 1.0/3)
	return int(math.Max(1, math.Min(math.Round(b), float64(bmax))))
}

// resampler draws resamples of a side: the runs with replacement when there
// are several, then, within each run drawn, blocks of its block length of
// consecutive windows, wrapping from its last window to its first, until
// the run's number of windows is reached.
type resampler struct {
	sd     side
	blocks []int // block length of each run
	rng    *rand.Rand
	// within keeps every run once, drawing blocks within each only: the
	// spread of the runs' own windows, without that between runs.
	within bool

	offset []int // each run's first window in the side's windows (side.all)
	picked []int // the windows drawn, by their place in side.all
}

func newResampler(sd side, blocks []int, rng *rand.Rand, within bool) *resampler {
	r := &resampler{sd: sd, blocks: blocks, rng: rng, within: within, offset: make([]int, len(sd))}
	n := 0
	for i, run := range sd {
		r.offset[i] = n
		n += len(run)
	}
	return r
}

func (r *resampler) draw() []int {
	r.picked = r.picked[:0]
	for i := range r.sd {
		run := i
		if len(r.sd) > 1 && !r.within {
			run = r.rng.IntN(len(r.sd))
		}
		n, b, off := len(r.sd[run]), r.blocks[run], r.offset[run]
		for got := 0; got < n; {
			start := r.rng.IntN(n)
			for j := 0; j < b && got < n; j++ {
				r.picked = append(r.picked, off+(start+j)%n)
				got++
			}
		}
	}
	return r.picked
}

// spread is what the resampling says of one side's statistic: the standard
// error of its transform (the log for a ratio criterion), the degrees of
// freedom behind it, and the block lengths used.
type spread struct {
	se     float64
	df     float64
	length []int // block length of each run
	// episodes says that some run's queue episodes, not its
	// autocorrelation, set its block length.
	episodes bool
}

// resample measures the spread of statistic s over side sd: B resamples,
// each transformed by f, from the random stream seeded by seed. It stops
// early, with what it has, when ctx is done; the caller checks ctx.
//
// The degrees of freedom are the independent blocks the side's windows
// make less one: Σ m/b over its runs, m the windows that add to the
// statistic (a window without requests adds nothing to a latency). A side
// of fewer than two such blocks has no spread to measure: its standard
// error is unknown (infinite). With several runs, the variance has a
// part between runs, known from the runs alone, and a part within them:
// a second pass that keeps every run once measures the latter, and the
// degrees of freedom combine the two (Satterthwaite), the part between
// runs having one fewer than the runs.
func resample(ctx context.Context, sd side, s statistic, f func(float64) float64, b int, seed [2]uint64) spread {
	sp := spread{length: make([]int, len(sd))}
	var blocks float64
	for i, run := range sd {
		sp.length[i] = runBlockLength(run, s)
		if s.queued && len(run) > 0 && !run[0].record && episodeLength(run) > blockLength(s.influence(run)) {
			sp.episodes = true
		}
		m := 0
		for k := range run {
			if s.informs(&run[k]) {
				m++
			}
		}
		blocks += float64(m) / float64(sp.length[i])
	}
	if blocks < 2 {
		sp.se, sp.df = math.Inf(1), 1
		return sp
	}
	rng := rand.New(rand.NewPCG(seed[0], seed[1]))
	ws := newWeighed(sd.all(), s)
	total := variance(ctx, newResampler(sd, sp.length, rng, false), ws, f, b)
	sp.se = math.Sqrt(total)
	sp.df = math.Max(1, blocks-1)
	if len(sd) > 1 {
		within := math.Min(total, variance(ctx, newResampler(sd, sp.length, rng, true), ws, f, b))
		between := total - within
		dw := math.Max(1, blocks-float64(len(sd)))
		db := float64(len(sd) - 1)
		if den := between*between/db + within*within/dw; den > 0 {
			sp.df = math.Max(1, total*total/den)
		}
	}
	return sp
}

// variance is the variance of f(s) over b resamples drawn by r, s the
// statistic of ws.
func variance(ctx context.Context, r *resampler, ws *weighed, f func(float64) float64, b int) float64 {
	// Welford's running mean and sum of squared deviations: a statistic
	// far from 0 with a small spread loses no digits.
	var mean, m2 float64
	var n int
	for i := range b {
		if i%64 == 0 && ctx.Err() != nil {
			break
		}
		v, ok := ws.value(r.draw())
		if !ok {
			continue
		}
		t := f(v)
		if math.IsNaN(t) || math.IsInf(t, 0) {
			continue
		}
		n++
		delta := t - mean
		mean += delta / float64(n)
		m2 += delta * (t - mean)
	}
	if n < 2 {
		return 0
	}
	return m2 / float64(n-1)
}

// quantileInPlace is the q-quantile of xs, interpolating linearly between
// closest ranks; it reorders xs.
func quantileInPlace(xs []float64, q float64) float64 {
	n := len(xs)
	pos := q * float64(n-1)
	i := int(pos)
	if i >= n-1 {
		return slices.Max(xs)
	}
	lo := selectKth(xs, i)
	hi := slices.Min(xs[i+1:])
	return lo + (pos-float64(i))*(hi-lo)
}

// runBlockLength is one run's block length for statistic s: from its
// autocorrelation, at least a queue episode for a statistic of queued
// requests, and 1 for the records of a run without instants.
func runBlockLength(run []unit, s statistic) int {
	switch {
	case len(run) > 0 && run[0].record:
		return 1
	case s.queued:
		return max(blockLength(s.influence(run)), episodeLength(run))
	}
	return blockLength(s.influence(run))
}

// weighed computes a statistic over a resample given as the places of the
// windows drawn (a window drawn twice counts twice), without copying any
// window's requests: a ratio sums each window's sums as often as it was
// drawn; a quantile of the windows' latencies searches their sorted values,
// counting each window's values at or below a candidate as often as the
// window was drawn (the resample's subsample of latencies where there is
// one).
type weighed struct {
	s      statistic
	units  []*unit
	sorted [][]float64 // a quantile's: each window's latencies, sorted
	all    []float64   // a quantile's: every window's latencies, sorted
	times  []int       // scratch: how often each window was drawn
	drawn  []int       // scratch: the windows drawn, each once
}

func newWeighed(units []*unit, s statistic) *weighed {
	w := &weighed{s: s, units: units, times: make([]int, len(units))}
	if s.lat < 0 {
		return w
	}
	w.sorted = make([][]float64, len(units))
	for i, u := range units {
		xs := u.lats[s.lat]
		if u.sub[s.lat] != nil {
			xs = u.sub[s.lat]
		}
		w.sorted[i] = slices.Sorted(slices.Values(xs))
		w.all = append(w.all, xs...)
	}
	slices.Sort(w.all)
	return w
}

// value is the statistic over the windows picked; false when it is not
// defined there.
func (w *weighed) value(picked []int) (float64, bool) {
	if w.s.lat < 0 {
		var n, d float64
		for _, i := range picked {
			n += w.units[i].sums[w.s.num]
			d += w.units[i].sums[w.s.den]
		}
		if d <= 0 {
			return 0, false
		}
		return n / d, true
	}
	w.drawn = w.drawn[:0]
	total := 0
	for _, i := range picked {
		if w.times[i] == 0 {
			w.drawn = append(w.drawn, i)
		}
		w.times[i]++
		total += len(w.sorted[i])
	}
	defer func() {
		for _, i := range w.drawn {
			w.times[i] = 0
		}
	}()
	if total == 0 {
		return 0, false
	}
	// The quantile interpolates linearly between closest ranks, as
	// quantileInPlace does over the resample's values written out.
	pos := w.s.q * float64(total-1)
	k := int(pos)
	lo := w.orderStat(k)
	if k >= total-1 || pos == float64(k) {
		return lo, true
	}
	hi := lo
	if w.atOrBelow(lo) < k+2 {
		hi = w.orderStat(k + 1)
	}
	return lo + (pos-float64(k))*(hi-lo), true
}

// atOrBelow counts the resample's values at or below v.
func (w *weighed) atOrBelow(v float64) int {
	n := 0
	for _, i := range w.drawn {
		xs := w.sorted[i]
		j, _ := slices.BinarySearchFunc(xs, v, func(x, v float64) int {
			if x <= v {
				return -1
			}
			return 1
		})
		n += w.times[i] * j
	}
	return n
}

// orderStat is the resample's k-th smallest value (from 0): the least of
// all the windows' values with more than k of the resample's at or below it.
func (w *weighed) orderStat(k int) float64 {
	lo, hi := 0, len(w.all)-1
	for lo < hi {
		mid := lo + (hi-lo)/2
		if w.atOrBelow(w.all[mid]) > k {
			hi = mid
		} else {
			lo = mid + 1
		}
	}
	return w.all[lo]
}
