package main

import (
	"fmt"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/tpsreport/tpsreport/analyze"
)

const (
	defaultWindow = 60 * time.Second
	timeLayout    = time.RFC3339Nano
)

func analyzeCommand(e *env) *cli.Command {
	return &cli.Command{
		Name:      "analyze",
		Usage:     "derive the metrics of a run dataset (adds summary.json, windows.parquet, requests.parquet)",
		ArgsUsage: "DIR",
		Description: `Windows are tumbling, aligned to multiples of --window since the Unix epoch.
The cap (max_num_seqs per replica) comes from --cap, else the samples, else the
logs, else the largest in_flight seen (then gap_time is a lower bound).

Example:
   tpsreport analyze --window 30s --cap 64 runs/baseline`,
		Flags: []cli.Flag{
			&cli.DurationFlag{Name: "window", Aliases: []string{"w"}, Value: defaultWindow, Usage: "window width"},
			&cli.Int64Flag{Name: "cap", Usage: "concurrency cap per replica (vLLM max_num_seqs)"},
			&cli.TimestampFlag{Name: "from", Layout: timeLayout, Usage: "clip the run from this RFC 3339 instant"},
			&cli.TimestampFlag{Name: "to", Layout: timeLayout, Usage: "clip the run to this RFC 3339 instant"},
		},
		Action: func(c *cli.Context) error {
			if c.NArg() != 1 {
				return usageError(c, "want one DIR, got %d arguments", c.NArg())
			}
			opt, err := analyzeOptions(c)
			if err != nil {
				return err
			}
			opt.Dir = c.Args().First()
			opt.Log = e.log
			res, err := analyze.Run(c.Context, opt)
			if err != nil {
				return err
			}
			s := res.Summary
			fmt.Fprintf(e.stdout, "%s: %d windows of %gs; system_tps %s, gap_fraction %s, success_rate %s (cap %s, %s)\n",
				opt.Dir, len(res.Windows), s.WindowWidth, fmtFloat(s.SystemTPS), fmtFloat(s.GapFraction),
				fmtFloat(s.SuccessRate), fmtInt(s.Cap), s.CapSource)
			for _, w := range s.Warnings {
				fmt.Fprintln(e.stderr, "warning:", w)
			}
			return nil
		},
	}
}

// analyzeOptions reads the analyze flags shared by analyze, run and demo.
func analyzeOptions(c *cli.Context) (analyze.Options, error) {
	var opt analyze.Options
	opt.Window = c.Duration("window")
	if c.IsSet("cap") {
		v := c.Int64("cap")
		opt.Cap = &v
	}
	opt.From, opt.To = c.Timestamp("from"), c.Timestamp("to")
	if (opt.From == nil) != (opt.To == nil) {
		return opt, usageError(c, "--from and --to go together")
	}
	return opt, nil
}

func fmtFloat(p *float64) string {
	if p == nil {
		return "—"
	}
	return fmt.Sprintf("%.4g", *p)
}

func fmtInt(p *int64) string {
	if p == nil {
		return "—"
	}
	return fmt.Sprint(*p)
}
