// Package history follows a nightly root's runs as series, one per metric
// the verdict judges, and finds the nights where a series shifted: the
// regression tracker of docs/acceptance.md "History". It reads the runs'
// summary.json alone (pure Go, no DuckDB), so a year of nights answers in
// well under a second.
package history

import (
	"math"
	"time"

	"github.com/tpsreport/tpsreport/internal/numfmt"
	"github.com/tpsreport/tpsreport/internal/robust"
	"github.com/tpsreport/tpsreport/schemas"
)

// Night is one analysed run of the history: its name (run=NAME, with the
// partitions above it when a root holds several) and its summary.
type Night struct {
	Name    string
	Summary schemas.Summary
}

// Metric is one series the history follows.
type Metric struct {
	// Name is the metric's name in summary.json (a distribution's
	// quantile as NAME.p95).
	Name string
	// Better is +1 where a higher value is better, −1 where lower is.
	Better int
	// Unit is how the value reads: "tokens/s", "fraction", "seconds",
	// "money".
	Unit string
	// Criterion is the verdict's criterion that judges the same quantity.
	Criterion string
	value     func(*schemas.Summary) *float64
}

// Value is the metric's value for one night's summary; nil where the night
// has none (no request, no SLO, no price).
func (m Metric) Value(s *schemas.Summary) *float64 { return m.value(s) }

// Metrics are the series the history follows, the run-level values of what
// the criteria judge (docs/acceptance.md): compare judges throughput and
// gap_fraction over the windows with a backlog, which a summary gives for
// gap_fraction (backlog_gap_fraction) and not for throughput, so the
// throughput series is the whole night's.
var Metrics = []Metric{
	{Name: "retry_adjusted_system_tps", Better: +1, Unit: "tokens/s", Criterion: "throughput",
		value: func(s *schemas.Summary) *float64 { return s.Metrics.RetryAdjustedSystemTPS }},
	{Name: "backlog_gap_fraction", Better: -1, Unit: "fraction", Criterion: "gap_fraction",
		value: func(s *schemas.Summary) *float64 { return s.Metrics.BacklogGapFraction }},
	{Name: "success_rate", Better: +1, Unit: "fraction", Criterion: "success_rate",
		value: func(s *schemas.Summary) *float64 { return s.Metrics.SuccessRate }},
	{Name: "retry_rate", Better: -1, Unit: "fraction", Criterion: "retry_rate",
		value: func(s *schemas.Summary) *float64 { return s.Metrics.RetryRate }},
	{Name: "ttft_req.p95", Better: -1, Unit: "seconds", Criterion: "ttft",
		value: func(s *schemas.Summary) *float64 { return s.Metrics.TTFTReq.P95 }},
	{Name: "tpot_req.p95", Better: -1, Unit: "seconds", Criterion: "tpot",
		value: func(s *schemas.Summary) *float64 { return s.Metrics.TPOTReq.P95 }},
	{Name: "slo_attainment", Better: +1, Unit: "fraction", Criterion: "slo_attainment",
		value: func(s *schemas.Summary) *float64 { return s.Metrics.SLOAttainment }},
	{Name: "cost_per_million_tokens", Better: -1, Unit: "money", Criterion: "cost",
		value: func(s *schemas.Summary) *float64 {
			if s.Cost == nil {
				return nil
			}
			return s.Cost.CostPerMillionTokens
		}},
}

// Format writes a value of the metric as the reports do: a rate as a
// percentage, seconds with their unit, else about three significant digits.
func (m Metric) Format(v float64) string {
	switch m.Unit {
	case "fraction":
		return numfmt.Percent(v)
	case "seconds":
		return numfmt.Seconds(v)
	}
	return numfmt.Sig(v)
}

// ChangeText writes a change point's change: percentage points for a rate,
// else relative.
func (c Change) ChangeText() string {
	if c.Points {
		return numfmt.PP(c.Change)
	}
	return numfmt.Rel(c.Change)
}

// MetricNamed is the metric called name.
func MetricNamed(name string) (Metric, bool) {
	for _, m := range Metrics {
		if m.Name == name {
			return m, true
		}
	}
	return Metric{}, false
}

// Change is one change point: from Night on, Metric's series runs at After
// where it ran at Before (each the median of the nights between this
// change point and its neighbours).
type Change struct {
	Metric string  `json:"metric"`
	Night  string  `json:"night"`
	Start  string  `json:"night_start"` // RFC 3339, the night's run_start
	Before float64 `json:"before"`
	After  float64 `json:"after"`
	// Change is After/Before − 1; for a fraction metric After − Before
	// (percentage points, as the verdict's success and retry rates).
	Change float64 `json:"change"`
	// Points says that Change is a difference of fractions.
	Points     bool    `json:"change_is_points"`
	P          float64 `json:"p_value"`
	Regression bool    `json:"regression"`
	// Nights before and after: how many nights each median covers.
	NightsBefore int `json:"nights_before"`
	NightsAfter  int `json:"nights_after"`
}

// Find returns the change points of every metric over nights (in order of
// their start), metric by metric in the order given, each metric's by
// night; those that change the median by less than opt.MinChange are
// left out.
func Find(nights []Night, metrics []Metric, opt Options) []Change {
	opt = opt.WithDefaults()
	var out []Change
	for _, m := range metrics {
		var xs []float64
		var at []int // xs[i] is nights[at[i]]'s value
		for i := range nights {
			if v := m.Value(&nights[i].Summary); v != nil && !math.IsNaN(*v) && !math.IsInf(*v, 0) {
				xs = append(xs, *v)
				at = append(at, i)
			}
		}
		splits := ChangePoints(xs, opt)
		bounds := []int{0}
		for _, s := range splits {
			bounds = append(bounds, s.Index)
		}
		bounds = append(bounds, len(xs))
		for k, s := range splits {
			before := robust.Median(xs[bounds[k]:s.Index])
			after := robust.Median(xs[s.Index:bounds[k+2]])
			c := Change{Metric: m.Name, Night: nights[at[s.Index]].Name, P: s.P, Before: before, After: after,
				NightsBefore: s.Index - bounds[k], NightsAfter: bounds[k+2] - s.Index}
			if t := nights[at[s.Index]].Summary.RunStart; !t.IsZero() {
				c.Start = t.UTC().Format(time.RFC3339)
			}
			if m.Unit == "fraction" {
				c.Change, c.Points = after-before, true
			} else if before != 0 {
				c.Change = after/before - 1
			}
			if math.Abs(c.Change) < opt.MinChange && (c.Points || before != 0) {
				continue
			}
			c.Regression = float64(m.Better)*(after-before) < 0
			out = append(out, c)
		}
	}
	return out
}
