package ingest

import (
	"io"
	"runtime"
	"testing"
)

// byteStream yields n copies of the byte c without holding them.
type byteStream struct {
	c byte
	n int64
}

func (s *byteStream) Read(p []byte) (int, error) {
	if s.n <= 0 {
		return 0, io.EOF
	}
	p = p[:min(int64(len(p)), s.n)]
	for i := range p {
		p[i] = s.c
	}
	s.n -= int64(len(p))
	return len(p), nil
}

// allocatedBytes returns the bytes f allocates on the heap.
func allocatedBytes(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// TestFormatsReadBlankLinesInBoundedMemory: every format reads an input of
// blank lines with a few hundred KiB of buffers, whatever its length: no
// format holds the whole input, or a record per line. prometheus used to
// allocate about 1.3 KB a line (16 MB of newlines took 22 GB), vllm-bench
// the whole input. The inputs are sized so that the old readers allocate
// 30 to 200 times the bound, not so much that the test would hurt.
func TestFormatsReadBlankLinesInBoundedMemory(t *testing.T) {
	const bound = 1 << 20
	for _, name := range Formats() {
		lines := int64(200_000) // prometheus held ≈ 260 MB for these
		if name == "vllm-bench" {
			lines = 32 << 20 // held whole: 32 MB and more
		}
		t.Run(name, func(t *testing.T) {
			n := int64(0)
			var err error
			got := allocatedBytes(func() {
				r := formats[name].New(Input{Name: "blank", R: &byteStream{c: '\n', n: lines}, MaxLineBytes: DefaultMaxLineBytes, Mapping: &Mapping{}})
				for r.Next() {
					n++
				}
				err = r.Err()
			})
			if err != nil {
				t.Fatal(err)
			}
			if got > bound {
				t.Errorf("%d blank lines: %d bytes allocated, want at most %d", lines, got, bound)
			}
			t.Logf("%d records, %d bytes allocated", n, got)
		})
	}
}
