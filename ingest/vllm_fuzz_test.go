package ingest

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/tpsreport/tpsreport/schemas"
)

// vllmFuzzSeed adds every fixture of format name, whole and line by line.
func vllmFuzzSeed(f *testing.F, name string) {
	files, _ := filepath.Glob(filepath.Join(vllmFixtureDirs[name], "*"))
	for _, file := range files {
		b, err := os.ReadFile(file)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
		for line := range bytes.SplitSeq(b, []byte("\n")) {
			f.Add(line)
		}
	}
}

// vllmFuzzRead runs the reader of format name over data: it must not panic,
// every reject must be a *ParseError naming the input, a span must have ids
// and a valid status, and a skip a reason.
func vllmFuzzRead(t *testing.T, name string, data []byte) {
	rd := vllmTestReader(name, "fuzz", bytes.NewReader(data))
	n := 0
	for rd.Next() {
		n++
		if n > 10*len(data)+10 {
			t.Fatalf("more records (%d) than the input can hold", n)
		}
		rec := rd.Record()
		switch rec.Kind {
		case KindReject:
			var pe *ParseError
			if !errors.As(error(rec.Err), &pe) || pe.File != "fuzz" || rec.Err.Err == nil {
				t.Fatalf("reject error %#v", rec.Err)
			}
			_ = pe.Kind()
		case KindSpan:
			if rec.Span.SpanID == "" || rec.Span.RequestID == "" || !validStatus(rec.Span.Status) {
				t.Fatalf("bad span %+v", rec.Span)
			}
		case KindStage:
			if rec.Stage.RequestID == "" || !schemas.ValidStage(rec.Stage.Stage) || rec.Stage.EndedAt < rec.Stage.StartedAt ||
				rec.Stage.Role != nil && !schemas.ValidWorkerRole(*rec.Stage.Role) {
				t.Fatalf("bad stage %+v", rec.Stage)
			}
		case KindSkip:
			if rec.Skip == SkipOther || rec.Skip >= numSkipReasons {
				t.Fatalf("skip without a reason: %+v", rec)
			}
		}
	}
	_ = rd.Err()
}

func validStatus(s string) bool {
	switch s {
	case "ok", "error", "timeout", "aborted", "cancelled":
		return true
	}
	return false
}

func FuzzVLLMLogLine(f *testing.F) {
	vllmFuzzSeed(f, "vllm-log")
	f.Add([]byte("x | 2026-01-01T00:00:00Z INFO 02-29 23:59:59 [a.py:1] Running: 1 reqs, Waiting: 2 reqs"))
	f.Fuzz(func(t *testing.T, data []byte) { vllmFuzzRead(t, "vllm-log", data) })
}

func FuzzVLLMOTel(f *testing.F) {
	vllmFuzzSeed(f, "vllm-otel")
	f.Fuzz(func(t *testing.T, data []byte) { vllmFuzzRead(t, "vllm-otel", data) })
}

func FuzzPrometheus(f *testing.F) {
	vllmFuzzSeed(f, "prometheus")
	f.Fuzz(func(t *testing.T, data []byte) { vllmFuzzRead(t, "prometheus", data) })
}

func FuzzVLLMBench(f *testing.F) {
	vllmFuzzSeed(f, "vllm-bench")
	f.Fuzz(func(t *testing.T, data []byte) { vllmFuzzRead(t, "vllm-bench", data) })
}

// engineFuzzSeed adds every fixture of format, whole and line by line.
func engineFuzzSeed(f *testing.F, format string) {
	for _, fx := range engineFixtures {
		if fx.format != format {
			continue
		}
		for _, kind := range []string{".good.", ".bad."} {
			for _, file := range engineFiles(fx.format, fx.dir, kind) {
				b, err := os.ReadFile(file)
				if err != nil {
					f.Fatal(err)
				}
				f.Add(b)
				for line := range bytes.SplitSeq(b, []byte("\n")) {
					f.Add(line)
				}
			}
		}
	}
}

func FuzzSGLangMetrics(f *testing.F) {
	engineFuzzSeed(f, SourceSGLangMetrics)
	f.Fuzz(func(t *testing.T, data []byte) { vllmFuzzRead(t, SourceSGLangMetrics, data) })
}

func FuzzSGLangLog(f *testing.F) {
	engineFuzzSeed(f, SourceSGLangLog)
	f.Add([]byte("[2026-03-10 10:00:04] Finish: obj=A(x=[1, (2, 3)], y={'a': 'b' ... 'c'}), out={'meta_info': {'id': 'q', 'e2e_latency': 1e-3}}"))
	f.Fuzz(func(t *testing.T, data []byte) { vllmFuzzRead(t, SourceSGLangLog, data) })
}

func FuzzLlamaCpp(f *testing.F) {
	engineFuzzSeed(f, SourceLlamaCpp)
	f.Fuzz(func(t *testing.T, data []byte) { vllmFuzzRead(t, SourceLlamaCpp, data) })
}

func FuzzLlamaCppLog(f *testing.F) {
	engineFuzzSeed(f, SourceLlamaCppLog)
	f.Fuzz(func(t *testing.T, data []byte) { vllmFuzzRead(t, SourceLlamaCppLog, data) })
}

func FuzzPrometheusEngines(f *testing.F) {
	engineFuzzSeed(f, SourcePrometheus)
	f.Fuzz(func(t *testing.T, data []byte) { vllmFuzzRead(t, SourcePrometheus, data) })
}

func FuzzTRTLLMPerf(f *testing.F) {
	engineFuzzSeed(f, SourceTRTLLMPerf)
	f.Fuzz(func(t *testing.T, data []byte) { vllmFuzzRead(t, SourceTRTLLMPerf, data) })
}

func FuzzStages(f *testing.F) {
	engineFuzzSeed(f, SourceStages)
	f.Fuzz(func(t *testing.T, data []byte) { vllmFuzzRead(t, SourceStages, data) })
}

func FuzzDynamoTrace(f *testing.F) {
	engineFuzzSeed(f, SourceDynamoTrace)
	f.Fuzz(func(t *testing.T, data []byte) { vllmFuzzRead(t, SourceDynamoTrace, data) })
}

func FuzzDynamoNvext(f *testing.F) {
	engineFuzzSeed(f, SourceDynamoNvext)
	f.Fuzz(func(t *testing.T, data []byte) { vllmFuzzRead(t, SourceDynamoNvext, data) })
}

func FuzzLLMDEPP(f *testing.F) {
	engineFuzzSeed(f, SourceLLMDEPP)
	f.Fuzz(func(t *testing.T, data []byte) { vllmFuzzRead(t, SourceLLMDEPP, data) })
}
