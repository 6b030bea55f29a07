package main

import (
	"errors"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tpsreport/tpsreport/internal/dataset"
	"github.com/tpsreport/tpsreport/schemas"
)

// TestRunKilledAtEveryStep: a re-run of a night killed at any step of any
// of its commits (its dataset, analysis, report, compare, and run=NAME
// itself) leaves ROOT/run=NAME in place with a verdict, of the old run or
// of the new one, never without (review F4, F12); the next run cleans what
// the killed one left. -short kills at the last commit's two steps.
func TestRunKilledAtEveryStep(t *testing.T) {
	logs := txtarFiles(t, "testdata/script/dataset.txtar")
	e := &env{stdout: io.Discard, stderr: io.Discard, log: slog.New(slog.DiscardHandler), isTerminal: func(io.Writer) bool { return false }}
	opts := func(root, name, in string) nightlyOptions {
		o := nightlyOptions{root: root, name: name, format: "spans", inputs: []string{filepath.Join(logs, in)}, previous: 1}
		if name != "base" {
			o.baselines = []string{"base"}
		}
		o.criteria = schemas.DefaultCriteria()
		return o
	}
	// Each kill starts from a copy of one root of two nights, base and
	// night.
	template := filepath.Join(t.TempDir(), "root")
	for _, o := range []nightlyOptions{opts(template, "base", "other.jsonl"), opts(template, "night", "other.jsonl")} {
		if _, _, err := nightly(t.Context(), e, o); err != nil {
			t.Fatal(err)
		}
	}
	setup := func() string {
		root := filepath.Join(t.TempDir(), "root")
		if err := os.CopyFS(root, os.DirFS(template)); err != nil {
			t.Fatal(err)
		}
		return root
	}
	var steps []string
	probe := setup()
	restore := dataset.SetTestHooks(func(s string) bool { steps = append(steps, s); return false }, nil)
	if _, _, err := nightly(t.Context(), e, opts(probe, "night", "spans.jsonl")); err != nil {
		t.Fatal(err)
	}
	restore()
	if len(steps) < 5 {
		t.Fatalf("steps %v: want those of ingest, analyze, two reports and the run", steps)
	}
	kill := make([]int, len(steps))
	for i := range kill {
		kill[i] = i
	}
	if testing.Short() {
		// The steps of run=NAME itself, the commit that swaps the
		// night in; make test kills every step of every commit.
		kill = kill[len(kill)-2:]
	}
	for _, i := range kill {
		root := setup()
		n := 0
		restore := dataset.SetTestHooks(func(string) bool { n++; return n == i+1 }, nil)
		_, _, err := nightly(t.Context(), e, opts(root, "night", "spans.jsonl"))
		restore()
		if !errors.Is(err, dataset.ErrKilled) {
			t.Fatalf("killed at step %d (%s): %v", i, steps[i], err)
		}
		if _, err := os.Stat(filepath.Join(root, "run=night", "compare", "verdict.json")); err != nil {
			t.Errorf("killed at step %d (%s): %v", i, steps[i], err)
		}
		if _, err := loadCompared(t.Context(), filepath.Join(root, "run=night")); err != nil {
			t.Errorf("killed at step %d (%s): run=night is not whole: %v", i, steps[i], err)
		}
		// The next run, the killed one being dead, cleans up.
		restore = dataset.SetTestHooks(nil, func(int) bool { return false })
		_, _, err = nightly(t.Context(), e, opts(root, "other-night", "spans.jsonl"))
		restore()
		if err != nil {
			t.Fatal(err)
		}
		entries, _ := os.ReadDir(root)
		for _, de := range entries {
			if strings.HasPrefix(de.Name(), ".") {
				t.Errorf("killed at step %d (%s): %s left in the root", i, steps[i], de.Name())
			}
		}
	}
}
