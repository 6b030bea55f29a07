package ingest

import (
	"runtime"
	"slices"
	"sync"

	"github.com/tpsreport/tpsreport/ingest/internal/scan"
)

// Decoding NDJSON lines on every core. A format whose one-pass scanner can
// run as several independent decoders (lineDecoders: LiteLLM's and SGLang's
// metrics export) has its lines decoded by workers, a block of lines each,
// while the jsonRecordReader hands the records on in the input's order.
// One goroutine splits the input into blocks (the scan.Lines is
// sequential); the workers decode blocks as they come; fillBlock takes the
// blocks in order, waits for each, and does what must stay sequential:
// placing each line's records (place: positions, derived span ids), and the
// lines the scanner leaves to the parsed path (scan.ParseValue and decode,
// which share the reader's state).
//
// A decoder's records own their values (arena chunks, strings): a line's
// bytes are read only by its decoder and, for a reject, as the record's Raw,
// which the Reader contract keeps valid only until the next call to Next. So
// a block's buffers are reused once its last record has been handed on.

// lineDecoder decodes one NDJSON line: it appends the line's records, or
// reports false, having appended nothing, to leave the line to the parsed
// path.
type lineDecoder func(line []byte, out []Record) ([]Record, bool)

const (
	// blockLines and blockBytes bound a block: enough lines that handing a
	// block between goroutines costs little against decoding it, few
	// enough that the blocks in flight hold a few MB.
	blockLines = 256
	blockBytes = 512 << 10
	// maxLineWorkers bounds the decoders: past a few, the sequential
	// splitting and placing is the bottleneck.
	maxLineWorkers = 4
)

// How a line of a block is read.
const (
	lineDecode = iota // by a worker's decoder
	lineParse         // left by the decoder to the parsed path
	lineBlank
	lineLong
)

type blockLine struct {
	n            int64 // line number
	lo, hi       int   // the line's bytes, data[lo:hi] (an over-long line's first bytes)
	length       int64 // an over-long line's length
	kind         int
	recLo, recHi int // its records, recs[recLo:recHi]
}

type lineBlock struct {
	data  []byte
	lines []blockLine
	recs  []Record
	last  bool          // the input ends after this block
	err   error         // the read error that ended the input, if any
	done  chan struct{} // a token when the block is decoded (capacity 1)
}

func (b *lineBlock) reset() {
	clear(b.recs) // drop the references to decoded values
	b.data, b.lines, b.recs = b.data[:0], b.lines[:0], b.recs[:0]
	b.last, b.err = false, nil
}

// parLines is the state of a jsonRecordReader decoding lines in parallel.
type parLines struct {
	order chan *lineBlock // blocks in input order, as split
	work  chan *lineBlock // blocks to decode
	free  chan *lineBlock // blocks handed on, to reuse
	quit  chan struct{}   // closed by stop
	once  sync.Once
	cur   *lineBlock // the block fillBlock read last
}

func lineWorkers() int {
	return max(1, min(runtime.GOMAXPROCS(0), maxLineWorkers))
}

// startLines starts the splitting goroutine and the workers.
func (r *jsonRecordReader) startLines() {
	workers := lineWorkers()
	blocks := 2*workers + 2
	p := &parLines{
		order: make(chan *lineBlock, blocks),
		work:  make(chan *lineBlock, blocks),
		free:  make(chan *lineBlock, blocks),
		quit:  make(chan struct{}),
	}
	// Sized whole at once, the buffers of a block and the queue cost no
	// regrowth: what a reader allocates stays a fixed few hundred KB.
	for range blocks {
		p.free <- &lineBlock{done: make(chan struct{}, 1), lines: make([]blockLine, 0, blockLines)}
	}
	r.queue = slices.Grow(r.queue[:0], blockLines)
	r.par = p
	go p.split(r.lines)
	for range workers {
		go p.decode(r.lineDecoders())
	}
}

// split reads the lines into blocks and sends each to be decoded and, in
// order, to fillBlock.
func (p *parLines) split(s *scan.Lines) {
	defer close(p.work)
	defer close(p.order)
	for {
		var b *lineBlock
		select {
		case b = <-p.free:
		case <-p.quit:
			return
		}
		b.reset()
		for len(b.lines) < blockLines && len(b.data) < blockBytes {
			if !s.Next() {
				b.last, b.err = true, s.Err()
				break
			}
			line := s.Bytes()
			l := blockLine{n: s.Line(), lo: len(b.data), kind: lineDecode}
			b.data = append(b.data, line...)
			l.hi = len(b.data)
			switch {
			case s.Long():
				l.kind, l.length = lineLong, s.Len()
			case scan.IsBlank(line):
				l.kind = lineBlank
			}
			b.lines = append(b.lines, l)
		}
		// order and work hold every block there is, so neither send waits.
		p.order <- b
		p.work <- b
		if b.last {
			return
		}
	}
}

// decode runs one worker's decoder over the blocks.
func (p *parLines) decode(dec lineDecoder) {
	for b := range p.work {
		for i := range b.lines {
			l := &b.lines[i]
			if l.kind != lineDecode {
				continue
			}
			l.recLo = len(b.recs)
			if q, ok := dec(b.data[l.lo:l.hi], b.recs); ok {
				b.recs = q
			} else {
				l.kind = lineParse
			}
			l.recHi = len(b.recs)
		}
		b.done <- struct{}{}
	}
}

// stop ends the goroutines of a reader that is abandoned before its end.
func (p *parLines) stop() {
	p.once.Do(func() { close(p.quit) })
}

// stopper is a Reader with goroutines of its own, which stop ends; the
// pipeline calls it when it is done with the reader, at the end or not.
type stopper interface{ stop() }

// stop implements stopper.
func (r *jsonRecordReader) stop() {
	if r.par != nil {
		r.par.stop()
	}
}

// fillBlock queues the records of the next block's lines, in order. It
// returns false at the end of the input.
func (r *jsonRecordReader) fillBlock() bool {
	if r.par == nil {
		r.startLines()
	}
	p := r.par
	if p.cur != nil {
		if p.cur.last {
			r.err = p.cur.err
			r.mode = modeDone
			return false
		}
		p.free <- p.cur // its records are handed on: fillBlock runs when the queue is empty
		p.cur = nil
	}
	b, ok := <-p.order
	if !ok {
		r.mode = modeDone
		return false
	}
	p.cur = b
	<-b.done
	for i := range b.lines {
		l := &b.lines[i]
		line := b.data[l.lo:l.hi]
		start := len(r.queue)
		switch l.kind {
		case lineLong:
			r.queue = append(r.queue, rejectRecord(r.name, l.n, 0, scan.Errorf(ErrTooLong, -1,
				"line is %d bytes, longer than the limit of %d bytes", l.length, r.lines.Max), line))
		case lineBlank:
			r.queue = append(r.queue, Record{Kind: KindSkip, Skip: SkipBlank, Line: l.n})
		case lineDecode:
			r.queue = append(r.queue, b.recs[l.recLo:l.recHi]...)
			r.place(start, l.n, 0, line)
		case lineParse:
			v, err := scan.ParseValue(line, r.keys, r.only)
			if err != nil {
				r.queue = append(r.queue, rejectRecord(r.name, l.n, 0, err, line))
				break
			}
			r.queue = r.decode(v, line, r.queue)
			r.place(start, l.n, 0, line)
		}
	}
	return true
}
