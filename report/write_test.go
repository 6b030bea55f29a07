package report

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tpsreport/tpsreport/internal/dataset"
)

// TestWriteIsOneSet: a report replaces its directory as a whole, verdict.json
// (Input.Extra) included: killed before the swap, the old report is whole;
// after it, the new one is, with no file of the old (review F11).
func TestWriteIsOneSet(t *testing.T) {
	for _, kill := range []string{"commit", "exchanged", ""} {
		dir := filepath.Join(t.TempDir(), "cmp")
		old := compareInput()
		old.Extra = []File{{"verdict.json", []byte(`{"overall":"PASS"}`)}}
		if _, err := Write(dir, old); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "stale.png"), []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
		oldPage, _ := os.ReadFile(filepath.Join(dir, "report.html"))
		in := compareInput()
		in.Command = "tpsreport compare again"
		in.Extra = []File{{"verdict.json", []byte(`{"overall":"FAIL"}`)}}
		restore := dataset.SetTestHooks(func(s string) bool { return s == kill }, func(int) bool { return false })
		_, err := Write(dir, in)
		if kill != "" && !errors.Is(err, dataset.ErrKilled) || kill == "" && err != nil {
			t.Fatalf("killed at %q: %v", kill, err)
		}
		dataset.Recover(dir)
		restore()
		verdict, _ := os.ReadFile(filepath.Join(dir, "verdict.json"))
		page, _ := os.ReadFile(filepath.Join(dir, "report.html"))
		_, staleErr := os.Stat(filepath.Join(dir, "stale.png"))
		samePage := string(page) == string(oldPage)
		switch {
		case kill == "commit" && (string(verdict) != `{"overall":"PASS"}` || !samePage || staleErr != nil):
			t.Errorf("killed before the swap: verdict %s, old page %v, stale.png %v: want the old set", verdict, samePage, staleErr)
		case kill != "commit" && (string(verdict) != `{"overall":"FAIL"}` || samePage || staleErr == nil):
			t.Errorf("killed at %q: verdict %s, old page %v, stale.png %v: want the new set", kill, verdict, samePage, staleErr)
		}
		entries, _ := os.ReadDir(filepath.Dir(dir))
		if len(entries) != 1 {
			t.Errorf("killed at %q: left beside the report: %v", kill, entries)
		}
	}
}

// TestWriteRefusesADirectoryWithoutAReport: the files of a directory that
// holds no report are not replaced.
func TestWriteRefusesADirectoryWithoutAReport(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("mine"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := Write(dir, singleInput())
	want := fmt.Sprintf(`output directory %q holds files ["notes.txt"] but no report: a report replaces the whole directory. Try an empty or new directory`, dir)
	if err == nil || err.Error() != want {
		t.Errorf("got %v\nwant %s", err, want)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "notes.txt")); string(b) != "mine" {
		t.Error("notes.txt changed")
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), ".") || e.Name() != "notes.txt" {
			t.Errorf("%s written", e.Name())
		}
	}
}
