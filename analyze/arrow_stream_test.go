//go:build duckdb_arrow

package analyze

import (
	"context"
	"errors"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// TestPrefetch: the batches come in the order made, then nil; a maker's
// error ends the stream with it; stop ends a maker the stream no longer
// reads and releases the batch it made ahead.
func TestPrefetch(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.DefaultAllocator)
	defer mem.AssertSize(t, 0)
	batch := func(v int64) arrow.RecordBatch {
		b := array.NewRecordBuilder(mem, curveSchema)
		defer b.Release()
		b.Field(0).(*array.Int64Builder).Append(v)
		b.Field(1).(*array.Float64Builder).Append(0)
		return b.NewRecordBatch()
	}
	counter := func(n int64, fail error) func(context.Context) (arrow.RecordBatch, error) {
		var i int64
		return func(ctx context.Context) (arrow.RecordBatch, error) {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			i++
			switch {
			case i <= n:
				return batch(i), nil
			case fail != nil:
				return nil, fail
			}
			return nil, nil
		}
	}

	next, stop := prefetch(t.Context(), counter(3, nil))
	for want := int64(1); want <= 3; want++ {
		rec, err := next()
		if err != nil || rec == nil {
			t.Fatalf("batch %d: %v, %v", want, rec, err)
		}
		if got := rec.Column(0).(*array.Int64).Value(0); got != want {
			t.Errorf("batch %d holds %d", want, got)
		}
		rec.Release()
	}
	for range 2 {
		if rec, err := next(); rec != nil || err != nil {
			t.Errorf("after the last batch: %v, %v", rec, err)
		}
	}
	stop()

	bad := errors.New("bad slice")
	next, stop = prefetch(t.Context(), counter(1, bad))
	if rec, err := next(); err != nil {
		t.Fatal(err)
	} else {
		rec.Release()
	}
	if _, err := next(); !errors.Is(err, bad) {
		t.Errorf("the maker's error: got %v", err)
	}
	stop()

	// Stopped unread, with one batch handed over and one made ahead: the
	// goroutine ends, and both are released (the checked allocator's size
	// is 0 at the end).
	made := make(chan struct{})
	many := counter(1_000_000, nil)
	_, stop = prefetch(t.Context(), func(ctx context.Context) (arrow.RecordBatch, error) {
		rec, err := many(ctx)
		if rec != nil && rec.Column(0).(*array.Int64).Value(0) == 2 {
			close(made)
		}
		return rec, err
	})
	<-made
	stop()
}
