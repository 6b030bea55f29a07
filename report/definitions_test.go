package report

import (
	"strings"
	"testing"
)

// TestDefinitionsCoverJudgedMetrics: the report defines every metric a
// criterion judges, the request latencies and the SLO's counts, the gap
// causes and the engine's KV-cache usage, so that a reviewer can look up
// any number the verdict rests on (new-user trial L11).
func TestDefinitionsCoverJudgedMetrics(t *testing.T) {
	defined := map[string]bool{}
	for _, d := range definitions {
		for _, m := range strings.Split(d.Metric, ", ") {
			defined[m] = true
		}
	}
	for _, m := range []string{
		"retry_adjusted_system_tps", "success_rate", "gap_fraction", "retry_rate", "ttft_req", "tpot_req", "slo_attainment",
		"e2e_req", "slo_met", "goodput",
		"engine_gap_time", "admission_gap_time", "imbalance_gap_time", "unattributed_gap_time",
		"kv_cache_usage", "kv_cache_usage_max",
	} {
		if !defined[m] {
			t.Errorf("no definition of %s", m)
		}
	}
}
