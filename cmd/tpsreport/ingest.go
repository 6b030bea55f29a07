package main

import (
	"fmt"
	"io"

	"github.com/urfave/cli/v2"

	"github.com/tpsreport/tpsreport/ingest"
)

func ingestCommand(e *env) *cli.Command {
	return &cli.Command{
		Name:      "ingest",
		Usage:     "read serving logs into a run dataset (spans.parquet, samples.parquet, manifest.json, rejects.jsonl)",
		ArgsUsage: "INPUT...",
		Description: `INPUT is a file, a directory (read recursively), a glob or - for stdin; plain,
.gz or .zst. A malformed record goes to rejects.jsonl with its file, line and
reason, and the ingest goes on; --strict makes it fatal (exit 2).

Example:
   tpsreport ingest --format spans --run baseline --out runs/baseline logs/spans-*.jsonl.gz`,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "format", Aliases: []string{"f"}, Value: "auto", Usage: "input format: auto or one of the registered formats"},
			&cli.StringFlag{Name: "run", Usage: "run id written into every span (`NAME`)", Required: true},
			&cli.StringFlag{Name: "out", Aliases: []string{"o"}, Usage: "run dataset directory (`DIR`)", Required: true},
			&cli.BoolFlag{Name: "strict", Usage: "stop at the first malformed record (exit 2)"},
			&cli.IntFlag{Name: "max-line-bytes", Usage: "longest input line accepted; longer ones are rejected (default 1 MiB)"},
		},
		Action: func(c *cli.Context) error {
			if c.NArg() == 0 {
				return usageError(c, "no INPUT given")
			}
			var progress io.Writer
			if e.isTerminal(e.stderr) {
				progress = e.stderr
			}
			man, err := ingest.Run(c.Context, ingest.Options{
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
