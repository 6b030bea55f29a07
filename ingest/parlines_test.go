package ingest

import (
	"fmt"
	"os"
	"runtime"
	"strings"
	"testing"
	"time"
)

// TestParallelLinesKeepOrder: lines decoded by several workers come out in
// the input's order, across many blocks, with their line numbers, and the
// lines that do not reach a decoder (blank, over-long) or that it leaves to
// the parsed path (not an object, not JSON) keep their places among them.
func TestParallelLinesKeepOrder(t *testing.T) {
	b, err := os.ReadFile("testdata/sglang/metrics/export.good.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	good := strings.SplitN(string(b), "\n", 2)[0]
	const id = `"id": "a1f3c0de9b7e4d2a"`
	if !strings.Contains(good, id) {
		t.Fatalf("the fixture's first line has no %s", id)
	}
	const n = 5 * blockLines * 4
	var lines []string
	want := map[int]string{} // line number -> what it gives
	for i := 1; i <= n; i++ {
		var line, kind string
		switch {
		case i%97 == 0:
			line, kind = "", "skip"
		case i%89 == 0:
			line, kind = `["an", "array"]`, "reject bad_type"
		case i%83 == 0:
			line, kind = `{"id": "x", `, "reject bad_json"
		case i%79 == 0:
			line, kind = `{"id": "`+strings.Repeat("y", 5000)+`"}`, "reject too_long"
		default:
			line, kind = strings.Replace(good, id, fmt.Sprintf(`"id": "r%d"`, i), 1), fmt.Sprintf("span r%d", i)
		}
		lines, want[i] = append(lines, line), kind
	}
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(4))
	rd := newSGLangMetricsReader(Input{Name: "order", R: strings.NewReader(strings.Join(lines, "\n")), MaxLineBytes: 4096})
	i := 0
	for rd.Next() {
		i++
		rec := rd.Record()
		var got string
		switch rec.Kind {
		case KindSpan:
			got = "span " + rec.Span.RequestID
		case KindReject:
			got = "reject " + rec.Err.Kind()
			if rec.Err.Line != int64(i) || rec.Err.File != "order" {
				t.Errorf("line %d: reject at %s:%d", i, rec.Err.File, rec.Err.Line)
			}
		case KindSkip:
			got = "skip"
		}
		if rec.Line != int64(i) || got != want[i] {
			t.Fatalf("record %d: line %d, %s; want line %d, %s", i, rec.Line, got, i, want[i])
		}
	}
	if err := rd.Err(); err != nil || i != n {
		t.Fatalf("read %d records of %d lines, err %v", i, n, err)
	}
}

// TestParallelLinesStop: a reader abandoned before its end stops its
// goroutines when the pipeline stops it.
func TestParallelLinesStop(t *testing.T) {
	before := runtime.NumGoroutine()
	input := strings.Repeat(`{"id": "a"}`+"\n", 100*blockLines)
	rd := newLiteLLMReader(Input{Name: "stop", R: strings.NewReader(input), MaxLineBytes: DefaultMaxLineBytes})
	for range 10 {
		if !rd.Next() {
			t.Fatal(rd.Err())
		}
	}
	if runtime.NumGoroutine() <= before {
		t.Fatal("the reader runs no goroutine: the test tests nothing")
	}
	rd.(stopper).stop()
	for deadline := time.Now().Add(10 * time.Second); runtime.NumGoroutine() > before; {
		if time.Now().After(deadline) {
			t.Fatalf("%d goroutines left running, %d before", runtime.NumGoroutine()-before, before)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
