package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/urfave/cli/v2"

	"github.com/tpsreport/tpsreport/analyze"
	"github.com/tpsreport/tpsreport/capacity"
	"github.com/tpsreport/tpsreport/compare"
	"github.com/tpsreport/tpsreport/ingest"
	"github.com/tpsreport/tpsreport/internal/dataset"
	"github.com/tpsreport/tpsreport/report"
	"github.com/tpsreport/tpsreport/schemas"
)

// criteriaFlags are the thresholds of docs/acceptance.md; they override an acceptance file.
func criteriaFlags() []cli.Flag {
	d := schemas.DefaultCriteria()
	return []cli.Flag{
		&cli.StringFlag{Name: "criteria", Usage: "acceptance file (YAML) with thresholds; flags override it"},
		&cli.BoolFlag{Name: "gate", Usage: "exit 0 on PASS, 1 on FAIL, 3 on INCONCLUSIVE"},
		&cli.BoolFlag{Name: "allow-model-mismatch", Usage: "compare runs that served different models"},
		&cli.Float64Flag{Name: "min-improvement", Value: d.MinImprovement, Usage: "required throughput gain, as a fraction (0.05 = 5 %)"},
		&cli.Float64Flag{Name: "success-tolerance", Value: d.SuccessTolerance, Usage: "allowed success-rate drop, as a fraction (0.001 = 0.1 pp)"},
		&cli.Float64Flag{Name: "retry-tolerance", Value: d.RetryTolerance, Usage: "allowed retry-rate rise, as a fraction (0.001 = 0.1 pp)"},
		&cli.Float64Flag{Name: "gap-tolerance", Value: d.GapTolerance, Usage: "gap_fraction change that counts, as a fraction"},
		&cli.Float64Flag{Name: "gap-floor", Value: d.GapFloor, Usage: "gap_fraction under which no idle time is left to remove"},
		&cli.IntFlag{Name: "min-backlog-windows", Value: d.MinBacklogWindows, Usage: "backlog windows each run needs for a throughput or gap verdict"},
		&cli.Float64Flag{Name: "load-mismatch", Value: d.LoadMismatch, Usage: "largest relative difference of offered load (offered rate: arrivals over the arrival span)"},
		&cli.Float64Flag{Name: "token-mismatch", Value: d.TokenMismatch, Usage: "largest relative difference of the token mix (mean input tokens per request, mean output tokens per delivered request)"},
		&cli.Float64Flag{Name: "ttft-tolerance", Value: d.TTFTTolerance, Usage: "allowed rise of request TTFT p95, as a fraction (0.1 = 10 %)"},
		&cli.Float64Flag{Name: "tpot-tolerance", Value: d.TPOTTolerance, Usage: "allowed rise of request TPOT p95, as a fraction (0.1 = 10 %)"},
		&cli.Float64Flag{Name: "slo-tolerance", Value: d.SLOTolerance, Usage: "allowed SLO attainment drop, as a fraction (0.01 = 1 pp)"},
		&cli.StringFlag{Name: "warmup", DefaultText: "0", Usage: "leave out of every criterion the windows that start within this `DURATION` of a run's start (2m, 90s), or auto: each run's own warm-up, found in its throughput by MSER-5"},
		&cli.StringFlag{Name: "cooldown", DefaultText: "0", Usage: "leave out of every criterion the windows that end within this `DURATION` of a run's end, or auto (MSER-5, from the end)"},
		&cli.StringSliceFlag{Name: "off", Usage: "turn a criterion off: throughput, success_rate, gap_fraction, retry_rate, ttft, tpot, slo_attainment (repeatable)"},
		&cli.Float64Flag{Name: "alpha", Value: d.Alpha, Usage: "the overall verdict's false-alarm rate: each of k criteria judged is held to alpha/k"},
		&cli.Float64Flag{Name: "confidence", Value: d.Confidence, Usage: "the same setting as 1 − alpha (older scripts): set one or the other"},
		&cli.IntFlag{Name: "resamples", Value: d.Resamples, Usage: "resamples of blocks of windows, per criterion and side (100 to 100,000)"},
	}
}

// criteriaFrom builds the criteria: defaults, then the acceptance file, then flags set.
func criteriaFrom(c *cli.Context) (schemas.Criteria, error) {
	cr := schemas.DefaultCriteria()
	if p := c.String("criteria"); p != "" {
		var err error
		if cr, err = compare.LoadCriteria(p); err != nil {
			return cr, err
		}
	}
	floats := map[string]*float64{
		"min-improvement": &cr.MinImprovement, "success-tolerance": &cr.SuccessTolerance,
		"retry-tolerance": &cr.RetryTolerance, "gap-tolerance": &cr.GapTolerance, "gap-floor": &cr.GapFloor,
		"load-mismatch": &cr.LoadMismatch, "confidence": &cr.Confidence, "alpha": &cr.Alpha, "token-mismatch": &cr.TokenMismatch,
		"ttft-tolerance": &cr.TTFTTolerance, "tpot-tolerance": &cr.TPOTTolerance, "slo-tolerance": &cr.SLOTolerance,
	}
	for name, p := range floats {
		if c.IsSet(name) {
			*p = c.Float64(name)
		}
	}
	// alpha and confidence are one setting: a flag for one overrides a
	// file's either (both flags must agree).
	switch {
	case c.IsSet("alpha") && !c.IsSet("confidence"):
		cr.Confidence = 1 - cr.Alpha
	case c.IsSet("confidence") && !c.IsSet("alpha"):
		cr.Alpha = 1 - cr.Confidence
	}
	if c.IsSet("min-backlog-windows") {
		cr.MinBacklogWindows = c.Int("min-backlog-windows")
	}
	if c.IsSet("resamples") {
		cr.Resamples = c.Int("resamples")
	}
	if c.Bool("allow-model-mismatch") {
		cr.AllowModelMismatch = true
	}
	for name, p := range map[string]*float64{"warmup": &cr.Warmup, "cooldown": &cr.Cooldown} {
		if !c.IsSet(name) {
			continue
		}
		auto := map[string]*bool{"warmup": &cr.WarmupAuto, "cooldown": &cr.CooldownAuto}[name]
		*auto = c.String(name) == "auto"
		if *auto {
			*p = 0
			continue
		}
		v, err := compare.ParseSeconds(c.String(name))
		if err != nil || v < 0 {
			return cr, usageError(c, "--%s %q: want a duration such as 2m or 90s, or auto", name, c.String(name))
		}
		*p = v
	}
	for _, n := range c.StringSlice("off") {
		if !slices.Contains(cr.Off, n) {
			cr.Off = append(cr.Off, n)
		}
	}
	// Every setting is checked before any run is read: a bad one is a
	// usage error, whatever the runs.
	return compare.Settle(cr)
}

func compareCommand(e *env) *cli.Command {
	return &cli.Command{
		Name:      "compare",
		Usage:     "decide whether a candidate run beat a baseline run (verdict.json and a comparison report)",
		ArgsUsage: "BASELINE_DIR CANDIDATE_DIR | --canary SELECTOR RUN_DIR",
		Description: `Both directories are analysed run datasets. Each criterion of the acceptance
test is PASS, FAIL or INCONCLUSIVE with the numbers behind it; with --gate the exit
status is 0 PASS, 1 FAIL, 3 INCONCLUSIVE (2 for usage and input errors).
Every interval resamples blocks of windows, and each criterion is held to
alpha/k (k criteria judged), so that an unchanged system gets an overall PASS or
FAIL in at most alpha (5 %) of comparisons; each criterion says the smallest
change it can see at the runs' size.

Several runs a side (nights, or repeats of a load test) give each a sharper and
more honest verdict: name each with --baseline and --candidate, once per run,
instead of the two directories. The variance between runs enters every interval.

A canary is judged from one run: --canary SELECTOR picks the replicas that run
the change (a glob of the replica's name, replica~REGEX, or model=GLOB), and
they are compared with the run's other replicas (or those --canary-baseline
picks) over the same hours. Each replica is analysed alone, as the run was
(its window, cap and SLO), the criteria pool each group's replicas (so
throughput is per replica), and every interval resamples the same blocks of
time for both groups: the traffic both served cancels, and the verdict sees
changes a night-to-night comparison cannot. A balancer that gave the canary
different work per replica makes it INCONCLUSIVE (docs/acceptance.md "Canary
comparisons").

Examples:
   tpsreport compare --gate --out reports/fix runs/baseline runs/candidate
   tpsreport compare --gate --out reports/canary --canary vllm-3 runs/nightly-2026-11-20
   tpsreport compare --gate --out reports/fix \
       --baseline runs/base-1 --baseline runs/base-2 --baseline runs/base-3 \
       --candidate runs/fix-1 --candidate runs/fix-2 --candidate runs/fix-3`,
		Flags: append([]cli.Flag{
			&cli.StringFlag{Name: "out", Aliases: []string{"o"}, Usage: "write the report into `OUTDIR`", Required: true},
			&cli.StringSliceFlag{Name: "baseline", Usage: "a baseline run `DIR`; repeat for several runs (then name the candidates with --candidate)"},
			&cli.StringSliceFlag{Name: "candidate", Usage: "a candidate run `DIR`; repeat for several runs"},
		}, slices.Concat(canaryFlags(), criteriaFlags(), costFlags())...),
		Action: func(c *cli.Context) error {
			bases, cands := c.StringSlice("baseline"), c.StringSlice("candidate")
			if sels := c.StringSlice("canary"); len(sels) > 0 || c.IsSet("canary-baseline") {
				if len(sels) == 0 {
					return usageError(c, "--canary-baseline needs --canary: the selectors of the canary's replicas")
				}
				if c.NArg() != 1 || len(bases) > 0 || len(cands) > 0 {
					return usageError(c, "--canary takes one RUN_DIR, whose replicas it compares; got %d arguments", c.NArg())
				}
				for _, f := range costFlags() {
					if c.IsSet(f.Names()[0]) {
						return usageError(c, "--%s does not apply to --canary: both groups are replicas of one run, priced alike", f.Names()[0])
					}
				}
				cand, base, err := parseSelectors(sels, c.StringSlice("canary-baseline"))
				if err != nil {
					return usageError(c, "%v", err)
				}
				cr, err := criteriaFrom(c)
				if err != nil {
					return err
				}
				v, err := canaryCompare(c.Context, e, c.Args().First(), c.String("out"), cand, base, cr)
				if err != nil {
					return err
				}
				return gateExit(c.Bool("gate"), v.Overall)
			}
			switch {
			case len(bases) == 0 && len(cands) == 0:
				if c.NArg() != 2 {
					return usageError(c, "want BASELINE_DIR and CANDIDATE_DIR, got %d arguments", c.NArg())
				}
				bases, cands = []string{c.Args().Get(0)}, []string{c.Args().Get(1)}
			case c.NArg() != 0:
				return usageError(c, "name the runs either as BASELINE_DIR CANDIDATE_DIR or with --baseline and --candidate, not both")
			case len(bases) == 0 || len(cands) == 0:
				return usageError(c, "want at least one --baseline DIR and one --candidate DIR")
			}
			cr, err := criteriaFrom(c)
			if err != nil {
				return err
			}
			price, err := pricingFrom(c)
			if err != nil {
				return err
			}
			v, err := runCompare(c.Context, e, bases, cands, c.String("out"), cr, price)
			if err != nil {
				return err
			}
			return gateExit(c.Bool("gate"), v.Overall)
		},
	}
}

// canaryFlags choose a canary's groups, on compare and run.
func canaryFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringSliceFlag{Name: "canary", Usage: "judge a canary: the replicas `SELECTOR` picks (a glob of the replica name, replica~REGEX, model=GLOB; repeat to require several) against the run's others, over the same time"},
		&cli.StringSliceFlag{Name: "canary-baseline", Usage: "with --canary: the replicas to compare it with (`SELECTOR`), instead of every other replica"},
	}
}

// runCompare loads the analysed runs of each side, decides the criteria,
// and writes verdict.json and the comparison report into out.
func runCompare(ctx context.Context, e *env, baseDirs, candDirs []string, out string, cr schemas.Criteria, price *capacity.Pricing) (schemas.Verdict, error) {
	for _, dirs := range [][]string{baseDirs, candDirs} {
		for i, dir := range dirs {
			if slices.Contains(dirs[:i], dir) {
				return schemas.Verdict{}, fmt.Errorf("run %q is named twice on one side: each run counts once", dir)
			}
		}
	}
	// One writer of the output at a time: two compares into one --out
	// would each report the other's verdict as their own.
	outLock, err := dataset.LockDir(out, true, commandLine(e.args))
	if err != nil {
		return schemas.Verdict{}, err
	}
	defer outLock.Unlock()
	for _, dir := range slices.Concat(baseDirs, candDirs) {
		lock, err := dataset.LockDir(dir, false, commandLine(e.args))
		if err != nil {
			return schemas.Verdict{}, err
		}
		defer lock.Unlock()
	}
	load := func(dirs []string) ([]analysedRun, error) {
		var out []analysedRun
		for _, d := range dirs {
			r, err := loadCompared(ctx, d)
			if err != nil {
				return nil, err
			}
			out = append(out, r)
		}
		return out, nil
	}
	base, err := load(baseDirs)
	if err != nil {
		return schemas.Verdict{}, err
	}
	cand, err := load(candDirs)
	if err != nil {
		return schemas.Verdict{}, err
	}
	v, paths, err := compareRuns(ctx, e, base, cand, out, cr, price)
	if err != nil {
		return v, err
	}
	printVerdict(e.stdout, v)
	fmt.Fprintln(e.stdout, reportPath(paths))
	return v, nil
}

// analysedRun is an analysed run and the directory a report names it by,
// with its delivered requests' latencies (latencies.parquet) for compare.
type analysedRun struct {
	dir       string
	name      string // its name in a nightly history; "" outside one
	res       *schemas.RunResult
	latencies []schemas.RequestLatency
}

// loadRun reads the analysed run in dir, saying so plainly when dir is not
// there at all rather than that it was not analysed.
func loadRun(ctx context.Context, dir string) (analysedRun, error) {
	if _, err := os.Stat(dir); errors.Is(err, fs.ErrNotExist) {
		return analysedRun{}, fmt.Errorf("run directory %q does not exist", dir)
	}
	res, err := analyze.Load(ctx, dir)
	return analysedRun{dir: dir, res: res}, err
}

// loadCompared is loadRun with the delivered requests' latencies, which
// only compare's latency criteria read.
func loadCompared(ctx context.Context, dir string) (analysedRun, error) {
	r, err := loadRun(ctx, dir)
	if err != nil {
		return r, err
	}
	r.latencies, err = analyze.LoadLatencies(ctx, dir)
	return r, err
}

// compareRuns decides the criteria on the analysed runs of each side and
// writes verdict.json and the comparison report into out; it returns the
// paths the report wrote. price, when set, prices both sides alike; without
// it they are compared at the prices they were analysed with, if any. The
// report's charts and cost show the first run of each side.
func compareRuns(ctx context.Context, e *env, bases, cands []analysedRun, out string, cr schemas.Criteria, price *capacity.Pricing) (schemas.Verdict, []string, error) {
	runs := func(rs []analysedRun) []compare.Run {
		out := make([]compare.Run, len(rs))
		for i, r := range rs {
			out[i] = compare.Run{Summary: r.res.Summary, Windows: r.res.Windows, Requests: r.latencies}
		}
		return out
	}
	v, err := compare.EvaluateRuns(ctx, runs(bases), runs(cands), cr)
	if err != nil {
		return v, nil, err
	}
	base, cand := bases[0], cands[0]
	var note string
	v.Cost, note = capacity.Compare(base.res.Summary, cand.res.Summary, base.res.Windows, cand.res.Windows, price)
	if note != "" {
		v.Notes = append(v.Notes, note)
	}
	v.Disaggregation = compare.Disaggregation(base.res.Summary.Disaggregation, cand.res.Summary.Disaggregation)
	if note := compare.DisaggregationNote(base.res.Summary.Disaggregation, cand.res.Summary.Disaggregation); note != "" {
		v.Notes = append(v.Notes, note)
	}
	if len(bases) > 1 || len(cands) > 1 {
		v.Notes = append(v.Notes, fmt.Sprintf("the criteria pool %d baseline and %d candidate runs; the report's charts and cost show the first run of each side (%s, %s)",
			len(bases), len(cands), base.res.Summary.RunID, cand.res.Summary.RunID))
	}
	for _, b := range bases {
		for _, c := range cands {
			if note := ttftNote(b.res.Manifest, c.res.Manifest); note != "" && !slices.Contains(v.Notes, note) {
				v.Notes = append(v.Notes, note)
			}
		}
	}
	for _, side := range []struct {
		name string
		runs []analysedRun
	}{{"baseline", bases}, {"candidate", cands}} {
		for _, r := range side.runs {
			v.Data = append(v.Data, schemas.RunData{Side: side.name, Run: r.res.Summary.RunID, SpansSHA256: spansDigest(&r.res.Manifest), Name: r.name})
		}
	}
	// verdict.json is written with the report, in one commit: never the
	// verdict of one comparison beside the report of another.
	var verdict bytes.Buffer
	if err := jsonEncoder(&verdict).Encode(v); err != nil {
		return v, nil, fmt.Errorf("write %s: %w", filepath.Join(out, "verdict.json"), err)
	}
	candRun := reportRun(cand.dir, cand.res)
	paths, err := report.Write(out, report.Input{
		Baseline:  reportRun(base.dir, base.res),
		Candidate: &candRun,
		Verdict:   &v,
		Command:   commandLine(e.args),
		Version:   toolVersion(),
		Extra:     []report.File{{Name: "verdict.json", Data: verdict.Bytes()}},
	})
	if err != nil {
		return v, nil, err
	}
	return v, paths, nil
}

// ttftNote warns when the two runs' TTFT starts at different points (a
// load tool's client send, a gateway's receipt, an engine's arrival): their
// TTFTs measure different intervals. "" when they agree or one is unknown.
func ttftNote(base, cand schemas.Manifest) string {
	formats := func(m schemas.Manifest) []string {
		var out []string
		for _, in := range m.Inputs {
			if !slices.Contains(out, in.Format) {
				out = append(out, in.Format)
			}
		}
		return out
	}
	bf, cf := formats(base), formats(cand)
	b, c := ingest.TTFTFrom(bf), ingest.TTFTFrom(cf)
	if b == "" || c == "" || b == c {
		return ""
	}
	where := map[string]string{ingest.TTFTClient: "the client's send", ingest.TTFTGateway: "the gateway's receipt", ingest.TTFTEngine: "the engine's arrival"}
	return fmt.Sprintf("TTFT starts at %s in the baseline (%s) and at %s in the candidate (%s): their TTFTs, and the criteria on them, measure different intervals",
		where[b], strings.Join(bf, ", "), where[c], strings.Join(cf, ", "))
}

// gateExit maps the overall verdict to the exit code when gating.
func gateExit(gate bool, overall string) error {
	if !gate {
		return nil
	}
	switch overall {
	case schemas.Fail:
		return &exitError{code: exitFail}
	case schemas.Inconclusive:
		return &exitError{code: exitInconclusive}
	}
	return nil
}

func printVerdict(w io.Writer, v schemas.Verdict) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "VERDICT\tCRITERION\tREASON")
	for _, c := range v.Criteria {
		fmt.Fprintf(tw, "%s\t%s\t%s\n", c.Verdict, c.Title, cell(c.Reason))
		if c.Cause != "" {
			fmt.Fprintf(tw, "\t\t%s\n", cell(c.Cause))
		}
	}
	for _, g := range v.Guards {
		fmt.Fprintf(tw, "guard\t\t%s\n", cell(g))
	}
	for _, n := range v.Notes {
		fmt.Fprintf(tw, "note\t\t%s\n", cell(n))
	}
	var sees []string
	for _, c := range v.Criteria {
		if t := compare.MDEText(c); t != "" {
			sees = append(sees, c.Name+" "+t)
		}
	}
	if len(sees) > 0 {
		fmt.Fprintf(tw, "can see\t\t%s: the smallest change each criterion finds 4 times in 5 at these runs' size\n", strings.Join(sees, ", "))
	}
	if g := v.Canary; g != nil {
		fmt.Fprintf(tw, "groups\t\tcanary %s: %s requests a replica; baseline %s: %s a replica\n", strings.Join(g.Candidate.Replicas, ", "),
			compare.Count(g.Candidate.RequestsPerReplica), strings.Join(g.Baseline.Replicas, ", "), compare.Count(g.Baseline.RequestsPerReplica))
		if t := compare.PairingText(v.Criteria); t != "" {
			fmt.Fprintf(tw, "paired\t\t%s\n", t)
		}
	} else if nb, nc := len(v.BaselineRuns), len(v.CandidateRuns); nb > 1 || nc > 1 {
		fmt.Fprintf(tw, "runs\t\t%d baseline, %d candidate: the variance between runs is in every interval\n", nb, nc)
	}
	if ch := v.Cost; ch != nil {
		line := ch.Headline
		if k := ch.HeadlineFigure; k != "" {
			line += fmt.Sprintf(" (%s → %s)", capacity.Money(capacity.Figure(ch.Baseline, k), ch.Baseline.Currency),
				capacity.Money(capacity.Figure(ch.Candidate, k), ch.Candidate.Currency))
		}
		fmt.Fprintf(tw, "cost\t\t%s\n", cell(line))
	}
	if ch := v.Disaggregation; ch != nil {
		fmt.Fprintf(tw, "moved\t\t%s\n", cell(ch.Reason))
	}
	fmt.Fprintf(tw, "%s\toverall\t%s vs %s\n", v.Overall, cell(v.Baseline), cell(v.Candidate))
	tw.Flush()
}

// spansDigest is the SHA-256 of a run's spans.parquet as its manifest
// records it; "" for a dataset written before manifests recorded files.
func spansDigest(m *schemas.Manifest) string {
	if m == nil {
		return ""
	}
	for _, f := range m.Files {
		if f.Name == schemas.SpansFile {
			return f.SHA256
		}
	}
	return ""
}
