package ingest

import (
	"bytes"
	"io"
	"sync/atomic"

	"github.com/parquet-go/parquet-go"

	"github.com/tpsreport/tpsreport/schemas"
)

// spanWriter writes spans.parquet with the Parquet work spread over the
// cores. Each row group (rowGroupRows spans) is encoded and compressed into
// memory by a goroutine of its own, as a one-row-group Parquet file, while
// the next row group fills; finished row groups are then added to the output
// file in order, and parquet-go copies their compressed pages verbatim.
//
// The file is byte for byte the one a single GenericWriter would write from
// the same batches: each row group gets the same Write calls (a batch that
// straddles two row groups is cut where the first one ends, as
// GenericWriter.Write cuts it), and page boundaries depend only on those.
//
// A batch handed to write stays in use until every row group holding some of
// its spans has encoded them; release is called then. Memory stays bounded:
// at most maxOpenRowGroups row groups are in flight, each holding its
// encoder's buffers and the batches not yet encoded.
type spanWriter struct {
	file    *parquet.GenericWriter[schemas.Span]
	release func(*batch) // called once per piece a row group has done with

	open   []*rowGroup // in flight, oldest first; the last one fills
	filled int         // spans given to the last of open
	spare  []*rowGroup // committed, to reuse
}

// maxOpenRowGroups is how many row groups may be encoded at once: one
// filling and one finishing keep two cores busy alongside decoding.
const maxOpenRowGroups = 2

// rowGroup is one row group being encoded on its own goroutine.
type rowGroup struct {
	pieces chan piece    // spans to write, in order; closed when the row group is full
	done   chan struct{} // closed when the row group is encoded (or failed)
	stop   atomic.Bool   // abort: do not encode what is left
	buf    bytes.Buffer  // the one-row-group Parquet file
	w      *parquet.GenericWriter[schemas.Span]
	err    error
	closed bool // pieces is closed (owned by the writing goroutine)
}

// finish closes the row group's input: it has all its spans.
func (rg *rowGroup) finish() {
	if !rg.closed {
		rg.closed = true
		close(rg.pieces)
	}
}

// piece is a run of one batch's spans for one row group.
type piece struct {
	spans []schemas.Span
	b     *batch
}

func newSpanWriter(out io.Writer, release func(*batch)) *spanWriter {
	return &spanWriter{
		file:    parquet.NewGenericWriter[schemas.Span](out, spanOptions()...),
		release: release,
	}
}

// write queues the spans of b; b gets one reference per piece (see
// batch.refs), each released once that piece is encoded. A returned error
// is a write error of a row group done earlier.
func (sw *spanWriter) write(b *batch) error {
	spans := b.spans
	for len(spans) > 0 {
		if len(sw.open) == 0 || sw.filled == rowGroupRows {
			if err := sw.next(); err != nil {
				return err
			}
		}
		n := min(len(spans), rowGroupRows-sw.filled)
		b.refs.Add(1)
		rg := sw.open[len(sw.open)-1]
		rg.pieces <- piece{spans: spans[:n], b: b}
		sw.filled += n
		spans = spans[n:]
		if sw.filled == rowGroupRows {
			rg.finish()
		}
	}
	return nil
}

// next starts a new row group, first committing the oldest one when
// maxOpenRowGroups are in flight.
func (sw *spanWriter) next() error {
	if len(sw.open) == maxOpenRowGroups {
		if err := sw.commit(); err != nil {
			return err
		}
	}
	var rg *rowGroup
	if n := len(sw.spare); n > 0 {
		rg, sw.spare = sw.spare[n-1], sw.spare[:n-1]
		rg.buf.Reset()
		rg.w.Reset(&rg.buf)
	} else {
		rg = &rowGroup{}
		rg.w = parquet.NewGenericWriter[schemas.Span](&rg.buf, spanOptions()...)
	}
	rg.err = nil
	rg.closed = false
	rg.stop.Store(false)
	// Room for every piece of a row group of full batches, so that filling
	// the next row group need not wait for this one.
	rg.pieces = make(chan piece, rowGroupRows/batchRecords+2)
	rg.done = make(chan struct{})
	go rg.encode(sw.release)
	sw.open = append(sw.open, rg)
	sw.filled = 0
	return nil
}

// encode runs on the row group's goroutine.
func (rg *rowGroup) encode(release func(*batch)) {
	defer close(rg.done)
	for p := range rg.pieces {
		if rg.err == nil && !rg.stop.Load() {
			if _, err := rg.w.Write(p.spans); err != nil {
				rg.err = err
			}
		}
		release(p.b)
	}
	if rg.err == nil && !rg.stop.Load() {
		rg.err = rg.w.Close()
	}
}

// commit waits for the oldest row group and copies it into the file.
func (sw *spanWriter) commit() error {
	rg := sw.open[0]
	sw.open = sw.open[1:]
	if len(sw.open) == 0 {
		sw.filled = 0
	}
	<-rg.done
	if rg.err != nil {
		return rg.err
	}
	f, err := parquet.OpenFile(bytes.NewReader(rg.buf.Bytes()), int64(rg.buf.Len()))
	if err != nil {
		return err
	}
	for _, g := range f.RowGroups() {
		if _, err := sw.file.WriteRowGroup(g); err != nil {
			return err
		}
	}
	sw.spare = append(sw.spare, rg)
	return nil
}

// close commits every row group and finishes the file.
func (sw *spanWriter) close() error {
	if n := len(sw.open); n > 0 {
		sw.open[n-1].finish()
	}
	for len(sw.open) > 0 {
		if err := sw.commit(); err != nil {
			sw.abort()
			return err
		}
	}
	return sw.file.Close()
}

// abort stops the row groups in flight without encoding what they hold and
// waits for them, so that every batch is released.
func (sw *spanWriter) abort() {
	for _, rg := range sw.open {
		rg.stop.Store(true)
		rg.finish()
	}
	for _, rg := range sw.open {
		<-rg.done
	}
	sw.open = nil
	sw.filled = 0
}
