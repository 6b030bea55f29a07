package main

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/tpsreport/tpsreport/analyze"
	"github.com/tpsreport/tpsreport/capacity"
	"github.com/tpsreport/tpsreport/compare"
	"github.com/tpsreport/tpsreport/internal/dataset"
	"github.com/tpsreport/tpsreport/internal/numfmt"
	"github.com/tpsreport/tpsreport/schemas"
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
		Flags: analyzeFlags(),
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
			if e.isTerminal(e.stderr) {
				opt.Progress = raw(e.stderr)
			}
			lock, err := dataset.LockDir(opt.Dir, true, commandLine(e.args))
			if err != nil {
				return err
			}
			defer lock.Unlock()
			res, err := analyze.Run(c.Context, opt)
			if err != nil {
				return err
			}
			s := res.Summary
			if d := s.DurationsOnly; d != nil {
				fmt.Fprintf(e.stdout, "%s: durations only (%d spans); ttft p50 %s s, t_total p50 %s s, success_rate %s\n",
					opt.Dir, d.Spans, fmtFloat(s.TTFT.P50), fmtFloat(s.TTotal.P50), fmtPct(s.SuccessRate))
			} else {
				windows := fmt.Sprintf("%d %s of %gs", len(res.Windows), plural(len(res.Windows), "window", "windows"), s.WindowWidth)
				if d := s.RunEnd.Sub(s.RunStart).Seconds(); len(res.Windows) == 1 && d < s.WindowWidth {
					windows += fmt.Sprintf(" (the run lasts %s s)", fmtFloat(&d))
				}
				fmt.Fprintf(e.stdout, "%s: %s; system_tps %s tok/s, gap_fraction %s, success_rate %s (cap %s, %s)\n",
					opt.Dir, windows, fmtFloat(s.SystemTPS), fmtPct(s.GapFraction),
					fmtPct(s.SuccessRate), fmtInt(s.Cap), s.CapSource)
			}
			if line := gapCausesLine(s.Metrics); line != "" {
				fmt.Fprintf(e.stdout, "%s: %s\n", opt.Dir, line)
			}
			if line := disaggLine(s.Disaggregation); line != "" {
				fmt.Fprintf(e.stdout, "%s: %s\n", opt.Dir, line)
			}
			if s.Cost != nil {
				fmt.Fprintf(e.stdout, "%s: cost %s per hour (%s); %s per million tokens, %s at saturation; %s per completion\n",
					opt.Dir, capacity.Money(&s.Cost.CostPerHour, s.Cost.Currency), replicasText(s.Cost.Replicas, s.Cost.ReplicasSource),
					capacity.Money(s.Cost.CostPerMillionTokens, s.Cost.Currency), capacity.Money(s.Cost.CostPerMillionTokensSaturated, s.Cost.Currency),
					capacity.Money(s.Cost.CostPerCompletion, s.Cost.Currency))
			}
			for _, w := range s.Warnings {
				fmt.Fprintln(e.stderr, "warning:", w)
			}
			return nil
		},
	}
}

// disaggLine sums up a run's stages: the p95 of the budget's largest part
// beside decode, and each role's utilization and queue; "" without stages.
func disaggLine(d *schemas.Disaggregation) string {
	if d == nil || d.Attempts == 0 {
		return ""
	}
	top, topV := "", 0.0
	for _, part := range schemas.BudgetParts {
		if p := d.Budget[part].P95; part != schemas.BudgetDecode && p != nil && *p > topV {
			top, topV = part, *p
		}
	}
	line := fmt.Sprintf("%d requests with stages: p95 extent %s", d.Attempts, numfmt.Seconds(*d.Extent.P95))
	if top != "" {
		line += fmt.Sprintf(", the largest p95 before decode %s (%s)", top, numfmt.Seconds(topV))
	}
	for _, r := range d.Roles {
		line += fmt.Sprintf("; %s: %d workers, utilization %s, mean queue %s, gap_fraction %s", r.Role, r.Workers,
			fmtPct(r.Utilization), numfmt.Sig(r.MeanQueue), fmtPct(&r.GapFraction))
	}
	return line
}

// gapCausesLine says where a run's idle time came from: each cause's share
// of gap_time in attribution order, and what the largest means; "" without
// idle time.
func gapCausesLine(m schemas.Metrics) string {
	if m.GapTime <= 0 {
		return ""
	}
	var parts []string
	top, topShare := "", 0.0
	for i, share := range []*float64{m.EngineGapShare, m.AdmissionGapShare, m.ImbalanceGapShare, m.UnattributedGapShare} {
		if share == nil || *share <= 0 {
			continue
		}
		name := compare.GapCauseNames[i]
		parts = append(parts, fmt.Sprintf("%s %s", name, fmtPct(share)))
		if *share > topShare {
			top, topShare = name, *share
		}
	}
	if top == "" {
		return ""
	}
	return fmt.Sprintf("idle time %s s: %s; most of it %s", fmtFloat(&m.GapTime), strings.Join(parts, ", "), compare.GapCauseText[top])
}

// analyzeFlags are the analyze settings, shared by analyze and run.
func analyzeFlags() []cli.Flag {
	return append([]cli.Flag{
		&cli.DurationFlag{Name: "window", Aliases: []string{"w"}, Value: defaultWindow, Usage: "window width, a duration with its unit (30s, 5m)"},
		&cli.Int64Flag{Name: "cap", DefaultText: "0 = auto", Usage: "concurrency cap per replica (vLLM max_num_seqs); auto takes the samples', the logs' or the largest in_flight seen"},
		&cli.TimestampFlag{Name: "from", Layout: timeLayout, Usage: "clip the run from this RFC 3339 instant (with --to)"},
		&cli.TimestampFlag{Name: "to", Layout: timeLayout, Usage: "clip the run to this RFC 3339 instant (with --from)"},
		&cli.StringFlag{Name: "slo", Usage: "latency bound per request for goodput and slo_attainment, any of ttft, tpot, e2e, such as ttft=2s,tpot=80ms (vLLM's --goodput keys; a bare number is ms)"},
	}, costFlags()...)
}

// costFlags price a run (docs/metrics.md "Cost and capacity"), on analyze,
// run, compare and plan.
func costFlags() []cli.Flag {
	return []cli.Flag{
		&cli.Float64Flag{Name: "replica-cost-per-hour", Usage: "`PRICE` of one replica for one hour, in your currency: adds cost per million tokens and per completion", DefaultText: "none"},
		&cli.Int64Flag{Name: "replicas", DefaultText: "0 = the replicas the logs name, else 1", Usage: "replicas the run had, when its logs do not name them"},
		&cli.StringFlag{Name: "currency", Usage: "a label for prices, such as USD (no symbol or exchange rate is assumed)"},
	}
}

// pricingFrom reads the cost flags; nil without --replica-cost-per-hour.
func pricingFrom(c *cli.Context) (*capacity.Pricing, error) {
	if !c.IsSet("replica-cost-per-hour") {
		for _, n := range []string{"replicas", "currency"} {
			if c.IsSet(n) {
				return nil, usageError(c, "--%s prices nothing without --replica-cost-per-hour", n)
			}
		}
		return nil, nil
	}
	p := &capacity.Pricing{ReplicaCostPerHour: c.Float64("replica-cost-per-hour"), Replicas: c.Int64("replicas"), Currency: c.String("currency")}
	if err := p.Validate(); err != nil {
		return nil, usageError(c, "%s", strings.TrimPrefix(err.Error(), capacity.ErrBadPrice.Error()+": "))
	}
	return p, nil
}

// analyzeOptions reads the analyze flags shared by analyze, run and demo.
func analyzeOptions(c *cli.Context) (analyze.Options, error) {
	var opt analyze.Options
	opt.Window = c.Duration("window")
	if opt.Window <= 0 {
		return opt, usageError(c, "--window %s: want a positive duration, such as 60s", opt.Window)
	}
	if v := c.Int64("cap"); v < 0 {
		return opt, usageError(c, "--cap %d: want a positive number of slots, or 0 for auto", v)
	} else if v > 0 {
		opt.Cap = &v
	}
	opt.From, opt.To = c.Timestamp("from"), c.Timestamp("to")
	if c.IsSet("slo") {
		slo, err := schemas.ParseSLO(c.String("slo"))
		if err != nil {
			return opt, usageError(c, "--slo %q: %v", c.String("slo"), err)
		}
		opt.SLO = slo
	}
	if (opt.From == nil) != (opt.To == nil) {
		return opt, usageError(c, "--from and --to go together")
	}
	var err error
	opt.Pricing, err = pricingFrom(c)
	return opt, err
}

// fmtFloat prints a rate for the console: four significant digits, never in
// e-notation, thousands grouped (24,690 rather than 2.469e+04).
func fmtFloat(p *float64) string {
	if p == nil {
		return "—"
	}
	x := *p
	if x == 0 || math.IsNaN(x) || math.IsInf(x, 0) {
		return strconv.FormatFloat(x, 'f', -1, 64)
	}
	digits := max(0, 3-int(math.Floor(math.Log10(math.Abs(x)))))
	s := strconv.FormatFloat(x, 'f', digits, 64)
	intPart, frac, _ := strings.Cut(s, ".")
	sign := ""
	if strings.HasPrefix(intPart, "-") {
		sign, intPart = "−", intPart[1:]
	}
	for i := len(intPart) - 3; i > 0; i -= 3 {
		intPart = intPart[:i] + "," + intPart[i:]
	}
	if frac != "" {
		return sign + intPart + "." + frac
	}
	return sign + intPart
}

// fmtPct prints a fraction as a percentage with two decimals, or as many more
// as it takes not to round a value short of 1 (or above 0) to 100 % (or 0 %).
func fmtPct(p *float64) string {
	if p == nil {
		return "—"
	}
	x := *p
	for digits := 2; ; digits++ {
		s := strconv.FormatFloat(x*100, 'f', digits, 64)
		if digits >= 6 || (x == 1 || s != "100."+strings.Repeat("0", digits)) && (x == 0 || s != "0."+strings.Repeat("0", digits)) {
			return s + " %"
		}
	}
}

func fmtInt(p *int64) string {
	if p == nil {
		return "—"
	}
	return fmt.Sprint(*p)
}
