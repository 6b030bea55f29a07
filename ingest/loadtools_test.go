package ingest

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The load tools' formats (schemas/formats/loadtools.md): fixtures in
// testdata/NAME/, goldens in testdata/NAME/golden/.
var loadToolDirs = map[string]string{
	"guidellm":       "testdata/guidellm",
	"aiperf":         "testdata/aiperf",
	"inference-perf": "testdata/inference-perf",
	"llmperf":        "testdata/llmperf",
	"sglang-bench":   "testdata/sglang-bench",
}

// loadToolFixtures lists the fixtures of format name whose names contain
// kind (".good." or ".bad.").
func loadToolFixtures(name, kind string) []string {
	files, _ := filepath.Glob(filepath.Join(loadToolDirs[name], "*"))
	var out []string
	for _, f := range files {
		if strings.Contains(filepath.Base(f), kind) && !strings.HasSuffix(f, ".want") {
			out = append(out, f)
		}
	}
	return out
}

// TestLoadToolGolden reads every *.good.* fixture of the load-tool formats
// and compares what it gives with testdata/NAME/golden/FILE.golden. A good
// fixture must give spans and no reject.
func TestLoadToolGolden(t *testing.T) {
	for _, name := range vllmSortedKeys(loadToolDirs) {
		files := loadToolFixtures(name, ".good.")
		if len(files) == 0 {
			t.Errorf("%s: no fixtures", name)
		}
		for _, file := range files {
			t.Run(name+"/"+filepath.Base(file), func(t *testing.T) {
				recs := loadToolReadAll(t, name, file)
				spans := 0
				for _, rec := range recs {
					switch rec.Kind {
					case KindReject:
						t.Errorf("unexpected reject: %v", rec.Err)
					case KindSpan:
						spans++
						if rec.Span.Source != name {
							t.Errorf("span %s: source %q, want %q", rec.Span.SpanID, rec.Span.Source, name)
						}
					}
				}
				if spans == 0 {
					t.Errorf("no spans")
				}
				dir := filepath.Join(loadToolDirs[name], "golden")
				if updateGolden {
					_ = os.MkdirAll(dir, 0o755)
				}
				golden(t, filepath.Join(dir, filepath.Base(file)+".golden"), vllmGoldenText(t, recs))
			})
		}
	}
}

// TestLoadToolBad reads every *.bad.* fixture: its rejects, as
// "line:col: kind: reason" (or "@offset: …" in a document), must be exactly NAME.want, each a *ParseError
// naming the file.
func TestLoadToolBad(t *testing.T) {
	for _, name := range vllmSortedKeys(loadToolDirs) {
		files := loadToolFixtures(name, ".bad.")
		if len(files) == 0 {
			t.Errorf("%s: no bad fixtures", name)
		}
		for _, file := range files {
			t.Run(name+"/"+filepath.Base(file), func(t *testing.T) {
				got := rejectLines(t, file, loadToolReadAll(t, name, file))
				if len(got) == 0 {
					t.Fatal("no reject")
				}
				golden(t, strings.TrimSuffix(file, filepath.Ext(file))+".want", got)
			})
		}
	}
}

// TestLoadToolSniff: --format auto picks each load-tool fixture's own
// format, every other format's sniffer scores 0 on it, and the load tools'
// sniffers score 0 on every other fixture under testdata (the other
// formats' logs, documents and mapping files).
func TestLoadToolSniff(t *testing.T) {
	own := map[string]string{} // file → its format
	for name := range loadToolDirs {
		for _, f := range append(loadToolFixtures(name, ".good."), loadToolFixtures(name, ".bad.")...) {
			own[f] = name
		}
	}
	if len(own) == 0 {
		t.Fatal("no load-tool fixtures")
	}
	mine := make([]string, 0, len(loadToolDirs))
	for name := range loadToolDirs {
		mine = append(mine, name)
	}
	checked := checkSniffsExclusive(t, own, mine)
	if checked < 30 {
		t.Errorf("checked %d other fixtures, want at least 30", checked)
	}
}

// loadToolSpans returns the spans read from file in format name, by id.
func loadToolSpans(t *testing.T, name, file string) map[string]Record {
	t.Helper()
	out := map[string]Record{}
	for _, rec := range loadToolReadAll(t, name, file) {
		if rec.Kind == KindSpan {
			out[rec.Span.SpanID] = rec
		}
	}
	return out
}

// loadToolReadAll reads every record of a load tool's fixture. A GuideLLM
// sweep is read benchmark by benchmark (--benchmark 0, 1, …, until the
// reader says there is no such benchmark), each read's skips of the other
// benchmarks left out, so that the records are the report's, once each.
func loadToolReadAll(t *testing.T, name, file string) []Record {
	t.Helper()
	if name != "guidellm" {
		return vllmReadAll(t, name, file)
	}
	var out []Record
	for n := 0; ; n++ {
		f, err := os.Open(file)
		if err != nil {
			t.Fatal(err)
		}
		rd := formats[name].New(Input{Name: file, R: f, MaxLineBytes: DefaultMaxLineBytes, Benchmark: &n})
		var recs []Record
		for rd.Next() {
			if rec := *rd.Record(); rec.Kind != KindSkip || rec.Skip != SkipOtherBenchmark {
				rec.Raw = bytes.Clone(rec.Raw)
				recs = append(recs, rec)
			}
		}
		f.Close()
		if err := rd.Err(); err != nil {
			if n > 0 && strings.Contains(err.Error(), fmt.Sprintf("--benchmark %d: the report holds ", n)) {
				return out
			}
			t.Fatalf("%s --benchmark %d: %v", file, n, err)
		}
		out = append(out, recs...)
	}
}

// seconds is b − a in seconds, for µs instants.
func seconds(a, b *int64) float64 { return float64(*b-*a) / 1e6 }

// FuzzGuideLLM: the guidellm reader never panics, rejects with *ParseError,
// and gives spans with ids and a valid status (vllmFuzzRead).
func FuzzGuideLLM(f *testing.F) {
	loadToolFuzzSeed(f, "guidellm")
	f.Add([]byte("benchmarks:\n- requests:\n    successful:\n    - request_id: a\n      start_time: 1.5\n      end_time: 1\n"))
	f.Fuzz(func(t *testing.T, data []byte) { vllmFuzzRead(t, "guidellm", data) })
}

// loadToolFuzzSeed adds every fixture of format name.
func loadToolFuzzSeed(f *testing.F, name string) {
	files, _ := filepath.Glob(filepath.Join(loadToolDirs[name], "*.*.*"))
	for _, file := range files {
		b, err := os.ReadFile(file)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
}

// FuzzAIPerf: the aiperf reader never panics, rejects with *ParseError, and
// gives spans with ids and a valid status (vllmFuzzRead).
func FuzzAIPerf(f *testing.F) {
	loadToolFuzzSeed(f, "aiperf")
	f.Fuzz(func(t *testing.T, data []byte) { vllmFuzzRead(t, "aiperf", data) })
}

// FuzzInferencePerf: the inference-perf reader never panics, rejects with
// *ParseError, and gives spans with ids and a valid status (vllmFuzzRead).
func FuzzInferencePerf(f *testing.F) {
	loadToolFuzzSeed(f, "inference-perf")
	f.Add([]byte(`[{"start_time": 2, "end_time": 1, "info": {"response_metrics": {"output_tokens": 2, "output_token_times": [3, 1]}}}, 7, {"start_time": "x"}]`))
	f.Fuzz(func(t *testing.T, data []byte) { vllmFuzzRead(t, "inference-perf", data) })
}

// FuzzLLMPerf: the llmperf reader never panics, rejects with *ParseError,
// and gives spans with ids and a valid status (vllmFuzzRead).
func FuzzLLMPerf(f *testing.F) {
	loadToolFuzzSeed(f, "llmperf")
	f.Add([]byte(`[{"error_code": "x", "ttft_s": 1e308, "end_to_end_latency_s": -0.0}, null, {"error_code": 7e9}]`))
	f.Fuzz(func(t *testing.T, data []byte) { vllmFuzzRead(t, "llmperf", data) })
}

// FuzzSGLangBench: the sglang-bench reader never panics, rejects with
// *ParseError, and gives spans with ids and a valid status (vllmFuzzRead).
func FuzzSGLangBench(f *testing.F) {
	loadToolFuzzSeed(f, "sglang-bench")
	f.Add([]byte(`{"mean_e2e_latency_ms": 1, "ttfts": [1e300], "itls": [[1e300, 1e300]], "errors": [null]}`))
	f.Fuzz(func(t *testing.T, data []byte) { vllmFuzzRead(t, "sglang-bench", data) })
}
