package analyze

import (
	"context"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"math/bits"
	"os"
	"path/filepath"
	"sort"
	"time"
)

// The parts of the pool's sweep in Go (pool_sweep.go) that need no Arrow:
// how it cuts the run's steps into slices of time, keeps each slice's steps
// in a file as sort keys, and sorts them, a slice ahead of the sweep.

// sweepSizes are the sweep's sizes; a test sets them small (knobs.sweep),
// each 0 left at the default of pool_sweep.go.
type sweepSizes struct {
	bucket int64 // the bins' width (µs) that the slices are cut from
	rows   int64 // about how many steps a slice holds
	chunk  int64 // how many spans the steps are read for at a time
	batch  int   // how many segments a batch of the stream holds
}

// sweepSlice is a slice of the pool's steps: those at instants in
// [from, to), where the last has no to.
type sweepSlice struct {
	from, to int64
	last     bool
}

// cutSlices groups consecutive bins (in ascending order, each with its
// count; bin b holds the instants in [b·bucket, (b + 1)·bucket)) into slices
// of at most rows steps, or one bin each where a bin holds more, and gives
// the count of all steps. The first slice starts with the first bin, every
// other where the one before ends. A slice also ends before a bin span µs
// after its start, so that the offsets from there of its bins' instants,
// less than span + bucket, fit a sort key (stepFiles): the pool's keys take
// span 2^58 µs (9,000 years).
func cutSlices(bins [][2]int64, bucket, rows int64, span uint64) ([]sweepSlice, int64) {
	var out []sweepSlice
	var total, n int64
	for i, b := range bins {
		total += b[1]
		if i == 0 {
			from := int64(math.MinInt64)
			if b[0] >= math.MinInt64/bucket {
				from = b[0] * bucket
			}
			out = append(out, sweepSlice{from: from})
			n = b[1]
			continue
		}
		from := b[0] * bucket // no overflow: a later bin starts after an instant
		if n+b[1] <= rows && uint64(from)-uint64(out[len(out)-1].from) < span {
			n += b[1]
			continue
		}
		out[len(out)-1].to = from
		out = append(out, sweepSlice{from: from})
		n = b[1]
	}
	if len(out) > 0 {
		out[len(out)-1].last = true
	}
	return out, total
}

// stepCodeBits is how many low bits of a sort key hold the step (stepCode).
const stepCodeBits = 4

// stepCode packs a step of −1, 0 or +1 to in_flight (di) and queue_depth
// (dq) into the low bits of its sort key.
func stepCode(di, dq int8) (uint64, error) {
	if di < -1 || di > 1 || dq < -1 || dq > 1 {
		return 0, fmt.Errorf("a step of (%d, %d): steps are -1, 0 or 1", di, dq)
	}
	return uint64((di+1)*3 + (dq + 1)), nil
}

// stepOf unpacks a sort key's step.
func stepOf(key uint64) (di, dq int64) {
	c := int64(key & (1<<stepCodeBits - 1))
	return c/3 - 1, c%3 - 1
}

// stepFiles holds each slice's steps as sort keys, in a file of its own in
// dir, appended a buffer at a time: the steps are read a chunk of spans at
// a time in the spans' order, so every slice gets some from most chunks.
// A key is the step's instant's offset from its slice's start in the high
// bits and what else orders the steps and what they are in the low ones:
// for the pool, the step (stepCodeBits); for the attribution, the replica
// and the steps (gap_sweep_keys.go).
type stepFiles struct {
	dir     string
	name    string // the files' prefix
	lowBits int    // the bits below the offset
	slices  []sweepSlice
	bufs    [][]byte
	counts  []int64 // keys added to each slice
	bufCap  int
	last    int // the slice of the last step added
	rbuf    []byte
}

// stepFileBuffers is the memory of all the slices' buffers together.
const stepFileBuffers = 64 << 20

// newStepFiles files the pool's steps.
func newStepFiles(dir string, slices []sweepSlice) *stepFiles {
	return newKeyFiles(dir, "pool_sweep", slices, stepCodeBits)
}

// newKeyFiles files keys of lowBits below the offset, in files named after
// name.
func newKeyFiles(dir, name string, slices []sweepSlice, lowBits int) *stepFiles {
	c := min(64<<10, max(4<<10, stepFileBuffers/max(1, len(slices))))
	return &stepFiles{dir: dir, name: name, lowBits: lowBits, slices: slices, bufs: make([][]byte, len(slices)), counts: make([]int64, len(slices)), bufCap: c &^ 7}
}

func (f *stepFiles) path(i int) string {
	return filepath.Join(f.dir, fmt.Sprintf("%s_%d.keys", f.name, i))
}

// add adds a step at instant t of di to in_flight and dq to queue_depth to
// its slice.
func (f *stepFiles) add(t int64, di, dq int8) error {
	c, err := stepCode(di, dq)
	if err != nil {
		return err
	}
	return f.addKey(t, c)
}

// addKey adds the key of instant t and low (less than 2^lowBits) to its
// slice.
func (f *stepFiles) addKey(t int64, low uint64) error {
	if len(f.slices) == 0 {
		return fmt.Errorf("a step at %d µs, and no slices: the bins counted none", t)
	}
	i := f.find(t)
	sl := f.slices[i]
	off := uint64(t) - uint64(sl.from)
	if t < sl.from || off >= 1<<(64-f.lowBits) {
		return fmt.Errorf("a step at %d µs outside the slices, which start at %d µs: the bins missed it", t, f.slices[0].from)
	}
	if f.bufs[i] == nil {
		f.bufs[i] = make([]byte, 0, f.bufCap)
	}
	f.bufs[i] = binary.LittleEndian.AppendUint64(f.bufs[i], off<<f.lowBits|low)
	f.counts[i]++
	if len(f.bufs[i]) == f.bufCap {
		return f.flush(i)
	}
	return nil
}

// find gives the slice that would hold instant t: the first that ends after
// it, or the last.
func (f *stepFiles) find(t int64) int {
	if sl := f.slices[f.last]; t >= sl.from && (sl.last || t < sl.to) {
		return f.last
	}
	f.last = sort.Search(len(f.slices), func(j int) bool { return f.slices[j].last || t < f.slices[j].to })
	return f.last
}

func (f *stepFiles) flush(i int) error {
	if len(f.bufs[i]) == 0 {
		return nil
	}
	fh, err := os.OpenFile(f.path(i), os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return err
	}
	_, err = fh.Write(f.bufs[i])
	if cerr := fh.Close(); err == nil {
		err = cerr
	}
	f.bufs[i] = f.bufs[i][:0]
	return err
}

// done writes what the buffers hold and lets them go.
func (f *stepFiles) done() error {
	for i := range f.bufs {
		if err := f.flush(i); err != nil {
			return err
		}
		f.bufs[i] = nil
	}
	return nil
}

// read gives slice i's keys, in keys' memory when it is large enough, and
// removes its file.
func (f *stepFiles) read(i int, keys []uint64) ([]uint64, error) {
	keys = grow(keys, int(f.counts[i]))
	if len(keys) == 0 {
		return keys, nil
	}
	fh, err := os.Open(f.path(i))
	if err != nil {
		return nil, err
	}
	defer fh.Close()
	if f.rbuf == nil {
		f.rbuf = make([]byte, 1<<20)
	}
	for n := 0; n < len(keys); {
		m := min(len(f.rbuf), 8*(len(keys)-n))
		if _, err := io.ReadFull(fh, f.rbuf[:m]); err != nil {
			return nil, fmt.Errorf("%s: %w", filepath.Base(f.path(i)), err)
		}
		for j := 0; j < m; j += 8 {
			keys[n] = binary.LittleEndian.Uint64(f.rbuf[j:])
			n++
		}
	}
	if err := fh.Close(); err != nil {
		return nil, err
	}
	return keys, os.Remove(f.path(i))
}

// remove removes every slice's file.
func (f *stepFiles) remove() {
	for i := range f.slices {
		os.Remove(f.path(i))
	}
}

func grow(s []uint64, n int) []uint64 {
	if cap(s) < n {
		return make([]uint64, n)
	}
	return s[:n]
}

// radixSort sorts keys, using buf (as long) as scratch, and gives the
// sorted keys and the other slice. It sorts by digits of up to 11 bits, as
// few as the largest key needs (a slice's keys take about 35 bits), their
// counts all taken in one pass.
func radixSort(keys, buf []uint64) ([]uint64, []uint64) {
	var top uint64
	for _, k := range keys {
		top |= k
	}
	width := bits.Len64(top)
	passes := (width + 10) / 11
	if passes == 0 {
		return keys, buf
	}
	digit := (width + passes - 1) / passes
	mask := uint64(1)<<digit - 1
	counts := make([][]int, passes)
	for p := range counts {
		counts[p] = make([]int, 1<<digit)
	}
	for _, k := range keys {
		for p, c := range counts {
			c[k>>(p*digit)&mask]++
		}
	}
	for p, c := range counts {
		sum := 0
		for i, n := range c {
			c[i], sum = sum, sum+n
		}
		shift := p * digit
		for _, k := range keys {
			d := k >> shift & mask
			buf[c[d]] = k
			c[d]++
		}
		keys, buf = buf, keys
	}
	return keys, buf
}

// sliceKeys walks a sweep's slices in order, each slice's keys read from
// its file and sorted: the pool's sweep's and the attribution's. A
// goroutine reads and sorts the next slice while this one is swept (start,
// stop): the sort is most of a slice's work, and the sweep runs on the
// thread of DuckDB's Arrow scan, one batch at a time, while the other core
// may be idle.
type sliceKeys struct {
	ctx   context.Context
	files *stepFiles
	name  string // the sweep, for errors

	next int      // the next slice to take
	keys []uint64 // the current slice's keys, sorted
	base int64    // their instants' offset: the slice's start
	pos  int      // the next key to apply
	// the time spent sorting, for the debug log.
	sortTime time.Duration

	ahead chan sortedSlice // the slices, read and sorted, in order
	spare chan []uint64    // a swept slice's memory, back to the reader
	quit  chan struct{}    // closed by stop
	done  chan struct{}    // closed when the reader has returned
}

// sortedSlice is a slice's keys, sorted, with the time the sort took, or
// the error that stopped the reading.
type sortedSlice struct {
	keys []uint64
	took time.Duration
	err  error
}

// read takes the next slice's keys, sorted, from the reader goroutine,
// which it starts on its first call.
func (s *sliceKeys) read() error {
	if err := s.ctx.Err(); err != nil {
		return err
	}
	if s.ahead == nil {
		s.start()
	}
	var r sortedSlice
	select {
	case r = <-s.ahead:
	case <-s.ctx.Done():
		return s.ctx.Err()
	}
	if r.err != nil {
		return fmt.Errorf("analyze %s: %w", s.name, r.err)
	}
	if s.keys != nil {
		select {
		case s.spare <- s.keys:
		default:
		}
	}
	s.sortTime += r.took
	s.keys, s.base, s.pos = r.keys, s.files.slices[s.next].from, 0
	s.next++
	return nil
}

// start starts the reader: it reads each slice's keys from its file and
// sorts them, in order, and hands them over one at a time, so that at most
// one slice waits sorted beside the one being swept. It stops at the first
// error, which it hands over in place of the slice, and when stop is
// called or the context is done.
func (s *sliceKeys) start() {
	s.ahead = make(chan sortedSlice)
	s.spare = make(chan []uint64, 1)
	s.quit = make(chan struct{})
	s.done = make(chan struct{})
	go func() {
		defer close(s.done)
		hand := func(r sortedSlice) bool {
			select {
			case s.ahead <- r:
				return true
			case <-s.quit:
				return false
			case <-s.ctx.Done():
				return false
			}
		}
		var keys, buf []uint64
		for i := range s.files.slices {
			select {
			case keys = <-s.spare:
			default:
				keys = nil
			}
			var err error
			if keys, err = s.files.read(i, keys); err != nil {
				hand(sortedSlice{err: err})
				return
			}
			start := time.Now()
			if len(keys) > 0 {
				buf = grow(buf, len(keys))
				keys, buf = radixSort(keys, buf)
			}
			if !hand(sortedSlice{keys: keys, took: time.Since(start)}) {
				return
			}
		}
	}()
}

// stop ends the reader, if it runs, and waits for it: the slices' files
// are removed after. A second stop does nothing.
func (s *sliceKeys) stop() {
	if s.quit == nil {
		return
	}
	close(s.quit)
	<-s.done
	s.quit = nil
}
