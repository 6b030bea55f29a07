package main

import (
	"fmt"
	"slices"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/tpsreport/tpsreport/capacity"
	"github.com/tpsreport/tpsreport/internal/dataset"
	"github.com/tpsreport/tpsreport/report"
	"github.com/tpsreport/tpsreport/schemas"
)

func reportCommand(e *env) *cli.Command {
	return &cli.Command{
		Name:      "report",
		Usage:     "write a single-run report (report.html, PNG charts, summary.md, report.json)",
		ArgsUsage: "DIR",
		Description: `DIR is an analysed run dataset.

With --target-rpm the report adds a capacity plan for that request rate, as
tpsreport plan prints it.

Examples:
   tpsreport report --out reports/baseline runs/baseline
   tpsreport report --target-rpm 1200 --slo e2e=20s --out reports/baseline runs/baseline`,
		Flags: append([]cli.Flag{
			&cli.StringFlag{Name: "out", Aliases: []string{"o"}, Usage: "write the report into `OUTDIR`", Required: true},
		}, slices.Concat(planFlags(), costFlags())...),
		Action: func(c *cli.Context) error {
			if c.NArg() != 1 {
				return usageError(c, "want one DIR, got %d arguments", c.NArg())
			}
			dir := c.Args().First()
			// Readers share the dataset; a writer of it waits for none.
			lock, err := dataset.LockDir(dir, false, commandLine(e.args))
			if err != nil {
				return err
			}
			defer lock.Unlock()
			run, err := loadRun(c.Context, dir)
			if err != nil {
				return err
			}
			in := report.Input{
				Baseline: reportRun(dir, run.res),
				Command:  commandLine(e.args),
				Version:  toolVersion(),
			}
			if c.IsSet("target-rpm") {
				s, err := planSettings(c)
				if err != nil {
					return err
				}
				p, err := planRun(c, dir, s, commandLine(e.args))
				if err != nil {
					return err
				}
				in.Plans = &report.Plans{Settings: s, Plans: []capacity.Plan{p}}
			} else {
				for _, n := range []string{"slo", "attainment", "utilization", "replica-cost-per-hour", "replicas", "currency"} {
					if c.IsSet(n) {
						return usageError(c, "--%s goes with --target-rpm (the capacity plan)", n)
					}
				}
			}
			out := c.String("out")
			outLock, err := dataset.LockDir(out, true, commandLine(e.args))
			if err != nil {
				return err
			}
			defer outLock.Unlock()
			paths, err := report.Write(out, in)
			if err != nil {
				return err
			}
			fmt.Fprintln(e.stdout, reportPath(paths))
			return nil
		},
	}
}

// reportRun converts analyze's result into the report package's input.
func reportRun(dir string, res *schemas.RunResult) report.Run {
	r := report.Run{
		Dir:             dir,
		Manifest:        res.Manifest,
		Summary:         res.Summary,
		Windows:         res.Windows,
		TTFTQuantiles:   res.Curves.TTFT,
		TQueueQuantiles: res.Curves.TQueue,
	}
	for _, p := range res.Curves.Concurrency {
		r.Concurrency = append(r.Concurrency, report.ConcurrencyPoint{InFlight: p.InFlight, StreamTPS: p.StreamTPS, N: p.N})
	}
	return r
}

// reportPath picks report.html out of the paths a report wrote.
func reportPath(paths []string) string {
	for _, p := range paths {
		if strings.HasSuffix(p, "report.html") {
			return p
		}
	}
	return strings.Join(paths, " ")
}

// commandLine renders args as a shell command line a user can paste.
func commandLine(args []string) string {
	out := make([]string, len(args))
	for i, a := range args {
		if i == 0 {
			a = "tpsreport"
		}
		out[i] = shellQuote(a)
	}
	return strings.Join(out, " ")
}

func shellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_=./:,@%+") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
