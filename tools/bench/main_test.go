package main

import (
	"strings"
	"testing"
	"time"
)

func TestSelected(t *testing.T) {
	names := []string{
		"ingest (tpsreport)",
		"ingest (DuckDB read_json → Parquet)",
		"analyze",
		"analyze (gateway ⋈ engine join)",
		"report",
		"compare (run against itself)",
	}
	for _, tc := range []struct {
		only string
		want []bool // of names, in order
	}{
		{"", []bool{true, true, true, true, true, true}},
		{"ingest", []bool{true, true, false, false, false, false}},
		{"ingest (tpsreport),analyze", []bool{true, false, true, true, false, false}},
		{" analyze , compare", []bool{false, false, true, true, false, true}},
		// Whole words only: "an" is no step's first word.
		{"an", []bool{false, false, false, false, false, false}},
		{"analyze (gateway", []bool{false, false, false, true, false, false}},
		{"none", []bool{false, false, false, false, false, false}},
		{",", []bool{false, false, false, false, false, false}},
	} {
		for i, n := range names {
			if got := selected(n, tc.only); got != tc.want[i] {
				t.Errorf("selected(%q, %q) = %v, want %v", n, tc.only, got, tc.want[i])
			}
		}
	}
}

// TestRenderScaleRatio: the large run is compared against the small run's
// one analysis, or against the mean of its analyses before and after the
// large one's.
func TestRenderScaleRatio(t *testing.T) {
	small := scaleMeasure{step: "analyze", input: "10M run", spans: 10_000_000, wall: 40 * time.Second, cpu: 80 * time.Second}
	after := scaleMeasure{step: "analyze (again, after the 100M run)", input: "10M run", spans: 10_000_000, wall: 60 * time.Second, cpu: 100 * time.Second}
	large := scaleMeasure{step: "analyze", input: "100M run", spans: 100_000_000, wall: 600 * time.Second, cpu: 1080 * time.Second}
	ms := []scaleMeasure{small, large, after}
	for _, tc := range []struct {
		after *scaleMeasure
		want  string
	}{
		{nil, "600.0 s / 40.0 s = 15.00× for 10× the spans (CPU time 13.50×, less moved by a shared machine) | **missed** |"},
		{&after, "600.0 s / 50.0 s, the mean of its analyses before and after the 100M run's (40.0 s, 60.0 s) = 12.00× for 10× the spans (CPU time 12.00×, less moved by a shared machine) | holds |"},
	} {
		got := renderScale(ms, &small, tc.after, &large, 10_000_000, 100_000_000, "10000000,100000000", false)
		if !strings.Contains(got, tc.want) {
			t.Errorf("after %v: the target's row is not %q in\n%s", tc.after != nil, tc.want, got)
		}
	}
}
