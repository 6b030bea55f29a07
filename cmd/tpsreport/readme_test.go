package main

import (
	"bufio"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	tpsreport "github.com/tpsreport/tpsreport"
	"github.com/tpsreport/tpsreport/compare"
	"github.com/tpsreport/tpsreport/schemas"
)

// readmeBlock is one ```sh block of README.md.
type readmeBlock struct {
	line int // of the opening fence
	text string
}

// readmeBlocks returns README.md's ```sh blocks in order.
func readmeBlocks(t *testing.T, path string) []readmeBlock {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var blocks []readmeBlock
	var cur *readmeBlock
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		switch {
		case cur == nil && line == "```sh":
			cur = &readmeBlock{line: n}
		case cur != nil && line == "```":
			blocks = append(blocks, *cur)
			cur = nil
		case cur != nil:
			cur.text += line + "\n"
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return blocks
}

// makeTarget matches a Makefile rule's target.
var makeTarget = regexp.MustCompile(`(?m)^([a-z][a-z0-9-]*):`)

// TestREADMECommands runs every ```sh block of README.md as written, in order,
// in one directory laid out as `make demo` leaves the repository (the shipped
// sample logs in tpsreport-demo/logs/, tpsreport on PATH): each block must
// exit 0. A block of make commands is not run here (CI runs make test and
// make demo); each of its targets must exist in the Makefile.
func TestREADMECommands(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the whole pipeline several times")
	}
	blocks := readmeBlocks(t, filepath.Join("..", "..", "README.md"))
	mk, err := os.ReadFile(filepath.Join("..", "..", "Makefile"))
	if err != nil {
		t.Fatal(err)
	}
	targets := map[string]bool{}
	for _, m := range makeTarget.FindAllStringSubmatch(string(mk), -1) {
		targets[m[1]] = true
	}

	var script strings.Builder
	var files []string
	ran := 0
	for _, b := range blocks {
		makeOnly := true
		for _, l := range strings.Split(strings.TrimSpace(b.text), "\n") {
			l = strings.TrimSpace(l)
			if l == "" || strings.HasPrefix(l, "#") {
				continue
			}
			if !strings.HasPrefix(l, "make ") {
				makeOnly = false
				continue
			}
			target := strings.Fields(l)[1]
			if !targets[target] {
				t.Errorf("README.md:%d: make %s: no such target in the Makefile", b.line, target)
			}
		}
		if makeOnly {
			continue
		}
		name := fmt.Sprintf("readme-%d.sh", b.line)
		fmt.Fprintf(&script, "# README.md:%d\nexec sh -e %s\n", b.line, name)
		files = append(files, "-- "+name+" --\n"+b.text)
		ran++
	}
	if ran < 2 {
		t.Fatalf("found %d runnable blocks in README.md; the test reads ```sh fences", ran)
	}
	dir := t.TempDir()
	txt := script.String() + strings.Join(files, "")
	if err := os.WriteFile(filepath.Join(dir, "readme.txtar"), []byte(txt), 0o644); err != nil {
		t.Fatal(err)
	}
	testscript.Run(t, testscript.Params{
		Dir: dir,
		Setup: func(env *testscript.Env) error {
			// What make demo copies: the shipped sample logs.
			sub, err := fs.Sub(tpsreport.DemoLogs, "testdata/demo")
			if err != nil {
				return err
			}
			return os.CopyFS(filepath.Join(env.WorkDir, "tpsreport-demo", "logs"), sub)
		},
	})
}

// TestREADMECriteriaFile: the README's acceptance file is complete (every
// key of schemas.Criteria but the --allow flag's) and says the defaults.
func TestREADMECriteriaFile(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(b), "```yaml\n")
	block, _, ok2 := strings.Cut(rest, "```")
	if !ok || !ok2 {
		t.Fatal("README.md has no ```yaml block")
	}
	path := filepath.Join(t.TempDir(), "criteria.yaml")
	if err := os.WriteFile(path, []byte(block), 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := compare.LoadCriteria(path)
	if err != nil {
		t.Fatalf("README's criteria file: %v", err)
	}
	got.Off = nil
	if !reflect.DeepEqual(got, schemas.DefaultCriteria()) {
		t.Errorf("README's criteria file gives %+v, the defaults are %+v", got, schemas.DefaultCriteria())
	}
	for f := range reflect.TypeFor[schemas.Criteria]().Fields() {
		key, _, _ := strings.Cut(f.Tag.Get("yaml"), ",")
		if key == "" || key == "-" {
			continue
		}
		if !regexp.MustCompile(`(?m)^` + key + `:`).MatchString(block) {
			t.Errorf("README's criteria file lacks %s", key)
		}
	}
	for _, name := range compare.Names {
		if !strings.Contains(block, name) {
			t.Errorf("README's criteria file does not name criterion %s", name)
		}
	}
}
