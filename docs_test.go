package tpsreport

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// outsideRefs are citations of documents the repository does not hold: the
// product specification and background articles it was built from. A
// reader of the repository (or of a report) must find every definition in
// docs/ or schemas/README.md instead.
var outsideRefs = regexp.MustCompile(`SPEC ?§|SPEC\.md|seeds/0\d\d`)

// mdLink matches a Markdown link's target.
var mdLink = regexp.MustCompile(`\]\(([^)#\s]+)(#[^)]*)?\)`)

// TestCitationsStayInTheRepository: no file cites a document the repository
// does not hold, and every relative link of a Markdown file names a file or
// directory that exists.
func TestCitationsStayInTheRepository(t *testing.T) {
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			switch d.Name() {
			case ".git", "bin", "tpsreport-demo", "bench":
				return filepath.SkipDir
			}
			return nil
		}
		switch filepath.Ext(path) {
		case ".go", ".md", ".sql", ".txtar", ".test", ".html", ".css", ".json", ".yaml":
		default:
			return nil
		}
		if path == "docs_test.go" {
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for i, line := range strings.Split(string(b), "\n") {
			if m := outsideRefs.FindString(line); m != "" {
				t.Errorf("%s:%d: cites %q, which the repository does not hold: cite docs/ or schemas/README.md", path, i+1, m)
			}
			if filepath.Ext(path) != ".md" {
				continue
			}
			for _, m := range mdLink.FindAllStringSubmatch(line, -1) {
				target := m[1]
				if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
					continue
				}
				if _, err := os.Stat(filepath.Join(filepath.Dir(path), target)); err != nil {
					t.Errorf("%s:%d: link to %q: %v", path, i+1, target, err)
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
