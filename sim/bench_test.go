package sim

import (
	"io"
	"testing"
	"time"

	"github.com/tpsreport/tpsreport/schemas"
)

// countingWriter counts bytes and discards them.
type countingWriter struct{ n int64 }

func (c *countingWriter) Write(p []byte) (int, error) { c.n += int64(len(p)); return len(p), nil }

// BenchmarkRunWrite generates a run and writes it as canonical JSONL: the cost
// per span of `make bench`'s 10 M-span files. MB/s counts the spans file.
func BenchmarkRunWrite(b *testing.B) {
	for _, name := range []string{"multi-replica", "stall", "retry-storm"} {
		b.Run(name, func(b *testing.B) {
			sc, err := Named(name)
			if err != nil {
				b.Fatal(err)
			}
			sc.Duration = 0
			sc.MaxArrivals = 20000
			var cw countingWriter
			tr, err := WriteJSONL(&cw, io.Discard, sc, 1)
			if err != nil {
				b.Fatal(err)
			}
			b.SetBytes(cw.n)
			b.ReportAllocs()
			b.ResetTimer()
			for range b.N {
				if _, err := WriteJSONL(io.Discard, io.Discard, sc, 1); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(tr.Spans)*float64(b.N)/b.Elapsed().Seconds(), "spans/s")
		})
	}
}

// BenchmarkRun is the simulation alone, spans dropped.
func BenchmarkRun(b *testing.B) {
	sc, _ := Named("multi-replica")
	sc.Duration = 0
	sc.MaxArrivals = 20000
	b.ReportAllocs()
	var spans int64
	for range b.N {
		tr, err := Run(sc, 1, func(schemas.Span) error { return nil })
		if err != nil {
			b.Fatal(err)
		}
		spans += tr.Spans
	}
	b.ReportMetric(float64(spans)/b.Elapsed().Seconds(), "spans/s")
}

// BenchmarkAppendSpanJSON is the formatting of one line.
func BenchmarkAppendSpanJSON(b *testing.B) {
	s := schemas.Span{
		RunID: "nightly-2026-11-20", Source: "sim", SpanID: "r000123456-1", RequestID: "r000123456",
		Attempt: schemas.Ptr[int32](1), RetryCause: schemas.Ptr("5xx"), Model: schemas.Ptr("meta-llama/Llama-3.1-8B-Instruct"),
		Replica: schemas.Ptr("vllm-3"), QueuedAt: schemas.Ptr(DefaultStart + 1), AdmittedAt: schemas.Ptr(DefaultStart + 20),
		FirstTokenAt: schemas.Ptr(DefaultStart + 300), LastTokenAt: schemas.Ptr(DefaultStart + int64(4*time.Second/time.Microsecond)),
		ReleasedAt: schemas.Ptr(DefaultStart + 4002000), InputTokens: schemas.Ptr[int64](700), OutputTokens: schemas.Ptr[int64](180),
		Status: "ok", HTTPStatus: schemas.Ptr[int32](200),
	}
	buf := AppendSpanJSON(nil, &s)
	b.SetBytes(int64(len(buf) + 1))
	b.ReportAllocs()
	for range b.N {
		buf = append(AppendSpanJSON(buf[:0], &s), '\n')
	}
}
