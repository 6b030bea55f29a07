package ingest

import (
	"os"
	"path/filepath"
	"testing"
)

// TestGatewayNotARequest: a gateway's record of a request that is no LLM
// call (an MCP tool call, a plain route's) is skipped as not_a_request, so
// that it inflates neither requests nor success_rate; each *.skip.* fixture
// is detected as its gateway's format and yields only such skips.
func TestGatewayNotARequest(t *testing.T) {
	n := 0
	for _, format := range gatewayFixtureFormats {
		files, _ := filepath.Glob(filepath.Join("testdata", format, "*.skip.*"))
		for _, file := range files {
			n++
			t.Run(filepath.Base(file), func(t *testing.T) {
				head, err := os.ReadFile(file)
				if err != nil {
					t.Fatal(err)
				}
				if got := detectFormat(head); got != format {
					t.Errorf("detected as %q, want %q", got, format)
				}
				recs := readGateway(t, format, file, nil)
				if len(recs) == 0 {
					t.Fatal("no record")
				}
				for _, rec := range recs {
					if rec.Kind != KindSkip || rec.Skip != SkipNotARequest {
						t.Errorf("line %d: kind %v skip %v, want a not_a_request skip", rec.Line, rec.Kind, rec.Skip)
					}
				}
			})
		}
	}
	// The AI plugins' block alone is Kong's too: detected, then rejected
	// for want of started_at (docs_ai_audit.bad.want).
	head, err := os.ReadFile(filepath.Join("testdata", "kong", "docs_ai_audit.bad.json"))
	if err != nil {
		t.Fatal(err)
	}
	if got := detectFormat(head); got != SourceKong {
		t.Errorf("Kong's AI audit-log record detected as %q, want kong", got)
	}
	if n < 2 {
		t.Errorf("%d *.skip.* fixtures, want the Envoy MCP and the Kong plain-route records", n)
	}
}

// TestGatewayNotARequestRules pins which records without a model or tokens
// are requests: a failed call to an LLM API path is (the gateway refused it
// before the model was known), a plain route's is not, and a record with no
// path that failed is kept.
func TestGatewayNotARequestRules(t *testing.T) {
	for _, tt := range []struct {
		line string
		want Kind
	}{
		{`{"start_time":"2026-11-20T10:00:00.000Z","duration":5,"response_code":200,"x-request-id":"a","x-envoy-origin-path":"/healthz"}`, KindSkip},
		{`{"start_time":"2026-11-20T10:00:00.000Z","duration":5,"response_code":401,"x-request-id":"b","x-envoy-origin-path":"/v1/chat/completions"}`, KindSpan},
		{`{"start_time":"2026-11-20T10:00:00.000Z","duration":5,"response_code":404,"x-request-id":"c","x-envoy-origin-path":"/favicon.ico"}`, KindSkip},
		{`{"start_time":"2026-11-20T10:00:00.000Z","duration":5,"response_code":503,"x-request-id":"d"}`, KindSpan},
		{`{"start_time":"2026-11-20T10:00:00.000Z","duration":5,"response_code":200,"x-request-id":"e","gen_ai.request.model":"m"}`, KindSpan},
	} {
		recs := readGatewayString(t, SourceEnvoyAI, tt.line)
		if len(recs) != 1 || recs[0].Kind != tt.want {
			t.Errorf("%s: %+v, want kind %v", tt.line, recs, tt.want)
		}
	}
	for _, tt := range []struct {
		line string
		want Kind
	}{
		{`{"started_at":1795168800125,"latencies":{"request":10},"request":{"id":"a","uri":"/example-route"},"response":{"status":200}}`, KindSkip},
		{`{"started_at":1795168800125,"latencies":{"request":10},"request":{"id":"b","uri":"/openai/v1/chat/completions"},"response":{"status":429}}`, KindSpan},
		{`{"started_at":1795168800125,"latencies":{"request":10},"request":{"id":"c","uri":"/example-route"},"response":{"status":500}}`, KindSkip},
		{`{"started_at":1795168800125,"latencies":{"request":10},"request":{"id":"d"},"response":{"status":502}}`, KindSpan},
	} {
		recs := readGatewayString(t, SourceKong, tt.line)
		if len(recs) != 1 || recs[0].Kind != tt.want {
			t.Errorf("%s: %+v, want kind %v", tt.line, recs, tt.want)
		}
	}
}

func readGatewayString(t *testing.T, format, s string) []Record {
	t.Helper()
	file := filepath.Join(t.TempDir(), "in.jsonl")
	if err := os.WriteFile(file, []byte(s+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return readGateway(t, format, file, nil)
}
