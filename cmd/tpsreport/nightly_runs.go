package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/tpsreport/tpsreport/report"
	"github.com/tpsreport/tpsreport/schemas"
)

// nightlyRun is one analysed run of a nightly root.
type nightlyRun struct {
	// name is the run's name, and for a run below a partition its path
	// from the root: "dt=2026-11-20/nightly".
	name    string
	dir     string // run=NAME, or dt=2026-11-20/run=NAME: relative to the root
	summary schemas.Summary
	spans   string // SHA-256 of its spans.parquet, as its manifest records it
}

// listRuns reads the summaries of the analysed runs of root: its run=NAME
// directories and those of the Hive partitions below it (KEY=VALUE
// directories such as dt=2026-11-20), oldest first (by run start, then
// name). Hidden directories (a writer's stages), partitions this user
// cannot read and the insides of a run are not searched; a run=NAME
// without summary.json (not analysed) is not a run of the history.
func listRuns(root string) ([]nightlyRun, error) {
	var runs []nightlyRun
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		switch {
		case err != nil && path == root && errors.Is(err, fs.ErrNotExist):
			return filepath.SkipAll
		case err != nil && path == root:
			return fmt.Errorf("read root: %w", err)
		case err != nil:
			return filepath.SkipDir // a partition this user cannot read is not one of theirs
		}
		if !d.IsDir() || path == root {
			return nil
		}
		switch {
		case strings.HasPrefix(d.Name(), "."):
			return filepath.SkipDir
		case !strings.HasPrefix(d.Name(), runPrefix):
			if !strings.Contains(d.Name(), "=") {
				return filepath.SkipDir // not a partition
			}
			return nil
		}
		b, err := os.ReadFile(filepath.Join(path, schemas.SummaryFile))
		if err != nil {
			return filepath.SkipDir // not analysed
		}
		var s schemas.Summary
		if err := json.Unmarshal(b, &s); err != nil {
			return fmt.Errorf("read %s: %w", filepath.Join(path, schemas.SummaryFile), err)
		}
		rel, _ := filepath.Rel(root, path)
		run := nightlyRun{name: runName(filepath.ToSlash(rel)), dir: rel, summary: s}
		if b, err := os.ReadFile(filepath.Join(path, schemas.ManifestFile)); err == nil {
			var m schemas.Manifest
			if json.Unmarshal(b, &m) == nil {
				run.spans = spansDigest(&m)
			}
		}
		runs = append(runs, run)
		return filepath.SkipDir
	})
	if err != nil {
		return nil, err
	}
	sort.Slice(runs, func(i, j int) bool {
		if !runs[i].summary.RunStart.Equal(runs[j].summary.RunStart) {
			return runs[i].summary.RunStart.Before(runs[j].summary.RunStart)
		}
		return runs[i].name < runs[j].name
	})
	return runs, nil
}

// runName is the name of the run at rel, a run=NAME directory's path from
// the root: "dt=2026-11-20/run=nightly" is "dt=2026-11-20/nightly".
func runName(rel string) string {
	dir, base := "", rel
	if i := strings.LastIndexByte(rel, '/'); i >= 0 {
		dir, base = rel[:i+1], rel[i+1:]
	}
	return dir + strings.TrimPrefix(base, runPrefix)
}

// historyRoot is where a nightly root's history is kept: the nearest of
// root and its ancestors that is not a Hive partition (KEY=VALUE), so that
// runs written into daily partitions (--root ROOT/dt=2026-11-20) are one
// history, with one index, whose "previous" run is the day before's.
func historyRoot(root string) string {
	h := filepath.Clean(root)
	for strings.Contains(filepath.Base(h), "=") && filepath.Dir(h) != h {
		h = filepath.Dir(h)
	}
	return h
}

// ownName is the name the history (below hroot) gives run name of root.
func ownName(hroot, root, name string) (string, error) {
	rel, err := filepath.Rel(hroot, filepath.Clean(root))
	if err != nil {
		return "", err
	}
	if rel == "." {
		return name, nil
	}
	return filepath.ToSlash(rel) + "/" + name, nil
}

// pickBaselines resolves one --baseline among the runs of the history at
// hroot: a run's name (its path from hroot below partitions, or its name
// alone when no other run has it), or "previous", the latest n runs that
// started before run own, oldest first (none when there is none).
func pickBaselines(hroot, own, want string, n int, cur schemas.Summary) ([]nightlyRun, error) {
	runs, err := listRuns(hroot)
	if err != nil {
		return nil, err
	}
	if want != "previous" {
		var found []nightlyRun
		for _, r := range runs {
			if r.name == want {
				return []nightlyRun{r}, nil
			}
			if r.name[strings.LastIndexByte(r.name, '/')+1:] == want {
				found = append(found, r)
			}
		}
		switch len(found) {
		case 1:
			return found, nil
		case 0:
			return nil, fmt.Errorf("--baseline %q: no analysed run %s%s in %s", want, runPrefix, want, hroot)
		}
		var names []string
		for _, r := range found {
			names = append(names, r.name)
		}
		return nil, fmt.Errorf("--baseline %q: %d runs have that name (%s); name one by its path", want, len(found), strings.Join(names, ", "))
	}
	var prev []nightlyRun
	for _, r := range runs {
		if r.name != own && (r.summary.RunStart.Before(cur.RunStart) || (r.summary.RunStart.Equal(cur.RunStart) && r.name < own)) {
			prev = append(prev, r)
		}
	}
	return prev[max(0, len(prev)-n):], nil
}

// writeIndex rewrites hroot/index.html from the runs of the history at
// hroot.
func writeIndex(hroot string) error {
	runs, err := listRuns(hroot)
	if err != nil {
		return err
	}
	var entries []report.IndexEntry
	for _, r := range runs {
		ent := report.IndexEntry{Name: r.name, Dir: filepath.ToSlash(r.dir), Summary: r.summary}
		if b, err := os.ReadFile(filepath.Join(hroot, r.dir, "compare", "verdict.json")); err == nil {
			var v schemas.Verdict
			if json.Unmarshal(b, &v) == nil {
				ent.Verdict = &v
				ent.Stale = staleBaselines(v, runs)
			}
		}
		if b, err := os.ReadFile(filepath.Join(hroot, r.dir, "canary", "verdict.json")); err == nil {
			var v schemas.Verdict
			if json.Unmarshal(b, &v) == nil {
				ent.Canary = &v
			}
		}
		entries = append(entries, ent)
	}
	return report.WriteIndex(hroot, toolVersion(), entries)
}
