package ingest

import (
	"bytes"
	"math/rand/v2"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/parquet-go/parquet-go"

	"github.com/tpsreport/tpsreport/schemas"
)

// variedSpans returns n spans whose optional fields are each nil about
// one time in nullEvery, with strings of varied length and cardinality.
func variedSpans(rng *rand.Rand, n, nullEvery int) []schemas.Span {
	str := func(card int) *string {
		if rng.IntN(nullEvery) == 0 {
			return nil
		}
		s := "v" + strconv.Itoa(rng.IntN(card))
		return &s
	}
	i64 := func() *int64 {
		if rng.IntN(nullEvery) == 0 {
			return nil
		}
		v := rng.Int64N(1 << 50)
		return &v
	}
	i32 := func() *int32 {
		if rng.IntN(nullEvery) == 0 {
			return nil
		}
		v := rng.Int32N(600)
		return &v
	}
	spans := make([]schemas.Span, n)
	for i := range spans {
		id := strconv.Itoa(i) + strings.Repeat("x", rng.IntN(40))
		spans[i] = schemas.Span{
			RunID: "run", Source: []string{"spans", "litellm", ""}[rng.IntN(3)],
			SpanID: id, RequestID: id[:max(0, len(id)-rng.IntN(3))],
			Attempt: i32(), RetryCause: str(3), Model: str(5), Replica: str(200),
			QueuedAt: i64(), AdmittedAt: i64(), FirstTokenAt: i64(), LastTokenAt: i64(), ReleasedAt: i64(),
			InputTokens: i64(), OutputTokens: i64(), CachedTokens: i64(),
			Status: schemas.Statuses[rng.IntN(len(schemas.Statuses))], Error: str(1 + rng.IntN(100000)),
			HTTPStatus: i32(), TimeResolutionUS: i32(), TimeOrigin: str(2),
		}
	}
	return spans
}

// TestSpanWriterMatchesGenericWriter: spans.parquet written by row groups in
// parallel, column by column, is byte for byte what one GenericWriter
// writes from the same batches.
func TestSpanWriterMatchesGenericWriter(t *testing.T) {
	for _, c := range []struct {
		name            string
		n, nullEvery    int
		minRun, maxRuns int
	}{
		{"empty", 0, 2, 1, 1},
		{"one", 1, 2, 1, 1},
		{"full batches", 2*rowGroupRows + 1000, 3, batchRecords, 1},
		{"ragged batches", rowGroupRows + 777, 2, 1, batchRecords},
		{"rarely null", 20000, 1000000, 1, 300},
		{"all null", 5000, 1, 1, 100},
	} {
		t.Run(c.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(uint64(c.n), 7))
			spans := variedSpans(rng, c.n, c.nullEvery)
			var batches [][]schemas.Span
			for rest := spans; len(rest) > 0; {
				k := min(len(rest), c.minRun+rng.IntN(c.maxRuns))
				batches = append(batches, rest[:k])
				rest = rest[k:]
			}

			var want bytes.Buffer
			gw := parquet.NewGenericWriter[schemas.Span](&want, spanOptions()...)
			for _, b := range batches {
				if _, err := gw.Write(b); err != nil {
					t.Fatal(err)
				}
			}
			if err := gw.Close(); err != nil {
				t.Fatal(err)
			}

			var got bytes.Buffer
			var released atomic.Int64 // release runs on the row groups' goroutines
			sw := newSpanWriter(&got, func(b *batch) {
				if b.refs.Add(-1) == 0 {
					released.Add(1)
				}
			})
			for _, spans := range batches {
				b := &batch{spans: spans}
				b.refs.Store(1)
				if err := sw.write(b); err != nil {
					t.Fatal(err)
				}
				if b.refs.Add(-1) == 0 {
					released.Add(1)
				}
			}
			if err := sw.close(); err != nil {
				t.Fatal(err)
			}
			if n := released.Load(); n != int64(len(batches)) {
				t.Errorf("%d of %d batches released", n, len(batches))
			}
			if !bytes.Equal(got.Bytes(), want.Bytes()) {
				i := 0
				for i < got.Len() && i < want.Len() && got.Bytes()[i] == want.Bytes()[i] {
					i++
				}
				t.Fatalf("spans.parquet differs from byte %d (got %d bytes, want %d)", i, got.Len(), want.Len())
			}
		})
	}
}
