// Command calibrate is `make calibrate`: it measures how often compare's
// verdict is wrong. It simulates A/A pairs (two runs of one unchanged
// scenario, each with its own traffic) and known-effect pairs (a scenario
// against a changed copy of it), takes each through the pipeline (ingest,
// analyze) as canonical spans and as LiteLLM + vLLM OTel logs joined per
// request, compares them, and prints the false-alarm rate of each criterion
// and overall with its binomial 95 % interval, and the detection rate of each
// effect (docs/acceptance.md "How often the verdict is wrong"). With
// -canary it also judges simulated canaries (compare --canary) with and
// without a change on the canary replica (docs/acceptance.md "Canary
// comparisons").
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/tpsreport/tpsreport/compare"
	"github.com/tpsreport/tpsreport/schemas"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "calibrate:", err)
		os.Exit(2)
	}
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("calibrate", flag.ContinueOnError)
	fs.SetOutput(stderr)
	pairs := fs.Int("pairs", 20, "A/A pairs of one run against one, per scenario and input path (and pairs per effect)")
	dir := fs.String("dir", "", "keep the simulated and analysed runs in `DIR` and reuse those already there ('' for a temporary directory, removed at the end)")
	scen := fs.String("scenarios", strings.Join(aaScenarios, ","), "A/A scenarios, comma-separated")
	paths := fs.String("paths", pathSpans+","+pathJoined, "input paths of the A/A pairs: spans (canonical spans), joined (LiteLLM + vLLM OTel)")
	effPaths := fs.String("effect-paths", pathSpans, "input paths of the effect pairs ('' for no effect pairs)")
	md := fs.String("md", "", "also write the table into this Markdown file, between its calibration markers")
	workers := fs.Int("j", 2, "runs simulated and analysed at once")
	show := fs.String("show", "", "also print the verdicts of the pairs of this scenario or effect, criterion by criterion")
	criteria := fs.String("criteria", "", "judge the pairs by this acceptance file (YAML) instead of the defaults, to measure its false-alarm and detection rates")
	canaries := fs.Int("canary", 0, "also this many seeds of each canary case (no change, +25 % slots, TPOT +20 %, failures +2 pp, half the traffic) on each input path: a run of four replicas whose last is the canary, compared with compare --canary's pipeline; -pairs 0 for the canaries alone")
	histories := fs.Int("history", 0, "instead of the pairs: this many simulated histories of 40 nights of each kind (flat, a step in capacity, a step in TPOT, a drift), and how often tpsreport history's change points find what each holds and nothing else")
	if err := fs.Parse(args); err != nil {
		return err
	}
	root := *dir
	if root == "" {
		tmp, err := os.MkdirTemp("", "calibrate-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(tmp)
		root = tmp
	}
	c := &corpus{root: root, effects: map[string]effect{}, log: func(f string, a ...any) {
		fmt.Fprintf(stderr, "calibrate: "+f+"\n", a...)
	}}
	for _, e := range effects {
		c.effects[e.name] = e
	}
	if *histories > 0 {
		return runHistories(ctx, c, *histories, *workers, stdout)
	}
	split := func(s string) []string {
		if s == "" {
			return nil
		}
		return strings.Split(s, ",")
	}
	cr, command := schemas.DefaultCriteria(), "make calibrate"
	if *criteria != "" {
		var err error
		if cr, err = compare.LoadCriteria(*criteria); err != nil {
			return err
		}
		command = "go run ./tools/calibrate -criteria " + *criteria
	}
	var canaryMD strings.Builder
	if *canaries > 0 {
		if err := runCanaries(ctx, c, *canaries, *workers, split(*paths), cr, command, &canaryMD); err != nil {
			return err
		}
		fmt.Fprint(stdout, canaryMD.String())
		if *md != "" {
			if err := writeMarkdownAt(*md, canaryBegin, canaryEnd, canaryMD.String()); err != nil {
				return err
			}
		}
	}
	if *pairs == 0 {
		return nil
	}
	ps := plan(*pairs, split(*scen), split(*paths), split(*effPaths), effects)
	var keys []runKey
	for _, p := range ps {
		keys = append(keys, p.base...)
		keys = append(keys, p.cand...)
	}
	keys = dedupe(keys)
	start := time.Now()
	if err := c.makeAll(ctx, keys, *workers); err != nil {
		return err
	}
	c.log("%d runs ready in %s", len(keys), time.Since(start).Round(time.Second))
	res, err := evaluate(ctx, c, ps, 2, cr)
	if err != nil {
		return err
	}
	if *show == "z" {
		zTable(stdout, res)
	} else if *show != "" {
		showPairs(stdout, res, *show)
	}
	var b strings.Builder
	writeTable(&b, res, tableHeader{pairs: *pairs, date: time.Now().UTC(), command: command})
	fmt.Fprint(stdout, b.String())
	if *md != "" {
		return writeMarkdown(*md, b.String())
	}
	return nil
}
