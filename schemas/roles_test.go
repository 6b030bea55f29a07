package schemas

import (
	"slices"
	"testing"
)

// TestSourcesOf: the join roles, by source name.
func TestSourcesOf(t *testing.T) {
	for _, tc := range []struct {
		role Role
		want []string
	}{
		{RoleGateway, []string{"envoy-ai", "kong", "litellm", "mapping", "otel-genai"}},
		{RoleEngine, []string{"dynamo-nvext", "dynamo-trace", "llamacpp", "llamacpp-log", "sglang-log", "sglang-metrics", "trtllm-perf", "vllm-log", "vllm-otel"}},
	} {
		if got := SourcesOf(tc.role); !slices.Equal(got, tc.want) {
			t.Errorf("SourcesOf(%q) = %v, want %v", tc.role, got, tc.want)
		}
	}
	for source, want := range map[string]Role{"litellm": RoleGateway, "vllm-otel": RoleEngine, "spans": RoleNone, "guidellm": RoleNone} {
		if got := RoleOf(source); got != want {
			t.Errorf("RoleOf(%q) = %q, want %q", source, got, want)
		}
	}
}
