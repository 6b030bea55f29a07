package main

import (
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/urfave/cli/v2"

	"github.com/tpsreport/tpsreport/analyze"
	"github.com/tpsreport/tpsreport/capacity"
	"github.com/tpsreport/tpsreport/internal/dataset"
	"github.com/tpsreport/tpsreport/schemas"
)

func planCommand(e *env) *cli.Command {
	return &cli.Command{
		Name:      "plan",
		Usage:     "size a fleet for a target request rate from analysed runs (replicas by throughput and by Little's law)",
		ArgsUsage: "RUN...",
		Description: `Each RUN is an analysed run dataset measured under load. Its capacity per
replica is the requests it completed per second per replica over its backlog
windows (with --slo: the windows where at least --attainment of the requests met
the SLO, counting only those requests); the fleet by throughput is
⌈target/60 / (capacity × utilization)⌉. By Little's law the target needs
target/60 × mean slot time (t_in_flight) requests in flight, so
⌈that / (cap per replica × utilization)⌉ replicas. The plan is the larger of the
two, both shown with the numbers they come from. Several runs (a sweep of
max_num_seqs, say) give a table and the configuration with the fewest replicas.
With --slo, a run of which no window met the SLO gets no plan and is never the
pick, and Little's law counts only a run that met it over the whole run.
Exit status: 0 when some run gives a plan, 3 when none does, 2 on an error.

Examples:
   tpsreport plan --target-rpm 1200 runs/baseline
   tpsreport plan --target-rpm 1200 --slo e2e=20s --replica-cost-per-hour 4 --json runs/seqs-32 runs/seqs-64`,
		Flags: slices.Concat(planFlags(), costFlags(), []cli.Flag{
			&cli.BoolFlag{Name: "json", Usage: "print the plans as JSON"},
		}),
		Action: func(c *cli.Context) error {
			if c.NArg() == 0 {
				return usageError(c, "want one or more analysed RUN directories")
			}
			if !c.IsSet("target-rpm") {
				return usageError(c, "--target-rpm is required")
			}
			s, err := planSettings(c)
			if err != nil {
				return err
			}
			var plans []capacity.Plan
			for _, dir := range c.Args().Slice() {
				p, err := planRun(c, dir, s, commandLine(e.args))
				if err != nil {
					return err
				}
				plans = append(plans, p)
			}
			if c.Bool("json") {
				if err := jsonEncoder(e.stdout).Encode(planJSON(s, plans)); err != nil {
					return err
				}
			} else {
				printPlans(e.stdout, s, plans)
			}
			if capacity.Best(plans) < 0 {
				// No run gives a replica count (none met the SLO, none
				// saturated): the data cannot answer, as an
				// inconclusive verdict cannot.
				return &exitError{code: exitInconclusive}
			}
			return nil
		},
	}
}

// planFlags are plan's settings; report takes them too, for its capacity
// section (none without --target-rpm).
func planFlags() []cli.Flag {
	return []cli.Flag{
		&cli.Float64Flag{Name: "target-rpm", Usage: "the request rate to size for, in requests per minute (`RPM`)", DefaultText: "none"},
		&cli.StringFlag{Name: "slo", Usage: "count capacity only where requests meet this `SLO`, such as ttft=2s,tpot=80ms (as analyze --slo)"},
		&cli.Float64Flag{Name: "attainment", Value: capacity.DefaultAttainment, Usage: "with --slo: the share of a window's requests that must meet it for the window to count"},
		&cli.Float64Flag{Name: "utilization", Value: capacity.DefaultUtilization, Usage: "the share of measured capacity to plan for (headroom: 0.8 plans for 80 %)"},
	}
}

// planSettings reads the plan flags and the cost flags.
func planSettings(c *cli.Context) (capacity.Settings, error) {
	s := capacity.Settings{TargetRPM: c.Float64("target-rpm"), Attainment: c.Float64("attainment"), Utilization: c.Float64("utilization")}
	if c.IsSet("slo") {
		slo, err := schemas.ParseSLO(c.String("slo"))
		if err != nil {
			return s, usageError(c, "--slo %q: %v", c.String("slo"), err)
		}
		s.SLO = slo
	}
	// --replicas says how many replicas the measured runs had, with or
	// without a price.
	s.Replicas = c.Int64("replicas")
	if c.IsSet("replica-cost-per-hour") {
		s.Pricing = &capacity.Pricing{ReplicaCostPerHour: c.Float64("replica-cost-per-hour"), Currency: c.String("currency")}
	} else if c.IsSet("currency") {
		return s, usageError(c, "--currency labels nothing without --replica-cost-per-hour")
	}
	if err := s.Validate(); err != nil {
		msg := strings.TrimPrefix(strings.TrimPrefix(err.Error(), capacity.ErrBadSettings.Error()+": "), capacity.ErrBadPrice.Error()+": ")
		return s, usageError(c, "%s", msg)
	}
	return s, nil
}

// planRun sizes a fleet from the analysed run in dir, which it shares with
// other readers while it reads.
func planRun(c *cli.Context, dir string, s capacity.Settings, command string) (capacity.Plan, error) {
	lock, err := dataset.LockDir(dir, false, command)
	if err != nil {
		return capacity.Plan{}, err
	}
	defer lock.Unlock()
	run, err := loadRun(c.Context, dir)
	if err != nil {
		return capacity.Plan{}, err
	}
	m := capacity.Measured{Name: dir, Summary: run.res.Summary, Windows: run.res.Windows}
	if s.SLO != nil {
		if m.Latencies, err = analyze.LoadLatencies(c.Context, dir); err != nil {
			return capacity.Plan{}, err
		}
	}
	return capacity.Size(m, s)
}

// plansDoc is plan --json.
type plansDoc struct {
	TargetRPM   float64         `json:"target_rpm"`
	Utilization float64         `json:"utilization"`
	SLO         *schemas.SLO    `json:"slo,omitempty"`
	Attainment  *float64        `json:"attainment,omitempty"`
	Plans       []capacity.Plan `json:"plans"`
	// Best names the run whose plan needs the fewest replicas ("" when
	// none could be sized).
	Best string `json:"best"`
}

func planJSON(s capacity.Settings, plans []capacity.Plan) plansDoc {
	d := plansDoc{TargetRPM: s.TargetRPM, Utilization: s.Utilization, SLO: s.SLO, Plans: plans}
	if s.SLO != nil {
		d.Attainment = &s.Attainment
	}
	if i := capacity.Best(plans); i >= 0 {
		d.Best = plans[i].Run
	}
	return d
}

// printPlans writes each plan with the arithmetic of both routes, then,
// for several runs, a table and the one that needs the fewest replicas.
func printPlans(w io.Writer, s capacity.Settings, plans []capacity.Plan) {
	fmt.Fprintln(w, capacity.Heading(s))
	for _, p := range plans {
		fmt.Fprintf(w, "\n%s: %s\n  by throughput: %s\n  by Little's law: %s\n", p.Run, capacity.Answer(p), capacity.ThroughputText(s, p), capacity.LittleText(s, p))
	}
	if len(plans) < 2 {
		return
	}
	fmt.Fprintln(w)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "RUN\tREPLICAS\tBY THROUGHPUT\tBY LITTLE'S LAW\tCOST PER HOUR")
	for _, p := range plans {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", p.Run, countText(p.Replicas), countText(p.Throughput.Replicas),
			countText(p.Little.Replicas), capacity.Money(p.CostPerHour, p.Currency))
	}
	tw.Flush()
	if f := capacity.Fewest(plans); f != "" {
		fmt.Fprintln(w, f)
	}
}

func countText(n *int64) string {
	if n == nil {
		return "—"
	}
	return strconv.FormatInt(*n, 10)
}

// replicasText says how many replicas were priced and why that many.
func replicasText(n int64, source string) string {
	switch source {
	case capacity.FromFlag:
		return capacity.Count(n, "replica") + " from --replicas"
	case capacity.FromLogs:
		return capacity.Count(n, "replica") + " named in the logs"
	}
	return capacity.Count(n, "replica") + ", assumed: the logs name none"
}
