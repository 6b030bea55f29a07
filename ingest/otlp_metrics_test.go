package ingest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/tpsreport/tpsreport/schemas"
	"github.com/tpsreport/tpsreport/sim"
)

// TestOTLPMetricsDifferential: a simulated run's samples, written as an
// OpenTelemetry Collector's OTLP/JSON exports of vLLM's gauges (one export
// per scrape instant, the replica as the receiver's service.instance.id),
// read back through the prometheus format equal the samples themselves:
// replica, instant, in_flight, queue_depth and kv_cache_usage, sample for
// sample.
func TestOTLPMetricsDifferential(t *testing.T) {
	sc, err := sim.Named("stall")
	if err != nil {
		t.Fatal(err)
	}
	var want []schemas.Sample
	if _, err := sim.Run(sc, 5, func(schemas.Span) error { return nil }, sim.WithSamples(func(s schemas.Sample) error {
		want = append(want, s)
		return nil
	})); err != nil {
		t.Fatal(err)
	}
	if len(want) < 50 {
		t.Fatalf("%d samples", len(want))
	}
	var in bytes.Buffer
	for _, s := range want {
		in.Write(otlpExport(t, s))
		in.WriteByte('\n')
	}
	rd := vllmTestReader(SourcePrometheus, "otlp.jsonl", &in)
	got := map[string]schemas.Sample{}
	for rd.Next() {
		rec := rd.Record()
		if rec.Kind != KindSample {
			t.Fatalf("line %d: %v record (%v)", rec.Line, rec.Kind, rec.Err)
		}
		got[fmt.Sprint(*rec.Sample.Replica, rec.Sample.TS)] = rec.Sample
	}
	if err := rd.Err(); err != nil {
		t.Fatal(err)
	}
	if len(got) != len(want) {
		t.Fatalf("%d samples read, %d written", len(got), len(want))
	}
	for _, w := range want {
		g, ok := got[fmt.Sprint(*w.Replica, w.TS)]
		switch {
		case !ok:
			t.Fatalf("no sample of %s at %d", *w.Replica, w.TS)
		case *g.InFlight != *w.InFlight || *g.QueueDepth != *w.QueueDepth || (w.KVCacheUsage != nil) != (g.KVCacheUsage != nil) ||
			w.KVCacheUsage != nil && *g.KVCacheUsage != *w.KVCacheUsage:
			t.Fatalf("sample of %s at %d: got %s, want %s", *w.Replica, w.TS, jsonOf(g), jsonOf(w))
		}
	}
}

// otlpExport is s as an OTLP/JSON export of vLLM's gauges (the collector's
// file exporter's shape: int64s as strings).
func otlpExport(t *testing.T, s schemas.Sample) []byte {
	t.Helper()
	kv := func(k, v string) map[string]any {
		return map[string]any{"key": k, "value": map[string]any{"stringValue": v}}
	}
	ns := fmt.Sprint(s.TS * 1000)
	gauge := func(name string, v any, asInt bool) map[string]any {
		p := map[string]any{"attributes": []any{kv("model_name", "m")}, "timeUnixNano": ns}
		if asInt {
			p["asInt"] = fmt.Sprint(v)
		} else {
			p["asDouble"] = v
		}
		return map[string]any{"name": name, "gauge": map[string]any{"dataPoints": []any{p}}}
	}
	metrics := []any{gauge("vllm:num_requests_running", *s.InFlight, true), gauge("vllm:num_requests_waiting", *s.QueueDepth, false)}
	if s.KVCacheUsage != nil {
		metrics = append(metrics, gauge("vllm:kv_cache_usage_perc", *s.KVCacheUsage, false))
	}
	doc := map[string]any{"resourceMetrics": []any{map[string]any{
		"resource":     map[string]any{"attributes": []any{kv("service.name", "vllm"), kv("service.instance.id", *s.Replica)}},
		"scopeMetrics": []any{map[string]any{"metrics": metrics}},
	}}}
	b, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func jsonOf(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}
