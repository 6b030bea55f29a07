package scan

import (
	"errors"
	"strconv"
	"strings"
	"testing"
	"testing/iotest"
)

// TestJSONDocs: documents are read one at a time, on the line they start,
// whatever the whitespace between them; a bad one ends the stream with
// its position, a large one and a read error end it with an error.
func TestJSONDocs(t *testing.T) {
	in := "\ufeff\n\n{\"a\":1}\n{\"b\":\n  [1,\n   2]}   {\"c\":3}\n\n\n" + strings.Repeat(" ", 100<<10) + "\n{\"d\":[}\n{\"e\":5}\n"
	for _, split := range []int{0, 5, 100} {
		// head: the first split bytes already read, as prometheus does.
		d := NewDocs("f", []byte(in[:split]), iotest.HalfReader(strings.NewReader(in[split:])), 1<<20)
		var got []string
		for {
			doc, ok := d.Next()
			if !ok {
				break
			}
			if doc.Bad != nil {
				got = append(got, itoa64(doc.Line)+" bad "+itoa64(int64(doc.Bad.Pos))+" "+doc.Bad.Msg+" "+string(doc.Raw))
				continue
			}
			got = append(got, itoa64(doc.Line)+" "+string(doc.Data))
		}
		if err := d.Err(); err != nil {
			t.Fatal(err)
		}
		want := []string{
			`3 {"a":1}`,
			"4 {\"b\":\n  [1,\n   2]}",
			`6 {"c":3}`,
			`10 bad 6 invalid JSON: invalid character '}' looking for beginning of value {"d":[}` + "\n" + `{"e":5}` + "\n",
		}
		if strings.Join(got, "|") != strings.Join(want, "|") {
			t.Errorf("split %d:\n%q\nwant\n%q", split, got, want)
		}
	}

	d := NewDocs("f", nil, strings.NewReader(`{"a":"`+strings.Repeat("x", 3<<20)+`"}`), 1<<20)
	if _, ok := d.Next(); ok || d.Err() == nil || d.Err().Error() != "f:1: JSON document larger than 1 MiB; split the input" {
		t.Errorf("large document: ok %v, err %v", ok, d.Err())
	}
	boom := errors.New("boom")
	d = NewDocs("f", nil, iotest.DataErrReader(iotest.ErrReader(boom)), 1<<20)
	if _, ok := d.Next(); ok || !errors.Is(d.Err(), boom) {
		t.Errorf("read error: ok %v, err %v", ok, d.Err())
	}
	d = NewDocs("f", nil, strings.NewReader(`{"a":`+"\n"), 1<<20)
	if doc, ok := d.Next(); !ok || doc.Bad == nil || doc.Bad.Msg != "invalid JSON: unexpected EOF" {
		t.Errorf("truncated: %+v %v", doc, ok)
	}
}

func itoa64(n int64) string { return strconv.FormatInt(n, 10) }
