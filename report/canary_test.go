package report

import (
	"bytes"
	"math"
	"strings"
	"testing"

	"github.com/tpsreport/tpsreport/schemas"
)

// canaryInput is compareInput as a canary: the groups of one run, the
// throughput resampled paired.
func canaryInput() Input {
	in := compareInput()
	v := in.Verdict
	v.Canary = &schemas.Canary{Run: "night-1",
		Candidate:       schemas.CanaryGroup{Selectors: []string{"replica=vllm-3"}, Replicas: []string{"vllm-3"}, Spans: 6592, Requests: 3288, RequestsPerReplica: 3288},
		Baseline:        schemas.CanaryGroup{Selectors: []string{}, Replicas: []string{"vllm-0", "vllm-1", "vllm-2"}, Spans: 19266, Requests: 9753, RequestsPerReplica: 3251},
		UnassignedSpans: 14, NoReplicaSpans: 14, Windows: 28}
	v.Criteria[0].Resampling = &schemas.Resampling{StandardError: 0.01, UnpairedStandardError: 0.024, Paired: true}
	v.Bootstrap.BaselineRuns, v.Bootstrap.CandidateRuns = 3, 1
	return in
}

// TestCanarySection: a canary's report names its groups, says why its
// verdict is sharper and by how much the pairing narrowed each interval,
// describes the paired resampling, and draws throughput per replica.
func TestCanarySection(t *testing.T) {
	in := canaryInput()
	page, _ := renderHTML(t, in)
	for _, want := range []string{
		"Canary: two groups of run night-1, the same hours",
		"<code>replica=vllm-3</code></td><td>vllm-3</td><td class=\"num\">6,592</td><td class=\"num\">3,288</td>",
		"<code>every other replica</code></td><td>vllm-0, vllm-1, vllm-2</td><td class=\"num\">19,266</td><td class=\"num\">3,251</td>",
		"14 spans of the run are in neither group (14 of them name no replica: a gateway&#39;s rejections, which no replica served).",
		"this many times as wide: throughput 2.4×.",
		"draws the same blocks of time for both groups",
		"the canary&#39;s 1 replica and the baseline&#39;s 3 replicas over 28 windows",
		"their requests and offered load per replica differ by at most",
	} {
		if !strings.Contains(page, want) {
			t.Errorf("report.html lacks %q", want)
		}
	}
	if strings.Contains(page, "whole runs resampled as well") {
		t.Error("a canary's replicas are not resampled as runs")
	}
	var md bytes.Buffer
	if err := Markdown(&md, in); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"**Canary** of run night-1, the same hours:",
		"| canary | `replica=vllm-3` | vllm-3 | 6,592 | 3,288 |",
		"| baseline | `every other replica` | vllm-0, vllm-1, vllm-2 | 19,266 | 3,251 |",
	} {
		if !strings.Contains(md.String(), want) {
			t.Errorf("summary.md lacks %q", want)
		}
	}
	figs := figures(in)
	f := figs[0]
	if f.Name != "tps_per_replica" || len(f.Series) != 2 || f.Series[0].Label != "baseline, 3 replicas" || f.Series[1].Label != "canary, 1 replica" {
		t.Fatalf("first figure %s with %d series", f.Name, len(f.Series))
	}
	for i, n := range []float64{3, 1} {
		run := []*Run{&in.Baseline, in.Candidate}[i]
		w := run.Windows[2]
		if got, want := *f.Series[i].Y[2], *w.RetryAdjustedSystemTPS/n; math.Abs(got-want) > 1e-9 {
			t.Errorf("%s window 2: %v tok/s per replica, want %v", f.Series[i].Label, got, want)
		}
	}
	// Without a canary there is no such figure and no such section.
	plain := compareInput()
	if figures(plain)[0].Name == "tps_per_replica" {
		t.Error("a comparison of two runs drew a canary's figure")
	}
	if page, _ := renderHTML(t, plain); strings.Contains(page, "Canary:") {
		t.Error("a comparison of two runs has a canary section")
	}
}
