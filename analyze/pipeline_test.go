package analyze

import (
	"fmt"
	"maps"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// sqlComment matches a SQL line comment.
var sqlComment = regexp.MustCompile(`--[^\n]*`)

// sqlCreate matches what a statement creates.
var sqlCreate = regexp.MustCompile(`(?i)CREATE\s+(?:OR\s+REPLACE\s+)?(?:TABLE|VIEW|MACRO)\s+([a-z_][a-z_0-9]*)`)

// sqlWord matches an identifier; one after a dot (a column: s.request_id)
// or a dollar sign (a parameter: $caps) names no table.
var sqlWord = regexp.MustCompile(`[.$]?[A-Za-z_][A-Za-z_0-9]*`)

// stepText is the SQL a step runs: its statement, or those it uses.
func stepText(s *step) string {
	var names []string
	switch {
	case s.do != nil:
		names = s.uses
	case s.dropOnly, s.side != nil, s.wait:
	default:
		names = []string{s.statement()}
	}
	var b strings.Builder
	for _, n := range names {
		b.WriteString(sqlComment.ReplaceAllString(query(n), ""))
		b.WriteByte('\n')
	}
	return b.String()
}

// reads are the objects of objs that text names, but for the names it
// creates (CREATE ... NAME); a statement that reads what it replaces names
// it again (CREATE TABLE spans AS ... FROM spans).
func reads(text string, objs map[string]bool) []string {
	seen := map[string]bool{}
	for _, w := range sqlWord.FindAllString(sqlCreate.ReplaceAllString(text, ""), -1) {
		if objs[w] {
			seen[w] = true
		}
	}
	return slices.Sorted(maps.Keys(seen))
}

// allSteps is the pipeline with the side steps in it, in order.
func allSteps(steps []step) []*step {
	var out []*step
	for i := range steps {
		out = append(out, &steps[i])
		for j := range steps[i].side {
			out = append(out, &steps[i].side[j])
		}
	}
	return out
}

// TestPipelineDeclarations: each step's statement creates exactly what the
// step declares, and names only statements there are.
func TestPipelineDeclarations(t *testing.T) {
	for _, s := range allSteps(pipeline) {
		if s.side != nil || s.wait || s.dropOnly {
			continue
		}
		for _, n := range append([]string{s.statement()}, s.uses...) {
			if s.do != nil && n == s.statement() && !slices.Contains(s.uses, n) {
				continue // a Go step's name is not a statement
			}
			if _, ok := queries[n]; !ok {
				t.Errorf("step %s: no statement queries/%s.sql", s.name, n)
			}
		}
		var made []string
		for _, m := range sqlCreate.FindAllStringSubmatch(sqlComment.ReplaceAllString(stepText(s), ""), -1) {
			made = append(made, m[1])
		}
		slices.Sort(made)
		made = slices.Compact(made)
		want := slices.Sorted(slices.Values(s.creates))
		if !slices.Equal(made, want) {
			t.Errorf("step %s creates %v, declares %v", s.name, made, want)
		}
	}
	for name := range conditions {
		used := false
		for _, s := range allSteps(pipeline) {
			for _, c := range whenConditions(s.when) {
				used = used || strings.TrimPrefix(c, "!") == name
			}
		}
		if !used {
			t.Errorf("condition %s chooses no step", name)
		}
	}
	for _, s := range allSteps(pipeline) {
		for _, c := range whenConditions(s.when) {
			if conditions[strings.TrimPrefix(c, "!")] == nil {
				t.Errorf("step %s: unknown condition %q", s.name, c)
			}
		}
	}
}

// checkOrder walks the pipeline under one combination of conditions and
// reports every object read before it is created or after it is dropped,
// dropped while not there, or created and never read.
func checkOrder(steps []step, on map[string]bool) []string {
	return newStepReads(steps).checkOrder(steps, on)
}

// stepReads are the objects each step of a pipeline reads, found once for
// every combination of conditions that TestPipelineOrder walks.
type stepReads map[*step][]string

func newStepReads(steps []step) stepReads {
	objs := map[string]bool{}
	for _, s := range allSteps(steps) {
		for _, c := range s.creates {
			objs[c] = true
		}
	}
	r := stepReads{}
	for _, s := range allSteps(steps) {
		r[s] = reads(stepText(s), objs)
	}
	return r
}

func (rs stepReads) checkOrder(steps []step, on map[string]bool) []string {
	enabled := func(s *step) bool { return whenHolds(s.when, func(c string) bool { return on[c] }) }
	var errs []string
	live := map[string]bool{}
	unread := map[string]string{} // object -> the step that made it, until a step reads it
	use := func(s *step, live map[string]bool) {
		for _, r := range rs[s] {
			// A step that makes several objects may read one it made
			// (request_facts, a view over multi_facts).
			if len(s.creates) > 1 && slices.Contains(s.creates, r) {
				delete(unread, r)
				continue
			}
			if !live[r] {
				errs = append(errs, fmt.Sprintf("%s reads %s, which is not there", s.name, r))
			}
			delete(unread, r)
		}
	}
	create := func(s *step, live map[string]bool) {
		own := rs[s]
		for _, c := range s.creates {
			if by, ok := unread[c]; ok && by != s.name {
				errs = append(errs, fmt.Sprintf("%s replaces %s, which %s made and no step read", s.name, c, by))
			}
			live[c] = true
			// An object that another of the step's views reads (curve_spans,
			// read through curve_mids) is read when that view is: the view
			// is the one a later step must read.
			if len(s.creates) > 1 && slices.Contains(own, c) {
				delete(unread, c)
				continue
			}
			unread[c] = s.name
		}
	}
	drop := func(s *step) {
		for _, d := range s.drops {
			if t, _, ok := strings.Cut(d, "."); ok {
				d = t
				if !live[d] {
					errs = append(errs, fmt.Sprintf("%s drops a column of %s, which is not there", s.name, d))
				}
				continue
			}
			if !live[d] {
				errs = append(errs, fmt.Sprintf("%s drops %s, which is not there", s.name, d))
			}
			delete(live, d)
		}
	}
	var side []*step
	var sideLive map[string]bool
	for i := range steps {
		s := &steps[i]
		if !enabled(s) {
			continue
		}
		switch {
		case s.side != nil:
			// The side steps see what is there when they start, and their
			// inputs must stay until the main steps wait for them.
			sideLive = maps.Clone(live)
			for j := range s.side {
				if ss := &s.side[j]; enabled(ss) {
					use(ss, sideLive)
					create(ss, sideLive)
					drop(ss)
					side = append(side, ss)
				}
			}
			continue
		case s.wait:
			for _, ss := range side {
				for _, r := range rs[ss] {
					if sideLive[r] && !live[r] && !slices.Contains(ss.creates, r) && !createdBySide(side, r) {
						errs = append(errs, fmt.Sprintf("%s (side) reads %s, which the main steps dropped before side_wait", ss.name, r))
					}
				}
				for _, c := range ss.creates {
					live[c] = true
				}
			}
			side = nil
			continue
		}
		use(s, live)
		create(s, live)
		drop(s)
	}
	for o, by := range unread {
		errs = append(errs, fmt.Sprintf("%s makes %s, which no later step reads or writes out", by, o))
	}
	slices.Sort(errs)
	return errs
}

func createdBySide(side []*step, name string) bool {
	for _, s := range side {
		if slices.Contains(s.creates, name) {
			return true
		}
	}
	return false
}

// TestPipelineOrder: under every combination of conditions that a dataset
// can have (implied), every object a step reads was created by an earlier
// step and not yet dropped, nothing is dropped twice, and every object
// created is read later or written out.
func TestPipelineOrder(t *testing.T) {
	names := slices.Sorted(maps.Keys(conditions))
	bit := map[string]int{}
	for i, n := range names {
		bit[n] = 1 << i
	}
	rs := newStepReads(pipeline)
	// Combinations that enable the same steps are checked once: the order
	// depends on nothing else. A step's when is a mask of the conditions
	// that must hold and one of those that must not.
	steps := allSteps(pipeline)
	need, not := make([]int, len(steps)), make([]int, len(steps))
	for i, s := range steps {
		for _, c := range whenConditions(s.when) {
			if n, ok := strings.CutPrefix(c, "!"); ok {
				not[i] |= bit[n]
			} else {
				need[i] |= bit[c]
			}
		}
	}
	seen := map[string]bool{}
	enabled := make([]byte, len(steps))
	checked := 0
combos:
	for mask := 0; mask < 1<<len(names); mask++ {
		for c, implies := range implied {
			for _, d := range implies {
				if mask&bit[c] != 0 && mask&bit[d] == 0 {
					continue combos
				}
			}
		}
		for i := range steps {
			enabled[i] = '0'
			if mask&need[i] == need[i] && mask&not[i] == 0 {
				enabled[i] = '1'
			}
		}
		if seen[string(enabled)] {
			continue
		}
		seen[string(enabled)] = true
		checked++
		on := map[string]bool{}
		for _, n := range names {
			on[n] = mask&bit[n] != 0
		}
		for _, e := range rs.checkOrder(pipeline, on) {
			t.Errorf("%v: %s", on, e)
		}
	}
	if checked == 0 {
		t.Error("no combination of conditions checked")
	}
	t.Logf("%d sets of steps checked", checked)
}

// TestPipelineOrderFailsOnMovedStep: the check finds a step moved before its
// inputs, a table dropped too early, and a table nobody reads.
func TestPipelineOrderFailsOnMovedStep(t *testing.T) {
	on := map[string]bool{}
	index := func(steps []step, name string) int {
		return slices.IndexFunc(steps, func(s step) bool { return s.name == name })
	}
	moved := slices.Clone(pipeline)
	i, j := index(moved, "load_spans"), index(moved, "span_times")
	moved[i], moved[j] = moved[j], moved[i] // load_spans before span_times
	if errs := checkOrder(moved, on); !slices.Contains(errs, "load_spans reads span_times, which is not there") {
		t.Errorf("load_spans moved before span_times: %q", errs)
	}

	early := slices.Clone(pipeline)
	k := index(early, "pool_segments")
	early[k].drops = []string{"state_events", "spans"}
	if errs := checkOrder(early, on); len(errs) == 0 || !strings.Contains(strings.Join(errs, "\n"), "reads spans, which is not there") {
		t.Errorf("spans dropped after pool_segments: %q", errs)
	}

	dead := slices.Clone(pipeline)
	dead = slices.Insert(dead, index(dead, "span_times")+1, step{name: "span_times_again", query: "span_times", creates: []string{"span_times"}})
	if errs := checkOrder(dead, on); !slices.Equal(errs, []string{"span_times_again replaces span_times, which span_times made and no step read"}) {
		t.Errorf("a table made and never read: %q", errs)
	}
}

// TestRunMemory: a run of more spans than the large size (knobs.largeAt
// stands for largeRunSpans here) gets the large run's memory limit, which
// the database then holds; any other, or a file without a footer, the
// smaller one.
func TestRunMemory(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "spans.parquet")
	writeParquet(t, path, someSpans(3))
	for _, c := range []struct {
		largeAt int64
		want    string
	}{{0, memoryLimit}, {3, memoryLimit}, {2, largeMemoryLimit}} {
		if got := runMemory(path, knobs{largeAt: c.largeAt}); got != c.want {
			t.Errorf("3 spans, large beyond %d: memory %s, want %s", c.largeAt, got, c.want)
		}
	}
	if got := runMemory(filepath.Join(dir, "absent.parquet"), knobs{largeAt: -1}); got != memoryLimit {
		t.Errorf("no file: memory %s, want %s", got, memoryLimit)
	}
	// DuckDB shows the limit in binary units: 3500 MB is 3.2 GiB, and the
	// configuration is locked past openDB.
	db, conns, err := openDB(t.Context(), t.TempDir(), 1, largeMemoryLimit)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	defer conns[0].Close()
	var got string
	if err := conns[0].QueryRowContext(t.Context(), "SELECT current_setting('memory_limit')").Scan(&got); err != nil {
		t.Fatal(err)
	}
	if got != "3.2 GiB" {
		t.Errorf("memory_limit %q, want 3.2 GiB", got)
	}
	if _, err := conns[0].ExecContext(t.Context(), "SET memory_limit = '1GB'"); err == nil {
		t.Error("memory_limit changed past openDB, want the configuration locked")
	}
}
