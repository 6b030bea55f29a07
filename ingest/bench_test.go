package ingest

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/parquet-go/parquet-go"

	"github.com/tpsreport/tpsreport/ingest/internal/scan"
	"github.com/tpsreport/tpsreport/schemas"
	"github.com/tpsreport/tpsreport/sim"
)

func BenchmarkParseTimestamp(b *testing.B) {
	cases := []struct {
		name, in string
		text     bool // a JSON string, else a JSON number
	}{
		{"rfc3339-utc", "2026-11-20T10:00:00Z", true},
		{"rfc3339-millis", "2026-11-20T10:00:00.123Z", true},
		{"rfc3339-nanos-offset", "2026-11-20T12:00:00.123456789+02:00", true},
		{"epoch-float-seconds", "1795168800.123456", false},
		{"epoch-int-ms", "1795168800123", false},
		{"epoch-int-ns", "1795168800123456789", false},
	}
	for _, c := range cases {
		in := []byte(c.in)
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(in)))
			for b.Loop() {
				var err error
				if c.text {
					_, err = scan.ParseTimestamp(in)
				} else {
					_, err = scan.ParseEpoch(in)
				}
				if err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// benchLine is a typical canonical line: every column, plus a prompt the
// decoder must skip.
var benchLine = []byte(`{"span_id":"0f8e6d1c-5b2a-4c39-9e7f-3a1b2c4d5e6f#0","request_id":"0f8e6d1c-5b2a-4c39-9e7f-3a1b2c4d5e6f",` +
	`"attempt":0,"model":"meta-llama/Llama-3.1-8B-Instruct","replica":"vllm-3","queued_at":"2026-11-20T10:00:00.123456Z",` +
	`"admitted_at":"2026-11-20T10:00:00.234567Z","first_token_at":"2026-11-20T10:00:00.345678Z",` +
	`"last_token_at":"2026-11-20T10:00:04.456789Z","released_at":"2026-11-20T10:00:04.467891Z",` +
	`"input_tokens":812,"output_tokens":256,"cached_tokens":512,"status":"ok","http_status":200,` +
	`"prompt":"Summarise the following support ticket in two sentences: the customer reports that..."}`)

// benchInput returns n canonical lines varying in their ids and times.
func benchInput(n int) []byte {
	var buf bytes.Buffer
	for i := range n {
		line, _ := validLine(i % 1000)
		buf.WriteString(strings.Replace(line, `"span_id":"s`, `"span_id":"`+strconv.Itoa(i)+`-`, 1))
		buf.WriteByte('\n')
		if i%4 == 0 {
			buf.Write(benchLine)
			buf.WriteByte('\n')
		}
	}
	return buf.Bytes()
}

func BenchmarkSpansDecode(b *testing.B) {
	b.Run("line", func(b *testing.B) {
		var d spansDecoder
		var sp schemas.Span
		b.ReportAllocs()
		b.SetBytes(int64(len(benchLine)))
		for b.Loop() {
			if err := d.decode(benchLine, &sp); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("reader", func(b *testing.B) {
		in := benchInput(20000)
		b.ReportAllocs()
		b.SetBytes(int64(len(in)))
		for b.Loop() {
			r := newSpansReader(Input{Name: "bench", R: bytes.NewReader(in), MaxLineBytes: DefaultMaxLineBytes})
			for r.Next() {
				if r.Record().Kind != KindSpan {
					b.Fatal(r.Record().Err)
				}
			}
		}
	})
}

// benchSpans decodes canonical JSONL into the spans a batch carries.
func benchSpans(in []byte) []schemas.Span {
	r := newSpansReader(Input{Name: "bench", R: bytes.NewReader(in), MaxLineBytes: DefaultMaxLineBytes})
	var spans []schemas.Span
	for r.Next() {
		sp := r.Record().Span
		sp.RunID = "baseline"
		spans = append(spans, sp)
	}
	return spans
}

func BenchmarkWriteParquet(b *testing.B) {
	in := benchInput(batchRecords * 4 / 5) // one batch of spans
	spans := benchSpans(in)
	b.ReportAllocs()
	b.SetBytes(int64(len(in))) // input bytes per batch, to compare with decoding
	w := parquet.NewGenericWriter[schemas.Span](io.Discard, spanOptions()...)
	for b.Loop() {
		if _, err := w.Write(spans); err != nil {
			b.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(float64(b.N*len(spans))/b.Elapsed().Seconds(), "rows/s")
}

// BenchmarkRun is the whole ingest of a 32 MB file: read, decode, write,
// hash, rename.
func BenchmarkRun(b *testing.B) {
	dir := b.TempDir()
	in := filepath.Join(dir, "in.jsonl")
	data := benchInput(100000)
	for len(data) < 32<<20 {
		data = append(data, data...)
	}
	if err := os.WriteFile(in, data, 0o644); err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Run(context.Background(), Options{RunID: "r", Format: "spans", OutDir: filepath.Join(dir, "out"), Inputs: []string{in}}); err != nil {
			b.Fatal(err)
		}
	}
}

// TestRunLarge ingests a generated file of TPSREPORT_LARGE_MB megabytes
// and reports throughput and peak memory; it checks the 500 MB RSS budget.
// It is skipped unless the variable is set:
//
//	TPSREPORT_LARGE_MB=2048 go test -run TestRunLarge -v ./ingest/
func TestRunLarge(t *testing.T) {
	mb, _ := strconv.Atoi(os.Getenv("TPSREPORT_LARGE_MB"))
	if mb <= 0 {
		t.Skip("set TPSREPORT_LARGE_MB to run")
	}
	dir := t.TempDir()
	in := filepath.Join(dir, "large.jsonl")
	f, err := os.Create(in)
	if err != nil {
		t.Fatal(err)
	}
	w := bufio.NewWriterSize(f, 1<<20)
	chunk := benchInput(10000)
	var size int64
	for i := 0; size < int64(mb)<<20; i++ {
		// Vary the ids per chunk so that they stay unique.
		n, _ := w.Write(bytes.ReplaceAll(chunk, []byte(`"span_id":"`), []byte(`"span_id":"`+strconv.Itoa(i)+`.`)))
		size += int64(n)
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	f.Close()
	runtime.GC()

	start := time.Now()
	m, err := Run(context.Background(), Options{RunID: "large", Format: "spans", OutDir: filepath.Join(dir, "out"), Inputs: []string{in}})
	if err != nil {
		t.Fatal(err)
	}
	elapsed := time.Since(start)
	st, _ := os.Stat(filepath.Join(dir, "out", schemas.SpansFile))
	t.Logf("%d MB, %d records, %d spans in %v: %.0f MB/s; spans.parquet %d MB",
		size>>20, m.Counts.Read, m.Counts.Written, elapsed.Round(time.Millisecond),
		float64(size)/(1<<20)/elapsed.Seconds(), st.Size()>>20)
	if status, err := os.ReadFile("/proc/self/status"); err == nil {
		for line := range strings.SplitSeq(string(status), "\n") {
			if strings.HasPrefix(line, "VmHWM:") {
				t.Log("peak RSS", strings.TrimSpace(strings.TrimPrefix(line, "VmHWM:")))
				kb, _ := strconv.Atoi(strings.Fields(line)[1])
				if kb > 500<<10 {
					t.Errorf("peak RSS %d MB, over the 500 MB budget", kb>>10)
				}
			}
		}
	}
}

// BenchmarkStoredReader reads and hashes 64 MB the way open does: the
// reading goroutine copies, the hashing one hashes.
func BenchmarkStoredReader(b *testing.B) {
	data := bytes.Repeat(benchLine, (64<<20)/len(benchLine))
	buf := make([]byte, 256<<10) // the size of the line splitter's first buffer
	b.ReportAllocs()
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		s := newStoredReader(bytes.NewReader(data), nil)
		for {
			if _, err := s.Read(buf); err == io.EOF {
				break
			} else if err != nil {
				b.Fatal(err)
			}
		}
		s.sum()
	}
}

// BenchmarkSpanWriter encodes 4 row groups of spans through spanWriter,
// two row groups at a time, into memory.
func BenchmarkSpanWriter(b *testing.B) {
	in := benchInput(batchRecords * 4 / 5)
	spans := benchSpans(in)
	batches := 4 * rowGroupRows / len(spans)
	b.ReportAllocs()
	b.SetBytes(int64(batches * len(in))) // input bytes, to compare with decoding
	var out bytes.Buffer
	for b.Loop() {
		out.Reset()
		sw := newSpanWriter(&out, func(b *batch) { b.refs.Add(-1) })
		for range batches {
			bt := &batch{spans: spans}
			bt.refs.Store(1)
			if err := sw.write(bt); err != nil {
				b.Fatal(err)
			}
		}
		if err := sw.close(); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N*batches*len(spans))/b.Elapsed().Seconds(), "rows/s")
}

// simFormatInput is the simulator's multi-replica run (about 2,000 spans)
// as the lines of a gateway's or an engine's log: vllm-otel, litellm or
// sglang-metrics.
func simFormatInput(b *testing.B, format string) []byte {
	sc, err := sim.Named("multi-replica")
	if err != nil {
		b.Fatal(err)
	}
	sc.MaxArrivals = 2000
	var buf bytes.Buffer
	var w sim.Writer
	switch format {
	case SourceVLLMOTel:
		w = sim.NewVLLMOTel(&buf, sc, 1)
	case SourceLiteLLM:
		w = sim.NewLiteLLM(&buf, sc, 1)
	case SourceSGLangMetrics:
		w = sim.NewSGLangMetrics(&buf, sc, 1)
	}
	if _, err := sim.Generate(sc, 1, w); err != nil {
		b.Fatal(err)
	}
	if err := w.Flush(); err != nil {
		b.Fatal(err)
	}
	return buf.Bytes()
}

// BenchmarkFormatDecode reads the simulator's logs with the vllm-otel,
// litellm and sglang-metrics readers (decoding only: no Parquet, no hash).
func BenchmarkFormatDecode(b *testing.B) {
	for _, format := range []string{SourceVLLMOTel, SourceLiteLLM, SourceSGLangMetrics} {
		in := simFormatInput(b, format)
		b.Run(format, func(b *testing.B) { benchDecode(b, format, in) })
	}
}

// BenchmarkOTLPDecoders reads vLLM's OTLP traces (the vllm-otel input of
// BenchmarkFormatDecode) with both OTLP/JSON decoders: vllm-otel's one-pass
// scanner and otel-genai's maps, which keep the llm_request spans too (they
// carry gen_ai.* attributes). It measures why the two are not one decoder.
func BenchmarkOTLPDecoders(b *testing.B) {
	in := simFormatInput(b, SourceVLLMOTel)
	for _, format := range []string{SourceVLLMOTel, SourceOTelGenAI} {
		b.Run(format, func(b *testing.B) { benchDecode(b, format, in) })
	}
}

// benchDecode reads in with format's reader, b.N times, counting spans.
func benchDecode(b *testing.B, format string, in []byte) {
	b.ReportAllocs()
	b.SetBytes(int64(len(in)))
	spans := 0
	for b.Loop() {
		r := formats[format].New(Input{Name: "bench", R: bytes.NewReader(in), MaxLineBytes: DefaultMaxLineBytes})
		for r.Next() {
			switch r.Record().Kind {
			case KindSpan:
				spans++
			case KindReject:
				b.Fatal(r.Record().Err)
			}
		}
	}
	b.ReportMetric(float64(spans)/b.Elapsed().Seconds(), "spans/s")
}
