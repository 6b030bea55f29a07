package main

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/tpsreport/tpsreport/ingest"
)

func ingestCommand(e *env) *cli.Command {
	return &cli.Command{
		Name:      "ingest",
		Usage:     "read serving logs into a run dataset (spans.parquet, samples.parquet, manifest.json, rejects.jsonl)",
		ArgsUsage: "[FORMAT:]INPUT...",
		Description: `INPUT is a file, a directory (read recursively), a glob or - for stdin; plain,
.gz or .zst. A FORMAT: prefix sets the format of that input alone, so one run can
hold a gateway's log and the engine's (analyze joins them per request).
A malformed record goes to rejects.jsonl with its file, line and reason, and the
ingest goes on; --strict makes it fatal (exit 2).

Examples:
   tpsreport ingest --format spans --run baseline --out runs/baseline logs/spans-*.jsonl.gz
   tpsreport ingest --run r1 --out runs/r1 'litellm:gw/*.json' 'vllm-otel:engine/*.jsonl'`,
		Flags: append([]cli.Flag{
			&cli.StringFlag{Name: "format", Aliases: []string{"f"}, Value: "auto", Usage: "input format: auto or one of " + strings.Join(ingest.Formats(), ", ")},
			&cli.StringFlag{Name: "run", Usage: "run id written into every span (`NAME`)", Required: true},
			&cli.StringFlag{Name: "out", Aliases: []string{"o"}, Usage: "run dataset directory (`DIR`)", Required: true},
			&cli.BoolFlag{Name: "strict", Usage: "stop at the first malformed record (exit 2)"},
			&cli.IntFlag{Name: "max-line-bytes", Usage: "longest input line accepted; longer ones are rejected (default 1 MiB)"},
		}, sourceFlags()...),
		Action: func(c *cli.Context) error {
			if c.NArg() == 0 {
				return usageError(c, "no INPUT given")
			}
			var progress io.Writer
			if e.isTerminal(e.stderr) {
				progress = e.stderr
			}
			src, err := sourceOptions(c)
			if err != nil {
				return err
			}
			man, err := ingest.Run(c.Context, ingest.Options{
				TZ: src.TZ, Year: src.Year, Mapping: src.Mapping,
				RunID:        c.String("run"),
				Format:       c.String("format"),
				OutDir:       c.String("out"),
				Inputs:       c.Args().Slice(),
				Strict:       c.Bool("strict"),
				MaxLineBytes: c.Int("max-line-bytes"),
				Stdin:        e.stdin,
				Progress:     progress,
				Log:          e.log,
				Version:      toolVersion(),
			})
			if err != nil {
				return err
			}
			fmt.Fprintf(e.stdout, "%s: %d read, %d written, %d rejected, %d skipped\n",
				c.String("out"), man.Counts.Read, man.Counts.Written, man.Counts.Rejected, man.Counts.Skipped)
			return nil
		},
	}
}

// sourceFlags are the source-specific ingest settings, shared by ingest and run.
func sourceFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "tz", Value: "UTC", Usage: "IANA zone of timestamps that carry none (vLLM log stamps, LiteLLM naive times)"},
		&cli.IntFlag{Name: "year", Usage: "year of vLLM log stamps (MM-DD) when no outer RFC 3339 stamp gives it (default: this year)"},
		&cli.StringFlag{Name: "mapping", Usage: "mapping file (YAML) for --format mapping"},
	}
}

// sourceOptions reads sourceFlags into ingest.Options' fields.
func sourceOptions(c *cli.Context) (ingest.Options, error) {
	var o ingest.Options
	loc, err := time.LoadLocation(c.String("tz"))
	if err != nil {
		return o, usageError(c, "--tz %q: %v", c.String("tz"), err)
	}
	o.TZ, o.Year, o.Mapping = loc, c.Int("year"), c.String("mapping")
	return o, nil
}
