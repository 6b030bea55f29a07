//go:build duckdb_arrow

package analyze

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"sync"

	"github.com/apache/arrow-go/v18/arrow"
	duckdb "github.com/duckdb/duckdb-go/v2"
)

// batchStream is the array.RecordReader that DuckDB's Arrow scan reads from
// batches made in Go (the pool's sweep, the curve's merge): next makes each
// batch in turn, nil at the end. DuckDB's threads call Next one at a time
// under mu, so next needs no lock of its own. The stream holds one batch at
// a time, released as the next is made and by Release, and keeps next's
// first error.
type batchStream struct {
	schema *arrow.Schema
	next   func() (arrow.RecordBatch, error)

	mu  sync.Mutex
	cur arrow.RecordBatch
	err error
}

func (s *batchStream) Schema() *arrow.Schema { return s.schema }

// Retain does nothing: the stream is its maker's own, released once.
func (s *batchStream) Retain() {}

func (s *batchStream) Release() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cur != nil {
		s.cur.Release()
		s.cur = nil
	}
}

func (s *batchStream) Err() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.err
}

func (s *batchStream) Record() arrow.RecordBatch { return s.RecordBatch() }

func (s *batchStream) RecordBatch() arrow.RecordBatch {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.cur
}

func (s *batchStream) Next() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cur != nil {
		s.cur.Release()
		s.cur = nil
	}
	if s.err != nil {
		return false
	}
	s.cur, s.err = s.next()
	return s.err == nil && s.cur != nil
}

// prefetch makes the batches of produce on a goroutine of its own, one batch
// ahead of the stream, and returns the stream's next, which hands them
// over in turn, and stop, which ends the goroutine (cancelling the context
// produce is given) and waits for it. DuckDB's Arrow scan calls a stream's
// Next on one of its own worker threads: a maker that queries DuckDB must
// not do so there, inside a task of the statement that scans the stream,
// but on a thread of Go's.
func prefetch(ctx context.Context, produce func(context.Context) (arrow.RecordBatch, error)) (next func() (arrow.RecordBatch, error), stop func()) {
	type made struct {
		rec arrow.RecordBatch
		err error
	}
	ctx, cancel := context.WithCancel(ctx)
	ch := make(chan made, 1)
	done := make(chan struct{})
	go func() {
		defer close(done)
		defer close(ch)
		for {
			rec, err := produce(ctx)
			select {
			case ch <- made{rec, err}:
			case <-ctx.Done():
				if rec != nil {
					rec.Release()
				}
				return
			}
			if rec == nil || err != nil {
				return
			}
		}
	}()
	next = func() (arrow.RecordBatch, error) {
		m, ok := <-ch
		if !ok {
			return nil, nil
		}
		return m.rec, m.err
	}
	stop = func() {
		cancel()
		<-done
		for m := range ch {
			if m.rec != nil {
				m.rec.Release()
			}
		}
	}
	return next, stop
}

// withArrow runs f with DuckDB's Arrow interface to the connection c, which
// only the driver's own connection gives, inside database/sql's Raw.
func withArrow(c *sql.Conn, f func(*duckdb.Arrow) error) error {
	return c.Raw(func(dc any) error {
		conn, ok := dc.(driver.Conn)
		if !ok {
			return errors.New("not a driver connection")
		}
		ar, err := duckdb.NewArrowFromConn(conn)
		if err != nil {
			return err
		}
		return f(ar)
	})
}

// storeStream runs the statement name, which stores the batches of stream
// by scanning them as the view view; the view is registered for the
// statement alone. The stream's own error, which DuckDB's quotes, is the one
// returned.
func (a *analysis) storeStream(stream *batchStream, view, name string) error {
	var release func()
	err := withArrow(a.db, func(ar *duckdb.Arrow) (err error) {
		release, err = ar.RegisterView(stream, view)
		return err
	})
	if err != nil {
		return fmt.Errorf("analyze %s: %w", view, err)
	}
	_, err = a.db.ExecContext(a.ctx, query(name))
	if serr := stream.Err(); serr != nil {
		err = serr
	}
	// The view goes before the stream it scans.
	_, dropErr := a.db.ExecContext(context.WithoutCancel(a.ctx), "DROP VIEW IF EXISTS "+view)
	release()
	if err = errors.Join(err, dropErr); err != nil {
		return fmt.Errorf("analyze %s: %w", name, err)
	}
	return nil
}

// eachBatch runs the statement name on the connection c and hands each
// batch of its rows, as DuckDB's Arrow interface gives them, to f.
func eachBatch(ctx context.Context, c *sql.Conn, name string, f func(arrow.RecordBatch) error, args ...any) error {
	err := withArrow(c, func(ar *duckdb.Arrow) error {
		r, err := ar.QueryContext(ctx, query(name), args...)
		if err != nil {
			return err
		}
		defer r.Release()
		for r.Next() {
			if err := f(r.RecordBatch()); err != nil {
				return err
			}
		}
		return r.Err()
	})
	if err != nil {
		return fmt.Errorf("analyze %s: %w", name, err)
	}
	return nil
}
