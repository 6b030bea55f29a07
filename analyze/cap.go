package analyze

import (
	"fmt"
	"strings"
)

// Cap sources, strongest first (docs/metrics.md "cap").
const (
	CapFromFlag    = "flag"
	CapFromSamples = "samples"
	CapFromLogs    = "logs"
	CapInferred    = "inferred"
)

var capRank = map[string]int{CapFromFlag: 0, CapFromSamples: 1, CapFromLogs: 2, CapInferred: 3}

// replicaFacts is what the cap rule knows of one replica.
type replicaFacts struct {
	Name        string
	InSpans     bool
	SampleCap   *int64
	MaxInFlight int64
}

// capInputs are the sources outside the data: the flag and the logs' max_num_seqs.
type capInputs struct {
	Flag       *int64
	Logs       *int64
	LogsByName map[string]int64
}

// resolvedCaps is the outcome of the cap rule.
type resolvedCaps struct {
	ByReplica map[string]int64
	Names     []string // every replica, in the order given
	Pool      int64    // Σ caps of the replicas in spans (of all, when no span names one)
	Source    string   // the weakest source used for a replica of the pool
	Warning   string   // set when a cap was inferred
}

// engineCaps gives a replica that has no samples of its own the samples' cap of
// its engines: vLLM's V1 stats lines name each engine core (samples of replica
// "vllm-0/engine-000"), while spans name the server ("vllm-0"), whose cap is
// the sum of its engines' (max_num_seqs is per engine). An "engine-aggregated"
// sample (data-parallel stats summed) stands for all engines and counts only
// when no engine of its own is sampled.
func engineCaps(reps []replicaFacts) map[string]int64 {
	perEngine := map[string]int64{}
	aggregated := map[string]int64{}
	for _, r := range reps {
		parent, engine, ok := strings.Cut(r.Name, "/engine-")
		if !ok || r.SampleCap == nil || parent == "" {
			continue
		}
		if engine == "aggregated" {
			aggregated[parent] = max(aggregated[parent], *r.SampleCap)
		} else {
			perEngine[parent] += *r.SampleCap
		}
	}
	for parent, c := range aggregated {
		if _, ok := perEngine[parent]; !ok {
			perEngine[parent] = c
		}
	}
	return perEngine
}

// resolveCaps applies docs/metrics.md's order per replica: flag, samples (its own, else
// its engines'), logs, inferred.
func resolveCaps(reps []replicaFacts, in capInputs) resolvedCaps {
	out := resolvedCaps{ByReplica: map[string]int64{}, Source: CapFromFlag}
	engines := engineCaps(reps)
	anyInSpans := false
	for _, r := range reps {
		anyInSpans = anyInSpans || r.InSpans
	}
	var inferred []string
	for _, r := range reps {
		var c int64
		src := ""
		switch {
		case in.Flag != nil:
			c, src = *in.Flag, CapFromFlag
		case r.SampleCap != nil:
			c, src = *r.SampleCap, CapFromSamples
		case hasKey(engines, r.Name):
			c, src = engines[r.Name], CapFromSamples
		case in.LogsByName != nil && hasKey(in.LogsByName, r.Name):
			c, src = in.LogsByName[r.Name], CapFromLogs
		case in.Logs != nil:
			c, src = *in.Logs, CapFromLogs
		default:
			c, src = r.MaxInFlight, CapInferred
		}
		out.ByReplica[r.Name] = c
		out.Names = append(out.Names, r.Name)
		// The pool, and so its cap and cap_source, is the replicas the spans name.
		if r.InSpans || !anyInSpans {
			out.Pool += c
			if capRank[src] > capRank[out.Source] {
				out.Source = src
			}
			if src == CapInferred {
				inferred = append(inferred, r.Name)
			}
		}
	}
	if len(inferred) > 0 {
		out.Warning = fmt.Sprintf("cap inferred as the maximum observed in_flight (%d); gap_time and gap_fraction are lower bounds. Try: --cap N (max_num_seqs per replica)", out.Pool)
	}
	return out
}

func hasKey(m map[string]int64, k string) bool {
	_, ok := m[k]
	return ok
}
