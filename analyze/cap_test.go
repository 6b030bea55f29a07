package analyze

import "testing"

func TestResolveCapsEngines(t *testing.T) {
	c := func(v int64) *int64 { return &v }
	reps := []replicaFacts{
		// vllm-0: two engine cores sampled one by one (and aggregated, ignored).
		{Name: "vllm-0", InSpans: true, MaxInFlight: 50},
		{Name: "vllm-0/engine-000", SampleCap: c(32)},
		{Name: "vllm-0/engine-001", SampleCap: c(32)},
		{Name: "vllm-0/engine-aggregated", SampleCap: c(64)},
		// vllm-1: only the aggregated stats line.
		{Name: "vllm-1", InSpans: true, MaxInFlight: 10},
		{Name: "vllm-1/engine-aggregated", SampleCap: c(48)},
		// vllm-2: its own samples win over its engines'.
		{Name: "vllm-2", InSpans: true, SampleCap: c(16)},
		{Name: "vllm-2/engine-000", SampleCap: c(8)},
		// vllm-3: nothing sampled: the logs' max_num_seqs.
		{Name: "vllm-3", InSpans: true, MaxInFlight: 3},
	}
	got := resolveCaps(reps, capInputs{Logs: c(4)})
	want := map[string]int64{"vllm-0": 64, "vllm-1": 48, "vllm-2": 16, "vllm-3": 4}
	for name, w := range want {
		if g := got.ByReplica[name]; g != w {
			t.Errorf("cap of %s = %d, want %d", name, g, w)
		}
	}
	if got.Pool != 64+48+16+4 || got.Source != CapFromLogs || got.Warning != "" {
		t.Errorf("pool %d from %q (warning %q), want %d from logs", got.Pool, got.Source, got.Warning, 64+48+16+4)
	}
}
