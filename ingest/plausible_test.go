package ingest

import (
	"bytes"
	"context"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tpsreport/tpsreport/schemas"
)

// TestRunRejectsImplausibleTimes: a span or sample with an instant outside
// the years 2000..2100 is rejected as implausible_time, counted, kept in
// rejects.jsonl and warned about once per input, naming the first one;
// the edges of the range are kept. vllm-bench's relative times (epoch 0 is
// the benchmark's start) are not checked.
func TestRunRejectsImplausibleTimes(t *testing.T) {
	dir := t.TempDir()
	spans := filepath.Join(dir, "spans.jsonl")
	writeFile(t, spans, []byte(strings.Join([]string{
		`{"span_id":"ok","status":"ok","queued_at":"2026-11-20T10:00:00Z"}`,
		`{"span_id":"epoch0","status":"ok","queued_at":0}`,
		`{"span_id":"year1","status":"ok","queued_at":"2026-11-20T10:00:00Z","released_at":"0001-01-01T00:00:00Z"}`,
		`{"span_id":"year9999","status":"ok","first_token_at":"9999-12-31T23:59:59Z"}`,
		`{"span_id":"before","status":"ok","queued_at":"1999-12-31T23:59:59.999999Z"}`,
		`{"span_id":"first","status":"ok","queued_at":"2000-01-01T00:00:00Z"}`,
		`{"span_id":"last","status":"ok","queued_at":"2100-12-31T23:59:59.999999Z"}`,
		`{"span_id":"after","status":"ok","admitted_at":"2101-01-01T00:00:00Z"}`,
		`{"span_id":"untimed","status":"ok"}`,
	}, "\n")+"\n"))
	samples := filepath.Join(dir, "samples.jsonl")
	writeFile(t, samples, []byte(`{"replica":"vllm-0","ts":"2026-11-20T10:00:10Z","in_flight":3}
{"replica":"vllm-0","ts":0,"in_flight":3}
`))
	var logs bytes.Buffer
	out := filepath.Join(dir, "out")
	m, err := Run(context.Background(), Options{RunID: "r", OutDir: out, Log: newTestLogger(&logs), Inputs: []string{
		"spans:" + spans, "samples:" + samples, "vllm-bench:testdata/vllm/bench/serve_detailed.good.json"}})
	if err != nil {
		t.Fatal(err)
	}
	// serve_detailed.good.json: 12 requests, all written, the first at epoch 0.
	want := schemas.Counts{Read: 9 + 2 + 12, Written: 4 + 1 + 12, Rejected: 5 + 1}
	if m.Counts != want {
		t.Errorf("counts = %+v, want %+v", m.Counts, want)
	}
	if got := m.RejectedBy["implausible_time"]; got != 6 {
		t.Errorf("rejected_by_reason[implausible_time] = %d, want 6 (%v)", got, m.RejectedBy)
	}
	var got []string
	for _, r := range readRejects(t, out) {
		got = append(got, r.File[len(dir)+1:]+":"+strconv.FormatInt(r.Line, 10)+" "+r.Kind+" "+r.Reason)
	}
	wantRejects := []string{
		"spans.jsonl:2 implausible_time span \"epoch0\": queued_at 1970-01-01T00:00:00Z is outside the years 2000 to 2100 (an unset clock?)",
		"spans.jsonl:3 implausible_time span \"year1\": released_at 0001-01-01T00:00:00Z is outside the years 2000 to 2100 (an unset clock?)",
		"spans.jsonl:4 implausible_time span \"year9999\": first_token_at 9999-12-31T23:59:59Z is outside the years 2000 to 2100 (an unset clock?)",
		"spans.jsonl:5 implausible_time span \"before\": queued_at 1999-12-31T23:59:59.999999Z is outside the years 2000 to 2100 (an unset clock?)",
		"spans.jsonl:8 implausible_time span \"after\": admitted_at 2101-01-01T00:00:00Z is outside the years 2000 to 2100 (an unset clock?)",
		"samples.jsonl:2 implausible_time sample of replica \"vllm-0\": ts 1970-01-01T00:00:00Z is outside the years 2000 to 2100 (an unset clock?)",
	}
	if strings.Join(got, "\n") != strings.Join(wantRejects, "\n") {
		t.Errorf("rejects:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(wantRejects, "\n"))
	}
	// The span as it would have been written, without run_id.
	if r := readRejects(t, out)[0]; r.Raw != `{"run_id":"","source":"spans","span_id":"epoch0","request_id":"epoch0","queued_at":0,"status":"ok"}` {
		t.Errorf("raw = %s", r.Raw)
	}
	// The time range is the written spans': vllm-bench's start at epoch 0,
	// the last plausible instant from "last".
	wantRange := schemas.TimeRange{Start: time.Unix(0, 0).UTC(), End: time.Date(2100, 12, 31, 23, 59, 59, 999999000, time.UTC)}
	if m.TimeRange == nil || !m.TimeRange.Start.Equal(wantRange.Start) || !m.TimeRange.End.Equal(wantRange.End) {
		t.Errorf("time_range = %+v, want %+v", m.TimeRange, wantRange)
	}
	warns := strings.Count(logs.String(), "level=WARN")
	if warns != 2 {
		t.Errorf("%d warnings, want 2 (one per input with rejects):\n%s", warns, logs.String())
	}
	for _, w := range []string{
		spans + `:2: span \"epoch0\": queued_at 1970-01-01T00:00:00Z is outside the years 2000 to 2100 (an unset clock?); 5 record(s) of ` + spans + " rejected as implausible_time",
		samples + `:2: sample of replica \"vllm-0\": ts 1970-01-01T00:00:00Z is outside the years 2000 to 2100 (an unset clock?); 1 record(s) of ` + samples + " rejected as implausible_time",
	} {
		if !strings.Contains(logs.String(), w) {
			t.Errorf("log\n%s\nlacks\n%s", logs.String(), w)
		}
	}
}
