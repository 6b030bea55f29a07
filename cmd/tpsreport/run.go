package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/tpsreport/tpsreport/analyze"
	"github.com/tpsreport/tpsreport/canary"
	"github.com/tpsreport/tpsreport/ingest"
	"github.com/tpsreport/tpsreport/internal/dataset"
	"github.com/tpsreport/tpsreport/report"
	"github.com/tpsreport/tpsreport/schemas"
)

// runPrefix names a run's directory under a nightly root (Hive partitioning).
const runPrefix = "run="

func runCommand(e *env) *cli.Command {
	return &cli.Command{
		Name:      "run",
		Usage:     "nightly job: ingest + analyze + report into ROOT/run=NAME/ (+ compare with an earlier run)",
		ArgsUsage: "[FORMAT:]INPUT...",
		Description: `Everything of one run lands in ROOT/run=NAME/ (the dataset, its analysis, and
report/), built aside and swapped in at the end, so a re-run of the same night
replaces it atomically. With --baseline NAME|previous the run is also compared with
an earlier run of ROOT (compare/ holds the verdict and its report); a named
baseline is checked before any work. Runs are ordered by their start (the first
instant of their logs), ties by run name; "previous" is the last run before this
one in that order. A run that fails leaves ROOT as it was. ROOT/index.html lists
every run with its headline numbers, verdict and trend charts. The whole history
reads as one Hive-partitioned table, one row per attempt (a gateway's and an
engine's span of one attempt joined into one):
   read_parquet('ROOT/run=*/requests.parquet', hive_partitioning = true)

With --baselines N, "previous" stands for the last N runs before this one,
pooled into one baseline of N runs; each named --baseline adds a run.

A ROOT that is a Hive partition (/data/tps/dt=2026-11-20) belongs to the
history of the directory above its partitions: "previous" is looked for among
all of its runs (named by their path, dt=2026-11-19/nightly), and the index is
written there.

With --canary SELECTOR the night's canary is judged too: the replicas SELECTOR
picks against the night's other replicas over the same hours (compare --canary;
canary/ holds its verdict and report), and --gate judges it with the comparison.

With --gate the exit status is the comparison's verdict (0 PASS, 1 FAIL, 3
INCONCLUSIVE); with --gate history it is the history's: FAIL on a regression
change point first found with this night, INCONCLUSIVE under eight nights;
--gate both fails on either (docs/acceptance.md "Gating on the history").

Examples:
   tpsreport run --root /data/tps --run nightly-2026-11-20 --baseline previous /logs/2026-11-20/*.jsonl.gz
   tpsreport run --root /data/tps --run nightly-2026-11-20 --baseline previous --baselines 3 --gate /logs/2026-11-20/*.jsonl.gz
   tpsreport run --root /data/tps --run nightly-2026-11-20 --baseline previous \
       'litellm:/logs/gw/2026-11-20/*.json' 'vllm-otel:/logs/vllm/2026-11-20/*.jsonl'
   tpsreport run --root /data/tps/dt=2026-11-20 --run nightly --baseline previous --gate history /logs/2026-11-20/
   tpsreport run --root /data/tps --run nightly-2026-11-20 --canary vllm-3 --gate /logs/2026-11-20/`,
		Flags: append([]cli.Flag{
			&cli.StringFlag{Name: "root", Usage: "the nightly `ROOT` directory; the run lands in ROOT/run=NAME/", Required: true},
			&cli.StringFlag{Name: "run", Usage: "the run's `NAME`, written into every span", Required: true},
			&cli.StringSliceFlag{Name: "baseline", Usage: "compare with run `NAME` of ROOT, or with \"previous\": the latest run of ROOT before this one (by run start, ties by name); repeat for several runs"},
			&cli.IntFlag{Name: "baselines", Value: 1, Usage: "with --baseline previous: compare with the last `N` runs before this one, pooled (the variance between them enters every interval)"},
			&gateFlag{cli.GenericFlag{Name: "gate", Value: &gateMode{}, DefaultText: "off", Usage: "exit 0 on PASS, 1 on FAIL, 3 on INCONCLUSIVE: --gate judges the comparison with the baseline, --gate history the history's change points (a regression first found with this night), --gate both both"}},
		}, slices.Concat(sourceFlags(), analyzeFlags(), canaryFlags(), slices.DeleteFunc(criteriaFlags(), func(f cli.Flag) bool { return f.Names()[0] == "gate" }))...),
		Action: func(c *cli.Context) error {
			if c.NArg() == 0 {
				return usageError(c, "no INPUT given")
			}
			name := c.String("run")
			if name == "" || strings.ContainsAny(name, "/\\") || strings.HasPrefix(name, ".") {
				return usageError(c, "--run %q: want a plain name (no slash, not starting with a dot)", name)
			}
			aopt, err := analyzeOptions(c)
			if err != nil {
				return err
			}
			cr, err := criteriaFrom(c)
			if err != nil {
				return err
			}
			src, err := sourceOptions(c)
			if err != nil {
				return err
			}
			if n := c.Int("baselines"); n < 1 {
				return usageError(c, "--baselines %d: want at least 1", n)
			}
			if c.IsSet("canary-baseline") && !c.IsSet("canary") {
				return usageError(c, "--canary-baseline needs --canary: the selectors of the canary's replicas")
			}
			cand, base, err := parseSelectors(c.StringSlice("canary"), c.StringSlice("canary-baseline"))
			if err != nil {
				return usageError(c, "%v", err)
			}
			gate := c.Generic("gate").(*gateMode).on
			root := c.String("root")
			v, cv, err := nightly(c.Context, e, nightlyOptions{
				root: root, name: name, format: c.String("format"), strict: c.Bool("strict"), source: src,
				inputs: c.Args().Slice(), analyze: aopt, baselines: c.StringSlice("baseline"), previous: c.Int("baselines"), criteria: cr,
				canary: cand, canaryBase: base,
			})
			if err != nil {
				return err
			}
			overall := ""
			if gate != gateHistory {
				for _, x := range []*schemas.Verdict{v, cv} {
					if x == nil {
						continue
					}
					if overall == "" {
						overall = x.Overall
					} else {
						overall = worse(overall, x.Overall)
					}
				}
			}
			if gate == gateHistory || gate == gateBoth {
				h, err := gateOnHistory(e.stdout, root, name)
				if err != nil {
					return err
				}
				if overall == "" {
					overall = h
				} else {
					overall = worse(overall, h)
				}
			}
			return gateExit(gate != "", overall)
		},
	}
}

type nightlyOptions struct {
	root, name, format string
	strict             bool
	inputs             []string
	analyze            analyze.Options
	baselines          []string // run names of root, or "previous"
	previous           int      // runs "previous" stands for (0 means 1)
	criteria           schemas.Criteria
	source             ingest.Options // TZ, Year, Mapping, MaxLineBytes
	// canary, when set, picks the night's canary replicas (and canaryBase
	// those it is compared with, else every other): canary/ holds its
	// verdict.
	canary, canaryBase []canary.Selector
}

// nightly builds ROOT/run=NAME aside — dataset, analysis, report and the
// comparison with its baseline — then swaps it in and rewrites
// ROOT/index.html. A run that fails at any step leaves ROOT as it was: no
// partial run, no index entry, and no ROOT at all when it did not exist.
func nightly(ctx context.Context, e *env, o nightlyOptions) (v, canaryVerdict *schemas.Verdict, err error) {
	// A root of Hive partitions (ROOT/dt=DAY) is one history: its runs,
	// its "previous" and its index are those of the root above them.
	hroot := historyRoot(o.root)
	own, err := ownName(hroot, o.root, o.name)
	if err != nil {
		return nil, nil, err
	}
	// --baseline NAME must name an analysed run of ROOT before any work is
	// done; "previous" is resolved once this run's start is known.
	for i, b := range o.baselines {
		if b == own {
			return nil, nil, fmt.Errorf("--baseline %q: that is the run itself; name an earlier run of %s, or previous", b, hroot)
		}
		if slices.Contains(o.baselines[:i], b) {
			return nil, nil, fmt.Errorf("--baseline %q is given twice", b)
		}
		if b != "previous" {
			if _, err := pickBaselines(hroot, own, b, 1, schemas.Summary{}); err != nil {
				return nil, nil, err
			}
		}
	}
	// One run of a history at a time: two would race for its index and
	// for run=NAME (review F2, F8).
	lock, err := dataset.LockDir(hroot, true, commandLine(e.args))
	if err != nil {
		return nil, nil, err
	}
	defer lock.Unlock()
	removeKilledRuns(o.root)
	// ROOT/run=NAME is built in a stage beside it and swapped in with one
	// atomic exchange (internal/dataset): a re-run killed at any moment,
	// its compare included, leaves the previous run whole, and run=NAME
	// exists at every instant once made. Begin creates ROOT when missing;
	// Abort removes it again when the run fails.
	final := filepath.Join(o.root, runPrefix+o.name)
	st, err := dataset.Begin(final)
	if err != nil {
		return nil, nil, err
	}
	defer st.Abort()
	stage := st.Dir()
	// The stage becomes ROOT/run=NAME, which index.html links to and a web
	// server or another user reads, whatever the umask.
	if err := os.Chmod(stage, 0o755); err != nil {
		return nil, nil, fmt.Errorf("create stage: %w", err)
	}

	var progress io.Writer
	if e.isTerminal(e.stderr) {
		progress = raw(e.stderr)
	}
	if _, err := ingest.Run(ctx, ingest.Options{
		RunID: o.name, Format: o.format, OutDir: stage, Inputs: o.inputs, Strict: o.strict,
		TZ: o.source.TZ, Year: o.source.Year, Date: o.source.Date, Mapping: o.source.Mapping, MaxLineBytes: o.source.MaxLineBytes, Benchmark: o.source.Benchmark,
		Stdin: e.stdin, Log: e.log, Version: toolVersion(), Progress: progress,
	}); err != nil {
		return nil, nil, err
	}
	aopt := o.analyze
	aopt.Dir, aopt.Log, aopt.Progress = stage, e.log, progress
	res, err := analyze.Run(ctx, aopt)
	if err != nil {
		return nil, nil, err
	}
	if _, err := report.Write(filepath.Join(stage, "report"), report.Input{
		Baseline: reportRun(final, res), Command: commandLine(e.args), Version: toolVersion(),
	}); err != nil {
		return nil, nil, err
	}

	var verdict *schemas.Verdict
	if len(o.baselines) > 0 {
		var picked []nightlyRun
		for _, b := range o.baselines {
			runs, err := pickBaselines(hroot, own, b, max(o.previous, 1), res.Summary)
			if err != nil {
				return nil, nil, err
			}
			for _, r := range runs {
				if !slices.ContainsFunc(picked, func(p nightlyRun) bool { return p.name == r.name }) {
					picked = append(picked, r)
				}
			}
		}
		var names []string
		for _, r := range picked {
			names = append(names, r.name)
		}
		if want := max(o.previous, 1) + len(o.baselines) - 1; slices.Contains(o.baselines, "previous") && len(names) > 0 && len(names) < want {
			fmt.Fprintf(e.stderr, "tpsreport: %s holds %d earlier %s of the %d asked for; comparing with %s\n",
				hroot, len(names), plural(len(names), "run", "runs"), want, strings.Join(names, ", "))
		}
		if len(picked) > 0 {
			var bases []analysedRun
			for _, r := range picked {
				b, err := loadCompared(ctx, filepath.Join(hroot, r.dir))
				if err != nil {
					return nil, nil, err
				}
				b.name = r.name
				bases = append(bases, b)
			}
			lat, err := analyze.LoadLatencies(ctx, stage)
			if err != nil {
				return nil, nil, err
			}
			cv, _, err := compareRuns(ctx, e, bases, []analysedRun{{dir: final, name: own, res: res, latencies: lat}}, filepath.Join(stage, "compare"), o.criteria, o.analyze.Pricing)
			if err != nil {
				return nil, nil, err
			}
			verdict = &cv
		} else {
			fmt.Fprintln(e.stderr, "tpsreport: no earlier run to compare with; skipping the comparison")
		}
	}

	var cv *schemas.Verdict
	if len(o.canary) > 0 {
		aopt := o.analyze
		aopt.Log, aopt.Progress = e.log, progress
		v, err := runCanary(ctx, e, canaryOptions{run: stage, name: final, cand: o.canary, base: o.canaryBase, analyze: aopt,
			criteria: o.criteria, out: filepath.Join(stage, "canary"), work: filepath.Join(stage, ".canary-split")})
		switch {
		case errors.Is(err, canary.ErrSelection):
			// A night without the canary (not deployed, or already
			// everywhere) is still a night of the history: it is kept,
			// and a gate on the canary is INCONCLUSIVE.
			fmt.Fprintf(e.stderr, "tpsreport: %v; no canary verdict for this night\n", err)
			v = schemas.Verdict{Overall: schemas.Inconclusive, Guards: []string{err.Error()}}
		case err != nil:
			return nil, nil, err
		}
		cv = &v
	}

	if err := st.Commit(); err != nil {
		return nil, nil, err
	}
	// The index follows the runs before anything is printed: a closed
	// stdout (SIGPIPE) must not leave it behind (review F16).
	if err := writeIndex(hroot); err != nil {
		return nil, nil, err
	}
	fmt.Fprintln(e.stdout, filepath.Join(final, "report", "report.html"))
	if verdict != nil {
		printVerdict(e.stdout, *verdict)
		fmt.Fprintln(e.stdout, filepath.Join(final, "compare", "report.html"))
	}
	if cv != nil && len(cv.Criteria) > 0 {
		printVerdict(e.stdout, *cv)
		fmt.Fprintln(e.stdout, filepath.Join(final, "canary", "report.html"))
	}
	fmt.Fprintln(e.stdout, filepath.Join(hroot, "index.html"))
	return verdict, cv, nil
}

// removeKilledRuns removes the stages that runs of versions before
// internal/dataset left in root when killed (.run=NAME.tmp-*, with their
// .old twins). The caller holds root's lock, so none is being written.
func removeKilledRuns(root string) {
	entries, err := os.ReadDir(root)
	if err != nil {
		return
	}
	for _, de := range entries {
		if strings.HasPrefix(de.Name(), "."+runPrefix) && strings.Contains(de.Name(), ".tmp-") {
			os.RemoveAll(filepath.Join(root, de.Name()))
		}
	}
}

// staleBaselines names the baselines of a verdict whose data changed since
// it was made (a night ingested again): "nightly-2026-12-02 re-run since";
// "" when none did, or the verdict does not record its data.
func staleBaselines(v schemas.Verdict, runs []nightlyRun) string {
	var names []string
	for _, d := range v.Data {
		if d.Side != "baseline" || d.SpansSHA256 == "" {
			continue
		}
		for _, r := range runs {
			// A verdict names its runs as the history does; one written
			// before it did, by run id alone (unique in a root without
			// partitions).
			same := r.name == d.Name || d.Name == "" && r.summary.RunID == d.Run
			if same && r.spans != "" && r.spans != d.SpansSHA256 {
				names = append(names, r.name)
			}
		}
	}
	if len(names) == 0 {
		return ""
	}
	return strings.Join(names, ", ") + " re-run since"
}
