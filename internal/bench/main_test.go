package main

import "testing"

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
