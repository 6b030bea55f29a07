package main

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/urfave/cli/v2"

	"github.com/tpsreport/tpsreport"
	"github.com/tpsreport/tpsreport/analyze"
	"github.com/tpsreport/tpsreport/capacity"
	"github.com/tpsreport/tpsreport/ingest"
	"github.com/tpsreport/tpsreport/schemas"
)

// demoSLO is the SLO the demo analyses both runs with, as
// --slo ttft=10s,tpot=80ms,e2e=60s would: a chat service's bounds, loose
// enough that the candidate meets them and the stalled baseline often not.
var demoSLO = &schemas.SLO{TTFT: ptrTo(10.0), TPOT: ptrTo(0.08), E2E: ptrTo(60.0)}

// demoPricing is the price the demo puts on a replica, as
// --replica-cost-per-hour 4 --currency USD would: about what one GPU of the
// size that serves the demo's 8B model rents for.
var demoPricing = &capacity.Pricing{ReplicaCostPerHour: 4, Currency: "USD"}

func ptrTo[T any](v T) *T { return &v }

func demoCommand(e *env) *cli.Command {
	return &cli.Command{
		Name:  "demo",
		Usage: "run the whole pipeline on the shipped sample logs and write a comparison report",
		Description: `The sample logs are a baseline whose orchestration stalls admission while
requests wait, and a candidate serving the same traffic work-conserving. Each run
has the logs a real deployment writes: the LiteLLM gateway's payloads, vLLM's
OpenTelemetry spans and vLLM's server log (max_num_seqs and stats lines). demo
ingests them into one run each (analyze joins gateway and engine per request),
analyses them with the SLO ttft=10s,tpot=80ms,e2e=60s at 4 USD per replica-hour,
compares and writes the report:

   DIR/logs/      the sample logs
   DIR/runs/      the two run datasets (Parquet, summary.json, ...)
   DIR/report/    report.html, the PNG charts, summary.md, report.json, verdict.json

Example:
   tpsreport demo --out /tmp/tpsreport-demo`,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "out", Aliases: []string{"o"}, Value: "tpsreport-demo", Usage: "write into `DIR`"},
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
				// A fresh dataset each time: the demo is not replacing a user's run.
				if err := os.RemoveAll(dir); err != nil {
					return err
				}
				man, err := ingest.Run(c.Context, ingest.Options{
					RunID: name, Format: "auto", OutDir: dir,
					Inputs: []string{
						"litellm:" + filepath.Join(logs, name, "litellm.jsonl.gz"),
						"vllm-otel:" + filepath.Join(logs, name, "vllm-otel.jsonl.gz"),
						"vllm-log:" + filepath.Join(logs, name, "vllm.log.gz"),
					},
					Stdin: e.stdin, Log: e.log, Version: toolVersion(),
				})
				if err != nil {
					return err
				}
				res, err := analyze.Run(c.Context, analyze.Options{Dir: dir, Window: defaultWindow, Log: e.log, SLO: demoSLO, Pricing: demoPricing})
				if err != nil {
					return err
				}
				sum := &res.Summary
				j := sum.DataQuality.Join
				if j == nil {
					return fmt.Errorf("demo %s: the gateway and engine spans did not join", name)
				}
				fmt.Fprintf(e.stdout, "%-9s %d LiteLLM + %d vLLM spans, %d joined; %d samples; cap %d (%s); system_tps %s tok/s, gap_fraction %s (sampled %s)\n",
					name, j.GatewaySpans, j.EngineSpans, j.Matched, man.SamplesWritten, *sum.Cap, sum.CapSource,
					fmtFloat(sum.SystemTPS), fmtPct(sum.GapFraction), fmtPct(sum.GapFractionSampled))
				runs[name] = dir
			}
			fmt.Fprintln(e.stdout)
			_, err = runCompare(c.Context, e, []string{runs["baseline"]}, []string{runs["candidate"]}, filepath.Join(out, "report"), schemas.DefaultCriteria(), nil)
			return err
		},
	}
}
