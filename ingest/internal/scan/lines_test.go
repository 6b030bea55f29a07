package scan

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
	"testing/iotest"
)

// splitAll runs a Lines over input and describes each line as
// "n:text" or "n:LONG(len):prefix".
func splitAll(t *testing.T, r io.Reader, max int) ([]string, error) {
	t.Helper()
	s := NewLines(r, max)
	var got []string
	for s.Next() {
		if s.Long() {
			p := string(s.Bytes())
			if len(p) > 8 {
				p = p[:8]
			}
			got = append(got, fmt.Sprintf("%d:LONG(%d):%s", s.Line(), s.Len(), p))
			continue
		}
		if int64(len(s.Bytes())) != s.Len() {
			t.Fatalf("line %d: Len %d, len(Bytes) %d", s.Line(), s.Len(), len(s.Bytes()))
		}
		got = append(got, fmt.Sprintf("%d:%s", s.Line(), s.Bytes()))
	}
	return got, s.Err()
}

func TestLineSplitter(t *testing.T) {
	long := strings.Repeat("x", 100)
	tests := []struct {
		name string
		in   string
		max  int
		want []string
	}{
		{"empty", "", 10, nil},
		{"one newline", "\n", 10, []string{"1:"}},
		{"no final newline", "a\nb", 10, []string{"1:a", "2:b"}},
		{"final newline", "a\nb\n", 10, []string{"1:a", "2:b"}},
		{"crlf", "a\r\nb\r\n\r\n", 10, []string{"1:a", "2:b", "3:"}},
		{"lone cr kept", "a\rb\n", 10, []string{"1:a\rb"}},
		{"cr at eof kept", "a\r", 10, []string{"1:a\r"}},
		{"blank lines", "\n\n  \n", 10, []string{"1:", "2:", "3:  "}},
		{"bom dropped", "\xEF\xBB\xBFa\nb", 10, []string{"1:a", "2:b"}},
		{"bom only at start", "a\n\xEF\xBB\xBFb", 10, []string{"1:a", "2:\xEF\xBB\xBFb"}},
		{"exactly max", "0123456789\nx", 10, []string{"1:0123456789", "2:x"}},
		{"exactly max with crlf", "0123456789\r\nx", 10, []string{"1:0123456789", "2:x"}},
		{"max+1", "0123456789A\nx", 10, []string{"1:LONG(11):01234567", "2:x"}},
		{"max+1 with crlf", "0123456789A\r\nx", 10, []string{"1:LONG(11):01234567", "2:x"}},
		{"long in the middle", "a\n" + long + "\nb\n", 10, []string{"1:a", "2:LONG(100):xxxxxxxx", "3:b"}},
		{"long with crlf", "a\r\n" + long + "\r\nb\r\n", 10, []string{"1:a", "2:LONG(100):xxxxxxxx", "3:b"}},
		{"long at eof", "a\n" + long, 10, []string{"1:a", "2:LONG(100):xxxxxxxx"}},
		{"long then newline at eof", long + "\n", 10, []string{"1:LONG(100):xxxxxxxx"}},
		{"two long", long + "\n" + long + "\n", 10, []string{"1:LONG(100):xxxxxxxx", "2:LONG(100):xxxxxxxx"}},
	}
	for _, tt := range tests {
		readers := map[string]func(string) io.Reader{
			"whole":   func(s string) io.Reader { return strings.NewReader(s) },
			"onebyte": func(s string) io.Reader { return iotest.OneByteReader(strings.NewReader(s)) },
			"half":    func(s string) io.Reader { return iotest.HalfReader(strings.NewReader(s)) },
		}
		for rname, mk := range readers {
			got, err := splitAll(t, mk(tt.in), tt.max)
			if err != nil {
				t.Errorf("%s/%s: error %v", tt.name, rname, err)
			}
			if fmt.Sprintf("%q", got) != fmt.Sprintf("%q", tt.want) {
				t.Errorf("%s/%s:\n got  %q\n want %q", tt.name, rname, got, tt.want)
			}
		}
	}
}

// TestLineSplitterHugeLine checks that a 10 MB line costs neither an abort
// nor a 10 MB buffer, and that counting goes on after it.
func TestLineSplitterHugeLine(t *testing.T) {
	const huge = 10 << 20
	in := io.MultiReader(
		strings.NewReader("first\n"),
		strings.NewReader(`{"prompt":"`+strings.Repeat("p", huge-len(`{"prompt":""}`))+`"}`+"\r\n"),
		strings.NewReader("third\n"),
	)
	s := NewLines(in, DefaultMaxLineBytes)
	var lines []string
	for s.Next() {
		if s.Long() {
			lines = append(lines, fmt.Sprintf("%d:LONG(%d):%d bytes kept", s.Line(), s.Len(), len(s.Bytes())))
		} else {
			lines = append(lines, fmt.Sprintf("%d:%s", s.Line(), s.Bytes()))
		}
	}
	if err := s.Err(); err != nil {
		t.Fatal(err)
	}
	want := []string{"1:first", fmt.Sprintf("2:LONG(%d):%d bytes kept", huge, TooLongKeep), "3:third"}
	if fmt.Sprint(lines) != fmt.Sprint(want) {
		t.Errorf("got %q, want %q", lines, want)
	}
	if len(s.buf) > DefaultMaxLineBytes+2 {
		t.Errorf("buffer grew to %d bytes, want at most the limit", len(s.buf))
	}
}

func TestLineSplitterReadError(t *testing.T) {
	boom := errors.New("boom")
	in := io.MultiReader(strings.NewReader("a\nb\npartial"), iotest.ErrReader(boom))
	got, err := splitAll(t, in, 100)
	if !errors.Is(err, boom) {
		t.Errorf("error %v, want %v", err, boom)
	}
	// Complete lines before the error are delivered; the cut line is not.
	if want := []string{"1:a", "2:b"}; fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("got %q, want %q", got, want)
	}
}

// TestLineSplitterEndlessLine: a line over the limit is skipped up to its
// newline, but no further than MaxSkippedLine (at least 4 times the limit)
// bytes: an input without a newline in so many ends with an error that
// says which line.
func TestLineSplitterEndlessLine(t *testing.T) {
	defer func(v int64) { MaxSkippedLine = v }(MaxSkippedLine)
	MaxSkippedLine = 1000
	// A long line that ends within the bound is skipped as before.
	got, err := splitAll(t, strings.NewReader("a\n"+strings.Repeat("x", 1000)+"\nb\n"), 10)
	if err != nil || strings.Join(got, " ") != "1:a 2:LONG(1000):xxxxxxxx 3:b" {
		t.Errorf("bounded long line: %q, %v", got, err)
	}
	// So is one that ends the input within the bound.
	got, err = splitAll(t, io.LimitReader(repeatByte('x'), 999), 10)
	if err != nil || strings.Join(got, " ") != "1:LONG(999):xxxxxxxx" {
		t.Errorf("long last line: %q, %v", got, err)
	}
	// An endless one ends the input.
	got, err = splitAll(t, io.MultiReader(strings.NewReader("a\nb\n"), repeatByte(0)), 10)
	var le *EndlessLineError
	if !errors.As(err, &le) || *le != (EndlessLineError{Line: 3, Limit: 1000}) || strings.Join(got, " ") != "1:a 2:b" {
		t.Fatalf("endless line: %q, %#v", got, err)
	}
	if !errors.Is(err, ErrTooLong) || err.Error() != "no newline in the first 1000 bytes of the line: not a log of lines; the input is not read further" {
		t.Errorf("error %q", err)
	}
	// At least 4 times the line limit is read.
	_, err = splitAll(t, repeatByte(0), 1024)
	if !errors.As(err, &le) || le.Limit != 4096 || le.Line != 1 {
		t.Errorf("limit 1024: %v", err)
	}
}

// repeatByte is an endless input of one byte.
type repeatByte byte

func (c repeatByte) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = byte(c)
	}
	return len(p), nil
}
