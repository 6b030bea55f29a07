package ingest

import (
	"bufio"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// promColumn names the sample column each family kind fills.
var promColumn = map[promGauge]string{
	promRunning: "in_flight", promInFlightAll: "in_flight", promWaiting: "queue_depth",
	promKV: "kv_cache_usage", promGPUKV: "kv_cache_usage", promCap: "cap",
	promPreemptions: "preemptions", promPrefixQueries: "prefix_cache_queries", promPrefixHits: "prefix_cache_hits",
	promSpecDraft: "spec_draft_tokens", promSpecAccepted: "spec_accepted_tokens", promPrefixRate: "prefix_cache_hit_rate",
}

// TestPromFamiliesByRelease: each engine release's families
// (testdata/prometheus-families) fill exactly the columns its list says,
// through the reader's family table: a renamed family that the table
// misses fails here, not as an empty column in a report.
func TestPromFamiliesByRelease(t *testing.T) {
	files, err := filepath.Glob("testdata/prometheus-families/*.txt")
	if err != nil || len(files) < 7 {
		t.Fatalf("%d family lists (%v), want one per engine release", len(files), err)
	}
	for _, path := range files {
		t.Run(filepath.Base(path), func(t *testing.T) {
			f, err := os.Open(path)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			sc := bufio.NewScanner(f)
			var want []string
			got := map[string]bool{}
			for sc.Scan() {
				line := strings.TrimSpace(sc.Text())
				if cols, ok := strings.CutPrefix(line, "# covers:"); ok {
					want = strings.Fields(cols)
					continue
				}
				if line == "" || line[0] == '#' {
					continue
				}
				if c, ok := promColumn[promGaugeOf(line)]; ok {
					got[c] = true
				}
			}
			if err := sc.Err(); err != nil {
				t.Fatal(err)
			}
			slices.Sort(want)
			if have := slices.Sorted(maps.Keys(got)); !slices.Equal(have, want) {
				t.Errorf("columns filled %v, the list says %v", have, want)
			}
		})
	}
}

// TestPromNotices: a scrape that yields samples but no family of a column
// a report needs says which families it looked for; one that has them all
// says nothing.
func TestPromNotices(t *testing.T) {
	read := func(text string) []string {
		r := newPrometheusReader(Input{Name: "scrape.prom", R: strings.NewReader(text), MaxLineBytes: 1 << 20})
		for r.Next() {
		}
		if err := r.Err(); err != nil {
			t.Fatal(err)
		}
		return r.(noticer).notices()
	}
	got := read("vllm:num_requests_running{instance=\"a\"} 3 1795168800000\nvllm:num_requests_waiting{instance=\"a\"} 1 1795168800000\n")
	want := []string{
		"scrape.prom: no metric for kv_cache_usage (looked for gpu_cache_usage_perc, llamacpp:kv_cache_usage_ratio, sglang:token_usage, trtllm:kv_cache_utilization, vllm:gpu_cache_usage_perc, vllm:kv_cache_usage_perc): it stays empty; a newer or older engine release may name it otherwise",
		"scrape.prom: no metric for preemptions (looked for vllm:num_preemptions): it stays empty; a newer or older engine release may name it otherwise",
	}
	if !slices.Equal(got, want) {
		t.Errorf("notices:\n got %q\nwant %q", got, want)
	}
	// SGLang's scrape: preemptions are not asked of it.
	if got := read("sglang:num_running_reqs{instance=\"a\"} 3 1795168800000\nsglang:num_queue_reqs{instance=\"a\"} 1 1795168800000\nsglang:token_usage{instance=\"a\"} 0.5 1795168800000\n"); len(got) != 0 {
		t.Errorf("a complete SGLang scrape: %q", got)
	}
	// Nothing read, nothing to say (the file is a skip of unused metrics).
	if got := read("http_requests_total 3 1795168800000\n"); len(got) != 0 {
		t.Errorf("no samples: %q", got)
	}
}
