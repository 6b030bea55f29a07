package ingest

import (
	"errors"
	"strings"
	"testing"

	"github.com/tpsreport/tpsreport/schemas"
)

func TestSamplesFormat(t *testing.T) {
	in := `{"replica":"vllm-0","ts":"2026-11-20T10:00:10.000000Z","in_flight":31,"queue_depth":4,"cap":32,"kv_cache_usage":0.81}
{"ts":1795168820.5,"in_flight":null,"queue_depth":0}

{"replica":"vllm-0","ts":"yesterday","in_flight":1}
{"replica":"vllm-0","ts":"2026-11-20T10:00:30Z","in_flight":"3"}
{"replica":"vllm-0","in_flight":3}
`
	r := newSamplesReader(Input{Name: "s.jsonl", R: strings.NewReader(in), MaxLineBytes: 1 << 20})
	var got []Record
	for r.Next() {
		rec := *r.Record()
		got = append(got, rec)
	}
	if err := r.Err(); err != nil {
		t.Fatal(err)
	}
	if len(got) != 6 {
		t.Fatalf("%d records, want 6", len(got))
	}
	s := got[0].Sample
	if got[0].Kind != KindSample || *s.Replica != "vllm-0" || s.TS != 1795168810000000 || *s.InFlight != 31 ||
		*s.QueueDepth != 4 || *s.Cap != 32 || *s.KVCacheUsage != 0.81 || s.Source != SourceSamples {
		t.Errorf("line 1: %+v", s)
	}
	s = got[1].Sample
	if got[1].Kind != KindSample || s.Replica != nil || s.TS != 1795168820500000 || s.InFlight != nil || *s.QueueDepth != 0 {
		t.Errorf("line 2: %+v", s)
	}
	if got[2].Kind != KindSkip {
		t.Errorf("blank line: %v", got[2].Kind)
	}
	for i, want := range []error{ErrBadTimestamp, ErrBadType, ErrMissingField} {
		rec := got[3+i]
		if rec.Kind != KindReject || !errors.Is(rec.Err, want) || rec.Err.Line != int64(4+i) {
			t.Errorf("line %d: %v %v, want a %v reject", 4+i, rec.Kind, rec.Err, want)
		}
	}
	var _ schemas.Sample = s
}

func TestSniffSamples(t *testing.T) {
	for in, want := range map[string]int{
		`{"replica":"a","ts":1,"in_flight":2}`:                   100,
		`{"span_id":"a","ts":1,"in_flight":2}`:                   0,
		`{"span_id":"a","status":"ok"}`:                          0,
		"\n\n" + `{"ts":"2026-11-20T10:00:00Z","queue_depth":0}`: 100,
	} {
		if got := sniffSamples([]byte(in)); got != want {
			t.Errorf("sniffSamples(%s) = %d, want %d", in, got, want)
		}
		if got := sniffSpans([]byte(in)); want == 100 && got != 0 {
			t.Errorf("sniffSpans claims a samples line: %s", in)
		}
	}
}
