package scan

import (
	"bytes"
	"fmt"
	"io"
	"strconv"
)

const (
	// DefaultMaxLineBytes is the line limit when none is given.
	DefaultMaxLineBytes = 1 << 20
	// minLineBuffer is the initial read buffer of a Lines; it grows
	// up to the line limit only when a line needs it.
	minLineBuffer = 256 << 10
	// TooLongKeep is how much of an over-long line is kept for its reject's
	// raw column (which is cut to 1 KiB later, after prompt removal).
	TooLongKeep = 4 << 10
)

var BOM = []byte{0xEF, 0xBB, 0xBF}

// MaxSkippedLine bounds how far a line over the limit is read in search of
// its newline (at least 4 times the limit): an input with no newline in so
// many bytes, such as /dev/zero or a binary file, is no log of lines, and
// reading on could last forever. A variable for the tests.
var MaxSkippedLine int64 = 1 << 30

// EndlessLineError ends an input in which a line goes on past MaxSkippedLine
// bytes without a newline. The input's reader places it at the file.
type EndlessLineError struct {
	Line  int64 // 1-based number of the line
	Limit int64 // bytes read without a newline
}

// Error does not name the line: Run prints the error as a ParseError, at
// the file and line.
func (e *EndlessLineError) Error() string {
	return fmt.Sprintf("no newline in the first %s of the line: not a log of lines; the input is not read further", byteSize(e.Limit))
}

// Unwrap returns the sentinel kind: a line too long.
func (e *EndlessLineError) Unwrap() error { return ErrTooLong }

// byteSize prints n bytes in the largest binary unit that divides it.
func byteSize(n int64) string {
	switch {
	case n >= 1<<30 && n%(1<<30) == 0:
		return strconv.FormatInt(n>>30, 10) + " GiB"
	case n >= 1<<20 && n%(1<<20) == 0:
		return strconv.FormatInt(n>>20, 10) + " MiB"
	case n >= 1<<10 && n%(1<<10) == 0:
		return strconv.FormatInt(n>>10, 10) + " KiB"
	}
	return strconv.FormatInt(n, 10) + " bytes"
}

// Lines splits a stream into lines and counts them. Unlike
// bufio.Scanner it has no fixed token limit and never aborts on a long line:
// a line longer than max bytes is skipped up to its newline without being
// buffered and reported through Long, with its length and first bytes, so
// the reader can reject it and go on. Memory stays bounded by max.
//
// Lines end at "\n"; a "\r" before the "\n" is removed. A last line without
// "\n" is still a line. A UTF-8 byte order mark at the start is dropped.
type Lines struct {
	r   io.Reader
	Max int

	buf        []byte
	start, end int // buf[start:end] is read but not yet split
	scanned    int // leading bytes of buf[start:end] known to hold no '\n'
	bomDone    bool
	eof        bool
	err        error

	n      int64  // number of the current line
	line   []byte // the current line, or the first bytes of an over-long one
	length int64  // length of the current line in bytes, without its terminator
	long   bool   // the current line is longer than max
	keep   []byte // holds the first bytes of an over-long line
}

func NewLines(r io.Reader, max int) *Lines {
	if max <= 0 {
		max = DefaultMaxLineBytes
	}
	size := minLineBuffer
	if size > max+2 {
		size = max + 2
	}
	return &Lines{r: r, Max: max, buf: make([]byte, size)}
}

// Next advances to the next line. It returns false at the end of the input
// or on a read error, which Err then returns.
func (s *Lines) Next() bool {
	s.long = false
	for !s.bomDone {
		if s.end-s.start >= len(BOM) || s.eof || s.err != nil {
			if bytes.HasPrefix(s.buf[s.start:s.end], BOM) {
				s.start += len(BOM)
			}
			s.bomDone = true
			break
		}
		s.fill()
	}
	for {
		if i := bytes.IndexByte(s.buf[s.start+s.scanned:s.end], '\n'); i >= 0 {
			j := s.start + s.scanned + i
			line := s.buf[s.start:j]
			if len(line) > 0 && line[len(line)-1] == '\r' {
				line = line[:len(line)-1]
			}
			s.start, s.scanned = j+1, 0
			s.set(line)
			return true
		}
		s.scanned = s.end - s.start
		if s.err != nil {
			return false
		}
		if s.eof {
			if s.start == s.end {
				return false
			}
			line := s.buf[s.start:s.end]
			s.start, s.scanned = s.end, 0
			s.set(line)
			return true
		}
		if s.end-s.start >= s.Max+2 {
			// Even with a "\r\n" still to come, the line is over the limit.
			return s.skipLong()
		}
		s.fill()
	}
}

// set makes line the current one.
func (s *Lines) set(line []byte) {
	s.n++
	s.length = int64(len(line))
	s.line = line
	if len(line) > s.Max {
		s.long = true
		s.line = line[:min(len(line), TooLongKeep)]
	}
}

// skipLong consumes the rest of a line that does not fit the limit, keeping
// only its first bytes and counting its length.
func (s *Lines) skipLong() bool {
	s.keep = append(s.keep[:0], s.buf[s.start:s.start+min(TooLongKeep, s.end-s.start)]...)
	length := int64(s.end - s.start)
	last := s.buf[s.end-1]
	s.start, s.end, s.scanned = 0, 0, 0
	for {
		s.fill()
		i := bytes.IndexByte(s.buf[:s.end], '\n')
		if n := TooLongKeep - len(s.keep); n > 0 {
			end := s.end
			if i >= 0 {
				end = i
			}
			s.keep = append(s.keep, s.buf[:min(n, end)]...)
		}
		if i >= 0 {
			length += int64(i)
			if i > 0 {
				last = s.buf[i-1]
			}
			if last == '\r' {
				length--
				if int64(len(s.keep)) > length {
					s.keep = s.keep[:length]
				}
			}
			s.start = i + 1
			break
		}
		length += int64(s.end)
		if s.end > 0 {
			last = s.buf[s.end-1]
		}
		s.end = 0
		if s.err != nil {
			return false
		}
		if limit := max(MaxSkippedLine, 4*int64(s.Max)); length > limit && !s.eof {
			s.err = &EndlessLineError{Line: s.n + 1, Limit: limit}
			return false
		}
		if s.eof {
			break
		}
	}
	s.n++
	s.long = true
	s.line = s.keep
	s.length = length
	return true
}

// fill reads more input after buf[end], compacting and growing the buffer
// as needed. It sets eof or err when the reader says so.
func (s *Lines) fill() {
	if s.start > 0 {
		copy(s.buf, s.buf[s.start:s.end])
		s.end -= s.start
		s.start = 0
	}
	if s.end == len(s.buf) {
		// Only a line shorter than max+2 gets here, so the buffer stays
		// within max+2 bytes.
		n := min(2*len(s.buf), s.Max+2)
		buf := make([]byte, n)
		copy(buf, s.buf[:s.end])
		s.buf = buf
	}
	for tries := 0; ; tries++ {
		n, err := s.r.Read(s.buf[s.end:])
		s.end += n
		if err == io.EOF {
			s.eof = true
			return
		}
		if err != nil {
			s.err = err
			return
		}
		if n > 0 {
			return
		}
		if tries == 100 {
			s.err = io.ErrNoProgress
			return
		}
	}
}

// Bytes returns the current line without its terminator, or the first bytes
// of it when Long. It is valid until the next call to Next.
func (s *Lines) Bytes() []byte { return s.line }

// Line returns the 1-based number of the current line.
func (s *Lines) Line() int64 { return s.n }

// Len returns the full length of the current line, without its terminator.
func (s *Lines) Len() int64 { return s.length }

// Long reports whether the current line is longer than the limit.
func (s *Lines) Long() bool { return s.long }

// Err returns the read error that stopped Next, or nil at a clean end.
func (s *Lines) Err() error { return s.err }

// IsBlank reports whether line holds only JSON whitespace.
func IsBlank(line []byte) bool {
	for _, c := range line {
		if c != ' ' && c != '\t' && c != '\r' {
			return false
		}
	}
	return true
}
