package main

import (
	"fmt"
	"io"
	"os"
	"slices"
	"sort"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/tpsreport/tpsreport/history"
	"github.com/tpsreport/tpsreport/internal/numfmt"
)

func historyCommand(e *env) *cli.Command {
	return &cli.Command{
		Name:      "history",
		Usage:     "follow a nightly root's runs as series and find the nights where one shifted",
		ArgsUsage: "ROOT",
		Description: `Reads the summary.json of every analysed run=NAME under ROOT (directly, or
in partitions such as dt=2026-11-20/run=NAME), in the order of their start, and
follows the run-level values of what the verdict judges: throughput
(retry_adjusted_system_tps), backlog_gap_fraction, success_rate, retry_rate,
ttft_req.p95, tpot_req.p95, slo_attainment and cost_per_million_tokens. For each
it finds the change points, the nights from which the series runs at another
level, by E-Divisive means with a permutation test (docs/acceptance.md
"History"): each with the medians before and after it, the change, its p-value
and whether it is a regression. A night without a value (no SLO, no price) is
left out of that series. Nothing is written; exit status 0, 2 on an error.

Examples:
   tpsreport history nightly/
   tpsreport history --metric retry_adjusted_system_tps --last 60 --json nightly/`,
		Flags: []cli.Flag{
			&cli.StringSliceFlag{Name: "metric", Usage: "follow only this metric (repeatable): " + strings.Join(historyMetricNames(), ", ")},
			&cli.TimestampFlag{Name: "since", Layout: "2006-01-02", Usage: "only the runs that started on or after this day (YYYY-MM-DD, UTC)"},
			&cli.IntFlag{Name: "last", DefaultText: "0 = all", Usage: "only the last N runs (after --since)"},
			&cli.Float64Flag{Name: "alpha", Value: 0.01, Usage: "the p-value at or below which a shift is a change point"},
			&cli.Float64Flag{Name: "min-change", Value: 0.01, Usage: "the smallest change reported: relative (0.01 = 1 %), for a rate a difference (0.01 = 1 pp)"},
			&cli.BoolFlag{Name: "json", Usage: "print the series and the change points as JSON"},
		},
		Action: func(c *cli.Context) error {
			if c.NArg() != 1 {
				return usageError(c, "want one ROOT, the nightly root of tpsreport run")
			}
			metrics := history.Metrics
			if names := c.StringSlice("metric"); len(names) > 0 {
				metrics = nil
				for _, n := range names {
					m, ok := history.MetricNamed(n)
					if !ok {
						return usageError(c, "--metric %q: not a metric the history follows; one of %s", n, strings.Join(historyMetricNames(), ", "))
					}
					metrics = append(metrics, m)
				}
			}
			if a := c.Float64("alpha"); !(a > 0 && a < 1) {
				return usageError(c, "--alpha %v: want a p-value between 0 and 1", a)
			}
			if c.Int("last") < 0 {
				return usageError(c, "--last %d: want a count of runs", c.Int("last"))
			}
			root := c.Args().First()
			nights, err := historyNights(root)
			if err != nil {
				return err
			}
			if len(nights) == 0 {
				return fmt.Errorf("%s holds no analysed run (run=NAME/summary.json). Try: tpsreport run --root %s --run NAME LOGS", root, root)
			}
			if since := c.Timestamp("since"); since != nil {
				i := sort.Search(len(nights), func(i int) bool { return !nights[i].Summary.RunStart.Before(*since) })
				nights = nights[i:]
			}
			if n := c.Int("last"); n > 0 && n < len(nights) {
				nights = nights[len(nights)-n:]
			}
			if m := c.Float64("min-change"); !(m > 0) {
				return usageError(c, "--min-change %v: want a change above 0", m)
			}
			opt := history.Options{Alpha: c.Float64("alpha"), MinChange: c.Float64("min-change")}
			changes := history.Find(nights, metrics, opt)
			if c.Bool("json") {
				return jsonEncoder(e.stdout).Encode(historyJSON(root, nights, metrics, changes, opt))
			}
			printHistory(e.stdout, root, nights, metrics, changes, opt)
			return nil
		},
	}
}

func historyMetricNames() []string {
	var out []string
	for _, m := range history.Metrics {
		out = append(out, m.Name)
	}
	return out
}

// historyNights reads the summaries of the analysed runs under root
// (listRuns), as nights of a history.
func historyNights(root string) ([]history.Night, error) {
	if _, err := os.Stat(root); err != nil {
		return nil, fmt.Errorf("read root: %w", err)
	}
	runs, err := listRuns(root)
	if err != nil {
		return nil, err
	}
	nights := make([]history.Night, len(runs))
	for i, r := range runs {
		nights[i] = history.Night{Name: r.name, Summary: r.summary}
	}
	return nights, nil
}

// historyValue formats one value of metric m; "—" for none.
func historyValue(m history.Metric, v *float64) string {
	if v == nil {
		return "—"
	}
	return m.Format(*v)
}

func printHistory(w io.Writer, root string, nights []history.Night, metrics []history.Metric, changes []history.Change, opt history.Options) {
	first, last := nights[0].Summary.RunStart, nights[len(nights)-1].Summary.RunStart
	fmt.Fprintf(w, "%s: %d %s, %s to %s\n\n", root, len(nights), plural(len(nights), "run", "runs"), fmtDay(first), fmtDay(last))
	var shown, empty []history.Metric
	for _, m := range metrics {
		if slices.ContainsFunc(nights, func(n history.Night) bool { return m.Value(&n.Summary) != nil }) {
			shown = append(shown, m)
		} else {
			empty = append(empty, m)
		}
	}
	metrics = shown
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	head := []string{"RUN", "START"}
	for _, m := range metrics {
		head = append(head, strings.ToUpper(m.Name))
	}
	fmt.Fprintln(tw, strings.Join(head, "\t"))
	for _, n := range nights {
		row := []string{n.Name, fmtDay(n.Summary.RunStart)}
		for _, m := range metrics {
			row = append(row, historyValue(m, m.Value(&n.Summary)))
		}
		fmt.Fprintln(tw, strings.Join(row, "\t"))
	}
	tw.Flush()
	for _, m := range empty {
		fmt.Fprintf(w, "%s: no run has a value (%s)\n", m.Name, noValueReason(m))
	}

	fmt.Fprintf(w, "\nChange points (E-Divisive means, p ≤ %s, at least %d runs a side, changes of %s or more):\n",
		strconv.FormatFloat(opt.Alpha, 'g', -1, 64), opt.WithDefaults().MinSize, minChangeText(opt))
	if len(changes) == 0 {
		fmt.Fprintf(w, "none: no series shifted over these %d runs.\n", len(nights))
		return
	}
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "FROM RUN\tMETRIC\tBEFORE\tAFTER\tCHANGE\tP\tDIRECTION")
	for _, c := range changes {
		m, _ := history.MetricNamed(c.Metric)
		verdict := "improvement"
		if c.Regression {
			verdict = "regression"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", c.Night, c.Metric, historyValue(m, &c.Before), historyValue(m, &c.After),
			c.ChangeText(), strconv.FormatFloat(c.P, 'g', 2, 64), verdict)
	}
	tw.Flush()
	fmt.Fprintln(w, "BEFORE and AFTER are the medians of the runs between a change point and its neighbours.")
}

// noValueReason says why a run can lack a metric's value.
func noValueReason(m history.Metric) string {
	switch m.Name {
	case "slo_attainment":
		return "analysed without --slo"
	case "cost_per_million_tokens":
		return "analysed without a price, --replica-cost-per-hour"
	}
	return "no request measured it"
}

// minChangeText says the smallest change reported, for a series and for a
// rate.
func minChangeText(opt history.Options) string {
	m := opt.WithDefaults().MinChange
	return numfmt.Rel(m)[len("+"):] + " (" + numfmt.PP(m)[len("+"):] + " for a rate)"
}

func fmtDay(t time.Time) string {
	if t.IsZero() {
		return "—"
	}
	return t.UTC().Format("2006-01-02 15:04")
}

type historyRunJSON struct {
	Name     string              `json:"name"`
	RunStart string              `json:"run_start"`
	Values   map[string]*float64 `json:"values"`
}

type historyDoc struct {
	Root         string           `json:"root"`
	Method       map[string]any   `json:"method"`
	Runs         []historyRunJSON `json:"runs"`
	ChangePoints []history.Change `json:"change_points"`
}

func historyJSON(root string, nights []history.Night, metrics []history.Metric, changes []history.Change, opt history.Options) historyDoc {
	doc := historyDoc{Root: root, ChangePoints: changes,
		Method: map[string]any{"name": "E-Divisive means (energy statistic, α = 1) with a permutation test", "alpha": opt.Alpha, "min_runs_a_side": opt.WithDefaults().MinSize}}
	if doc.ChangePoints == nil {
		doc.ChangePoints = []history.Change{}
	}
	for _, n := range nights {
		r := historyRunJSON{Name: n.Name, Values: map[string]*float64{}}
		if !n.Summary.RunStart.IsZero() {
			r.RunStart = n.Summary.RunStart.UTC().Format(time.RFC3339)
		}
		for _, m := range metrics {
			r.Values[m.Name] = m.Value(&n.Summary)
		}
		doc.Runs = append(doc.Runs, r)
	}
	return doc
}
