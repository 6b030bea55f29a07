//go:build duckdb_arrow

package analyze

import (
	"database/sql"
	"database/sql/driver"
	"errors"
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
