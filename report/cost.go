package report

import (
	"github.com/tpsreport/tpsreport/capacity"
	"github.com/tpsreport/tpsreport/schemas"
)

// Plans is the capacity-plan section of a single-run report (report
// --target-rpm): what plan prints, for this run.
type Plans struct {
	Settings capacity.Settings
	Plans    []capacity.Plan
}

// costView is the report's cost section: each figure per run and, in a
// comparison, its relative change, with the headline saying what the change
// is worth (docs/metrics.md "Cost and capacity").
type costView struct {
	Headline string    `json:"headline,omitempty"`
	PricedBy string    `json:"priced_by"` // flag, runs, or run (a single-run report)
	Price    []string  `json:"price"`     // per run: "4.00 USD per replica-hour × 1 replica (logs)"
	Rows     []costRow `json:"rows"`
}

type costRow struct {
	Key    string     `json:"key"`
	Label  string     `json:"label"`
	Values []*float64 `json:"values"`           // baseline, candidate (or the only run)
	Change *float64   `json:"change,omitempty"` // candidate / baseline − 1
	Text   []string   `json:"-"`
	// ChangeText shows Change: "−10.5 %"; DirClass colours it (a saving
	// is better, a rise worse, no change neither).
	ChangeText string `json:"-"`
	DirClass   string `json:"-"`
}

// newCostView builds the cost section: from the verdict's cost in a
// comparison, from the run's summary otherwise; nil when nothing is priced.
func newCostView(in Input) *costView {
	var costs []schemas.Cost
	var ch *schemas.CostChange
	v := &costView{}
	switch {
	case in.comparing() && in.Verdict != nil && in.Verdict.Cost != nil:
		ch = in.Verdict.Cost
		costs = []schemas.Cost{ch.Baseline, ch.Candidate}
		v.Headline, v.PricedBy = upperFirst(ch.Headline)+".", ch.PricedBy
	case !in.comparing() && in.Baseline.Summary.Cost != nil:
		costs = []schemas.Cost{*in.Baseline.Summary.Cost}
		v.PricedBy = "run"
	default:
		return nil
	}
	for _, c := range costs {
		v.Price = append(v.Price, capacity.Money(&c.ReplicaCostPerHour, c.Currency)+" per replica-hour × "+
			capacity.Count(c.Replicas, "replica")+" ("+replicaSource(c.ReplicasSource)+")")
	}
	labels := map[string]string{
		"cost_per_hour":                     "per hour",
		"cost_per_million_tokens":           "per million delivered tokens, whole run",
		"cost_per_million_tokens_saturated": "per million delivered tokens, backlog windows",
		"cost_per_completion":               "per completed request",
	}
	for _, key := range capacity.Figures {
		row := costRow{Key: key, Label: labels[key], ChangeText: null}
		for _, c := range costs {
			row.Values = append(row.Values, capacity.Figure(c, key))
			row.Text = append(row.Text, capacity.Money(capacity.Figure(c, key), c.Currency))
		}
		if ch != nil {
			if row.Change = capacity.FigureChange(*ch, key); row.Change != nil {
				row.ChangeText = fmtRel(*row.Change)
				switch c := *row.Change; {
				case c < -0.0005:
					row.DirClass = "dir-better"
				case c > 0.0005:
					row.DirClass = "dir-worse"
				default:
					row.DirClass = "dir-none"
				}
			}
		}
		v.Rows = append(v.Rows, row)
	}
	return v
}

func replicaSource(s string) string {
	switch s {
	case capacity.FromFlag:
		return "--replicas"
	case capacity.FromLogs:
		return "named in the logs"
	}
	return "assumed: the logs name none"
}

// planView is the capacity-plan section as shown.
type planView struct {
	Heading string          `json:"heading"`
	Plans   []capacity.Plan `json:"plans"`
	Lines   []planLines     `json:"-"`
	Fewest  string          `json:"fewest,omitempty"`
}

type planLines struct {
	Run, Answer, Throughput, Little string
}

func newPlanView(p *Plans) *planView {
	if p == nil || len(p.Plans) == 0 {
		return nil
	}
	v := &planView{Heading: upperFirst(capacity.Heading(p.Settings)) + ".", Plans: p.Plans}
	for _, pl := range p.Plans {
		v.Lines = append(v.Lines, planLines{Run: pl.RunID, Answer: capacity.Answer(pl),
			Throughput: capacity.ThroughputText(p.Settings, pl), Little: capacity.LittleText(p.Settings, pl)})
	}
	if len(p.Plans) > 1 {
		v.Fewest = upperFirst(capacity.Fewest(p.Plans)) + "."
	}
	return v
}
