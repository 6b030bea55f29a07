package ingest

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tpsreport/tpsreport/schemas"
)

// TestRunKongWithoutStartedAt: a Kong AI proxy entry without started_at
// (the first of testdata/kong/file_log.good.jsonl with the key removed) is
// detected as kong and rejected for the missing field, instead of making
// --format auto fail with "cannot detect the format".
func TestRunKongWithoutStartedAt(t *testing.T) {
	b, err := os.ReadFile("testdata/kong/file_log.good.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	var v map[string]any
	if err := json.Unmarshal([]byte(lines[0]), &v); err != nil {
		t.Fatal(err)
	}
	if _, ok := v["ai"]; !ok {
		t.Fatal("the fixture's first entry has no ai block")
	}
	delete(v, "started_at")
	first, _ := json.Marshal(v)
	if got := detectFormat(first); got != "kong" {
		t.Errorf("detected %q, want kong", got)
	}

	dir := t.TempDir()
	in := filepath.Join(dir, "kong.jsonl")
	writeFile(t, in, []byte(string(first)+"\n"+strings.Join(lines[1:], "\n")+"\n"))
	out := filepath.Join(dir, "out")
	m, err := Run(context.Background(), Options{RunID: "r", OutDir: out, Inputs: []string{in}})
	if err != nil {
		t.Fatal(err)
	}
	// The fixture's 5 lines give 6 spans (line 3 holds two tries, its
	// golden file says); line 1's is rejected.
	if want := (schemas.Counts{Read: 6, Written: 5, Rejected: 1}); m.Counts != want || m.Inputs[0].Format != "kong" {
		t.Errorf("counts %+v format %s, want %+v kong", m.Counts, m.Inputs[0].Format, want)
	}
	if rej := readRejects(t, out); len(rej) != 1 || rej[0].Line != 1 || rej[0].Kind != "missing_field" || rej[0].Reason != "missing started_at" {
		t.Errorf("rejects %+v", rej)
	}
}
