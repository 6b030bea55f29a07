package ingest

import (
	"bytes"
	"context"
	"maps"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/tpsreport/tpsreport/schemas"
)

// fixtureLine returns the first line of a fixture, with its newline.
func fixtureLine(t *testing.T, file string) string {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	line, _, _ := bytes.Cut(b, []byte("\n"))
	return string(line) + "\n"
}

// runFixture ingests one input in format (the fixture file, or input
// written to a file when file is "") and returns the manifest.
func runFixture(t *testing.T, format, file, input, mapping string) *schemas.Manifest {
	t.Helper()
	dir := t.TempDir()
	if file == "" {
		file = filepath.Join(dir, "input")
		writeFile(t, file, []byte(input))
	}
	m, err := Run(context.Background(), Options{RunID: "r", Format: format, OutDir: filepath.Join(dir, "out"),
		Inputs: []string{file}, Year: 2025, Mapping: mapping, allowEmpty: true})
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	return m
}

// TestSkipReasons pins why each skipped record of a format was skipped. The
// counts were made by hand from the fixtures, line by line (see each case);
// inline inputs are cut from the fixtures or follow the sources they name.
func TestSkipReasons(t *testing.T) {
	// vLLM's V1 stats line, from testdata/vllm/log/v1_early.good.log.
	const vllmStats = "INFO 04-10 03:35:27 [loggers.py:80] Avg prompt throughput: 13.0 tokens/s, Avg generation throughput: 52.1 tokens/s, Running: 0 reqs, Waiting: 0 reqs, GPU KV cache usage: 0.0%, Prefix cache hit rate: 80.0%\n"
	tests := []struct {
		name, format, file, input, mapping string
		want                               map[string]int64
	}{
		{name: "spans blank and whitespace lines", format: "spans",
			input: "{\"span_id\":\"a\",\"status\":\"ok\"}\n\n \t\r\n{\"span_id\":\"b\",\"status\":\"ok\"}\n",
			want:  map[string]int64{"blank": 2}},
		{name: "samples blank line", format: "samples",
			input: "{\"ts\":\"2026-11-20T10:00:10Z\",\"replica\":\"vllm-0\",\"in_flight\":31,\"queue_depth\":4}\n\n",
			want:  map[string]int64{"blank": 1}},

		// Lines 2-5 and 9 are no stats, args or request lines; 6, 10, 11
		// are Received lines; line 1's Namespace sets max_num_seqs=32.
		{name: "vllm-log v0 compose", format: "vllm-log", file: "testdata/vllm/log/v0_compose.good.log",
			want: map[string]int64{"unused_line": 5, "request_start": 3}},
		// Line 1 (version) and 7 (uvicorn access) unused; line 2's
		// Namespace has max_num_seqs=None; 5 Received, 6 Added.
		{name: "vllm-log v1 early", format: "vllm-log", file: "testdata/vllm/log/v1_early.good.log",
			want: map[string]int64{"unused_line": 2, "default_cap": 1, "request_start": 2}},
		// Line 4 Received; line 7 a uvicorn.access record.
		{name: "vllm-log json", format: "vllm-log", file: "testdata/vllm/log/json.good.jsonl",
			want: map[string]int64{"request_start": 1, "unused_line": 1}},
		// An empty line, one of only an ANSI reset, a JSON line without a
		// message and a Python dict printed by some library (not JSON).
		{name: "vllm-log blank and JSON-like", format: "vllm-log",
			input: vllmStats + "\n\x1b[0m\n{\"event\": \"ready\"}\n{'model': 'x'}\n",
			want:  map[string]int64{"blank": 2, "unused_line": 2}},

		// Line 2 is FastAPI's span, line 4 line 1's span exported again.
		{name: "vllm-otel collector", format: "vllm-otel", file: "testdata/vllm/otel/v1_collector.good.jsonl",
			want: map[string]int64{"not_a_request": 1, "duplicate": 1}},
		// The collector's file exporter writes an export without spans so.
		{name: "vllm-otel blank and empty export", format: "vllm-otel",
			input: "\n{\"resourceSpans\":[]}\n",
			want:  map[string]int64{"blank": 1, "empty_document": 1}},

		// 11 "# HELP"/"# TYPE" lines; 10 gauge lines and one
		// prefix_cache_queries_total line (engine 0's counter at the first
		// instant) make 4 samples (engine 0 and 1 at two instants), the
		// other 7 are joined into them.
		{name: "prometheus scrape", format: "prometheus", file: "testdata/vllm/prometheus/scrape_timestamps.good.prom",
			want: map[string]int64{"comment": 11, "joined": 7}},
		{name: "prometheus scrape blank line", format: "prometheus",
			input: "# TYPE vllm:num_requests_running gauge\n\nvllm:num_requests_running{instance=\"vllm-0:8000\"} 3 1753795326000\n",
			want:  map[string]int64{"comment": 1, "blank": 1}},
		// Prometheus HTTP API answers (prometheus.io/docs/prometheus/latest/querying/api/):
		// an error, an empty matrix, and a counter that is not a gauge read.
		{name: "prometheus API answers", format: "prometheus",
			input: `{"status":"error","errorType":"bad_data","error":"invalid parameter \"query\": 1:1: parse error: unexpected end of input"}` + "\n" +
				`{"status":"success","data":{"resultType":"matrix","result":[]}}` + "\n" +
				`{"status":"success","data":{"resultType":"matrix","result":[{"metric":{"__name__":"vllm:prompt_tokens_total","instance":"vllm-0:8000"},"values":[[1753795326,"1234"]]}]}}` + "\n",
			want: map[string]int64{"query_error": 1, "empty_result": 1, "unused_metric": 1}},

		// Line 1 is a record of AIPerf's warm-up phase.
		{name: "aiperf warm-up", format: "aiperf", file: "testdata/aiperf/profile_export.good.jsonl",
			want: map[string]int64{"warmup": 1}},

		{name: "vllm-bench summary", format: "vllm-bench", file: "testdata/vllm/bench/serve_summary.good.json",
			want: map[string]int64{"summary_only": 1}},
		// The older of the two appended results has no start_times.
		{name: "vllm-bench appended", format: "vllm-bench", file: "testdata/vllm/bench/append.good.jsonl",
			want: map[string]int64{"summary_only": 1}},

		// Line 1 holds FastAPI's POST /api/chat span beside the chat span.
		{name: "otel-genai collector", format: "otel-genai", file: "testdata/otel-genai/collector_file.good.jsonl",
			want: map[string]int64{"not_a_request": 1}},
		{name: "otel-genai blank and empty export", format: "otel-genai",
			input: "\n{\"resourceSpans\":[]}\n",
			want:  map[string]int64{"blank": 1, "empty_document": 1}},
		{name: "litellm blank", format: "litellm",
			input: "\n" + fixtureLine(t, "testdata/litellm/slp_retry.good.jsonl") + " \n",
			want:  map[string]int64{"blank": 2}},
		{name: "kong blank", format: "kong",
			input: fixtureLine(t, "testdata/kong/file_log.good.jsonl") + "\n",
			want:  map[string]int64{"blank": 1}},
		{name: "envoy-ai blank", format: "envoy-ai",
			input: fixtureLine(t, "testdata/envoy-ai/eg_accesslog.good.jsonl") + "\n",
			want:  map[string]int64{"blank": 1}},
		{name: "mapping blank", format: "mapping", mapping: "testdata/mapping/nginx.yaml",
			input: fixtureLine(t, "testdata/mapping/nginx.access.good.jsonl") + "\n\n",
			want:  map[string]int64{"blank": 2}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := runFixture(t, tt.format, tt.file, tt.input, tt.mapping)
			if !maps.Equal(m.SkippedBy, tt.want) {
				t.Errorf("skipped_by_reason %v, want %v", m.SkippedBy, tt.want)
			}
			checkSkippedBy(t, m)
		})
	}
}

// checkSkippedBy checks that the manifest's counts reconcile, that
// skipped_by_reason adds up to the skipped count, and that every skip has a
// reason.
func checkSkippedBy(t *testing.T, m *schemas.Manifest) {
	t.Helper()
	c := m.Counts
	if c.Read != c.Written+c.Rejected+c.Skipped {
		t.Errorf("counts do not reconcile: %+v", c)
	}
	var sum int64
	for why, n := range m.SkippedBy {
		sum += n
		if n <= 0 || why == SkipOther.String() || strings.HasPrefix(why, "SkipReason(") {
			t.Errorf("skipped_by_reason %q: %d", why, n)
		}
	}
	if sum != c.Skipped {
		t.Errorf("skipped_by_reason %v adds up to %d, want skipped %d", m.SkippedBy, sum, c.Skipped)
	}
}

// TestSkippedBySumsToSkipped ingests every fixture of every format, good
// and bad: skipped_by_reason always adds up to the skipped count.
func TestSkippedBySumsToSkipped(t *testing.T) {
	dirs := map[string]string{"spans": "testdata/spans"}
	maps.Copy(dirs, vllmFixtureDirs)
	for _, f := range gatewayFixtureFormats {
		dirs[f] = filepath.Join("testdata", f)
	}
	n := 0
	for format, dir := range dirs {
		files, _ := filepath.Glob(filepath.Join(dir, "*.*.*"))
		for _, file := range files {
			if ext := filepath.Ext(file); ext == ".want" || ext == ".golden" || ext == ".yaml" {
				continue
			}
			mapping := ""
			if format == SourceMapping {
				base := filepath.Base(file)
				mapping = filepath.Join(dir, base[:strings.IndexByte(base, '.')]+".yaml")
			}
			t.Run(format+"/"+filepath.Base(file), func(t *testing.T) {
				checkSkippedBy(t, runFixture(t, format, file, "", mapping))
			})
			n++
		}
	}
	if n < 30 {
		t.Errorf("only %d fixtures", n)
	}
}

func TestSkipReasonNames(t *testing.T) {
	seen := map[string]bool{}
	for r := range numSkipReasons {
		name := r.String()
		if name == "" || seen[name] || strings.ContainsAny(name, " -ABCDEFGHIJKLMNOPQRSTUVWXYZ") {
			t.Errorf("SkipReason(%d) = %q: want a unique snake_case key", r, name)
		}
		seen[name] = true
	}
	if got, want := numSkipReasons.String(), "SkipReason("+strconv.Itoa(int(numSkipReasons))+")"; got != want {
		t.Errorf("out of range: %q", got)
	}
}
