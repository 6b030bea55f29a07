package report

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strconv"
	"time"

	"github.com/tpsreport/tpsreport/schemas"
	"github.com/wcharczuk/go-chart/v2/drawing"
)

// Chart is one rendered chart: Name is its file name without ".png".
type Chart struct {
	Name  string
	Title string
	Alt   string // what the chart shows, for the img alt text
	PNG   []byte
}

// File is the chart's file name in a report directory.
func (c Chart) File() string { return c.Name + ".png" }

// Charts renders the charts of in, in report order. The same input always
// gives the same bytes.
func Charts(in Input) ([]Chart, error) {
	return renderFigures(figures(in))
}

func renderFigures(figs []*figure) ([]Chart, error) {
	out := make([]Chart, 0, len(figs))
	for _, f := range figs {
		png, err := f.render()
		if err != nil {
			return nil, err
		}
		out = append(out, Chart{Name: f.Name, Title: f.Title, Alt: f.Alt, PNG: png})
	}
	return out, nil
}

// figures decides what each chart of a report shows.
func figures(in Input) []*figure {
	c := newChartCtx(in)
	figs := []*figure{
		c.tpsFigure(),
		c.stateFigure(),
		c.engineFigure(),
		c.gapCauseFigure(),
		c.gapFigure(),
		c.latencyFigure(),
		c.concurrencyFigure(),
		c.ratesFigure(),
		c.tradeoffFigure(),
		c.latencyTimeFigure(ttftLatency),
		c.latencyTimeFigure(tpotLatency),
	}
	if in.Verdict != nil && in.Verdict.Canary != nil {
		figs = append([]*figure{c.perReplicaFigure(in.Verdict.Canary)}, figs...)
	}
	figs = append(figs, c.budgetFigures()...)
	for _, f := range figs {
		f.File = f.Name + ".png"
	}
	return figs
}

// perReplicaFigure is a canary's throughput per replica over time: each
// group's retry-adjusted system TPS over its replicas, the groups' sizes
// taken out so that their lines meet when the canary changed nothing.
func (c *chartCtx) perReplicaFigure(g *schemas.Canary) *figure {
	f := &figure{Name: "tps_per_replica", Title: "Canary: throughput per replica, each group over the same windows",
		Alt:    "Retry-adjusted system tokens per second of each group's replicas in each window, divided by the group's replica count; the groups served the same traffic at the same time.",
		XLabel: c.xLabel, xAxis: axisSpec{zero: true}, YLabel: "tokens per second per replica (tok/s)", yAxis: axisSpec{zero: true}}
	for i, rr := range c.runs {
		n := len(g.Baseline.Replicas)
		if rr.role == roleCandidate {
			n = len(g.Candidate.Replicas)
		}
		if n == 0 {
			continue
		}
		s := c.windowSeries(rr, "retry_adjusted_system_tps", func(m *schemas.Metrics) *float64 {
			if m.RetryAdjustedSystemTPS == nil {
				return nil
			}
			v := *m.RetryAdjustedSystemTPS / float64(n)
			return &v
		})
		name := "baseline"
		if rr.role == roleCandidate {
			name = "canary"
		}
		s.Label = fmt.Sprintf("%s, %d replica%s", name, n, map[bool]string{true: "", false: "s"}[n == 1])
		s.color = c.color(i)
		f.Series = append(f.Series, s)
	}
	return f
}

// chartCtx holds what every chart of one report shares: the runs, their
// colours and the time axis.
type chartCtx struct {
	in      Input
	runs    []roleRun
	compare bool
	div     float64 // seconds per x unit
	xLabel  string
}

func newChartCtx(in Input) *chartCtx {
	c := &chartCtx{in: in, runs: in.runs(), compare: in.comparing()}
	longest := 0.0
	for _, rr := range c.runs {
		for _, p := range windowSpans(rr.run, 1) {
			longest = math.Max(longest, p.end)
		}
	}
	unitName := "minutes"
	c.div = 60
	if longest > 6*3600 {
		unitName, c.div = "hours", 3600
	}
	if c.compare {
		c.xLabel = unitName + " since each run's start (runs aligned by offset)"
	} else {
		c.xLabel = unitName + " since run start"
		if o := runOrigin(&in.Baseline); !o.IsZero() {
			c.xLabel += " (" + fmtTime(o) + ")"
		}
	}
	return c
}

// runOrigin is the instant x = 0 of a run's time axis.
func runOrigin(r *Run) time.Time {
	if !r.Summary.RunStart.IsZero() {
		return r.Summary.RunStart
	}
	if len(r.Windows) > 0 {
		return r.Windows[0].WindowStart
	}
	return time.Time{}
}

type span struct{ start, end float64 }

// windowSpans returns each window's part of the run extent as offsets from
// the run's start, in units of div seconds.
func windowSpans(r *Run, div float64) []span {
	origin := runOrigin(r)
	out := make([]span, len(r.Windows))
	for i, w := range r.Windows {
		s := w.WindowStart
		if s.Before(origin) {
			s = origin
		}
		e := s
		switch {
		case w.WindowSeconds > 0 && !math.IsInf(w.WindowSeconds, 0):
			e = s.Add(time.Duration(w.WindowSeconds * float64(time.Second)))
		case w.WindowEnd.After(s):
			e = w.WindowEnd
		}
		out[i] = span{s.Sub(origin).Seconds() / div, e.Sub(origin).Seconds() / div}
	}
	return out
}

func (c *chartCtx) color(i int) drawing.Color {
	if i == 0 {
		return colBaseline
	}
	return colCandidate
}

// label names a series: the metric alone in a single-run report, prefixed
// with the run's role in a comparison.
func (c *chartCtx) label(role, metric string) string {
	if !c.compare {
		return metric
	}
	return role + " " + metric
}

// windowSeries is one metric over a run's windows, as a step line.
func (c *chartCtx) windowSeries(rr roleRun, metric string, get func(*schemas.Metrics) *float64) series {
	sp := windowSpans(rr.run, c.div)
	s := series{Label: c.label(rr.role, metric), Run: rr.role, Metric: metric, Kind: "step",
		X: make([]float64, len(sp)), XEnd: make([]float64, len(sp)), Y: make([]*float64, len(sp))}
	for i := range sp {
		s.X[i], s.XEnd[i] = sp[i].start, sp[i].end
		s.Y[i] = clean(get(&rr.run.Windows[i]))
	}
	// The legend carries the whole-run value, so that the number behind a
	// visually small difference is readable at a glance.
	if v := clean(get(&rr.run.Summary.Metrics)); v != nil {
		if def, ok := metricByKey(metric); ok {
			s.Label += ", whole run " + def.Unit.format(v)
		}
	}
	return s
}

func (c *chartCtx) tpsFigure() *figure {
	f := &figure{Name: "tps", Title: "Throughput per window: system_tps and generated_tps",
		Alt:    "Output tokens per second of successful spans (system_tps, solid) and of all spans (generated_tps, dashed) in each window; a gap between the lines is output lost to failures.",
		XLabel: c.xLabel, xAxis: axisSpec{zero: true}, YLabel: "tokens per second (tok/s)", yAxis: axisSpec{zero: true}}
	for i, rr := range c.runs {
		sys := c.windowSeries(rr, "system_tps", func(m *schemas.Metrics) *float64 { return m.SystemTPS })
		gen := c.windowSeries(rr, "generated_tps", func(m *schemas.Metrics) *float64 { return m.GeneratedTPS })
		sys.color, gen.color, gen.dash = c.color(i), c.color(i), dashed
		if !c.compare {
			gen.color = colSecond
		}
		gen.width = 2
		f.Series = append(f.Series, sys, gen)
	}
	return f
}

func (c *chartCtx) stateFigure() *figure {
	f := &figure{Name: "state", Title: "Engine state: requests running and waiting, against the cap",
		XLabel: c.xLabel, xAxis: axisSpec{zero: true}, YLabel: "requests", yAxis: axisSpec{zero: true}}
	if c.compare {
		f.Alt = "Mean in_flight (solid) and mean queue_depth (dashed) per window for both runs, each run's cap as a horizontal line; the strips above mark windows with idle capacity while requests waited (darker = larger gap_fraction)."
		f.Note = "strips: windows with gap_time > 0, darker = higher gap_fraction"
	} else {
		f.Alt = "Mean in_flight (solid) and mean queue_depth (dashed) per window with the cap as a horizontal line; red shading marks windows with idle capacity while requests waited (darker = larger gap_fraction)."
		f.Note = "red shade: windows with gap_time > 0, darker = higher gap_fraction"
	}
	var caps []*int64
	for i, rr := range c.runs {
		inf := c.windowSeries(rr, "mean_in_flight", func(m *schemas.Metrics) *float64 { return m.MeanInFlight })
		q := c.windowSeries(rr, "mean_queue_depth", func(m *schemas.Metrics) *float64 { return m.MeanQueueDepth })
		inf.color, q.color, q.dash, q.width = c.color(i), c.color(i), dashed, 2
		if !c.compare {
			q.color = colSecond
		}
		f.Series = append(f.Series, inf, q)
		if c.compare {
			f.strips = append(f.strips, rr.role+" gap")
		}
		sp := windowSpans(rr.run, c.div)
		for j, w := range rr.run.Windows {
			gf, ok := finite(w.GapFraction)
			if w.GapTime <= 0 || !ok {
				continue
			}
			b := band{Run: rr.role, X0: sp[j].start, X1: sp[j].end, Value: gf, color: colGap}
			if c.compare {
				b.Strip, b.color = i+1, c.color(i)
			}
			f.Bands = append(f.Bands, b)
		}
		caps = append(caps, rr.run.Summary.Cap)
	}
	f.Rules = c.capRules(caps)
	c.splitQueueAxis(f)
	return f
}

// axisSplit is the ratio of scales from which in_flight and queue_depth get
// an axis each: on one axis, whichever is five times smaller is squeezed into
// the bottom fifth (a short queue under a full engine, or the running count
// under a queue hundreds deep), where its changes cannot be read.
const axisSplit = 5

// splitQueueAxis moves the mean_queue_depth series to a right-hand axis when
// its largest value and that of mean_in_flight (with the cap) differ by a
// factor of axisSplit or more, either way.
func (c *chartCtx) splitQueueAxis(f *figure) {
	var inMax, qMax float64
	for _, s := range f.Series {
		for _, y := range s.Y {
			v, ok := finite(y)
			if !ok {
				continue
			}
			if s.Metric == "mean_queue_depth" {
				qMax = math.Max(qMax, v)
			} else {
				inMax = math.Max(inMax, v)
			}
		}
	}
	for _, r := range f.Rules {
		inMax = math.Max(inMax, r.Y)
	}
	if qMax <= 0 || inMax <= 0 || (inMax < axisSplit*qMax && qMax < axisSplit*inMax) {
		return
	}
	for i := range f.Series {
		if f.Series[i].Metric == "mean_queue_depth" {
			f.Series[i].axis2 = true
			f.Series[i].Label += " (right axis)"
		}
	}
	f.YLabel = "requests running" // the legend names the metrics; a longer title runs into the strips
	f.Y2Label = "requests waiting"
	f.y2Axis = axisSpec{zero: true}
}

// capRules draws each run's cap, once when the runs share it.
func (c *chartCtx) capRules(caps []*int64) []rule {
	src := func(i int) string {
		if s := c.runs[i].run.Summary.CapSource; s != "" {
			return " (" + s + ")"
		}
		return ""
	}
	if len(caps) == 2 && caps[0] != nil && caps[1] != nil && *caps[0] == *caps[1] && src(0) == src(1) {
		return []rule{{Label: fmt.Sprintf("cap %d%s, both runs", *caps[0], src(0)), Y: float64(*caps[0]), color: colCap, dash: dashed}}
	}
	var out []rule
	for i, cp := range caps {
		if cp == nil {
			continue
		}
		r := rule{Label: fmt.Sprintf("cap %d%s", *cp, src(i)), Y: float64(*cp), color: colCap, dash: dashed}
		if c.compare {
			r.Label = c.runs[i].role + " " + r.Label
			r.color = c.color(i)
		}
		out = append(out, r)
	}
	return out
}

// engineFigure shows what the engines said about themselves per window
// (docs/metrics.md "Engine state"): KV-cache usage, mean and largest, and
// preemptions when a run counts them: why slots sat idle, when a full cache
// or preempted requests held them.
func (c *chartCtx) engineFigure() *figure {
	f := &figure{Name: "engine_state", Title: "Engine state: KV-cache usage and preemptions per window",
		Alt:    "Time-average KV-cache usage per window (solid) and the largest usage a sample reported (dashed), from the engines' own samples; bars, on the right axis, count the requests the engines preempted.",
		XLabel: c.xLabel, xAxis: axisSpec{zero: true}, YLabel: "KV-cache usage (% of the cache)", yAxis: axisSpec{min: num(0), max: num(1), percent: true}}
	// Preemption bars first, so that the usage lines are drawn over them.
	preempted := false
	for _, rr := range c.runs {
		for _, w := range rr.run.Windows {
			preempted = preempted || w.Preemptions != nil
		}
	}
	if preempted {
		for i, rr := range c.runs {
			p := c.windowSeries(rr, "preemptions", func(m *schemas.Metrics) *float64 {
				if m.Preemptions == nil {
					return nil
				}
				v := float64(*m.Preemptions)
				return &v
			})
			p.Kind, p.axis2, p.color = "bars", true, c.color(i).WithAlpha(110)
			if c.compare {
				p.slot, p.slots = i, len(c.runs)
			} else {
				p.color = colWarn.WithAlpha(140)
			}
			f.Series = append(f.Series, p)
		}
		f.Y2Label = "requests preempted"
		f.y2Axis = axisSpec{zero: true}
	} else {
		f.Title = "Engine state: KV-cache usage per window"
		f.Alt = "Time-average KV-cache usage per window (solid) and the largest usage a sample reported (dashed), from the engines' own samples (no preemption counter in the logs)."
	}
	for i, rr := range c.runs {
		mean := c.windowSeries(rr, "kv_cache_usage", func(m *schemas.Metrics) *float64 { return m.KVCacheUsage })
		peak := c.windowSeries(rr, "kv_cache_usage_max", func(m *schemas.Metrics) *float64 { return m.KVCacheUsageMax })
		mean.color, peak.color, peak.dash, peak.width = c.color(i), c.color(i), dashed, 2
		if !c.compare {
			peak.color = colSecond
		}
		f.Series = append(f.Series, mean, peak)
	}
	// The full cache as a line: the axis reaches it, so that a reviewer reads
	// the headroom, not only the changes.
	f.Rules = append(f.Rules, rule{Label: "cache full", Y: 1, color: colCap, dash: dotted})
	f.empty = "no engine samples: the logs hold no KV-cache usage"
	return f
}

// gapCauses are the causes of gap_time (docs/metrics.md "Where the idle
// time comes from"), bottom of the stack first, with their colours.
var gapCauses = []struct {
	metric string
	color  drawing.Color
	get    func(*schemas.Metrics) *float64
}{
	{"engine_gap_time", drawing.ColorFromHex("7B3294"), func(m *schemas.Metrics) *float64 { return ifTimed(m, m.EngineGapTime) }},
	{"admission_gap_time", colGap, func(m *schemas.Metrics) *float64 { return ifTimed(m, m.AdmissionGapTime) }},
	{"imbalance_gap_time", colWarn, func(m *schemas.Metrics) *float64 { return ifTimed(m, m.ImbalanceGapTime) }},
	{"unattributed_gap_time", colNone, func(m *schemas.Metrics) *float64 { return ifTimed(m, m.UnattributedGapTime) }},
}

// ifTimed is v, or NULL for a window without time (its gap_fraction NULL),
// where a cause's 0 s would be a value the window never had.
func ifTimed(m *schemas.Metrics, v float64) *float64 {
	if m.GapFraction == nil {
		return nil
	}
	return &v
}

// gapCauseFigure stacks each window's gap_time by cause: where the requests
// waited while slots sat idle. Two runs: the baseline's bar on the left of
// each window, the candidate's on the right.
func (c *chartCtx) gapCauseFigure() *figure {
	f := &figure{Name: "gap_causes", Title: "Where the idle time came from: gap_time per window by cause",
		Alt:    "Seconds of each window during which requests waited while slots were free, stacked by where they waited: held by an engine's scheduler (engine_gap), held before an engine's queue, at the gateway or in the engine's frontend (admission_gap), queued at full replicas while others had free slots (imbalance_gap), or unknown (unattributed_gap).",
		XLabel: c.xLabel, xAxis: axisSpec{zero: true}, YLabel: "gap_time (seconds of the window)", yAxis: axisSpec{zero: true}}
	if c.compare {
		f.Note = "left bar: baseline, right bar: candidate"
	}
	for i, rr := range c.runs {
		var base []float64
		for _, gc := range gapCauses {
			s := c.windowSeries(rr, gc.metric, gc.get)
			s.Kind, s.color, s.base = "bars", gc.color, base
			if c.compare {
				// One legend entry per cause for both runs.
				s.Label, s.slot, s.slots = gc.metric, i, len(c.runs)
			}
			top := make([]float64, len(s.Y))
			for j, y := range s.Y {
				if j < len(base) {
					top[j] = base[j]
				}
				if v, ok := finite(y); ok {
					top[j] += v
				}
			}
			base = top
			f.Series = append(f.Series, s)
		}
	}
	return f
}

func (c *chartCtx) gapFigure() *figure {
	f := &figure{Name: "gap_fraction", Title: "Idle capacity under backlog: gap_fraction per window",
		Alt:    "Share of each window during which requests were queued while the engine ran fewer than cap; the dashed line is the gap_fraction of the whole run.",
		XLabel: c.xLabel, xAxis: axisSpec{zero: true}, YLabel: "gap_fraction (% of window)", yAxis: axisSpec{zero: true, percent: true},
		Note: "dashed: whole run"}
	for i, rr := range c.runs {
		s := c.windowSeries(rr, "gap_fraction", func(m *schemas.Metrics) *float64 { return m.GapFraction })
		// One run: bars. Two runs: step lines, since their windows need not
		// start at the same offset and side-by-side bars would overlap.
		s.color = c.color(i)
		if c.compare {
			s.Kind = "step"
		} else {
			s.Kind, s.color = "bars", colGap
		}
		if g, ok := finite(rr.run.Summary.GapFraction); ok {
			r := rule{Y: g, color: s.color, dash: dashed}
			if !c.compare {
				r.color = colCap
			}
			f.Rules = append(f.Rules, r)
		}
		f.Series = append(f.Series, s)
	}
	return f
}

func (c *chartCtx) latencyFigure() *figure {
	f := &figure{Name: "latency_cdf", Title: "Latency distribution of successful spans: ttft and t_queue (CDF)",
		Alt:    "Cumulative distribution of time to first token (solid) and queueing time (dashed) on a logarithmic time axis, so that milliseconds and seconds are both readable; a curve further left is faster, and spans that did not queue at all start at the left edge.",
		XLabel: "seconds (log scale; 0 s at the left edge)", YLabel: "fraction of successful spans",
		xAxis: axisSpec{log: true, seconds: true}, yAxis: axisSpec{min: num(0), max: num(1)}}
	for i, rr := range c.runs {
		t := quantileSeries(c.label(rr.role, "ttft"), rr.role, "ttft", rr.run.TTFTQuantiles)
		q := quantileSeries(c.label(rr.role, "t_queue"), rr.role, "t_queue", rr.run.TQueueQuantiles)
		t.color, q.color, q.dash, q.width = c.color(i), c.color(i), dashed, 2
		if !c.compare {
			q.color = colSecond
		}
		f.Series = append(f.Series, t, q)
	}
	if f.hasData() {
		f.Rules = []rule{
			{Label: "p50", Y: 0.5, color: colMuted, dash: dotted},
			{Label: "p99", Y: 0.99, color: colMuted, dash: dotted},
		}
	}
	return f
}

// quantileSeries turns quantiles 0, 1/(n−1), ..., 1 into a CDF line; with
// the usual 101 quantiles the legend also gives p50 and p99.
func quantileSeries(label, run, metric string, qs []float64) series {
	if len(qs) == 101 {
		p50, p99 := clean(&qs[50]), clean(&qs[99])
		if p50 != nil && p99 != nil {
			label += ", p50 " + fmtSeconds(*p50) + ", p99 " + fmtSeconds(*p99)
		}
	}
	s := series{Label: label, Run: run, Metric: metric, Kind: "line", X: []float64{}, Y: []*float64{}}
	n := len(qs)
	for i, v := range qs {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			continue
		}
		p := 1.0
		if n > 1 {
			p = float64(i) / float64(n-1)
		}
		s.X = append(s.X, v)
		s.Y = append(s.Y, num(p))
	}
	return s
}

func (c *chartCtx) concurrencyFigure() *figure {
	f := &figure{Name: "stream_vs_concurrency", Title: "Per-stream speed against concurrency",
		Alt:    "Median stream_tps of successful spans binned by the mean number of requests in flight during their stream; a falling curve shows requests sharing the engine, dot area shows how many spans each bin holds.",
		XLabel: "requests in flight in the pool at mid-stream", YLabel: "median stream_tps (tok/s)",
		xAxis: axisSpec{zero: true}, yAxis: axisSpec{zero: true}, Note: "dot size shows the spans in each bin"}
	for i, rr := range c.runs {
		pts := slices.Clone(rr.run.Concurrency)
		slices.SortStableFunc(pts, func(a, b ConcurrencyPoint) int { return cmp.Compare(a.InFlight, b.InFlight) })
		s := series{Label: c.label(rr.role, "stream_tps"), Run: rr.role, Metric: "stream_tps", Kind: "points",
			X: []float64{}, Y: []*float64{}, N: []int64{}, color: c.color(i)}
		for _, p := range pts {
			if math.IsNaN(p.InFlight) || math.IsInf(p.InFlight, 0) {
				continue
			}
			s.X = append(s.X, p.InFlight)
			s.Y = append(s.Y, num(p.StreamTPS))
			s.N = append(s.N, p.N)
		}
		f.Series = append(f.Series, s)
	}
	return f
}

// failureRate is 1 − success_rate: the share of completed requests with no
// successful attempt. Plotted instead of success_rate so that it shares a
// scaled axis with retry_rate (both are small; 99 % and 1 % on one axis
// would need 0–100 %).
func failureRate(m *schemas.Metrics) *float64 {
	if v, ok := finite(m.SuccessRate); ok {
		return num(1 - v)
	}
	return nil
}

func (c *chartCtx) ratesFigure() *figure {
	f := &figure{Name: "rates", Title: "Failures and retries per window: failed requests (1 − success_rate) and retry_rate",
		Alt:    "Share of completed requests that failed, 1 − success_rate (solid), and share of attempts that were retries (dashed) in each window, on an axis scaled to the data; windows with no completed request are left blank.",
		XLabel: c.xLabel, xAxis: axisSpec{zero: true}, YLabel: "% of requests / attempts", yAxis: axisSpec{zero: true, percent: true}}
	for i, rr := range c.runs {
		sr := c.windowSeries(rr, "failed", failureRate)
		sr.Label = c.label(rr.role, "failed requests (1 − success_rate)")
		if v, ok := finite(failureRate(&rr.run.Summary.Metrics)); ok {
			sr.Label += ", whole run " + fmtPercent(v)
		}
		rt := c.windowSeries(rr, "retry_rate", func(m *schemas.Metrics) *float64 { return m.RetryRate })
		sr.color, rt.color, rt.dash, rt.width = c.color(i), c.color(i), dashed, 2
		if !c.compare {
			sr.color, rt.color = colGood, colBad
		}
		f.Series = append(f.Series, sr, rt)
	}
	return f
}

// latencyKind is a latency the charts plot per window: the request-level
// one (from the request's first arrival, across retries, as the verdict
// judges it) when every run has it, else the span-level one.
type latencyKind struct {
	name      string // ttft, tpot
	title     string
	span, req func(m *schemas.Metrics) *schemas.Percentiles
}

var (
	ttftLatency = latencyKind{name: "ttft", title: "Time to first token", span: ttft, req: ttftReq}
	tpotLatency = latencyKind{name: "tpot", title: "Time per output token", span: tpot, req: tpotReq}
)

// pick returns the metric name and distribution the runs share: name_req
// when every run has request-level values, else the span-level name.
func (k latencyKind) pick(runs []roleRun) (string, func(m *schemas.Metrics) *schemas.Percentiles) {
	for _, rr := range runs {
		has := k.req(&rr.run.Summary.Metrics).N > 0
		for i := range rr.run.Windows {
			has = has || k.req(&rr.run.Windows[i]).N > 0
		}
		if !has {
			return k.name, k.span
		}
	}
	return k.name + "_req", k.req
}

// throughputKey is the throughput the trade-off chart plots: delivered
// tokens (what the throughput criterion judges) when every run has them.
func throughputKey(runs []roleRun) (string, func(m *schemas.Metrics) *float64) {
	for _, rr := range runs {
		has := false
		for i := range rr.run.Windows {
			has = has || rr.run.Windows[i].RetryAdjustedSystemTPS != nil
		}
		if !has {
			return "system_tps", func(m *schemas.Metrics) *float64 { return m.SystemTPS }
		}
	}
	return "retry_adjusted_system_tps", func(m *schemas.Metrics) *float64 { return m.RetryAdjustedSystemTPS }
}

// logSpan is the ratio of the largest to the smallest positive latency from
// which a latency axis is logarithmic: a run whose p95 is seconds and
// another's milliseconds both stay readable.
const logSpan = 20

// latencyAxis is a seconds axis over values, logarithmic when they span
// logSpan or more.
func latencyAxis(values []float64) (axisSpec, string) {
	lo, hi := math.Inf(1), 0.0
	for _, v := range values {
		if v > 0 && !math.IsInf(v, 0) {
			lo, hi = math.Min(lo, v), math.Max(hi, v)
		}
	}
	if hi > 0 && hi >= logSpan*lo {
		return axisSpec{log: true, seconds: true}, " (log scale)"
	}
	return axisSpec{zero: true, seconds: true}, ""
}

func (c *chartCtx) tradeoffFigure() *figure {
	latKey, lat := ttftLatency.pick(c.runs)
	tpsKey, tps := throughputKey(c.runs)
	f := &figure{Name: "throughput_vs_ttft", Title: "Throughput against latency per window: " + tpsKey + " vs p95 " + latKey,
		YLabel: tpsKey + " (tok/s)", yAxis: axisSpec{zero: true}}
	f.Alt = "Each dot is one window: its p95 time to first token (" + latKey + ", x) against its output tokens per second (" + tpsKey +
		", y). Up and to the left is better: more tokens at less latency; a run that buys throughput with latency moves up and to the right."
	var xs []float64
	hollow := false
	for i, rr := range c.runs {
		s := series{Label: c.label(rr.role, "windows"), Run: rr.role, Metric: tpsKey + " vs " + latKey + ".p95", Kind: "scatter",
			X: []float64{}, Y: []*float64{}, Hollow: []bool{}, color: c.color(i)}
		if !c.compare {
			s.Label = "windows"
		}
		for j := range rr.run.Windows {
			w := &rr.run.Windows[j]
			x, okx := finite(lat(w).P95)
			y, oky := finite(tps(w))
			if !okx || !oky {
				continue
			}
			s.X = append(s.X, x)
			s.Y = append(s.Y, num(y))
			s.Hollow = append(s.Hollow, w.BacklogTime <= 0)
			hollow = hollow || w.BacklogTime <= 0
			xs = append(xs, x)
		}
		s.Label += " (" + strconv.Itoa(len(s.X)) + ")"
		f.Series = append(f.Series, s)
	}
	var scale string
	f.xAxis, scale = latencyAxis(xs)
	f.XLabel = "p95 of " + latKey + " in the window, seconds" + scale
	f.Note = "filled: windows with backlog, the ones throughput is judged on"
	if hollow {
		f.keys = []legendKey{{label: "no request waited", color: colMuted, ring: true}}
	}
	return f
}

func (c *chartCtx) latencyTimeFigure(k latencyKind) *figure {
	key, dist := k.pick(c.runs)
	f := &figure{Name: k.name + "_over_time", Title: k.title + " per window: p50 and p95 of " + key,
		XLabel: c.xLabel, xAxis: axisSpec{zero: true}}
	what := "time to first token"
	if k.name == "tpot" {
		what = "time per output token after the first"
	}
	scope := "of the successful spans released in the window"
	if key != k.name {
		scope = "of the requests delivered in the window, from their first arrival across retries"
	}
	f.Alt = "Median (solid) and 95th percentile (dashed) " + what + " " + scope + "; windows without one are left blank. A rising dashed line is a tail that grows under load."
	var ys []float64
	for i, rr := range c.runs {
		med := c.windowSeries(rr, key+".p50", func(m *schemas.Metrics) *float64 { return dist(m).P50 })
		tail := c.windowSeries(rr, key+".p95", func(m *schemas.Metrics) *float64 { return dist(m).P95 })
		med.color, tail.color, tail.dash, tail.width = c.color(i), c.color(i), dashed, 2
		if !c.compare {
			tail.color = colSecond
		}
		for _, s := range []series{med, tail} {
			for _, y := range s.Y {
				if v, ok := finite(y); ok {
					ys = append(ys, v)
				}
			}
		}
		f.Series = append(f.Series, med, tail)
	}
	var scale string
	f.yAxis, scale = latencyAxis(ys)
	f.YLabel = key + ", seconds" + scale
	return f
}
