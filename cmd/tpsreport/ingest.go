package main

import (
	"cmp"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/tpsreport/tpsreport/ingest"
	"github.com/tpsreport/tpsreport/internal/dataset"
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
			&cli.StringFlag{Name: "run", Usage: "the run's `NAME`, written into every span", Required: true},
			&cli.StringFlag{Name: "out", Aliases: []string{"o"}, Usage: "write the run dataset into `DIR` (replacing a dataset it holds)", Required: true},
		}, sourceFlags()...),
		Action: func(c *cli.Context) error {
			if c.NArg() == 0 {
				return usageError(c, "no INPUT given")
			}
			var progress io.Writer
			if e.isTerminal(e.stderr) {
				progress = raw(e.stderr)
			}
			src, err := sourceOptions(c)
			if err != nil {
				return err
			}
			// One writer at a time: a second ingest, or an analyze, of
			// this dataset would mix two runs' files.
			lock, err := dataset.LockDir(c.String("out"), true, commandLine(e.args))
			if err != nil {
				return err
			}
			defer lock.Unlock()
			man, err := ingest.Run(c.Context, ingest.Options{
				TZ: src.TZ, Year: src.Year, Date: src.Date, Mapping: src.Mapping,
				RunID:        c.String("run"),
				Format:       c.String("format"),
				OutDir:       c.String("out"),
				Inputs:       c.Args().Slice(),
				Strict:       c.Bool("strict"),
				MaxLineBytes: src.MaxLineBytes,
				Benchmark:    src.Benchmark,
				Stdin:        e.stdin,
				Progress:     progress,
				Log:          e.log,
				Version:      toolVersion(),
			})
			if err != nil {
				return err
			}
			fmt.Fprintf(e.stdout, "%s: %d read, %d written, %d rejected%s, %d skipped%s",
				c.String("out"), man.Counts.Read, man.Counts.Written,
				man.Counts.Rejected, byReason(man.RejectedBy), man.Counts.Skipped, byReason(man.SkippedBy))
			if n := len(man.Ignored); n > 0 {
				fmt.Fprintf(e.stdout, "; %d %s ignored", n, plural(n, "file", "files"))
			}
			fmt.Fprintln(e.stdout)
			return nil
		},
	}
}

// sourceFlags are the ingest settings shared by ingest and run.
func sourceFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "format", Aliases: []string{"f"}, Value: "auto", Usage: "input format: auto (sniff each input) or one of " + strings.Join(ingest.Formats(), ", ")},
		&cli.BoolFlag{Name: "strict", Usage: "stop at the first malformed record (exit 2)"},
		&cli.StringFlag{Name: "tz", Value: "UTC", Usage: "IANA zone of timestamps that carry none (vLLM log stamps, LiteLLM naive times)"},
		&cli.IntFlag{Name: "year", DefaultText: "this year", Usage: "year of vLLM log stamps (MM-DD) when no outer RFC 3339 stamp gives it"},
		&cli.StringFlag{Name: "date", Usage: "the day (`YYYY-MM-DD`) a log whose stamps give a time of day alone starts on (SGLang before 2024-10: \"[04:40:55 TP0]\")"},
		&cli.StringFlag{Name: "mapping", Usage: "mapping `FILE` (YAML) for --format mapping"},
		&cli.IntFlag{Name: "max-line-bytes", DefaultText: "1 MiB", Usage: "longest input line accepted; longer ones are rejected"},
		&cli.IntFlag{Name: "benchmark", DefaultText: "required for a sweep", Usage: "the benchmark `N` (from 0) to read of a load tool's report that holds several (a GuideLLM sweep): each load level is a run of its own"},
	}
}

// sourceOptions reads sourceFlags into ingest.Options' fields.
func sourceOptions(c *cli.Context) (ingest.Options, error) {
	var o ingest.Options
	loc, err := time.LoadLocation(c.String("tz"))
	if err != nil {
		return o, usageError(c, "--tz %q: %v", c.String("tz"), err)
	}
	o.TZ, o.Year, o.Mapping, o.MaxLineBytes = loc, c.Int("year"), c.String("mapping"), c.Int("max-line-bytes")
	if c.IsSet("year") && (o.Year < 2000 || o.Year > 2100) {
		// Every instant outside these years is rejected as implausible:
		// a year outside them would reject every stats line.
		return o, usageError(c, "--year %d: want a year from 2000 to 2100", o.Year)
	}
	if v := c.String("date"); v != "" {
		d, err := time.ParseInLocation(time.DateOnly, v, loc)
		if err != nil || d.Year() < 2000 || d.Year() > 2100 {
			return o, usageError(c, "--date %q: want a day from 2000 to 2100 as YYYY-MM-DD, such as 2024-08-31", v)
		}
		o.Date = d
	}
	if c.IsSet("benchmark") {
		n := c.Int("benchmark")
		if n < 0 {
			return o, usageError(c, "--benchmark %d: want a benchmark's number, from 0", n)
		}
		o.Benchmark = &n
	}
	return o, nil
}

// byReason renders counts by reason for the console, largest first:
// " (blank 3, unused_line 2)"; "" when there are none.
func byReason(m map[string]int64) string {
	type kv struct {
		k string
		v int64
	}
	var kvs []kv
	for k, v := range m {
		if v > 0 {
			kvs = append(kvs, kv{k, v})
		}
	}
	if len(kvs) == 0 {
		return ""
	}
	slices.SortFunc(kvs, func(a, b kv) int {
		if a.v != b.v {
			return cmp.Compare(b.v, a.v)
		}
		return strings.Compare(a.k, b.k)
	})
	parts := make([]string, len(kvs))
	for i, p := range kvs {
		parts[i] = fmt.Sprintf("%s %d", p.k, p.v)
	}
	return " (" + strings.Join(parts, ", ") + ")"
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
