package report

import (
	"slices"
	"strings"
	"testing"

	"github.com/tpsreport/tpsreport/schemas"
)

func TestFindings(t *testing.T) {
	cap32 := int64(32)
	// base is a run of 600 s with 1,000 requests, no backlog, a known cap
	// and nothing rejected: it says only that it never saturated.
	base := func() Run {
		var r Run
		s := &r.Summary
		s.Cap, s.CapSource = &cap32, "samples"
		s.WindowSeconds = 600
		s.Requests, s.Attempts = 1000, 1000
		s.SuccessRate, s.RetryRate, s.GapFraction = ptr(1), ptr(0), ptr(0)
		r.Manifest.Counts = schemas.Counts{Read: 1000, Written: 1000}
		return r
	}
	tests := []struct {
		name   string
		change func(r *Run)
		want   []string
	}{
		{"never saturated", func(r *Run) {}, []string{
			"No request waited: the run never saturated, so it says nothing about capacity."}},
		{"idle slots under backlog", func(r *Run) {
			// 150 s of backlog, 144 s of it with free slots: 24 % of 600 s.
			r.Summary.BacklogTime, r.Summary.GapTime, r.Summary.GapFraction = 150, 144, ptr(0.24)
		}, []string{
			"Requests waited while slots were free during 24.0 % of the run (gap_fraction 24.0 % > 5 %): look at admission, orchestration or the gateway."}},
		{"saturated", func(r *Run) {
			// 300 s of backlog is 50 % of the run; 6 s of gap is 1 %.
			r.Summary.BacklogTime, r.Summary.GapFraction = 300, ptr(0.01)
		}, []string{
			"Requests waited during 50.0 % of the run, with slots free for 1.00 % of the run (gap_fraction ≤ 5 %): when work waited the engine was mostly full, so the run shows its capacity."}},
		{"cap inferred", func(r *Run) {
			r.Summary.CapSource = "inferred"
		}, []string{
			"No request waited: the run never saturated, so it says nothing about capacity.",
			"The cap of 32 was inferred from the maximum in_flight seen, so gap_time and gap_fraction are lower bounds. Pass --cap or ingest scheduler samples for exact values."}},
		{"a client's records alone, a sample of them", func(r *Run) {
			zero := int64(0)
			r.Summary.Cap, r.Summary.CapSource, r.Summary.GapFraction = &zero, "inferred", nil
			r.Summary.DataQuality.Sampled = []schemas.SampledInput{{File: "b.json", Scope: "GuideLLM benchmark 0", Listed: 47, Held: 1}}
		}, []string{
			"The numbers are of a sample: GuideLLM benchmark 0 lists 47 requests; the file holds 1 request record: latencies and success_rate are of that sample.",
			"No engine's log or samples were read: the requests are as a client or a gateway saw them, so latencies, throughput and success_rate hold, while the engine's slots, queue and idle time are unseen. Ingest the engine's log with them to see those."}},
		{"no cap", func(r *Run) { r.Summary.Cap = nil }, []string{
			"No cap is known, so the report cannot tell idle slots from a full engine: pass --cap (the engine's max_num_seqs) or ingest scheduler samples."}},
		{"nothing completed", func(r *Run) { r.Summary.Requests, r.Summary.Attempts = 0, 0 }, []string{
			"No request completed in the run window, so it says nothing about throughput or capacity."}},
		{"failures, retries and rejects", func(r *Run) {
			// 985 of 1,000 succeeded; 60 of 1,000 attempts retried; 30 of 1,000 records rejected.
			r.Summary.SuccessRate, r.Summary.RetryRate, r.Summary.WasteFraction = ptr(0.985), ptr(0.06), ptr(0.07)
			r.Manifest.Counts = schemas.Counts{Read: 1000, Written: 970, Rejected: 30}
		}, []string{
			"No request waited: the run never saturated, so it says nothing about capacity.",
			"1.50 % of requests failed (success_rate 98.50 % < 99 %): throughput counts only successful spans, so read the errors before the speed.",
			"6.00 % of attempts were retries (retry_rate 6.00 % > 5 %): 7.00 % of the generated tokens were never delivered.",
			"30 of 1,000 records were rejected (3.00 % > 1 %): the metrics leave them out; rejects.jsonl says why."}},
		{"under the thresholds", func(r *Run) {
			r.Summary.SuccessRate, r.Summary.RetryRate = ptr(0.995), ptr(0.05)
			r.Manifest.Counts = schemas.Counts{Read: 1000, Written: 990, Rejected: 10}
		}, []string{
			"No request waited: the run never saturated, so it says nothing about capacity."}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := base()
			tt.change(&r)
			if got := findings(&r); !slices.Equal(got, tt.want) {
				t.Errorf("got\n  %s\nwant\n  %s", strings.Join(got, "\n  "), strings.Join(tt.want, "\n  "))
			}
		})
	}
	// A comparison has a verdict instead.
	if d := newDocument(compareInput()); d.Findings != nil {
		t.Errorf("comparison has findings: %q", d.Findings)
	}
}

func TestNaturalCompare(t *testing.T) {
	got := []string{"vllm-10", "vllm-2", "vllm-1", "b", "vllm-02", "a10b2", "a10b10", "a9", ""}
	slices.SortStableFunc(got, naturalCompare)
	want := []string{"", "a9", "a10b2", "a10b10", "b", "vllm-1", "vllm-02", "vllm-2", "vllm-10"}
	if !slices.Equal(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
	// The replicas table lists them in that order.
	in := singleInput()
	for _, name := range []string{"vllm-10", "vllm-2", "vllm-1"} {
		in.Baseline.Summary.Replicas = append(in.Baseline.Summary.Replicas, schemas.ReplicaState{Replica: name})
	}
	var names []string
	for _, rf := range newDocument(in).Runs[0].Replicas {
		names = append(names, rf.Replica)
	}
	if want := []string{"vllm-1", "vllm-2", "vllm-10"}; !slices.Equal(names, want) {
		t.Errorf("replicas %q, want %q", names, want)
	}
}

// TestRecordsExplained: skipped and rejected records by reason, the format
// each input was read as (and whether it was detected), and ignored files.
func TestRecordsExplained(t *testing.T) {
	_, doc := renderHTML(t, singleInput())
	text := doc.Text.String()
	for _, w := range []string{
		"read 6,914 · written 6,821 · rejected 81 · skipped 12",
		"Rejected by reason" + "bad_json 52 · bad_timestamp 29",
		"Skipped by reason" + "blank 9 · unused_line 3",
		"litellm (detected)",
		"logs/nightly-2026-11-20/README.md no format claims it",
	} {
		if !strings.Contains(text, w) {
			t.Errorf("page text lacks %q", w)
		}
	}
	// Counts from summary.json alone, with no breakdown.
	in := singleInput()
	in.Baseline.Manifest = schemas.Manifest{}
	in.Baseline.Summary.DataQuality.SkippedBy = nil
	_, doc = renderHTML(t, in)
	if text := doc.Text.String(); !strings.Contains(text, "Skipped by reasonno breakdown recorded") {
		t.Errorf("a skip count without reasons is not said to lack them")
	}
}
