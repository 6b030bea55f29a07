package canary

import (
	"context"
	"encoding/json"
	"errors"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/parquet-go/parquet-go"

	"github.com/tpsreport/tpsreport/internal/dataset"
	"github.com/tpsreport/tpsreport/schemas"
)

func TestParse(t *testing.T) {
	model := "meta-llama/Llama-3.1-8B-Instruct"
	for _, tc := range []struct {
		in, str string
		match   []string // replica names it matches
		miss    []string
		model   bool // matches the model above
	}{
		{in: "vllm-3", str: "replica=vllm-3", match: []string{"vllm-3"}, miss: []string{"vllm-30", "vllm-3:8000", ""}},
		{in: "vllm-[23]", str: "replica=vllm-[23]", match: []string{"vllm-2", "vllm-3"}, miss: []string{"vllm-1"}},
		{in: "replica=canary-*", str: "replica=canary-*", match: []string{"canary-a", "canary-"}, miss: []string{"stable-a"}},
		{in: "replica~^pod-(7|9)$", str: "replica~^pod-(7|9)$", match: []string{"pod-7", "pod-9"}, miss: []string{"pod-79"}},
		{in: "replica~canary", str: "replica~canary", match: []string{"a-canary-b"}, miss: []string{"stable"}},
		{in: "model=meta-llama/*", str: "model=meta-llama/*", model: true},
		{in: "model~Qwen", str: "model~Qwen"},
	} {
		s, err := Parse(tc.in)
		if err != nil {
			t.Errorf("Parse(%q): %v", tc.in, err)
			continue
		}
		if s.String() != tc.str {
			t.Errorf("Parse(%q).String() = %q, want %q", tc.in, s.String(), tc.str)
		}
		for _, r := range tc.match {
			if !s.Match(r, &model) {
				t.Errorf("%s does not match replica %q", tc.in, r)
			}
		}
		for _, r := range tc.miss {
			if s.Match(r, &model) {
				t.Errorf("%s matches replica %q", tc.in, r)
			}
		}
		if s.Key == KeyModel {
			if got := s.Match("vllm-0", &model); got != tc.model {
				t.Errorf("%s on model %q: %v, want %v", tc.in, model, got, tc.model)
			}
			if s.Match("vllm-0", nil) {
				t.Errorf("%s matches a span that names no model", tc.in)
			}
		}
	}
	for in, want := range map[string]string{
		"":               `selector "": empty pattern`,
		"replica=":       `selector "replica=": empty pattern`,
		"pod=vllm-1":     `selector "pod=vllm-1": unknown key "pod" (want replica or model, as replica=vllm-3 or model~llama)`,
		"replica~(":      "selector \"replica~(\": error parsing regexp: missing closing ): `(`",
		"replica=vllm-[": `selector "replica=vllm-[": bad glob: syntax error in pattern`,
	} {
		if _, err := Parse(in); err == nil || err.Error() != want {
			t.Errorf("Parse(%q) = %v, want %s", in, err, want)
		}
	}
}

func TestHost(t *testing.T) {
	for in, want := range map[string]string{
		"vllm-3:8000": "vllm-3", "vllm-3": "vllm-3", "10.0.0.5:443": "10.0.0.5", "[::1]:8000": "::1",
		"host:": "host:", "host:http": "host:http", ":8000": ":8000", "a:99999": "a:99999",
	} {
		if got := host(in); got != want {
			t.Errorf("host(%q) = %q, want %q", in, got, want)
		}
	}
}

// us is an instant of the test run: 2026-11-20T10:00:00Z plus s seconds.
func us(s float64) *int64 {
	v := time.Date(2026, 11, 20, 10, 0, 0, 0, time.UTC).UnixMicro() + int64(s*1e6)
	return &v
}

func str(s string) *string { return &s }

// span is an attempt of request id on replica rep (nil: none named) from
// source src, queued at q seconds and released at r.
func span(src, id string, rep *string, q, r float64) schemas.Span {
	return schemas.Span{RunID: "night", Source: src, SpanID: id + "-" + src, RequestID: id, Replica: rep, Model: str("llama"),
		QueuedAt: us(q), AdmittedAt: us(q + 0.1), FirstTokenAt: us(q + 0.2), LastTokenAt: us(r - 0.01), ReleasedAt: us(r), Status: schemas.StatusOK}
}

// writeRun writes a run dataset in dir as ingest would: spans.parquet,
// samples.parquet and a manifest that describes them.
func writeRun(t *testing.T, dir string, spans []schemas.Span, samples []schemas.Sample, man schemas.Manifest) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o777); err != nil {
		t.Fatal(err)
	}
	if err := parquet.WriteFile(filepath.Join(dir, schemas.SpansFile), spans); err != nil {
		t.Fatal(err)
	}
	if err := parquet.WriteFile(filepath.Join(dir, schemas.SamplesFile), samples); err != nil {
		t.Fatal(err)
	}
	files, err := dataset.DescribeAll(dir, schemas.SpansFile, schemas.SamplesFile)
	if err != nil {
		t.Fatal(err)
	}
	man.Files = files
	b, _ := json.Marshal(man)
	if err := os.WriteFile(filepath.Join(dir, schemas.ManifestFile), b, 0o666); err != nil {
		t.Fatal(err)
	}
}

// readSpans reads a dataset's spans.
func readSpans(t *testing.T, dir string) []schemas.Span {
	t.Helper()
	rows, err := parquet.ReadFile[schemas.Span](filepath.Join(dir, schemas.SpansFile))
	if err != nil {
		t.Fatal(err)
	}
	return rows
}

// TestSplitRun: a gateway (LiteLLM) and an engine (vLLM OTel) log of three
// replicas. The gateway names its upstreams host:port, and their spans are
// filed under the engine's names, so that each replica's dataset holds both
// halves of its requests; a gateway's rejection names no replica and is in
// neither group; each replica's samples follow it.
func TestSplitRun(t *testing.T) {
	src := filepath.Join(t.TempDir(), "dt=2026-11-20", "run=night")
	spans := []schemas.Span{
		span("litellm", "a", str("vllm-0:8000"), 0, 10),
		span("vllm-otel", "a", str("vllm-0"), 0.5, 9.9),
		span("litellm", "b", str("vllm-1:8000"), 2, 30),
		span("vllm-otel", "b", str("vllm-1"), 2.5, 29.9),
		span("litellm", "c", str("vllm-2:8000"), 5, 20),
		span("vllm-otel", "c", str("vllm-2"), 5.5, 19.9),
		span("litellm", "d", nil, 7, 7.01), // rejected at the gateway
		span("litellm", "e", str("10.0.0.9:8000"), 8, 12),
	}
	spans[6].AdmittedAt, spans[6].FirstTokenAt, spans[6].LastTokenAt, spans[6].Status = nil, nil, nil, schemas.StatusError
	cap0, cap1 := int64(16), int64(20)
	samples := []schemas.Sample{
		{RunID: "night", Source: "vllm-otel", Replica: str("vllm-1"), TS: *us(1)},
		{RunID: "night", Source: "vllm-otel", Replica: str("vllm-0"), TS: *us(1)},
		{RunID: "night", Source: "vllm-otel", Replica: str("vllm-1"), TS: *us(11)},
		{RunID: "night", Source: "vllm-otel", Replica: str("vllm-9"), TS: *us(11)},
	}
	writeRun(t, src, spans, samples, schemas.Manifest{RunID: "night", Tool: "tpsreport", MaxNumSeqsBy: map[string]int64{"vllm-0": cap0, "vllm-1": cap1}})
	sel, err := ParseAll([]string{"vllm-1"})
	if err != nil {
		t.Fatal(err)
	}
	dst := filepath.Join(t.TempDir(), "split")
	sp, err := SplitRun(context.Background(), src, dst, sel, nil, true)
	if err != nil {
		t.Fatal(err)
	}
	if sp.Run != "night" || !slices.Equal(sp.Candidate.Replicas, []string{"vllm-1"}) ||
		!slices.Equal(sp.Baseline.Replicas, []string{"10.0.0.9:8000", "vllm-0", "vllm-2"}) {
		t.Errorf("groups %+v, %+v", sp.Candidate, sp.Baseline)
	}
	if sp.Candidate.Spans != 2 || sp.Baseline.Spans != 5 || sp.Unassigned != 1 || sp.NoReplica != 1 {
		t.Errorf("spans: canary %d, baseline %d, unassigned %d (%d no replica); want 2, 5, 1 (1)", sp.Candidate.Spans, sp.Baseline.Spans, sp.Unassigned, sp.NoReplica)
	}
	if sp.Candidate.Samples != 2 || sp.Baseline.Samples != 1 || sp.UnassignedSamples != 1 {
		t.Errorf("samples: canary %d, baseline %d, unassigned %d; want 2, 1, 1", sp.Candidate.Samples, sp.Baseline.Samples, sp.UnassignedSamples)
	}
	if want := map[string]string{"vllm-0:8000": "vllm-0", "vllm-1:8000": "vllm-1", "vllm-2:8000": "vllm-2"}; !maps.Equal(sp.Renamed, want) {
		t.Errorf("renamed %v, want %v", sp.Renamed, want)
	}
	if !sp.From.Equal(time.UnixMicro(*us(0)).UTC()) || !sp.To.Equal(time.UnixMicro(*us(30)).UTC()) {
		t.Errorf("extent %v – %v, want the run's 10:00:00 – 10:00:30", sp.From, sp.To)
	}
	// The canary's dataset: both halves of request b, its samples, its cap,
	// a manifest naming the replica that describes its files.
	dir := sp.Candidate.Dirs[0]
	got := readSpans(t, dir)
	if len(got) != 2 || got[0].RequestID != "b" || got[1].RequestID != "b" || *got[0].Replica != "vllm-1:8000" {
		t.Errorf("canary spans %+v", got)
	}
	var man schemas.Manifest
	b, err := os.ReadFile(filepath.Join(dir, schemas.ManifestFile))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &man); err != nil {
		t.Fatal(err)
	}
	if man.RunID != "night vllm-1" || man.Counts.Written != 2 || man.SamplesWritten != 2 || man.MaxNumSeqs == nil || *man.MaxNumSeqs != 20 ||
		len(man.MaxNumSeqsBy) != 1 || man.TimeRange == nil || !man.TimeRange.End.Equal(time.UnixMicro(*us(30)).UTC()) {
		t.Errorf("canary manifest %+v", man)
	}
	if err := dataset.Verify(dir, &man, "", schemas.SpansFile, schemas.SamplesFile); err != nil {
		t.Error(err)
	}
	// The pools: every span of each group.
	if n := len(readSpans(t, sp.Baseline.Pool)); n != 5 {
		t.Errorf("baseline pool has %d spans, want 5", n)
	}
	if n := len(readSpans(t, sp.Candidate.Pool)); n != 2 {
		t.Errorf("canary pool has %d spans, want 2", n)
	}
	// Every span is in one group or counted in neither.
	if sp.Candidate.Spans+sp.Baseline.Spans+sp.Unassigned != int64(len(spans)) {
		t.Errorf("the counts do not reconcile")
	}

	// A baseline chosen by selectors: the rest is in neither group.
	base, _ := ParseAll([]string{"vllm-[02]"})
	sp, err = SplitRun(context.Background(), src, filepath.Join(t.TempDir(), "split"), sel, base, false)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(sp.Baseline.Replicas, []string{"vllm-0", "vllm-2"}) || sp.Unassigned != 2 || sp.Baseline.Pool != "" {
		t.Errorf("baseline %+v, unassigned %d", sp.Baseline, sp.Unassigned)
	}
}

// TestSplitRunRefuses: selectors that pick nothing, everything, or both
// groups at once, and spans without instants, are errors that say what
// the run holds.
func TestSplitRunRefuses(t *testing.T) {
	src := filepath.Join(t.TempDir(), "run")
	spans := []schemas.Span{span("vllm-otel", "a", str("vllm-0"), 0, 10), span("vllm-otel", "b", str("vllm-1"), 1, 11)}
	writeRun(t, src, spans, nil, schemas.Manifest{RunID: "night", Tool: "tpsreport"})
	sels := func(ss ...string) []Selector {
		out, err := ParseAll(ss)
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	for _, tc := range []struct {
		cand, base []Selector
		want       string
	}{
		{sels("vllm-7"), nil, "canary: the selectors replica=vllm-7 match no span of run night; its replicas are vllm-0, vllm-1"},
		{sels("vllm-*"), nil, "canary: no span is left for the baseline of run night (its replicas are vllm-0, vllm-1): a canary is compared with other replicas over the same time"},
		{sels("vllm-1"), sels("model=llama"), "canary: a span of replica vllm-1 (model llama) is selected by both groups (replica=vllm-1 and model=llama): the groups must be apart"},
		{nil, nil, "canary: no selector for the canary"},
	} {
		_, err := SplitRun(context.Background(), src, filepath.Join(t.TempDir(), "split"), tc.cand, tc.base, false)
		if err == nil || err.Error() != tc.want {
			t.Errorf("%v against %v: %v, want %s", tc.cand, tc.base, err, tc.want)
		}
		if tc.cand != nil && !errors.Is(err, ErrSelection) {
			t.Errorf("%v is no ErrSelection", err)
		}
	}
	dur := filepath.Join(t.TempDir(), "durations")
	d := span("llmperf", "a", str("vllm-0"), 0, 10)
	d.TimeOrigin = str(schemas.TimeOriginRequest)
	writeRun(t, dur, []schemas.Span{d}, nil, schemas.Manifest{RunID: "bench", Tool: "tpsreport"})
	if _, err := SplitRun(context.Background(), dur, filepath.Join(t.TempDir(), "split"), sels("vllm-0"), nil, false); err == nil || !strings.Contains(err.Error(), "1 spans carry durations only") {
		t.Errorf("durations only: %v", err)
	}
}

// TestSplitRunLearnsUpstreams: a gateway that names its upstreams by
// address (Kong's, Envoy's) while the engines name themselves by pod: each
// address is filed under the pod most of its requests reached, by the
// join's keys (OpenAI prefix, attempt suffix and vLLM V1's internal suffix
// taken off), so that a canary picked by its pod name has its gateway
// spans too; an address whose requests reached no one pod for the most
// part keeps its name.
func TestSplitRunLearnsUpstreams(t *testing.T) {
	src := filepath.Join(t.TempDir(), "run")
	gw := func(id, addr string, q float64) schemas.Span {
		s := span("kong", id, str(addr), q, q+5)
		s.SpanID = "chatcmpl-" + id + "#1"
		return s
	}
	en := func(id, pod string, q float64) schemas.Span {
		s := span("vllm-otel", id, str(pod), q+0.1, q+4.9)
		s.RequestID = "chatcmpl-" + id + "-0a1b2c3d"
		return s
	}
	spans := []schemas.Span{
		gw("a", "10.0.0.7:8000", 0), en("a", "pod-b", 0),
		gw("b", "10.0.0.7:8000", 1), en("b", "pod-b", 1),
		gw("c", "10.0.0.7:8000", 2), // its engine span is lost
		gw("d", "10.0.0.9:8000", 3), en("d", "pod-a", 3),
		gw("e", "10.0.0.5:8000", 4), en("e", "pod-a", 4),
		gw("f", "10.0.0.5:8000", 5), en("f", "pod-c", 5),
		gw("g", "10.0.0.5:8000", 6), en("g", "pod-d", 6), // no majority
	}
	writeRun(t, src, spans, nil, schemas.Manifest{RunID: "night", Tool: "tpsreport"})
	sel, _ := ParseAll([]string{"pod-b"})
	sp, err := SplitRun(context.Background(), src, filepath.Join(t.TempDir(), "split"), sel, nil, false)
	if err != nil {
		t.Fatal(err)
	}
	if want := map[string]string{"10.0.0.7:8000": "pod-b", "10.0.0.9:8000": "pod-a"}; !maps.Equal(sp.Renamed, want) {
		t.Errorf("renamed %v, want %v", sp.Renamed, want)
	}
	if sp.Candidate.Spans != 5 || !slices.Equal(sp.Candidate.Replicas, []string{"pod-b"}) {
		t.Errorf("canary %+v, want pod-b's 2 engine spans and its address's 3 gateway spans", sp.Candidate)
	}
	if !slices.Equal(sp.Baseline.Replicas, []string{"10.0.0.5:8000", "pod-a", "pod-c", "pod-d"}) {
		t.Errorf("baseline replicas %v", sp.Baseline.Replicas)
	}
}

// FuzzParse: any selector text parses or is refused with a message naming
// it, and one that parses writes itself back as it reads.
func FuzzParse(f *testing.F) {
	for _, s := range []string{"vllm-3", "replica=vllm-[0-3]", "replica~^pod-\\d+$", "model=llama*", "model~(", "x=y", "", "=", "~", "replica=["} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		sel, err := Parse(s)
		if err != nil {
			if !strings.Contains(err.Error(), "selector ") {
				t.Errorf("Parse(%q): %v does not name the selector", s, err)
			}
			return
		}
		again, err := Parse(sel.String())
		if err != nil || again.String() != sel.String() {
			t.Errorf("Parse(%q) = %q, which reads back as %q, %v", s, sel.String(), again.String(), err)
		}
		_ = sel.Match(s, &s)
	})
}
