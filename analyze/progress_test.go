package analyze

import (
	"bytes"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tpsreport/tpsreport/schemas"
)

// syncBuffer is a bytes.Buffer the progress goroutine and the test share.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func TestProgressLine(t *testing.T) {
	var buf syncBuffer
	p := startProgress(&buf)
	p.set("load_spans")
	p.set("pool_segments")
	p.draw()
	p.stop()
	out := buf.String()
	if !strings.Contains(out, "\r\x1b[Kanalyze ") || !strings.Contains(out, "s  statement 2: pool_segments") {
		t.Errorf("progress line %q: want the statement count and name, rewritten in place", out)
	}
	if !strings.HasSuffix(out, "\r\x1b[K") {
		t.Errorf("progress %q does not clear its line when it stops", out)
	}

	// Without a writer nothing is drawn and every method is a no-op.
	var none *progress = startProgress(nil)
	none.set("x")
	none.stop()
}

func TestWindowCount(t *testing.T) {
	const s = int64(time.Second / time.Microsecond)
	for _, tc := range []struct {
		t0, t1, w, want int64
	}{
		{0, 60 * s, 60 * s, 1},         // one aligned window
		{0, 60*s + 1, 60 * s, 2},       // one µs into the next
		{30 * s, 90 * s, 60 * s, 2},    // straddles a boundary
		{10 * s, 10 * s, 60 * s, 1},    // no extent: one empty window
		{0, 3 * 60 * s, 1000, 180_000}, // 3 min at 1 ms
		{5 * s, 7 * s, s, 2},           // [5, 7) s at 1 s
		{-2 * s, 1, s, 3},              // before the epoch: floor, not truncation
	} {
		if got := windowCount(tc.t0, tc.t1, tc.w); got != tc.want {
			t.Errorf("windowCount(%d, %d, %d) = %d, want %d", tc.t0, tc.t1, tc.w, got, tc.want)
		}
	}
	if err := checkWindowCount(0, 3*60*s, 1000); err == nil ||
		err.Error() != "--window 1ms cuts the run's 3m0s into 180000 windows, more than 100000: use a wider window, such as 1s" {
		t.Errorf("checkWindowCount: %v", err)
	}
	// An extent past what a time.Duration holds (epoch 0 to year 9999) is
	// named in days (253,370,764,800 s = 2,932,532 days, 1,440 windows each),
	// and no width fits it.
	y9999 := int64(253370764800) * s
	if err := checkWindowCount(0, y9999, 60*s); err == nil ||
		err.Error() != "--window 1m0s cuts the run's 2932532 days into 4222846080 windows, more than 100000: analyse part of it with --from and --to" {
		t.Errorf("epoch 0 to 9999: %v", err)
	}
	if err := checkWindowCount(0, 24*3600*s, s); err != nil {
		t.Errorf("a day at 1 s (86,400 windows) is refused: %v", err)
	}
}

// TestOutputsAreDerivedFiles: ingest removes exactly the files analyze
// writes when it replaces a dataset (schemas.DerivedFiles), so no output of
// an old analysis stays beside new spans.
func TestOutputsAreDerivedFiles(t *testing.T) {
	got := slices.Sorted(slices.Values(outputFiles))
	want := slices.Sorted(slices.Values(schemas.DerivedFiles))
	if !slices.Equal(got, want) {
		t.Errorf("analyze writes %v, ingest removes %v", got, want)
	}
}
