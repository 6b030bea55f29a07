package sim

import (
	"bufio"
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/tpsreport/tpsreport/schemas"
)

func TestAppendTimestamp(t *testing.T) {
	tests := []struct {
		us   int64
		want string
	}{
		{DefaultStart, "2026-11-20T10:00:00.000000Z"},
		{DefaultStart + 123456, "2026-11-20T10:00:00.123456Z"},
		{0, "1970-01-01T00:00:00.000000Z"},
		{-1, "1969-12-31T23:59:59.999999Z"},
		{951782400_000001, "2000-02-29T00:00:00.000001Z"},
		{253402300799_999999, "9999-12-31T23:59:59.999999Z"},
		{-62135596800_000000, "0001-01-01T00:00:00.000000Z"},
	}
	for _, tt := range tests {
		if got := string(AppendTimestamp(nil, tt.us)); got != tt.want {
			t.Errorf("AppendTimestamp(%d) = %s, want %s", tt.us, got, tt.want)
		}
	}
	r := rand.New(rand.NewPCG(1, 2))
	const layout = "2006-01-02T15:04:05.000000Z07:00"
	for range 100000 {
		us := r.Int64N(253402300800_000000+62135596800_000000) - 62135596800_000000
		want := schemas.Time(us).Format(layout)
		if got := string(AppendTimestamp(nil, us)); got != want {
			t.Fatalf("AppendTimestamp(%d) = %s, want %s", us, got, want)
		}
	}
}

// jsonSpan is a span line decoded by encoding/json.
type jsonSpan struct {
	RunID           string  `json:"run_id"`
	Source          string  `json:"source"`
	SpanID          string  `json:"span_id"`
	RequestID       string  `json:"request_id"`
	Attempt         *int32  `json:"attempt"`
	RetryCause      *string `json:"retry_cause"`
	Model           *string `json:"model"`
	Replica         *string `json:"replica"`
	QueuedAt        *string `json:"queued_at"`
	EngineArrivedAt *string `json:"engine_arrived_at"`
	AdmittedAt      *string `json:"admitted_at"`
	FirstTokenAt    *string `json:"first_token_at"`
	LastTokenAt     *string `json:"last_token_at"`
	ReleasedAt      *string `json:"released_at"`
	InputTokens     *int64  `json:"input_tokens"`
	OutputTokens    *int64  `json:"output_tokens"`
	CachedTokens    *int64  `json:"cached_tokens"`
	Status          string  `json:"status"`
	Error           *string `json:"error"`
	HTTPStatus      *int32  `json:"http_status"`
}

func parseTS(t *testing.T, s *string) *int64 {
	t.Helper()
	if s == nil {
		return nil
	}
	tm, err := time.Parse(time.RFC3339Nano, *s)
	if err != nil || len(*s) != len("2026-11-20T10:00:00.000000Z") || !strings.HasSuffix(*s, "Z") {
		t.Fatalf("timestamp %q: %v", *s, err)
	}
	return schemas.Ptr(schemas.Micros(tm))
}

func (j jsonSpan) span(t *testing.T) schemas.Span {
	return schemas.Span{
		RunID: j.RunID, Source: j.Source, SpanID: j.SpanID, RequestID: j.RequestID,
		Attempt: j.Attempt, RetryCause: j.RetryCause, Model: j.Model, Replica: j.Replica,
		QueuedAt: parseTS(t, j.QueuedAt), EngineArrivedAt: parseTS(t, j.EngineArrivedAt), AdmittedAt: parseTS(t, j.AdmittedAt),
		FirstTokenAt: parseTS(t, j.FirstTokenAt), LastTokenAt: parseTS(t, j.LastTokenAt),
		ReleasedAt: parseTS(t, j.ReleasedAt), InputTokens: j.InputTokens, OutputTokens: j.OutputTokens,
		CachedTokens: j.CachedTokens, Status: j.Status, Error: j.Error, HTTPStatus: j.HTTPStatus,
	}
}

func TestAppendSpanJSON(t *testing.T) {
	full := schemas.Span{
		RunID: "run", Source: "sim", SpanID: "r000000001-1", RequestID: "r000000001",
		Attempt: schemas.Ptr[int32](1), RetryCause: schemas.Ptr("5xx"), Model: schemas.Ptr("m"),
		Replica: schemas.Ptr("vllm-0"), QueuedAt: schemas.Ptr(DefaultStart + 1), EngineArrivedAt: schemas.Ptr(DefaultStart + 7),
		AdmittedAt: schemas.Ptr(DefaultStart + 20), FirstTokenAt: schemas.Ptr(DefaultStart + 300),
		LastTokenAt: schemas.Ptr(DefaultStart + 4000), ReleasedAt: schemas.Ptr(DefaultStart + 50000),
		InputTokens: schemas.Ptr[int64](700), OutputTokens: schemas.Ptr[int64](12),
		CachedTokens: schemas.Ptr[int64](0), Status: "error", Error: schemas.Ptr("engine_error"),
		HTTPStatus: schemas.Ptr[int32](500),
	}
	want := `{"run_id":"run","source":"sim","span_id":"r000000001-1","request_id":"r000000001","attempt":1,` +
		`"retry_cause":"5xx","model":"m","replica":"vllm-0","queued_at":"2026-11-20T10:00:00.000001Z",` +
		`"engine_arrived_at":"2026-11-20T10:00:00.000007Z","admitted_at":"2026-11-20T10:00:00.000020Z","first_token_at":"2026-11-20T10:00:00.000300Z",` +
		`"last_token_at":"2026-11-20T10:00:00.004000Z","released_at":"2026-11-20T10:00:00.050000Z",` +
		`"input_tokens":700,"output_tokens":12,"cached_tokens":0,"status":"error","error":"engine_error","http_status":500}`
	if got := string(AppendSpanJSON(nil, &full)); got != want {
		t.Errorf("AppendSpanJSON:\n got %s\nwant %s", got, want)
	}
	bare := schemas.Span{RunID: "r", Source: "s", SpanID: "a", RequestID: "b", Status: "ok"}
	if got, want := string(AppendSpanJSON(nil, &bare)), `{"run_id":"r","source":"s","span_id":"a","request_id":"b","status":"ok"}`; got != want {
		t.Errorf("AppendSpanJSON of NULLs:\n got %s\nwant %s", got, want)
	}

	// Strings that need escaping survive a round trip through encoding/json.
	for _, s := range []string{"plain", `q"uote\back`, "tab\tnl\ncr\r", "\x00\x01\x1f\x7f", "é ü 日本", "\u2028\u2029", "bad\xffutf8", "<&>"} {
		sp := bare
		sp.RunID, sp.Error = s, schemas.Ptr(s)
		line := AppendSpanJSON(nil, &sp)
		var j jsonSpan
		if err := json.Unmarshal(line, &j); err != nil {
			t.Fatalf("%q: %s: %v", s, line, err)
		}
		want := strings.ToValidUTF8(s, "\ufffd")
		if j.RunID != want || *j.Error != want {
			t.Errorf("%q: round trip gave %q", s, j.RunID)
		}
		ref, _ := json.Marshal(want)
		if s != "<&>" && !bytes.Contains(line, ref) {
			t.Errorf("%q: wrote %s, encoding/json writes %s", s, line, ref)
		}
	}
}

// TestJSONLRoundTrip decodes every line a run writes and finds the spans and
// samples that Run emitted.
func TestJSONLRoundTrip(t *testing.T) {
	sc := mustNamed(t, "multi-replica")
	spans, _ := collect(t, sc, 1)
	var samples []schemas.Sample
	if _, err := Run(sc, 1, func(schemas.Span) error { return nil },
		WithSamples(func(s schemas.Sample) error { samples = append(samples, s); return nil })); err != nil {
		t.Fatal(err)
	}
	spanBytes, sampleBytes, _ := generate(t, sc, 1)

	sc1 := bufio.NewScanner(bytes.NewReader(spanBytes))
	i := 0
	for ; sc1.Scan(); i++ {
		dec := json.NewDecoder(bytes.NewReader(sc1.Bytes()))
		dec.DisallowUnknownFields()
		var j jsonSpan
		if err := dec.Decode(&j); err != nil {
			t.Fatalf("line %d: %v", i+1, err)
		}
		got, want := j.span(t), spans[i]
		if a, b := AppendSpanJSON(nil, &got), AppendSpanJSON(nil, &want); !bytes.Equal(a, b) {
			t.Fatalf("line %d:\n got %s\nwant %s", i+1, a, b)
		}
		if bytes.Contains(sc1.Bytes(), []byte("null")) {
			t.Fatalf("line %d writes a null: %s", i+1, sc1.Bytes())
		}
	}
	if i != len(spans) {
		t.Fatalf("%d lines, %d spans", i, len(spans))
	}

	sc2 := bufio.NewScanner(bytes.NewReader(sampleBytes))
	i = 0
	for ; sc2.Scan(); i++ {
		var j struct {
			schemas.Sample
			TS string `json:"ts"`
		}
		dec := json.NewDecoder(bytes.NewReader(sc2.Bytes()))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&j); err != nil {
			t.Fatalf("sample line %d: %v", i+1, err)
		}
		j.Sample.TS = *parseTS(t, &j.TS)
		if a, b := AppendSampleJSON(nil, &j.Sample), AppendSampleJSON(nil, &samples[i]); !bytes.Equal(a, b) {
			t.Fatalf("sample line %d:\n got %s\nwant %s", i+1, a, b)
		}
	}
	if i != len(samples) {
		t.Fatalf("%d sample lines, %d samples", i, len(samples))
	}
}

func TestWriteTruth(t *testing.T) {
	_, _, b := generate(t, mustNamed(t, "stall"), 1)
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	// The metric names are those of schemas.Metrics.
	var ref map[string]any
	rb, _ := json.Marshal(schemas.Metrics{})
	if err := json.Unmarshal(rb, &ref); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"system_tps", "generated_tps", "retry_adjusted_system_tps", "input_tps",
		"success_rate", "retry_rate", "attempt_success_rate", "gap_fraction", "backlog_gap_fraction",
		"mean_in_flight", "mean_queue_depth", "utilization", "backlog_time", "gap_time", "window_seconds",
		"output_tokens", "generated_tokens", "delivered_tokens", "input_tokens", "arrivals", "requests",
		"succeeded_requests", "attempts", "successful_attempts", "retry_attempts",
		"engine_gap_time", "admission_gap_time", "imbalance_gap_time", "unattributed_gap_time",
		"engine_gap_share", "admission_gap_share", "imbalance_gap_share", "unattributed_gap_share"} {
		if _, ok := ref[k]; !ok {
			t.Errorf("%s is not a schemas.Metrics name", k)
		}
		if _, ok := m[k]; !ok {
			t.Errorf("truth.json lacks %s", k)
		}
	}
	for _, k := range []string{"cap", "spans", "windows", "run_start", "run_end", "seed", "scenario", "in_flight_seconds", "queue_depth_seconds", "over_cap_time"} {
		if _, ok := m[k]; !ok {
			t.Errorf("truth.json lacks %s", k)
		}
	}
	// Each replica's names are those of schemas.ReplicaState.
	rb, _ = json.Marshal(schemas.ReplicaState{})
	ref = nil
	if err := json.Unmarshal(rb, &ref); err != nil {
		t.Fatal(err)
	}
	reps, _ := m["replicas"].([]any)
	if len(reps) != 1 {
		t.Fatalf("truth.json replicas: %v, want one", m["replicas"])
	}
	for k := range reps[0].(map[string]any) {
		if _, ok := ref[k]; !ok {
			t.Errorf("replicas[0].%s is not a schemas.ReplicaState name", k)
		}
	}
	if !bytes.HasSuffix(b, []byte("}\n")) || !bytes.Contains(b, []byte("\n  \"scenario\": \"stall\",\n")) {
		t.Errorf("truth.json is not indented JSON with a final newline:\n%.200s", b)
	}
}
