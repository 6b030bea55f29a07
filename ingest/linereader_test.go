package ingest

import (
	"fmt"
	"strings"
	"testing"

	"github.com/tpsreport/tpsreport/ingest/internal/scan"
)

func TestLineReaderKinds(t *testing.T) {
	in := "{}\n \t\r\n" + strings.Repeat("z", 50) + "\nbad\n"
	r := newLineReader(Input{Name: "x.log", R: strings.NewReader(in), MaxLineBytes: 20},
		func(line []byte, rec *Record) error {
			if string(line) == "bad" {
				return scan.Errorf(ErrBadValue, 1, "bad line")
			}
			rec.Kind = KindSpan
			return nil
		})
	var got []string
	for r.Next() {
		rec := r.Record()
		s := fmt.Sprintf("%d:%v", rec.Line, rec.Kind)
		if rec.Kind == KindReject {
			s += fmt.Sprintf(":%s:%s:%d", rec.Err, rec.Err.Kind(), len(rec.Raw))
		}
		got = append(got, s)
	}
	if r.Err() != nil {
		t.Fatal(r.Err())
	}
	want := []string{
		"1:span",
		"2:skip",
		"3:reject:x.log:3: line is 50 bytes, longer than the limit of 20 bytes:too_long:50",
		"4:reject:x.log:4:2: bad line:bad_value:3",
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("got\n%q\nwant\n%q", got, want)
	}
}
