package ingest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tpsreport/tpsreport/schemas"
)

// liteLLMPayloads returns n LiteLLM payloads (the first line of
// testdata/litellm/slp_retry.good.jsonl with ids 1..n), each a span.
func liteLLMPayloads(t *testing.T, n int) []map[string]any {
	t.Helper()
	b, err := os.ReadFile("testdata/litellm/slp_retry.good.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	line, _, _ := bytes.Cut(b, []byte("\n"))
	var out []map[string]any
	for i := range n {
		var v map[string]any
		if err := json.Unmarshal(line, &v); err != nil {
			t.Fatal(err)
		}
		v["id"] = fmt.Sprintf("req-%d", i+1)
		out = append(out, v)
	}
	return out
}

// TestRunResyncsDamagedJSON: in a pretty-printed or array-shaped gateway
// file, a damaged record is rejected and the records after it are read:
// the reader resynchronises at the next record, counts what it skipped as
// one reject, and Run warns. (Before, every later record was dropped,
// uncounted, with exit 0.)
func TestRunResyncsDamagedJSON(t *testing.T) {
	recs := liteLLMPayloads(t, 6)
	pretty := func(v any, prefix string) string {
		b, err := json.MarshalIndent(v, prefix, "  ")
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	compact := func(v any) string {
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	// damage puts a bad byte into the status of record i's text.
	damage := func(s string) string { return strings.Replace(s, `"status":`, `"status": oops`, 1) }
	const bad = "invalid JSON: invalid character 'o' looking for beginning of value "
	var docs, array, cmp []string
	for i, v := range recs {
		d, a, c := pretty(v, ""), "  "+pretty(v, "  "), compact(v)
		if i == 1 || i == 4 {
			d, a, c = damage(d), damage(a), damage(c)
		}
		docs, array, cmp = append(docs, d), append(array, a), append(cmp, c)
	}
	// The last record damaged too: the rest of the input is one reject.
	lastBad := append(append([]string{}, docs[:5]...), damage(docs[5]))
	// By hand: a pretty record is L = 1564 bytes (65 lines), so documents
	// start at k*(L+1) (plus 5 for each " oops" before), and a damaged one
	// is skipped with its newline: L+5+1 = 1570. In the array, "[\n" then
	// elements of L+2*65 = 1694 bytes joined by ",\n": the second '{' is
	// at 2+1694+2+2 = 1700, and skipping it reaches the next '{': 1694-2
	// (its indent) + 5 + 2 (",\n") + 2 (the next indent) = 1701. A compact
	// record is C = 1243 bytes: the second at 1+C+1 = 1245, skipped with its
	// comma: C+5+1 = 1249.
	skipped := func(n int) string { return fmt.Sprintf(bad+"(skipped %d bytes to the next record)", n) }
	type reject struct {
		offset int64
		reason string
	}
	for _, tt := range []struct {
		name, data string
		counts     schemas.Counts
		ids        []string
		rejects    []reject
	}{
		{"documents", strings.Join(docs, "\n") + "\n",
			schemas.Counts{Read: 6, Written: 4, Rejected: 2}, []string{"req-1", "req-3", "req-4", "req-6"},
			[]reject{{1565, skipped(1570)}, {4*1565 + 5, skipped(1570)}}},
		{"array", "[\n" + strings.Join(array, ",\n") + "\n]\n",
			schemas.Counts{Read: 6, Written: 4, Rejected: 2}, []string{"req-1", "req-3", "req-4", "req-6"},
			[]reject{{1700, skipped(1701)}, {2 + 4*1696 + 5 + 2, skipped(1701)}}},
		{"compact array", "[" + strings.Join(cmp, ",") + "]",
			schemas.Counts{Read: 6, Written: 4, Rejected: 2}, []string{"req-1", "req-3", "req-4", "req-6"},
			[]reject{{1245, skipped(1249)}, {1 + 4*1244 + 5, skipped(1249)}}},
		{"last record damaged", strings.Join(lastBad, "\n") + "\n",
			schemas.Counts{Read: 6, Written: 3, Rejected: 3}, []string{"req-1", "req-3", "req-4"},
			[]reject{{1565, skipped(1570)}, {4*1565 + 5, skipped(1570)},
				{5*1565 + 10, bad + "(the rest of the input is skipped: no record starts after it)"}}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			in := filepath.Join(dir, "gw.json")
			writeFile(t, in, []byte(tt.data))
			out := filepath.Join(dir, "out")
			var logs bytes.Buffer
			m, err := Run(context.Background(), Options{RunID: "r", OutDir: out, Inputs: []string{in}, Log: newTestLogger(&logs)})
			if err != nil {
				t.Fatal(err)
			}
			if m.Counts != tt.counts || m.Inputs[0].Format != "litellm" {
				t.Errorf("counts %+v (format %s), want %+v", m.Counts, m.Inputs[0].Format, tt.counts)
			}
			var ids []string
			for _, sp := range readSpans(t, out) {
				ids = append(ids, sp.SpanID)
			}
			if strings.Join(ids, " ") != strings.Join(tt.ids, " ") {
				t.Errorf("spans %v, want %v", ids, tt.ids)
			}
			var got []reject
			for _, r := range readRejects(t, out) {
				if r.Kind != "bad_json" || r.Line != 0 || strings.Contains(r.Raw, "capital of Australia") {
					t.Errorf("reject %+v", r)
				}
				got = append(got, reject{r.Offset, r.Reason})
			}
			if fmt.Sprint(got) != fmt.Sprint(tt.rejects) {
				t.Errorf("rejects\n%v\nwant\n%v", got, tt.rejects)
			}
			warn := fmt.Sprintf("%d damaged record(s) of %s rejected, reading on at the next record", tt.counts.Rejected, in)
			if strings.Count(logs.String(), "level=WARN") != 1 || !strings.Contains(logs.String(), warn) {
				t.Errorf("log:\n%s\nwant one warning with %q", logs.String(), warn)
			}
		})
	}
}
