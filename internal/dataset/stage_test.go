package dataset

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/tpsreport/tpsreport/schemas"
)

// writeSet writes files into dir and a manifest.json describing them.
func writeSet(t testing.TB, dir string, files map[string]string) {
	t.Helper()
	for name, data := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	d, err := DescribeAll(dir, slices.Sorted(maps.Keys(files))...)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(schemas.Manifest{Tool: "tpsreport", Files: d})
	if err := os.WriteFile(filepath.Join(dir, schemas.ManifestFile), b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// readSet returns every entry under dir (hidden ones too) with its content;
// nil when dir does not exist.
func readSet(t testing.TB, dir string) map[string]string {
	t.Helper()
	if _, err := os.Stat(dir); errors.Is(err, os.ErrNotExist) {
		return nil
	}
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || p == dir || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		rel, _ := filepath.Rel(dir, p)
		out[rel] = string(b)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// withHooks installs the test hooks for one test and removes them after.
func withHooks(t testing.TB, m mode, h func(string) bool) {
	t.Helper()
	forceMode, hook = m, h
	t.Cleanup(func() { forceMode, hook, alive = 0, nil, processAlive })
}

var modes = []mode{modeNew, modeExchange, modeAside, modeInPlace}

// commitOnce replaces root/T (holding old, or missing when old is nil) by
// the set new, under the given mode and hook; it returns Commit's error.
func commitOnce(t testing.TB, root string, m mode, old, new map[string]string, h func(string) bool) error {
	t.Helper()
	target := filepath.Join(root, "T")
	if old != nil {
		if err := os.Mkdir(target, 0o755); err != nil {
			t.Fatal(err)
		}
		writeSet(t, target, old)
	}
	withHooks(t, m, h)
	s, err := Begin(target)
	if err != nil {
		t.Fatal(err)
	}
	if m != modeNew && s.mode != m {
		t.Fatalf("mode %s, want %s", s.mode, m)
	}
	writeSet(t, s.Dir(), new)
	return s.Commit()
}

// checkOldOrNew says whether root/T is exactly the old or the new set after
// a killed commit and a recovery, with nothing hidden left in root or T. In
// place, a half-moved set is allowed only when Verify refuses it.
func checkOldOrNew(t testing.TB, root string, m mode, old, new map[string]string, where string) {
	t.Helper()
	target := filepath.Join(root, "T")
	alive = func(int) bool { return false } // the killed writer is gone
	Recover(target)                         // what the next command does
	alive = processAlive
	entries, _ := os.ReadDir(root)
	for _, e := range entries {
		if e.Name() != "T" {
			t.Errorf("%s: %s left beside the target", where, e.Name())
		}
	}
	got := readSet(t, target)
	for name := range got {
		if strings.HasPrefix(name, ".") {
			t.Errorf("%s: %s left inside the target", where, name)
		}
	}
	withManifest := func(files map[string]string) map[string]string {
		if files == nil {
			return nil
		}
		out := maps.Clone(files)
		out[schemas.ManifestFile] = readSetManifest(t, files)
		return out
	}
	wantOld, wantNew := withManifest(old), withManifest(new)
	if maps.Equal(got, wantOld) && (old != nil || got == nil) || maps.Equal(got, wantNew) && got != nil {
		return
	}
	if m == modeInPlace {
		var man schemas.Manifest
		b, err := os.ReadFile(filepath.Join(target, schemas.ManifestFile))
		if err == nil && json.Unmarshal(b, &man) == nil {
			if err := Verify(target, &man, ""); err != nil {
				return // refused: a half-moved set is never read
			}
		} else if err != nil {
			return // no manifest: not a dataset, never read
		}
	}
	t.Errorf("%s: target is neither the old nor the new set:\n got %v\n old %v\n new %v", where, got, wantOld, wantNew)
}

// readSetManifest is the manifest writeSet writes for files.
func readSetManifest(t testing.TB, files map[string]string) string {
	dir := t.TempDir()
	writeSet(t, dir, files)
	b, err := os.ReadFile(filepath.Join(dir, schemas.ManifestFile))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestCommitKilledAtEveryStep(t *testing.T) {
	old := map[string]string{"spans.bin": "old spans", "summary.json": "old summary", "gone.txt": "only old"}
	new := map[string]string{"spans.bin": "new spans", "rejects.jsonl": "new\n"}
	for _, m := range modes {
		t.Run(m.String(), func(t *testing.T) {
			prev := old
			if m == modeNew {
				prev = nil
			}
			var steps []string
			if err := commitOnce(t, t.TempDir(), m, prev, new, func(s string) bool {
				steps = append(steps, s)
				return false
			}); err != nil {
				t.Fatal(err)
			}
			if len(steps) < 1 {
				t.Fatal("no steps")
			}
			for _, kill := range steps {
				root := t.TempDir()
				err := commitOnce(t, root, m, prev, new, func(s string) bool { return s == kill })
				if !errors.Is(err, ErrKilled) {
					t.Fatalf("kill at %q: Commit = %v, want ErrKilled", kill, err)
				}
				checkOldOrNew(t, root, m, prev, new, "killed at "+kill)
			}
			root := t.TempDir()
			if err := commitOnce(t, root, m, prev, new, nil); err != nil {
				t.Fatal(err)
			}
			checkOldOrNew(t, root, m, prev, new, "not killed")
			if got := readSet(t, filepath.Join(root, "T")); got["spans.bin"] != "new spans" || len(got) != 3 {
				t.Errorf("after commit: %v, want the new set", got)
			}
		})
	}
}

// FuzzCommitKill kills a commit at a random step of a random mode, between
// random sets: after recovery the target is exactly the old or the new set.
func FuzzCommitKill(f *testing.F) {
	f.Add(uint8(1), uint8(1), uint64(1))
	f.Add(uint8(2), uint8(2), uint64(2))
	f.Add(uint8(3), uint8(4), uint64(3))
	f.Fuzz(func(t *testing.T, mi, killAt uint8, seed uint64) {
		m := modes[int(mi)%len(modes)]
		r := rand.New(rand.NewPCG(seed, 0))
		randomSet := func() map[string]string {
			// A dataset always has a file (ingest writes spans, samples and
			// rejects); a manifest without files is not checked.
			s := map[string]string{"f0": fmt.Sprint(r.IntN(2))}
			for range r.IntN(5) {
				s[fmt.Sprintf("f%d", r.IntN(6))] = fmt.Sprintf("v%d", r.IntN(3))
			}
			return s
		}
		old, new := randomSet(), randomSet()
		if m == modeNew {
			old = nil
		}
		n := 0
		root := t.TempDir()
		err := commitOnce(t, root, m, old, new, func(string) bool {
			n++
			return n == int(killAt)
		})
		if err != nil && !errors.Is(err, ErrKilled) {
			t.Fatal(err)
		}
		checkOldOrNew(t, root, m, old, new, fmt.Sprintf("mode %s, killed at step %d", m, killAt))
	})
}

func TestBeginCleansLeftovers(t *testing.T) {
	root := t.TempDir()
	target := filepath.Join(root, "run=x")
	writeDir := func(p string) {
		if err := os.MkdirAll(p, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	writeDir(target)
	writeDir(filepath.Join(root, ".run=x.tmp-123"))         // a legacy nightly stage
	writeDir(filepath.Join(root, ".run=y.stage-999999-ab")) // another run's dead stage
	writeDir(filepath.Join(root, ".run=y.stage-1-ab"))      // a live process's (pid 1)
	writeDir(filepath.Join(target, ".analyze-42"))          // a killed analyze's spill
	if err := os.WriteFile(filepath.Join(target, ".spans.parquet.tmp-7"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	alive = func(p int) bool { return p == 1 }
	t.Cleanup(func() { alive = processAlive })
	s, err := Begin(target)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Abort()
	var left []string
	for _, d := range []string{root, target} {
		entries, _ := os.ReadDir(d)
		for _, e := range entries {
			if p := filepath.Join(d, e.Name()); p != s.Dir() && p != target {
				left = append(left, e.Name())
			}
		}
	}
	if want := []string{".run=y.stage-1-ab"}; !slices.Equal(left, want) {
		t.Errorf("left %v, want %v", left, want)
	}
}

func TestRecoverPutsBackAMovedAsideSet(t *testing.T) {
	root := t.TempDir()
	aside := filepath.Join(root, ".T.old-999999-x")
	if err := os.Mkdir(aside, 0o755); err != nil {
		t.Fatal(err)
	}
	writeSet(t, aside, map[string]string{"a": "old"})
	alive = func(int) bool { return false }
	t.Cleanup(func() { alive = processAlive })
	Recover(filepath.Join(root, "T"))
	if got := readSet(t, filepath.Join(root, "T")); got["a"] != "old" {
		t.Errorf("T = %v, want the old set back", got)
	}
}

func TestKeepLinksAndCommitSwaps(t *testing.T) {
	root := t.TempDir()
	target := filepath.Join(root, "ds")
	if err := os.MkdirAll(filepath.Join(target, "report"), 0o755); err != nil {
		t.Fatal(err)
	}
	writeSet(t, target, map[string]string{"spans.bin": "s", "summary.json": "old"})
	if err := os.WriteFile(filepath.Join(target, "report", "report.html"), []byte("r"), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := Begin(target)
	if err != nil {
		t.Fatal(err)
	}
	if s.Mode() != "exchange" {
		t.Errorf("mode %s, want exchange", s.Mode())
	}
	if err := s.Keep(func(n string) bool { return n == "summary.json" }); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(s.Dir(), "curves.json"), []byte("c"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := s.Commit(); err != nil {
		t.Fatal(err)
	}
	got := readSet(t, target)
	want := map[string]string{"spans.bin": "s", "curves.json": "c", "report/report.html": "r", "manifest.json": got["manifest.json"]}
	if !maps.Equal(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
	if entries, _ := os.ReadDir(root); len(entries) != 1 {
		t.Errorf("left beside: %v", entries)
	}
}

func TestBeginInTheWorkingDirectoryIsInPlace(t *testing.T) {
	target := t.TempDir()
	t.Chdir(target)
	s, err := Begin(".")
	if err != nil {
		t.Fatal(err)
	}
	defer s.Abort()
	if s.Mode() != "in-place" {
		t.Errorf("mode %s, want in-place", s.Mode())
	}
	if filepath.Dir(s.Dir()) != s.Target() {
		t.Errorf("stage %s is not inside %s", s.Dir(), s.Target())
	}
}

func TestBeginUnderAReadOnlyParentIsInPlace(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("root writes into read-only directories")
	}
	parent := t.TempDir()
	target := filepath.Join(parent, "ds")
	if err := os.Mkdir(target, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(parent, 0o555); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Chmod(parent, 0o755) })
	s, err := Begin(target)
	if err != nil {
		t.Fatal(err)
	}
	if s.Mode() != "in-place" {
		t.Errorf("mode %s, want in-place", s.Mode())
	}
	writeSet(t, s.Dir(), map[string]string{"a": "1"})
	if err := s.Commit(); err != nil {
		t.Fatal(err)
	}
	if got := readSet(t, target); got["a"] != "1" || len(got) != 2 {
		t.Errorf("got %v", got)
	}
}

func TestAbortRemovesStageAndMadeParents(t *testing.T) {
	root := t.TempDir()
	s, err := Begin(filepath.Join(root, "a", "b", "ds"))
	if err != nil {
		t.Fatal(err)
	}
	s.Abort()
	if entries, _ := os.ReadDir(root); len(entries) != 0 {
		t.Errorf("left %v", entries)
	}
}

func TestBeginOnAFile(t *testing.T) {
	p := filepath.Join(t.TempDir(), "f")
	if err := os.WriteFile(p, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := Begin(p)
	if err == nil || !strings.Contains(err.Error(), "is not a directory") {
		t.Errorf("Begin = %v, want not a directory", err)
	}
}

// TestReaderSweepsKilledStages: a reader of a dataset that nobody writes
// again removes what killed writers of it left (hostile-input review N11):
// its dead stages and aside sets beside it and its dead in-place stages
// inside it. It leaves a live writer's stage, other datasets' leftovers and
// the temporary files inside it (their writers' to clean).
func TestReaderSweepsKilledStages(t *testing.T) {
	root := t.TempDir()
	target := filepath.Join(root, "run=x")
	mk := func(p string) {
		if err := os.MkdirAll(p, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	mk(target)
	mk(filepath.Join(root, ".run=x.stage-999999-ab")) // killed
	mk(filepath.Join(root, ".run=x.old-999998-cd"))   // killed between renames
	mk(filepath.Join(root, ".run=x.stage-1-ef"))      // live (pid 1)
	mk(filepath.Join(root, ".run=y.stage-999999-ab")) // another dataset's
	mk(filepath.Join(target, ".stage-999997-gh"))     // a killed in-place stage
	mk(filepath.Join(target, ".analyze-42"))          // analyze's: not a reader's to remove
	alive = func(p int) bool { return p == 1 }
	t.Cleanup(func() { alive = processAlive })
	l, err := LockDir(target, false, "tpsreport report")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Unlock()
	var left []string
	for _, d := range []string{root, target} {
		entries, _ := os.ReadDir(d)
		for _, e := range entries {
			if n := e.Name(); n != "run=x" && !strings.HasSuffix(n, ".lock") {
				left = append(left, n)
			}
		}
	}
	if want := []string{".run=x.stage-1-ef", ".run=y.stage-999999-ab", ".analyze-42"}; !slices.Equal(left, want) {
		t.Errorf("left %v, want %v", left, want)
	}
}
