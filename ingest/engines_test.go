package ingest

import (
	"bytes"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tpsreport/tpsreport/ingest/internal/scan"
)

// engineFixtures lists the fixture directories of the engine formats beyond
// vLLM (testdata/sglang, llamacpp, trtllm, dynamo): each *.good.* file gives the
// records pinned in DIR/../golden/FORMAT/NAME.golden, each *.bad.* file the
// rejects listed in NAME.want.
var engineFixtures = []struct{ format, dir string }{
	{SourceSGLangMetrics, "testdata/sglang/metrics"},
	{SourceSGLangLog, "testdata/sglang/log"},
	{SourcePrometheus, "testdata/sglang/prometheus"},
	{SourceLlamaCpp, "testdata/llamacpp"},
	{SourceLlamaCppLog, "testdata/llamacpp"},
	{SourcePrometheus, "testdata/llamacpp/prometheus"},
	{SourceTRTLLMPerf, "testdata/trtllm"},
	{SourcePrometheus, "testdata/trtllm/prometheus"},
	{SourceDynamoTrace, "testdata/dynamo/trace"},
	{SourceDynamoNvext, "testdata/dynamo/nvext"},
	{SourcePrometheus, "testdata/dynamo/prometheus"},
	{SourceStages, "testdata/stages"},
	{SourcePrometheus, "testdata/nim"},
	{SourceLLMDEPP, "testdata/llm-d"},
	{SourcePrometheus, "testdata/otlp-metrics"},
}

// engineFiles returns the fixtures of format in dir whose names contain
// kind: in testdata/llamacpp, .jsonl files are llamacpp's and .log files
// llamacpp-log's.
func engineFiles(format, dir, kind string) []string {
	all, _ := filepath.Glob(filepath.Join(dir, "*"+kind+"*"))
	var out []string
	for _, f := range all {
		switch {
		case strings.HasSuffix(f, ".want"):
			continue
		case format == SourceLlamaCpp && !strings.HasSuffix(f, ".jsonl"),
			format == SourceLlamaCppLog && !strings.HasSuffix(f, ".log"):
			continue
		}
		out = append(out, f)
	}
	return out
}

func engineGoldenPath(format, file string) string {
	root := filepath.Join("testdata", strings.Split(filepath.ToSlash(file), "/")[1])
	return filepath.Join(root, "golden", format, filepath.Base(file)+".golden")
}

func TestEngineGolden(t *testing.T) {
	for _, fx := range engineFixtures {
		files := engineFiles(fx.format, fx.dir, ".good.")
		if len(files) == 0 {
			t.Errorf("%s: no fixtures in %s", fx.format, fx.dir)
		}
		for _, file := range files {
			t.Run(fx.format+"/"+filepath.Base(file), func(t *testing.T) {
				recs := vllmReadAll(t, fx.format, file)
				kept := 0
				for _, rec := range recs {
					switch rec.Kind {
					case KindReject:
						t.Errorf("unexpected reject: %v", rec.Err)
					case KindSpan:
						kept++
						if rec.Span.Source != fx.format || !validStatus(rec.Span.Status) || rec.Span.SpanID == "" {
							t.Errorf("span %+v", rec.Span)
						}
					case KindSample, KindCap, KindStage:
						kept++
					case KindSkip:
						if rec.Skip == SkipOther {
							t.Errorf("line %d: skip without a reason", rec.Line)
						}
					}
				}
				if kept == 0 {
					t.Errorf("no span, sample or cap")
				}
				path := engineGoldenPath(fx.format, file)
				if updateGolden {
					_ = os.MkdirAll(filepath.Dir(path), 0o755)
				}
				golden(t, path, vllmGoldenText(t, recs))
			})
		}
	}
}

func TestEngineBad(t *testing.T) {
	for _, fx := range engineFixtures {
		for _, file := range engineFiles(fx.format, fx.dir, ".bad.") {
			t.Run(fx.format+"/"+filepath.Base(file), func(t *testing.T) {
				recs := vllmReadAll(t, fx.format, file)
				want := strings.TrimSuffix(file, filepath.Ext(file)) + ".want"
				got := rejectLines(t, file, recs)
				if len(got) == 0 {
					t.Errorf("no rejects")
				}
				golden(t, want, got)
			})
		}
	}
}

// TestEngineSniff: --format auto picks each engine fixture's own format;
// the SGLang and llama.cpp sniffers score 0 on every other fixture under
// testdata, and no other format's sniffer scores on theirs (prometheus,
// which reads every engine's scrapes, excepted for the .prom files).
func TestEngineSniff(t *testing.T) {
	own := map[string]string{}
	for _, fx := range engineFixtures {
		for _, f := range append(engineFiles(fx.format, fx.dir, ".good."), engineFiles(fx.format, fx.dir, ".bad.")...) {
			own[f] = fx.format
		}
	}
	mine := []string{SourceSGLangMetrics, SourceSGLangLog, SourceLlamaCpp, SourceLlamaCppLog,
		SourceTRTLLMPerf, SourceDynamoTrace, SourceDynamoNvext, SourceStages, SourceLLMDEPP}
	checked := checkSniffsExclusive(t, own, mine)
	if checked < 30 {
		t.Errorf("checked %d other fixtures, want at least 30", checked)
	}
}

// checkSniffsExclusive walks testdata's fixtures: each file of own (file →
// format) is detected as its format and every other sniffer scores 0 on
// it; on every other fixture, each of mine scores 0. It returns how many
// other fixtures it checked.
func checkSniffsExclusive(t *testing.T, own map[string]string, mine []string) int {
	t.Helper()
	checked := 0
	err := filepath.WalkDir("testdata", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		base := d.Name()
		switch {
		case d.IsDir() && (base == "golden" || base == "fuzz"):
			return filepath.SkipDir
		case d.IsDir(), strings.HasSuffix(base, ".want"), strings.HasSuffix(base, ".golden"), strings.HasSuffix(base, ".md"):
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		head := bytes.TrimPrefix(b[:min(len(b), scan.SniffBytes)], scan.BOM)
		if name, ok := own[path]; ok {
			got, score, scores := vllmDetect(head)
			if got != name {
				t.Errorf("%s: detected %q (%d), want %q; scores %v", path, got, score, name, scores)
			}
			for other, s := range scores {
				if other != name && s != 0 {
					t.Errorf("%s: sniff of %s scores %d on a %s fixture, want 0", path, other, s, name)
				}
			}
			return nil
		}
		for _, name := range mine {
			if s := formats[name].Sniff(head); s != 0 {
				t.Errorf("%s: sniff of %s scores %d on another format's fixture, want 0", path, name, s)
			}
		}
		checked++
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return checked
}

// TestEngineNoText: no prompt or completion text of the fixtures reaches a
// span, a sample or a reject's reason.
func TestEngineNoText(t *testing.T) {
	secrets := []string{"secret prompt", "haiku", "Tell me a joke", "knock knock", "incident report", "Why did the", "Canberra", "foundation of your"}
	for _, fx := range engineFixtures {
		for _, kind := range []string{".good.", ".bad."} {
			for _, file := range engineFiles(fx.format, fx.dir, kind) {
				for _, rec := range vllmReadAll(t, fx.format, file) {
					var got string
					switch rec.Kind {
					case KindSpan:
						b, _ := json.Marshal(rec.Span)
						got = string(b)
					case KindReject:
						got = rec.Err.Error() + redactRaw(rec.Raw)
					}
					for _, s := range secrets {
						if strings.Contains(got, s) {
							t.Errorf("%s: %q reached the output: %s", file, s, got)
						}
					}
				}
			}
		}
	}
}
