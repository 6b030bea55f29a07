package main

import (
	"context"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/parquet-go/parquet-go"
	"github.com/rogpeppe/go-internal/txtar"

	"github.com/tpsreport/tpsreport/analyze"
	"github.com/tpsreport/tpsreport/ingest"
	"github.com/tpsreport/tpsreport/schemas"
)

// requestRow is the part of a requests.parquet row this test reads.
type requestRow struct {
	SpanID          string   `parquet:"span_id"`
	Source          string   `parquet:"source"`
	Replica         *string  `parquet:"replica,optional"`
	TQueue          *float64 `parquet:"t_queue,optional"`
	GatewayOverhead *float64 `parquet:"gateway_overhead,optional"`
}

// TestJoinedSample: the LiteLLM + vLLM OTel sample of testdata/script/join.txtar
// gives every request its hand-computed gateway_overhead (the script's header
// works them out) in requests.parquet, and none to the unjoined spans.
func TestJoinedSample(t *testing.T) {
	ar, err := txtar.ParseFile("testdata/script/join.txtar")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for _, f := range ar.Files {
		if err := os.WriteFile(filepath.Join(dir, f.Name), f.Data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	run := filepath.Join(dir, "run")
	ctx := context.Background()
	if _, err := ingest.Run(ctx, ingest.Options{RunID: "joined", OutDir: run, Inputs: []string{
		"litellm:" + filepath.Join(dir, "litellm.jsonl"), "vllm-otel:" + filepath.Join(dir, "vllm-otel.jsonl"),
	}}); err != nil {
		t.Fatal(err)
	}
	if _, err := analyze.Run(ctx, analyze.Options{Dir: run}); err != nil {
		t.Fatal(err)
	}
	rows, err := parquet.ReadFile[requestRow](filepath.Join(run, schemas.RequestsFile))
	if err != nil {
		t.Fatal(err)
	}
	type want struct {
		source, replica string
		overhead, queue float64 // NaN: NULL
	}
	nan := math.NaN()
	wants := map[string]want{
		"chatcmpl-a1f0c2e4-0001":               {"litellm+vllm-otel", "vllm-0", 0.050, 0.2},
		"5f1b9c7e-2d4a-4c1b-8e3f-6a7b8c9d0e1f": {"litellm", "", nan, nan}, // vllm-1 has no engine spans: no replica
		"chatcmpl-b2c3d4e5-0002#retry1":        {"litellm+vllm-otel", "vllm-0", 0.020, 0.41},
		"051581bf3cb50003":                     {"vllm-otel", "vllm-0", nan, 0.01},
		"chatcmpl-d4d4d4d4-0004":               {"litellm+vllm-otel", "vllm-0", 0.010, 0.01},
	}
	if len(rows) != len(wants) {
		t.Fatalf("%d rows, want %d: %+v", len(rows), len(wants), rows)
	}
	for _, r := range rows {
		w, ok := wants[r.SpanID]
		if !ok {
			t.Errorf("unexpected span %q", r.SpanID)
			continue
		}
		rep := ""
		if r.Replica != nil {
			rep = *r.Replica
		}
		if r.Source != w.source || rep != w.replica {
			t.Errorf("%s: source %q replica %q, want %q %q", r.SpanID, r.Source, rep, w.source, w.replica)
		}
		for _, c := range []struct {
			name string
			got  *float64
			want float64
		}{{"gateway_overhead", r.GatewayOverhead, w.overhead}, {"t_queue", r.TQueue, w.queue}} {
			switch {
			case math.IsNaN(c.want) && c.got != nil:
				t.Errorf("%s: %s %v, want NULL", r.SpanID, c.name, *c.got)
			case !math.IsNaN(c.want) && (c.got == nil || math.Abs(*c.got-c.want) > 1e-9):
				t.Errorf("%s: %s %v, want %v", r.SpanID, c.name, c.got, c.want)
			}
		}
	}
}
