package sim

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"
)

// DefaultStart is the default start of a scenario's arrivals,
// 2026-11-20T10:00:00Z, in microseconds since the Unix epoch.
const DefaultStart int64 = 1795168800_000000

// Scenario holds every parameter of a simulation. Durations are time.Duration
// and are used in whole microseconds (the simulator's clock); rates are per
// second; token counts are tokens. The zero values noted "off" disable a feature.
type Scenario struct {
	Name   string // scenario name, written to truth.json
	RunID  string // run_id of every span and sample; "" means Name
	Source string // source of every span and sample; "" means "sim"
	Model  string // model of every span; "" leaves it NULL

	// Arrivals: a Poisson process at Rate·diurnal(t)·burst(t), from Start until
	// Start+Duration or until MaxArrivals requests have arrived.
	Start            int64         // µs since the Unix epoch; 0 means DefaultStart
	Duration         time.Duration // length of the arrival window
	MaxArrivals      int64         // stop after this many arrivals; 0: no limit
	Rate             float64       // mean arrivals per second, before shape and bursts
	DiurnalAmplitude float64       // 0..1: rate × (1 + A·sin(2π·(t−Start)/DiurnalPeriod)); 0: off
	DiurnalPeriod    time.Duration // period of the diurnal shape
	BurstEvery       time.Duration // mean time between burst starts (exponential); 0: no bursts
	BurstDuration    time.Duration // length of a burst
	BurstFactor      float64       // rate multiplier during a burst (≥ 1)

	// Work of a request, drawn once per request.
	Prompt         Length  // prompt (input) tokens
	Output         Length  // output tokens a successful attempt generates
	PrefixCacheHit float64 // probability that an attempt finds a prefix of its prompt cached; 0: cached_tokens NULL

	// Engine replicas.
	Replicas      int           // number of replicas, named vllm-0, vllm-1, ...
	MaxNumSeqs    int           // cap of each replica (vLLM max_num_seqs)
	DecodeRate    float64       // tokens/s of one stream alone on its replica
	Slowdown      float64       // α in r(n) = DecodeRate / (1 + α·(n−1))
	PrefillRate   float64       // uncached prompt tokens/s of the prefill of one request
	PrefillBase   time.Duration // fixed part of every prefill
	ReleaseDelay  time.Duration // last token → released_at (detokenize, slot release)
	KVCacheTokens int64         // KV-cache size of a replica in tokens, for kv_cache_usage; 0: NULL

	// Gateway.
	MaxQueue      int           // queue limit; an arrival finding it full gets http 429; 0: unbounded
	StallGap      time.Duration // mean time between admission stalls (end → next start); 0: no stalls
	StallDuration time.Duration // mean length of a stall
	StallJitter   float64       // 0..1: gap and length uniform in mean·[1−j, 1+j]
	StallPoisson  bool          // gaps exponential with mean StallGap instead (lengths keep the jitter)

	// Dispatch is how the gateway sends attempts to the replicas (see the
	// package doc): DispatchFree (""), the gateway admits the head of its
	// queue into a free slot; otherwise it sends every attempt, when not
	// stalled, to the engine queue of the replica this policy picks.
	Dispatch string

	// Engine pauses, with a Dispatch policy only: each replica, on its own
	// schedule, admits nothing from its engine queue for a while although
	// slots are free (a paused scheduler).
	EngineStallGap      time.Duration // mean time between a replica's pauses (end → next start); 0: no pauses
	EngineStallDuration time.Duration // mean length of a pause
	EngineStallJitter   float64       // 0..1: gap and length uniform in mean·[1−j, 1+j]

	// Faults and retries.
	ErrorRate     float64       // probability that an admitted attempt fails partway (http 500)
	ClientTimeout time.Duration // a client gives up this long after an attempt's queued_at; 0: never
	TimeoutJitter float64       // 0..1: each request's timeout uniform in ClientTimeout·[1−j, 1+j]
	MaxAttempts   int           // attempts of a request, the first and its retries (hedges excluded); ≥ 1
	RetryBackoff  time.Duration // retry k (k ≥ 1) starts RetryBackoff·2^(k−1)·(1+RetryJitter·u) after the failure
	RetryJitter   float64       // u uniform in [0, 1)
	HedgeDelay    time.Duration // duplicate a request still unfinished this long after arrival; 0: off

	// Canary gives the last Canary.Replicas replicas a configuration of
	// their own: a change deployed to some replicas behind the same gateway,
	// compared with the others over the same traffic (compare --canary).
	Canary Canary

	// Outputs.
	StatsInterval time.Duration // engine stats sample period per replica; 0: no samples
	Window        time.Duration // width of truth windows; 0 means 60 s
}

// Canary is the configuration of a scenario's canary replicas, the last
// Replicas of them: each field's zero value keeps the scenario's.
type Canary struct {
	Replicas   int     // how many replicas, counted from the last; 0: none
	MaxNumSeqs int     // their cap
	DecodeRate float64 // their tokens/s of one stream alone
	// ExtraErrorRate is added to ErrorRate on them.
	ExtraErrorRate float64
	// Weight is the share of traffic each of them gets relative to one
	// other replica under the random Dispatch policy (0.5: half as much);
	// 0 means 1.
	Weight float64
	// EngineStallGap and EngineStallDuration give them engine pauses of
	// their own (with a Dispatch policy, as the scenario's), in place of
	// the scenario's; 0: the scenario's.
	EngineStallGap, EngineStallDuration time.Duration
}

// canary reports whether replica i of sc is one of its canary replicas.
func (sc *Scenario) canary(i int) bool { return i >= sc.Replicas-sc.Canary.Replicas }

// CanaryNames are the names of sc's canary replicas, in order.
func (sc Scenario) CanaryNames() []string {
	var out []string
	for i := max(0, sc.Replicas-sc.Canary.Replicas); i < sc.Replicas && sc.Canary.Replicas > 0; i++ {
		out = append(out, replicaName(i))
	}
	return out
}

// replicaCap is the cap of replica i.
func (sc *Scenario) replicaCap(i int) int {
	if sc.canary(i) && sc.Canary.MaxNumSeqs > 0 {
		return sc.Canary.MaxNumSeqs
	}
	return sc.MaxNumSeqs
}

// replicaName is the name of replica i.
func replicaName(i int) string { return "vllm-" + strconv.Itoa(i) }

// Length is a lognormal distribution of token counts: round(Median·e^(Sigma·Z)),
// Z standard normal, clamped to [Min, Max].
type Length struct {
	Median float64
	Sigma  float64
	Min    int64
	Max    int64
}

// Dispatch policies (Scenario.Dispatch).
const (
	DispatchFree        = ""             // the gateway admits into a free slot: the replica with the most free slots
	DispatchRoundRobin  = "round-robin"  // replicas in turn
	DispatchRandom      = "random"       // a uniformly chosen replica
	DispatchLeastLoaded = "least-loaded" // the fewest requests running and queued (ties: the lowest index)
)

// ErrUnknownScenario is returned by Named for a name it does not know.
var ErrUnknownScenario = errors.New("unknown scenario")

// named builds each named scenario. stall and fixed share every parameter
// but the stalls, so with the same seed they see the same arrivals and work.
var named = map[string]func() Scenario{
	"stall": func() Scenario {
		sc := baseline()
		sc.Name = "stall"
		sc.StallGap = 20 * time.Second
		sc.StallDuration = 10 * time.Second
		sc.StallJitter = 0.5
		return sc
	},
	"fixed": func() Scenario {
		sc := baseline()
		sc.Name = "fixed"
		return sc
	},
	"retry-storm": func() Scenario {
		sc := baseline()
		sc.Name = "retry-storm"
		sc.Duration = 6 * time.Minute
		sc.Rate = 5
		sc.BurstEvery = 90 * time.Second
		sc.BurstDuration = 15 * time.Second
		sc.BurstFactor = 1.8
		sc.ErrorRate = 0.15
		sc.ClientTimeout = 20 * time.Second
		sc.TimeoutJitter = 0.5
		sc.MaxAttempts = 4
		sc.RetryBackoff = 500 * time.Millisecond
		sc.MaxQueue = 48
		return sc
	},
	"overload": func() Scenario {
		sc := baseline()
		sc.Name = "overload"
		sc.Duration = 5 * time.Minute
		sc.Rate = 12
		sc.MaxQueue = 200
		sc.ClientTimeout = 30 * time.Second
		sc.TimeoutJitter = 0.6
		sc.MaxAttempts = 2
		sc.RetryBackoff = 2 * time.Second
		sc.ErrorRate = 0.02
		return sc
	},
	"light": func() Scenario {
		sc := baseline()
		sc.Name = "light"
		sc.Duration = 5 * time.Minute
		sc.Rate = 1.2
		sc.ErrorRate = 0.005
		return sc
	},
	"multi-replica": func() Scenario {
		sc := baseline()
		sc.Name = "multi-replica"
		sc.Duration = 6 * time.Minute
		sc.Replicas = 4
		sc.MaxNumSeqs = 16
		sc.Rate = 11
		sc.DiurnalAmplitude = 0.3
		sc.DiurnalPeriod = 4 * time.Minute
		sc.PrefixCacheHit = 0.4
		sc.StallGap = 40 * time.Second
		sc.StallDuration = 2 * time.Second
		sc.StallJitter = 0.5
		sc.StallPoisson = true
		sc.HedgeDelay = 15 * time.Second
		return sc
	},
	// The three causes of idle time (docs/metrics.md "Where the idle time
	// comes from"), one scenario each and one with all three.
	"engine-hold": func() Scenario {
		sc := poolBase()
		sc.Name = "engine-hold"
		sc.Dispatch = DispatchLeastLoaded
		sc.EngineStallGap = 20 * time.Second
		sc.EngineStallDuration = 3 * time.Second
		sc.EngineStallJitter = 0.5
		return sc
	},
	"imbalance": func() Scenario {
		sc := poolBase()
		sc.Name = "imbalance"
		sc.Dispatch = DispatchRoundRobin
		sc.Replicas = 4
		sc.MaxNumSeqs = 8
		sc.Rate = 4.5
		sc.Output = Length{Median: 180, Sigma: 1.2, Min: 1, Max: 2048}
		return sc
	},
	"gap-mix": func() Scenario {
		sc := poolBase()
		sc.Name = "gap-mix"
		sc.Dispatch = DispatchRoundRobin
		sc.MaxNumSeqs = 12
		sc.Rate = 6
		sc.Output = Length{Median: 180, Sigma: 1, Min: 1, Max: 2048}
		sc.StallGap = 30 * time.Second
		sc.StallDuration = 4 * time.Second
		sc.StallJitter = 0.5
		sc.EngineStallGap = 12 * time.Second
		sc.EngineStallDuration = 5 * time.Second
		sc.EngineStallJitter = 0.5
		return sc
	},
}

// poolBase is three replicas of 16 slots at about 70 % of their capacity for
// three minutes: the base of the gap-cause scenarios.
func poolBase() Scenario {
	sc := baseline()
	sc.Duration = 3 * time.Minute
	sc.Replicas = 3
	sc.MaxNumSeqs = 16
	sc.Rate = 8
	return sc
}

// baseline is one replica of a small model serving chat traffic at about 90 %
// of its capacity (about 6.4 requests/s, 1,580 output tokens/s at 32 streams),
// for eight minutes.
func baseline() Scenario {
	return Scenario{
		Model:         "meta-llama/Llama-3.1-8B-Instruct",
		Start:         DefaultStart,
		Duration:      8 * time.Minute,
		Rate:          5.7,
		Prompt:        Length{Median: 700, Sigma: 0.9, Min: 8, Max: 16384},
		Output:        Length{Median: 180, Sigma: 0.8, Min: 1, Max: 2048},
		Replicas:      1,
		MaxNumSeqs:    32,
		DecodeRate:    70,
		Slowdown:      0.012,
		PrefillRate:   12000,
		PrefillBase:   20 * time.Millisecond,
		ReleaseDelay:  2 * time.Millisecond,
		KVCacheTokens: 262144,
		ErrorRate:     0.01,
		ClientTimeout: 3 * time.Minute,
		TimeoutJitter: 0.3,
		MaxAttempts:   3,
		RetryBackoff:  time.Second,
		RetryJitter:   0.5,
		StatsInterval: 10 * time.Second,
		Window:        time.Minute,
	}
}

// Names returns the names Named knows, sorted.
func Names() []string {
	names := make([]string, 0, len(named))
	for n := range named {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// Named returns the scenario called name; an unknown name is an error that
// lists the valid ones.
func Named(name string) (Scenario, error) {
	f, ok := named[name]
	if !ok {
		return Scenario{}, fmt.Errorf("%w %q: valid names are %s", ErrUnknownScenario, name, strings.Join(Names(), ", "))
	}
	return f(), nil
}

// withDefaults fills the fields whose zero value means a default.
func (sc Scenario) withDefaults() Scenario {
	if sc.Start == 0 {
		sc.Start = DefaultStart
	}
	if sc.RunID == "" {
		sc.RunID = sc.Name
	}
	if sc.Source == "" {
		sc.Source = "sim"
	}
	if sc.Window == 0 {
		sc.Window = time.Minute
	}
	return sc
}

// Validate reports the first parameter that is out of its range.
func (sc Scenario) Validate() error {
	sc = sc.withDefaults()
	bad := func(field string, v any, want string) error {
		return fmt.Errorf("scenario %q: %s = %v, want %s", sc.Name, field, v, want)
	}
	finite := func(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }
	switch {
	case sc.Duration <= 0 && sc.MaxArrivals <= 0:
		return bad("Duration", sc.Duration, "> 0 (or MaxArrivals > 0)")
	case sc.Duration < 0:
		return bad("Duration", sc.Duration, ">= 0")
	case sc.MaxArrivals < 0:
		return bad("MaxArrivals", sc.MaxArrivals, ">= 0")
	case !finite(sc.Rate) || sc.Rate <= 0:
		return bad("Rate", sc.Rate, "> 0")
	case !finite(sc.DiurnalAmplitude) || sc.DiurnalAmplitude < 0 || sc.DiurnalAmplitude >= 1:
		return bad("DiurnalAmplitude", sc.DiurnalAmplitude, "in [0, 1)")
	case sc.DiurnalAmplitude > 0 && sc.DiurnalPeriod <= 0:
		return bad("DiurnalPeriod", sc.DiurnalPeriod, "> 0")
	case sc.BurstEvery < 0:
		return bad("BurstEvery", sc.BurstEvery, ">= 0")
	case sc.BurstEvery > 0 && (sc.BurstDuration <= 0 || !finite(sc.BurstFactor) || sc.BurstFactor < 1):
		return bad("BurstDuration/BurstFactor", fmt.Sprint(sc.BurstDuration, "/", sc.BurstFactor), "> 0 and >= 1")
	case !finite(sc.PrefixCacheHit) || sc.PrefixCacheHit < 0 || sc.PrefixCacheHit > 1:
		return bad("PrefixCacheHit", sc.PrefixCacheHit, "in [0, 1]")
	case sc.Replicas < 1:
		return bad("Replicas", sc.Replicas, ">= 1")
	case sc.MaxNumSeqs < 1:
		return bad("MaxNumSeqs", sc.MaxNumSeqs, ">= 1")
	case !finite(sc.DecodeRate) || sc.DecodeRate <= 0:
		return bad("DecodeRate", sc.DecodeRate, "> 0")
	case !finite(sc.Slowdown) || sc.Slowdown < 0:
		return bad("Slowdown", sc.Slowdown, ">= 0")
	case !finite(sc.PrefillRate) || sc.PrefillRate <= 0:
		return bad("PrefillRate", sc.PrefillRate, "> 0")
	case sc.PrefillBase < 0 || sc.ReleaseDelay < 0:
		return bad("PrefillBase/ReleaseDelay", fmt.Sprint(sc.PrefillBase, "/", sc.ReleaseDelay), ">= 0")
	case sc.KVCacheTokens < 0:
		return bad("KVCacheTokens", sc.KVCacheTokens, ">= 0")
	case sc.MaxQueue < 0:
		return bad("MaxQueue", sc.MaxQueue, ">= 0")
	case sc.StallGap < 0:
		return bad("StallGap", sc.StallGap, ">= 0")
	case sc.StallGap > 0 && sc.StallDuration <= 0:
		return bad("StallDuration", sc.StallDuration, "> 0")
	case !finite(sc.StallJitter) || sc.StallJitter < 0 || sc.StallJitter > 1:
		return bad("StallJitter", sc.StallJitter, "in [0, 1]")
	case sc.Dispatch != DispatchFree && sc.Dispatch != DispatchRoundRobin && sc.Dispatch != DispatchRandom && sc.Dispatch != DispatchLeastLoaded:
		return bad("Dispatch", fmt.Sprintf("%q", sc.Dispatch), `"", "round-robin", "random" or "least-loaded"`)
	case sc.EngineStallGap < 0:
		return bad("EngineStallGap", sc.EngineStallGap, ">= 0")
	case sc.EngineStallGap > 0 && sc.EngineStallDuration <= 0:
		return bad("EngineStallDuration", sc.EngineStallDuration, "> 0")
	case sc.EngineStallGap > 0 && sc.Dispatch == DispatchFree:
		return bad("Dispatch", `""`, "a policy that queues at the engines when EngineStallGap > 0")
	case !finite(sc.EngineStallJitter) || sc.EngineStallJitter < 0 || sc.EngineStallJitter > 1:
		return bad("EngineStallJitter", sc.EngineStallJitter, "in [0, 1]")
	case !finite(sc.ErrorRate) || sc.ErrorRate < 0 || sc.ErrorRate > 1:
		return bad("ErrorRate", sc.ErrorRate, "in [0, 1]")
	case sc.ClientTimeout < 0:
		return bad("ClientTimeout", sc.ClientTimeout, ">= 0")
	case !finite(sc.TimeoutJitter) || sc.TimeoutJitter < 0 || sc.TimeoutJitter > 1:
		return bad("TimeoutJitter", sc.TimeoutJitter, "in [0, 1]")
	case sc.MaxAttempts < 1:
		return bad("MaxAttempts", sc.MaxAttempts, ">= 1")
	case sc.RetryBackoff < 0 || !finite(sc.RetryJitter) || sc.RetryJitter < 0:
		return bad("RetryBackoff/RetryJitter", fmt.Sprint(sc.RetryBackoff, "/", sc.RetryJitter), ">= 0")
	case sc.HedgeDelay < 0:
		return bad("HedgeDelay", sc.HedgeDelay, ">= 0")
	case sc.StatsInterval < 0:
		return bad("StatsInterval", sc.StatsInterval, ">= 0")
	case sc.Window < time.Microsecond:
		return bad("Window", sc.Window, ">= 1µs")
	case sc.Canary.Replicas < 0 || sc.Canary.Replicas >= sc.Replicas && sc.Canary.Replicas > 0:
		return bad("Canary.Replicas", sc.Canary.Replicas, fmt.Sprintf("in [0, Replicas−1 = %d]: a canary needs replicas to be compared with", sc.Replicas-1))
	case sc.Canary.MaxNumSeqs < 0:
		return bad("Canary.MaxNumSeqs", sc.Canary.MaxNumSeqs, ">= 0")
	case !finite(sc.Canary.DecodeRate) || sc.Canary.DecodeRate < 0:
		return bad("Canary.DecodeRate", sc.Canary.DecodeRate, ">= 0")
	case !finite(sc.Canary.ExtraErrorRate) || sc.ErrorRate+sc.Canary.ExtraErrorRate < 0 || sc.ErrorRate+sc.Canary.ExtraErrorRate > 1:
		return bad("Canary.ExtraErrorRate", sc.Canary.ExtraErrorRate, "with ErrorRate in [0, 1]")
	case !finite(sc.Canary.Weight) || sc.Canary.Weight < 0:
		return bad("Canary.Weight", sc.Canary.Weight, ">= 0")
	case sc.Canary.Weight > 0 && sc.Canary.Weight != 1 && sc.Dispatch != DispatchRandom:
		return bad("Dispatch", fmt.Sprintf("%q", sc.Dispatch), `"random" when Canary.Weight is set`)
	case sc.Canary.EngineStallGap < 0 || sc.Canary.EngineStallGap > 0 && sc.Canary.EngineStallDuration <= 0:
		return bad("Canary.EngineStallGap/EngineStallDuration", fmt.Sprint(sc.Canary.EngineStallGap, "/", sc.Canary.EngineStallDuration), ">= 0, and a duration > 0 with a gap")
	case sc.Canary.EngineStallGap > 0 && sc.Dispatch == DispatchFree:
		return bad("Dispatch", `""`, "a policy that queues at the engines when Canary.EngineStallGap > 0")
	}
	for _, l := range []struct {
		name string
		l    Length
	}{{"Prompt", sc.Prompt}, {"Output", sc.Output}} {
		if !finite(l.l.Median) || l.l.Median <= 0 || !finite(l.l.Sigma) || l.l.Sigma < 0 || l.l.Min < 1 || l.l.Max < l.l.Min {
			return bad(l.name, fmt.Sprintf("%+v", l.l), "Median > 0, Sigma >= 0, 1 <= Min <= Max")
		}
	}
	return nil
}

// micros converts a duration to whole microseconds (truncating).
func micros(d time.Duration) int64 { return int64(d / time.Microsecond) }
