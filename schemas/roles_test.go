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

// TestJoinKey: the keys an id offers the join, hand-computed.
func TestJoinKey(t *testing.T) {
	for in, want := range map[string]string{
		"chatcmpl-abc#retry2": "abc", "cmpl-x#3": "x", "id#tag": "id#tag", "plain": "plain", "a#": "a#", "chatcmpl-": "",
	} {
		if got := string(JoinKey([]byte(in))); got != want {
			t.Errorf("JoinKey(%q) = %q, want %q", in, got, want)
		}
	}
	for in, want := range map[string]string{"abc-0a1b2c3d": "abc", "-0a1b2c3d": "", "abc-0A1B2C3D": "-", "abc": "-"} {
		got, ok := TrimV1Suffix([]byte(in))
		if !ok {
			got = []byte("-")
		}
		if string(got) != want {
			t.Errorf("TrimV1Suffix(%q) = %q, %v; want %q", in, got, ok, want)
		}
	}
}
