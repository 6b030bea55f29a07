package suggest

import "testing"

func TestDistance(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		want int
	}{
		{"analyze", "analyze", 0},
		{"anlyze", "analyze", 1},
		{"compre", "compare", 1},
		{"", "run", 3},
		{"ingest", "digest", 2},
		{"kitten", "sitting", 3},
	} {
		if got := Distance(tc.a, tc.b); got != tc.want {
			t.Errorf("Distance(%q, %q) = %d, want %d", tc.a, tc.b, got, tc.want)
		}
	}
}

func TestClosest(t *testing.T) {
	formats := []string{"litellm", "vllm-log", "vllm-otel", "spans"}
	for _, tc := range []struct {
		s    string
		max  int
		want string
	}{
		{"vllmotel", 2, "vllm-otel"},
		{"VLLM_OTEL", 2, "vllm-otel"}, // case and '_' for '-'
		{"spnas", 2, "spans"},
		{"litelm", 2, "litellm"},
		{"prometheus", 2, ""}, // nothing close
		{"sp", 2, ""},         // no fewer edits than letters
		{"vllm-lo", 1, "vllm-log"},
		{"vllm-xx", 1, ""},
	} {
		if got := Closest(tc.s, formats, tc.max); got != tc.want {
			t.Errorf("Closest(%q, %d) = %q, want %q", tc.s, tc.max, got, tc.want)
		}
	}
}
