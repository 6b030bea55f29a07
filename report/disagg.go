package report

import (
	"strconv"

	"github.com/wcharczuk/go-chart/v2/drawing"

	"github.com/tpsreport/tpsreport/internal/numfmt"
	"github.com/tpsreport/tpsreport/schemas"
)

// budgetColors colours the parts of the latency budget, in the order of
// schemas.BudgetParts: the front (gateway, router) in greys, the prefill
// worker's in blues, the transfer in purple, the decode worker's in
// oranges, what no stage accounts for in red.
var budgetColors = []drawing.Color{
	drawing.ColorFromHex("8C959F"), // gateway
	drawing.ColorFromHex("5A6470"), // router
	drawing.ColorFromHex("9DC3E6"), // prefill_queue
	drawing.ColorFromHex("3B6EA8"), // prefill
	drawing.ColorFromHex("7B3294"), // kv_transfer
	drawing.ColorFromHex("F5C18A"), // decode_queue
	drawing.ColorFromHex("E8801A"), // decode
	drawing.ColorFromHex("D62728"), // unaccounted
}

// budgetFigures are the waterfalls of the median and the p95 attempt's
// latency budget of each run with stages, whole and up to decode (where
// decode's seconds would hide the milliseconds of the stages before it);
// none when no run has stages.
func (c *chartCtx) budgetFigures() []*figure {
	whole := c.budgetFigure(false)
	if whole == nil {
		return nil
	}
	return []*figure{whole, c.budgetFigure(true)}
}

// budgetFigure is one waterfall: one bar per attempt, its parts stacked in
// the order a request passes them, decode left out when beforeDecode.
func (c *chartCtx) budgetFigure(beforeDecode bool) *figure {
	type pick struct {
		label string
		r     schemas.BudgetRequest
	}
	var picks []pick
	for _, rr := range c.runs {
		d := rr.run.Summary.Disaggregation
		if d == nil || d.Attempts == 0 {
			continue
		}
		prefix := ""
		if c.compare {
			prefix = rr.role + " "
		}
		picks = append(picks, pick{prefix + "median", d.Median}, pick{prefix + "p95", d.P95})
	}
	if len(picks) == 0 {
		return nil
	}
	f := &figure{Name: "latency_budget", Title: "Latency budget of the median and the p95 request: where its time went, stage by stage",
		Alt:    "Each bar is one request (the one whose extent is nearest the median, and the p95, of its run), its time stacked bottom to top in the order it passed the stages: gateway, router, the prefill worker's queue and prefill, the KV transfer, the decode worker's queue and decode, and in red the time no log accounts for.",
		YLabel: "seconds", yAxis: axisSpec{zero: true, seconds: true}}
	if beforeDecode {
		f.Name, f.Title = "latency_budget_before_decode", "Latency budget of the same requests without decode: the stages before their tokens stream"
		f.Alt = "The bars of latency_budget with decode left out, so that the gateway, the router, the workers' queues, prefill and the KV transfer, often milliseconds beside seconds of decode, can be read."
	}
	for _, p := range picks {
		f.cats = append(f.cats, p.label)
		f.cats2 = append(f.cats2, p.r.RequestID)
	}
	base := make([]float64, len(picks))
	for k, part := range schemas.BudgetParts {
		if beforeDecode && part == schemas.BudgetDecode {
			continue
		}
		s := series{Label: part, Metric: part, Kind: "bars", color: budgetColors[k], base: append([]float64(nil), base...)}
		for i, p := range picks {
			v := p.r.Parts[part]
			s.X = append(s.X, float64(i)-0.4)
			s.XEnd = append(s.XEnd, float64(i)+0.4)
			s.Y = append(s.Y, num(v))
			base[i] += v
		}
		f.Series = append(f.Series, s)
	}
	return f
}

// disaggView is the report's section on disaggregated serving: the change
// (a comparison), the budget's parts and each worker role, per run.
type disaggView struct {
	Reason string       `json:"reason,omitempty"`
	Runs   []string     `json:"runs"`
	Parts  []disaggRow  `json:"parts"`
	Roles  []disaggRole `json:"roles"`
	// Workers lists each run's workers, at most maxWorkersShown a run;
	// WorkersOmitted counts the others (summary.json lists them all).
	Workers        []disaggWorker `json:"workers"`
	WorkersOmitted int            `json:"workers_omitted,omitempty"`
}

// maxWorkersShown bounds the workers a report lists per run: a table a
// reader can scan; the router's spread shows in the attempts of each.
const maxWorkersShown = 32

// disaggWorker is one worker of one run, as shown.
type disaggWorker struct {
	Run         string `json:"run"`
	Replica     string `json:"replica"`
	Role        string `json:"role"`
	Cap         string `json:"cap"`
	Attempts    string `json:"attempts"`
	Utilization string `json:"utilization"`
	MeanQueue   string `json:"mean_queue"`
	Gap         string `json:"gap_time"`
}

// disaggRow is one part of the budget: p50 and p95 per run.
type disaggRow struct {
	Part  string   `json:"part"`
	Moved bool     `json:"moved,omitempty"`
	P50   []string `json:"p50"`
	P95   []string `json:"p95"`
	Cells []string `json:"-"` // p50 and p95 of each run in turn
}

// disaggRole is one role of one run, as shown.
type disaggRole struct {
	Run              string `json:"run"`
	Role             string `json:"role"`
	Moved            bool   `json:"moved,omitempty"`
	Workers          string `json:"workers"`
	Utilization      string `json:"utilization"`
	MeanQueue        string `json:"mean_queue"`
	Gap              string `json:"gap_fraction"`
	Held             string `json:"held_fraction"`
	Router           string `json:"router_share"`
	BacklogOtherFree string `json:"backlog_other_free_fraction"`
	Idle             string `json:"idle_fraction"`
}

// newDisaggView builds the section; nil when no run has stages.
func newDisaggView(in Input, runs []roleRun) *disaggView {
	v := &disaggView{Workers: []disaggWorker{}}
	var ds []*schemas.Disaggregation
	for _, rr := range runs {
		if d := rr.run.Summary.Disaggregation; d != nil {
			ds = append(ds, d)
			v.Runs = append(v.Runs, runName(rr.run))
		}
	}
	if len(ds) == 0 {
		return nil
	}
	var ch *schemas.DisaggChange
	if in.comparing() && in.Verdict != nil {
		ch = in.Verdict.Disaggregation
	}
	if ch != nil {
		v.Reason = ch.Reason
	}
	for _, part := range append([]string{"extent"}, schemas.BudgetParts...) {
		row := disaggRow{Part: part, Moved: ch != nil && ch.Stage == part}
		for _, d := range ds {
			p := d.Budget[part]
			if part == "extent" {
				p = d.Extent
			}
			p50, p95 := fmtSecondsPtr(p.P50), fmtSecondsPtr(p.P95)
			if !d.PartLogged(part) {
				p50, p95 = notLogged, notLogged
			}
			row.P50 = append(row.P50, p50)
			row.P95 = append(row.P95, p95)
			row.Cells = append(row.Cells, p50, p95)
		}
		v.Parts = append(v.Parts, row)
	}
	for i, d := range ds {
		for j, w := range d.Workers {
			if j == maxWorkersShown {
				v.WorkersOmitted += len(d.Workers) - j
				break
			}
			v.Workers = append(v.Workers, disaggWorker{Run: v.Runs[i], Replica: w.Replica, Role: w.Role,
				Cap: numfmt.Group(strconv.FormatInt(w.Cap, 10)) + " (" + w.CapSource + ")", Attempts: numfmt.Group(strconv.FormatInt(w.Attempts, 10)),
				Utilization: fmtPercentPtr(w.Utilization), MeanQueue: numfmt.Sig(w.MeanQueue), Gap: numfmt.Seconds(w.GapTime)})
		}
		for _, r := range d.Roles {
			v.Roles = append(v.Roles, disaggRole{Run: v.Runs[i], Role: r.Role, Moved: ch != nil && ch.Role == r.Role,
				Workers:     numfmt.Sig(float64(r.Workers)) + " (" + numfmt.Sig(float64(r.Slots)) + " slots)",
				Utilization: fmtPercentPtr(r.Utilization), MeanQueue: numfmt.Sig(r.MeanQueue),
				Gap: numfmt.Percent(r.GapFraction), Held: numfmt.Percent(r.HeldFraction), Router: numfmt.Percent(r.RouterShare),
				BacklogOtherFree: numfmt.Percent(r.BacklogOtherFreeFraction), Idle: numfmt.Percent(r.IdleFraction)})
		}
	}
	return v
}

// notLogged stands for a part of the budget that no log of the run
// records.
const notLogged = "not logged"

// fmtPercentPtr formats an optional fraction as a percentage.
func fmtPercentPtr(v *float64) string {
	if v == nil {
		return null
	}
	return numfmt.Percent(*v)
}

// fmtSecondsPtr formats an optional duration in seconds.
func fmtSecondsPtr(v *float64) string {
	if v == nil {
		return null
	}
	return numfmt.Seconds(*v)
}
