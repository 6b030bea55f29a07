package ingest

import (
	"fmt"
	"os"
	"strings"
	"testing"
	"time"
)

// TestSGLangUndatedStamps: SGLang logs of 2024 stamp lines with a time of
// day alone ("[04:40:55 TP0]"). They are detected as sglang-log; with --date
// their stats lines are samples on that day, moving on a day when the clock
// runs back past midnight; without it each is rejected with the reason (the
// .bad.want golden), never skipped as unused.
func TestSGLangUndatedStamps(t *testing.T) {
	day := time.Date(2024, 8, 31, 0, 0, 0, 0, time.UTC)
	read := func(t *testing.T, text string) []Record {
		t.Helper()
		rd := formats[SourceSGLangLog].New(Input{Name: "in.log", R: strings.NewReader(text), MaxLineBytes: DefaultMaxLineBytes, Date: day})
		var recs []Record
		for rd.Next() {
			recs = append(recs, *rd.Record())
		}
		if err := rd.Err(); err != nil {
			t.Fatal(err)
		}
		return recs
	}
	sample := func(r Record) string {
		if r.Kind != KindSample {
			return fmt.Sprintf("kind %v skip %v err %v", r.Kind, r.Skip, r.Err)
		}
		s := r.Sample
		return fmt.Sprintf("%s %d/%d kv %.2f", time.UnixMicro(s.TS).UTC().Format(time.DateTime), *s.InFlight, *s.QueueDepth, *s.KVCacheUsage)
	}
	for _, tt := range []struct {
		file string
		want []string
	}{
		// Line 1 and 10 of the paste.
		{"testdata/sglang/log/undated_issue1270.bad.log", []string{0: "2024-08-31 04:40:55 2/0 kv 0.00", 9: "2024-08-31 04:40:57 1/0 kv 0.00"}},
		// Two plain lines, then Prefill: in_flight = #running-req + #new-seq.
		{"testdata/sglang/log/undated_issue1612.bad.log", []string{2: "2024-08-31 16:43:29 1/0 kv 0.00", 3: "2024-08-31 16:43:29 5/38 kv 0.04"}},
	} {
		b, err := os.ReadFile(tt.file)
		if err != nil {
			t.Fatal(err)
		}
		if got := detectFormat(b); got != SourceSGLangLog {
			t.Errorf("%s detected as %q", tt.file, got)
		}
		recs := read(t, string(b))
		for i, want := range tt.want {
			if want == "" {
				continue
			}
			if i >= len(recs) {
				t.Fatalf("%s: %d records", tt.file, len(recs))
			}
			if got := sample(recs[i]); got != want {
				t.Errorf("%s record %d: %s, want %s", tt.file, i+1, got, want)
			}
		}
	}
	// Past midnight the day moves on.
	const line = "[%s TP0] Decode batch. #running-req: 3, #token: 10, token usage: 0.10, gen throughput (token/s): 1.00, #queue-req: 1\n"
	recs := read(t, fmt.Sprintf(line, "23:59:58")+fmt.Sprintf(line, "00:00:02"))
	if a, b := sample(recs[0]), sample(recs[1]); a != "2024-08-31 23:59:58 3/1 kv 0.10" || b != "2024-09-01 00:00:02 3/1 kv 0.10" {
		t.Errorf("across midnight: %s, %s", a, b)
	}
}
