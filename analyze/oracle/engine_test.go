package oracle

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/tpsreport/tpsreport/schemas"
)

// es is one sample of an engine-state table: seconds after t0 and the values
// it carries; nil is NULL.
type es struct {
	rep             string
	ts              float64
	kv, rate        *float64
	pre, q, h, d, a *int64
}

func (e es) sample() schemas.Sample {
	return schemas.Sample{RunID: "test", Source: "test", Replica: ptr(e.rep), TS: *at(e.ts),
		KVCacheUsage: e.kv, PrefixCacheHitRate: e.rate, Preemptions: e.pre,
		PrefixCacheQueries: e.q, PrefixCacheHits: e.h, SpecDraftTokens: e.d, SpecAcceptedTokens: e.a}
}

func f64(v float64) *float64 { return &v }
func i64(v int64) *int64     { return &v }

// wantPI checks a nullable integer: w nil means NULL.
func wantPI(t *testing.T, name string, got *int64, w any) {
	t.Helper()
	switch w := w.(type) {
	case nil:
		if got != nil {
			t.Errorf("%s: got %d, want NULL", name, *got)
		}
	case int:
		if got == nil || *got != int64(w) {
			t.Errorf("%s: got %v, want %d", name, fmtPI(got), w)
		}
	default:
		panic(fmt.Sprintf("wantPI: %T", w))
	}
}

func fmtPF(p *float64) string {
	if p == nil {
		return "NULL"
	}
	return fmt.Sprint(*p)
}

func fmtPI(p *int64) string {
	if p == nil {
		return "NULL"
	}
	return fmt.Sprint(*p)
}

// engineTable: a span makes the extent [0, 30] s; windows of 10 s are w0
// [0, 10), w1 [10, 20), w2 [20, 30] (the last holds the instant 30).
//
// r1 samples every 4 s (m = 4 s): holds [0,4) [4,8) [8,12) [12,16) [16,20).
// r2 samples at 5, 15, 25, 30, 40: differences 10 10 5 10, median m = 10 s;
// holds [5,15) [15,25) [25,30) [30,40) [40,50); only [5, 30) meets the extent.
// r3 has a single sample: it holds nothing and has no increase.
var engineTable = []es{
	{rep: "r1", ts: 0, kv: f64(0.2), pre: i64(10), q: i64(100), h: i64(50)},
	{rep: "r1", ts: 4, kv: f64(0.4), q: i64(200), h: i64(150)},
	{rep: "r1", ts: 8, q: i64(300), h: i64(200)},                           // no usage: [8, 12) unknown
	{rep: "r1", ts: 12, kv: f64(0.6), pre: i64(15)},                        // preemptions +5 since ts 0
	{rep: "r1", ts: 16, kv: f64(0.8), pre: i64(3), q: i64(40), h: i64(10)}, // restart: +3, +40 queries, +10 hits
	{rep: "r2", ts: 5, kv: f64(0.5), rate: f64(0.9), d: i64(0), a: i64(0)},
	{rep: "r2", ts: 15, kv: f64(1.0), rate: f64(0.3), pre: i64(100), d: i64(100), a: i64(60)},
	{rep: "r2", ts: 25, kv: f64(0.1), rate: f64(0.6), pre: i64(104), d: i64(100), a: i64(60)}, // draft +0
	{rep: "r2", ts: 30, pre: i64(107)},                                                        // at the end: counts in w2
	{rep: "r2", ts: 40, pre: i64(110), d: i64(200), a: i64(150)},                              // after the extent
	{rep: "r3", ts: 10, kv: f64(0.99), pre: i64(5)},
}

func engineCase(samples []es) ([]schemas.Span, []schemas.Sample) {
	spans := []schemas.Span{withReplica(mk("s", "S", [5]float64{0, 0, 1, 29, 30}, 10, ok), "r1")}
	var out []schemas.Sample
	for _, e := range samples {
		out = append(out, e.sample())
	}
	return spans, out
}

func TestEngineState(t *testing.T) {
	spans, samples := engineCase(engineTable)
	res := Analyze(spans, samples, Options{Width: 10_000_000})
	wantWindows(t, res, 3)
	w := res.Windows
	type row struct {
		name                 string
		m                    schemas.Metrics
		kv, kvMax, hit, spec any // float64 or nil
		pre                  any // int or nil
	}
	for _, c := range []row{
		// kv: r1 4·0.2 + 4·0.4, r2 [5,10) 5·0.5 → 4.9 / 13 s; max 0.5.
		// preemptions: r1's ts-4 sample has none; no increase → NULL.
		// hit rate: queries +100 (ts 4) +100 (ts 8), hits +100 +50 → 150/200.
		// spec: r2's first carrier at 5 has no increase → NULL.
		{"w0", w[0], 4.9 / 13, 0.5, 0.75, nil, nil},
		// kv: r1 4·0.6 + 4·0.8, r2 5·0.5 + 5·1.0 → 13.1 / 18 s; max 1.0.
		// preemptions: r1 15−10 = 5 at 12, restart 3 at 16 → 8.
		// hit rate: the restart at 16: +10 hits of +40 queries → 0.25.
		// spec: r2 at 15: +60 of +100 → 0.6.
		{"w1", w[1], 13.1 / 18, 1.0, 0.25, 0.6, 8},
		// kv: r2 [20,25) 5·1.0 + [25,30) 5·0.1 → 5.5 / 10 s; max 1.0.
		// preemptions: r2 +4 at 25, +3 at 30 (the end) → 7.
		// hit rate: no query increase: the reported rate, 5·0.3 + 5·0.6 → 4.5 / 10.
		// spec: +0 draft tokens at 25 → NULL.
		{"w2", w[2], 5.5 / 10, 1.0, 0.45, nil, 7},
		// kv: r1 8.0 over 16 s, r2 5·0.5 + 10·1.0 + 5·0.1 = 15.5 over 25 s → 23.5 / 41.
		// preemptions: 8 + 7; r2's +3 at 40 is after the extent.
		// hit rate: 160 / 240. spec: 60 / 100 (the ts-40 increase is outside).
		{"run", res.Run, 23.5 / 41, 1.0, 160.0 / 240, 0.6, 15},
	} {
		wantP(t, c.name+" kv_cache_usage", c.m.KVCacheUsage, c.kv)
		wantP(t, c.name+" kv_cache_usage_max", c.m.KVCacheUsageMax, c.kvMax)
		wantPI(t, c.name+" preemptions", c.m.Preemptions, c.pre)
		wantP(t, c.name+" prefix_cache_hit_rate", c.m.PrefixCacheHitRate, c.hit)
		wantP(t, c.name+" spec_acceptance_rate", c.m.SpecAcceptanceRate, c.spec)
	}

	t.Run("clipped by --from/--to", func(t *testing.T) {
		// extent [10, 20]: one window, w1's values; the +4 at 25 and the
		// restart's neighbours outside do not count.
		res := Analyze(spans, samples, Options{Width: 10_000_000, From: at(10), To: at(20)})
		wantWindows(t, res, 1)
		for _, m := range []schemas.Metrics{res.Run, res.Windows[0]} {
			wantP(t, "kv_cache_usage", m.KVCacheUsage, 13.1/18)
			wantPI(t, "preemptions", m.Preemptions, 8)
			wantP(t, "prefix_cache_hit_rate", m.PrefixCacheHitRate, 0.25)
			wantP(t, "spec_acceptance_rate", m.SpecAcceptanceRate, 0.6)
		}
	})
	t.Run("zero queries are NULL, not the reported rate", func(t *testing.T) {
		// r2 counts queries at 25 and 30 without any growth: w2 has a
		// query increase (of 0), so the reported rate does not stand in.
		s := slices.Clone(engineTable)
		s[7].q, s[7].h = i64(7), i64(7)
		s[8].q, s[8].h = i64(7), i64(7)
		spans, samples := engineCase(s)
		res := Analyze(spans, samples, Options{Width: 10_000_000})
		wantP(t, "w2 prefix_cache_hit_rate", res.Windows[2].PrefixCacheHitRate, nil)
		wantP(t, "run prefix_cache_hit_rate", res.Run.PrefixCacheHitRate, 160.0/240)
	})
	t.Run("an extent of one instant", func(t *testing.T) {
		// [30, 30]: no hold overlaps it, the increase at 30 counts.
		res := Analyze(spans, samples, Options{Width: 10_000_000, From: at(30), To: at(30)})
		for _, m := range []schemas.Metrics{res.Run, res.Windows[0]} {
			wantP(t, "kv_cache_usage", m.KVCacheUsage, nil)
			wantP(t, "kv_cache_usage_max", m.KVCacheUsageMax, nil)
			wantPI(t, "preemptions", m.Preemptions, 3)
			wantP(t, "prefix_cache_hit_rate", m.PrefixCacheHitRate, nil)
		}
	})
	t.Run("no samples", func(t *testing.T) {
		res := Analyze(spans, nil, Options{Width: 10_000_000})
		m := res.Run
		if m.KVCacheUsage != nil || m.KVCacheUsageMax != nil || m.Preemptions != nil || m.PrefixCacheHitRate != nil || m.SpecAcceptanceRate != nil {
			t.Errorf("engine state without samples: %v %v %v %v %v", m.KVCacheUsage, m.KVCacheUsageMax, m.Preemptions, m.PrefixCacheHitRate, m.SpecAcceptanceRate)
		}
	})
}

// Engine state checked against a direct reading of the definitions: holds
// and increases derived here from the samples alone, per window and run.
// Also the properties: kv_cache_usage lies between the smallest and the
// largest usage held in the window, the run's preemptions are the windows'
// sum, and the rates are fractions (the generator's hits never outgrow its
// queries, nor accepted tokens the drafts).
func TestEngineBruteForce(t *testing.T) {
	paths := map[string]int{}
	for seed := range seeds(200, 40) {
		spans, samples, opt, _ := randomCase(seed)
		res := Analyze(spans, samples, opt)
		if !res.HasExtent {
			continue
		}
		type win struct {
			lo, hi          int64 // µs, window ∩ extent
			kvLen, rateLen  int64 // half-µs
			kvSum, rateSum  float64
			kvMin, kvMax    float64
			pre, q, h, d, a int64
			preN, qN        int
		}
		k0 := floorDiv(res.Start, opt.Width)
		wins := make([]win, len(res.Windows)+1) // the run last
		for i := range res.Windows {
			k := k0 + int64(i)
			wins[i].lo, wins[i].hi = max(res.Start, k*opt.Width), min(res.End, (k+1)*opt.Width)
		}
		run := len(res.Windows)
		wins[run].lo, wins[run].hi = res.Start, res.End
		for i := range wins {
			wins[i].kvMin, wins[i].kvMax = math.Inf(1), math.Inf(-1)
		}
		by := map[string][]schemas.Sample{}
		for _, s := range samples {
			by[deref(s.Replica, "")] = append(by[deref(s.Replica, "")], s)
		}
		for _, ss := range by {
			slices.SortFunc(ss, func(a, b schemas.Sample) int { return int(a.TS - b.TS) })
			var d []int64
			for i := 1; i < len(ss); i++ {
				d = append(d, ss[i].TS-ss[i-1].TS)
			}
			slices.Sort(d)
			for j, s := range ss {
				if len(d) == 0 {
					break
				}
				m2 := (d[(len(d)-1)/2] + d[len(d)/2]) / 2 * 2 // 2m, m floored to a µs
				lo, hi := 2*s.TS, 2*s.TS+m2
				if j+1 < len(ss) {
					hi = min(2*ss[j+1].TS, 2*s.TS+2*m2)
				}
				for i := range wins {
					ov := min(hi, 2*wins[i].hi) - max(lo, 2*wins[i].lo)
					if ov <= 0 {
						continue
					}
					if v := s.KVCacheUsage; v != nil {
						wins[i].kvLen += ov
						wins[i].kvSum += float64(ov) * *v
						wins[i].kvMin, wins[i].kvMax = min(wins[i].kvMin, *v), max(wins[i].kvMax, *v)
					}
					if v := s.PrefixCacheHitRate; v != nil {
						wins[i].rateLen += ov
						wins[i].rateSum += float64(ov) * *v
					}
				}
			}
			inc := func(get func(schemas.Sample) *int64, add func(w *win, d int64)) {
				var prev *int64
				for _, s := range ss {
					cur := get(s)
					if cur == nil {
						continue
					}
					if prev != nil && s.TS >= res.Start && s.TS <= res.End {
						d := *cur - *prev
						if *cur < *prev {
							d = *cur
							paths["counter restart"]++
						}
						i := int(min(floorDiv(s.TS, opt.Width)-k0, int64(run-1)))
						add(&wins[i], d)
						add(&wins[run], d)
					}
					prev = cur
				}
			}
			inc(func(s schemas.Sample) *int64 { return s.Preemptions }, func(w *win, d int64) { w.pre += d; w.preN++ })
			inc(func(s schemas.Sample) *int64 { return s.PrefixCacheQueries }, func(w *win, d int64) { w.q += d; w.qN++ })
			inc(func(s schemas.Sample) *int64 { return s.PrefixCacheHits }, func(w *win, d int64) { w.h += d })
			inc(func(s schemas.Sample) *int64 { return s.SpecDraftTokens }, func(w *win, d int64) { w.d += d })
			inc(func(s schemas.Sample) *int64 { return s.SpecAcceptedTokens }, func(w *win, d int64) { w.a += d })
		}
		var preSum int64
		var preAny bool
		for i, w := range wins {
			name := fmt.Sprintf("seed %d window %d", seed, i)
			m := res.Run
			if i < run {
				m = res.Windows[i]
			} else {
				name = fmt.Sprintf("seed %d run", seed)
			}
			near := func(what string, got *float64, ok bool, want float64) {
				t.Helper()
				switch {
				case ok != (got != nil):
					t.Errorf("%s: %s = %s, brute force defined %v", name, what, fmtPF(got), ok)
				case ok && !relNear(*got, want, 1e-12):
					t.Errorf("%s: %s = %.17g, brute force %.17g", name, what, *got, want)
				}
			}
			near("kv_cache_usage", m.KVCacheUsage, w.kvLen > 0, w.kvSum/float64(w.kvLen))
			near("kv_cache_usage_max", m.KVCacheUsageMax, w.kvLen > 0, w.kvMax)
			if m.KVCacheUsage != nil {
				if *m.KVCacheUsage < w.kvMin*(1-1e-12) || *m.KVCacheUsage > *m.KVCacheUsageMax*(1+1e-12) {
					t.Errorf("%s: kv_cache_usage %v outside [%v, %v]", name, *m.KVCacheUsage, w.kvMin, *m.KVCacheUsageMax)
				}
				paths["kv_cache_usage"]++
			}
			if (m.Preemptions != nil) != (w.preN > 0) || m.Preemptions != nil && *m.Preemptions != w.pre {
				t.Errorf("%s: preemptions %s, brute force %d of %d increases", name, fmtPI(m.Preemptions), w.pre, w.preN)
			}
			if i < run && m.Preemptions != nil {
				preSum += *m.Preemptions
				preAny = true
			}
			switch {
			case w.qN > 0:
				near("prefix_cache_hit_rate (counters)", m.PrefixCacheHitRate, w.q != 0, float64(w.h)/float64(w.q))
				paths["hit rate from counters"]++
			default:
				near("prefix_cache_hit_rate (reported)", m.PrefixCacheHitRate, w.rateLen > 0, w.rateSum/float64(w.rateLen))
				if w.rateLen > 0 {
					paths["hit rate reported"]++
				}
			}
			near("spec_acceptance_rate", m.SpecAcceptanceRate, w.d != 0, float64(w.a)/float64(w.d))
			for what, p := range map[string]*float64{"kv_cache_usage": m.KVCacheUsage, "kv_cache_usage_max": m.KVCacheUsageMax,
				"prefix_cache_hit_rate": m.PrefixCacheHitRate, "spec_acceptance_rate": m.SpecAcceptanceRate} {
				if p != nil && !(*p >= 0 && *p <= 1) {
					t.Errorf("%s: %s = %v outside [0, 1]", name, what, *p)
				}
			}
			if m.SpecAcceptanceRate != nil {
				paths["spec_acceptance_rate"]++
			}
		}
		if preAny != (res.Run.Preemptions != nil) || preAny && preSum != *res.Run.Preemptions {
			t.Errorf("seed %d: Σ windows preemptions %d (any %v), run %s", seed, preSum, preAny, fmtPI(res.Run.Preemptions))
		}
	}
	for _, k := range []string{"counter restart", "kv_cache_usage", "hit rate from counters", "hit rate reported", "spec_acceptance_rate"} {
		if paths[k] == 0 {
			t.Errorf("no case of %q", k)
		}
	}
	t.Logf("cases: %v", paths)
}

// The counters' generator keeps hits within queries and accepted tokens
// within drafts at every increase, restarts included.
func TestGeneratedCountersConsistent(t *testing.T) {
	for seed := range seeds(100, 20) {
		r := rand.New(rand.NewPCG(seed, 13))
		o := DefaultGenOptions()
		o.CounterResetRate = 0.2
		_, samples := RandomSpans(r, 50, o)
		for _, sr := range sampleSeries(samples) {
			for _, pair := range [][2]func(*schemas.Sample) *int64{
				{func(s *schemas.Sample) *int64 { return s.PrefixCacheQueries }, func(s *schemas.Sample) *int64 { return s.PrefixCacheHits }},
				{func(s *schemas.Sample) *int64 { return s.SpecDraftTokens }, func(s *schemas.Sample) *int64 { return s.SpecAcceptedTokens }},
			} {
				var pa, pb *int64
				for _, s := range sr.samples {
					a, b := pair[0](s), pair[1](s)
					if (a == nil) != (b == nil) {
						t.Fatalf("seed %d %q: a pair half NULL at %d", seed, sr.replica, s.TS)
					}
					if a == nil {
						continue
					}
					if *b > *a {
						t.Fatalf("seed %d %q: %d > %d at %d", seed, sr.replica, *b, *a, s.TS)
					}
					if pa != nil {
						da, db := *a-*pa, *b-*pb
						if *a < *pa {
							da = *a
						}
						if *b < *pb {
							db = *b
						}
						if db > da {
							t.Fatalf("seed %d %q: increase %d > %d at %d", seed, sr.replica, db, da, s.TS)
						}
					}
					pa, pb = a, b
				}
			}
		}
	}
}
