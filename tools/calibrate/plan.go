package main

import (
	"fmt"
	"math"

	"github.com/tpsreport/tpsreport/compare"
	"github.com/tpsreport/tpsreport/schemas"
	"github.com/tpsreport/tpsreport/sim"
)

// aaScenarios are the scenarios whose A/A pairs measure the false-alarm rate:
// healthy, saturated, stalled, several replicas, retries, and the three
// causes of idle time together.
var aaScenarios = []string{"fixed", "saturated", "stall", "multi-replica", "retry-storm", "gap-mix"}

// variants are the scenarios of the harness's own, each a named scenario
// changed: the simulator's scenarios keep their truth tests, these need none
// of their own.
var variants = map[string]func() sim.Scenario{
	// saturated is fixed at 9 requests/s, about 140 % of its replica's
	// capacity and 103 % of the capacity with half as many slots again:
	// every window of a run of either has a backlog, so that throughput
	// under backlog is each one's capacity.
	"saturated": func() sim.Scenario {
		sc, _ := sim.Named("fixed")
		sc.Name = "saturated"
		sc.Rate = 9
		return sc
	},
}

// scenario returns the simulator scenario of a name: a variant, else a
// scenario of the simulator.
func scenario(name string) (sim.Scenario, error) {
	if v, ok := variants[name]; ok {
		return v(), nil
	}
	return sim.Named(name)
}

// An effect is a known change made to a scenario: the candidate of an effect
// pair runs the changed scenario, the baseline the scenario as named, each
// with its own traffic.
type effect struct {
	name  string // short id, in the corpus's paths
	label string // what the table calls it
	base  string // the scenario it changes
	// want is the overall verdict that finds it: PASS for an improvement,
	// FAIL for a regression; criterion is the criterion meant to see it.
	want, criterion string
	apply           func(sim.Scenario) sim.Scenario
}

// slots gives the same demand f more slots (max_num_seqs).
func slots(f float64) effect {
	return effect{
		name: fmt.Sprintf("slots+%g", f*100), label: fmt.Sprintf("+%g %% slots, same demand", f*100),
		base: "saturated", want: schemas.Pass, criterion: compare.Throughput,
		apply: func(sc sim.Scenario) sim.Scenario {
			sc.MaxNumSeqs = int(math.Round(float64(sc.MaxNumSeqs) * (1 + f)))
			return sc
		},
	}
}

// slowDecode divides the decode rate by 1+f, so that a stream's time per
// output token at a given batch rises by f.
func slowDecode(f float64) effect {
	return effect{
		name: fmt.Sprintf("tpot+%g", f*100), label: fmt.Sprintf("decode %g %% slower (TPOT +%g %%)", f*100, f*100),
		base: "fixed", want: schemas.Fail, criterion: compare.TPOT,
		apply: func(sc sim.Scenario) sim.Scenario {
			sc.DecodeRate /= 1 + f
			return sc
		},
	}
}

// moreFailures raises the probability that an attempt fails by pp.
func moreFailures(pp float64) effect {
	return effect{
		name: fmt.Sprintf("fail+%g", pp*100), label: fmt.Sprintf("failures +%g pp", pp*100),
		base: "fixed", want: schemas.Fail, criterion: compare.RetryRate,
		apply: func(sc sim.Scenario) sim.Scenario {
			sc.ErrorRate += pp
			return sc
		},
	}
}

// noPauses removes the admission pauses of the stall scenario.
var noPauses = effect{
	name: "no-pauses", label: "admission pauses removed",
	base: "stall", want: schemas.Pass, criterion: compare.GapFraction,
	apply: func(sc sim.Scenario) sim.Scenario {
		sc.StallGap, sc.StallDuration = 0, 0
		return sc
	},
}

// effects are the known effects, in table order.
var effects = []effect{
	slots(0.1), slots(0.2), slots(0.5),
	slowDecode(0.1), slowDecode(0.3), slowDecode(0.6),
	moreFailures(0.005), moreFailures(0.02),
	noPauses,
}

// A pair is one comparison: the runs of each side.
type pair struct {
	group      string // the table row it counts in
	effect     *effect
	base, cand []runKey
}

// pathSeeds offsets the seeds of each input path, so that the pairs of the
// two paths see different traffic and count as independent trials: the
// pipeline gives the same numbers on both paths of one simulation.
var pathSeeds = map[string]uint64{pathSpans: 0, pathJoined: 100_000}

// plan lists the pairs: for each A/A scenario and path, n pairs of one run
// against one (seeds 2k−1 and 2k) and n/3 of three runs against three (seeds
// 6k−5 … 6k−3 against 6k−2 … 6k); for each effect and each of effectPaths,
// the same with the changed scenario on the candidate's side.
func plan(n int, scenarios, paths, effectPaths []string, effs []effect) []pair {
	var out []pair
	key := func(sc, effect string, seed int, path string) runKey {
		return runKey{scenario: sc, effect: effect, seed: pathSeeds[path] + uint64(seed), path: path}
	}
	for _, sc := range scenarios {
		for _, p := range paths {
			for k := 1; k <= n; k++ {
				out = append(out, pair{group: "aa", base: []runKey{key(sc, "", 2*k-1, p)}, cand: []runKey{key(sc, "", 2*k, p)}})
			}
			for k := 1; k <= n/3; k++ {
				var b, c []runKey
				for i := range 3 {
					b = append(b, key(sc, "", 6*k-5+i, p))
					c = append(c, key(sc, "", 6*k-2+i, p))
				}
				out = append(out, pair{group: "aa3", base: b, cand: c})
			}
		}
	}
	for i := range effs {
		e := &effs[i]
		for _, p := range effectPaths {
			for k := 1; k <= n; k++ {
				out = append(out, pair{group: "effect", effect: e, base: []runKey{key(e.base, "", 2*k-1, p)}, cand: []runKey{key(e.base, e.name, 2*k, p)}})
			}
			for k := 1; k <= n/3; k++ {
				var b, c []runKey
				for i := range 3 {
					b = append(b, key(e.base, "", 6*k-5+i, p))
					c = append(c, key(e.base, e.name, 6*k-2+i, p))
				}
				out = append(out, pair{group: "effect3", effect: e, base: b, cand: c})
			}
		}
	}
	return out
}
