package ingest

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tpsreport/tpsreport/schemas"
)

// TestRunDerivesMissingSpanIDs: an OTLP span without spanId (vllm-otel,
// otel-genai) is written with the id FILE:LINE:N (N its place in the
// document; FILE@OFFSET:N in a pretty-printed one), not rejected, and Run
// warns once per input with the count. Such a span is never taken for a
// resent copy; one with a spanId but no traceId is keyed on its spanId.
func TestRunDerivesMissingSpanIDs(t *testing.T) {
	const start = `"startTimeUnixNano":"1795168800000000000"`
	vllmSpan := func(ids string) string {
		return `{` + ids + `"name":"llm_request",` + start + `,"attributes":[{"key":"gen_ai.latency.e2e","value":{"doubleValue":0.5}}]}`
	}
	doc := func(spans ...string) string {
		return `{"resourceSpans":[{"scopeSpans":[{"spans":[` + strings.Join(spans, ",") + `]}]}]}`
	}
	genaiSpan := func(ids string) string {
		return `{` + ids + `"name":"chat m",` + start + `,"attributes":[{"key":"gen_ai.request.model","value":{"stringValue":"m"}}]}`
	}
	dir := t.TempDir()
	vllm := filepath.Join(dir, "vllm.jsonl")
	writeFile(t, vllm, []byte(strings.Join([]string{
		doc(vllmSpan(``), vllmSpan(`"spanId":"00000000000000aa",`)),
		doc(vllmSpan(`"spanId":"00000000000000aa",`)), // resent: a duplicate
		doc(vllmSpan(`"traceId":"","spanId":"",`)),    // the same as the first: not a duplicate
	}, "\n")+"\n"))
	genai := filepath.Join(dir, "genai.jsonl")
	writeFile(t, genai, []byte(doc(genaiSpan(`"spanId":"01",`), genaiSpan(``))+"\n"))
	pretty := filepath.Join(dir, "pretty.json")
	writeFile(t, pretty, []byte("{\n  \"resourceSpans\": [{\"scopeSpans\": [{\"spans\": ["+genaiSpan(``)+"]}]}]\n}\n"))

	var logs bytes.Buffer
	out := filepath.Join(dir, "out")
	m, err := Run(context.Background(), Options{RunID: "r", OutDir: out, Log: newTestLogger(&logs),
		Inputs: []string{"vllm-otel:" + vllm, "otel-genai:" + genai, "otel-genai:" + pretty}})
	if err != nil {
		t.Fatal(err)
	}
	// vllm: 4 spans, 1 duplicate; genai: 2; pretty: 1.
	if want := (schemas.Counts{Read: 7, Written: 6, Skipped: 1}); m.Counts != want {
		t.Errorf("counts %+v, want %+v", m.Counts, want)
	}
	var got []string
	for _, sp := range readSpans(t, out) {
		got = append(got, sp.SpanID+"="+sp.RequestID)
	}
	want := []string{
		vllm + ":1:1=" + vllm + ":1:1",
		"00000000000000aa=00000000000000aa",
		vllm + ":3:1=" + vllm + ":3:1",
		"01=01",
		genai + ":1:2=" + genai + ":1:2",
		pretty + "@0:1=" + pretty + "@0:1",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("span_id=request_id:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	for _, w := range []string{
		vllm + `: 2 span(s) without spanId got an id derived from the file and their position, the first \"` + vllm + `:1:1\"`,
		genai + `: 1 span(s) without spanId got an id derived from the file and their position, the first \"` + genai + `:1:2\"`,
		pretty + `: 1 span(s) without spanId got an id derived from the file and their position, the first \"` + pretty + `@0:1\"`,
	} {
		if !strings.Contains(logs.String(), "level=WARN msg=\""+w+"\"") {
			t.Errorf("log\n%s\nlacks the warning\n%s", logs.String(), w)
		}
	}
}
