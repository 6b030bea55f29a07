package main

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/urfave/cli/v2"

	"github.com/tpsreport/tpsreport"
	"github.com/tpsreport/tpsreport/analyze"
	"github.com/tpsreport/tpsreport/ingest"
	"github.com/tpsreport/tpsreport/schemas"
)

func demoCommand(e *env) *cli.Command {
	return &cli.Command{
		Name:  "demo",
		Usage: "run the whole pipeline on the shipped sample logs and write a comparison report",
		Description: `The sample logs are a baseline whose orchestration stalls admission while
requests wait, and a candidate serving the same traffic work-conserving. demo
ingests both, analyses them, compares them and writes the report:

   DIR/logs/      the sample logs
   DIR/runs/      the two run datasets (Parquet, summary.json, ...)
   DIR/report/    report.html, the PNG charts, summary.md, report.json, verdict.json

Example:
   tpsreport demo --out /tmp/tpsreport-demo`,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "out", Aliases: []string{"o"}, Value: "tpsreport-demo", Usage: "output directory (`DIR`)"},
		},
		Action: func(c *cli.Context) error {
			if c.NArg() != 0 {
				return usageError(c, "takes no arguments")
			}
			out := c.String("out")
			logs := filepath.Join(out, "logs")
			sub, err := fs.Sub(tpsreport.DemoLogs, "testdata/demo")
			if err != nil {
				return err
			}
			if err := os.RemoveAll(logs); err != nil {
				return err
			}
			if err := os.CopyFS(logs, sub); err != nil {
				return fmt.Errorf("write sample logs: %w", err)
			}
			runs := map[string]string{}
			for _, name := range []string{"baseline", "candidate"} {
				dir := filepath.Join(out, "runs", name)
				man, err := ingest.Run(c.Context, ingest.Options{
					RunID: name, Format: "auto", OutDir: dir,
					Inputs: []string{filepath.Join(logs, name, "spans.jsonl.gz"), filepath.Join(logs, name, "samples.jsonl")},
					Stdin:  e.stdin, Log: e.log, Version: toolVersion(),
				})
				if err != nil {
					return err
				}
				res, err := analyze.Run(c.Context, analyze.Options{Dir: dir, Window: defaultWindow, Log: e.log})
				if err != nil {
					return err
				}
				fmt.Fprintf(e.stdout, "%-9s %d spans, %d samples, system_tps %s, gap_fraction %s (sampled %s)\n", name, man.Counts.Written-man.SamplesWritten, man.SamplesWritten,
					fmtFloat(res.Summary.SystemTPS), fmtFloat(res.Summary.GapFraction), fmtFloat(res.Summary.GapFractionSampled))
				runs[name] = dir
			}
			fmt.Fprintln(e.stdout)
			_, err = runCompare(c.Context, e, runs["baseline"], runs["candidate"], filepath.Join(out, "report"), schemas.DefaultCriteria())
			return err
		},
	}
}
