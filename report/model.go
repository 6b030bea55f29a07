package report

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/tpsreport/tpsreport/schemas"
)

// Run is one analysed run dataset.
type Run struct {
	Dir             string            // dataset directory (shown in run facts)
	Manifest        schemas.Manifest  // manifest.json of the dataset
	Summary         schemas.Summary   // run window metrics, cap, cap_source, data quality, warnings
	Windows         []schemas.Metrics // tumbling windows in time order
	TTFTQuantiles   []float64         // 101 values: quantiles 0, 0.01, ..., 1 of ttft (s) over successful spans; nil if none
	TQueueQuantiles []float64         // the same for t_queue
	Concurrency     []ConcurrencyPoint
}

// ConcurrencyPoint is one bin of stream_tps against concurrency.
type ConcurrencyPoint struct {
	InFlight  float64 // the pool's in_flight at the middle of the span's stream (a whole count)
	StreamTPS float64 // median stream_tps of successful spans in the bin (tokens/s)
	N         int64   // spans in the bin
}

// Input is everything a report shows.
type Input struct {
	Baseline  Run              // the only run of a single-run report
	Candidate *Run             // nil for a single-run report
	Verdict   *schemas.Verdict // nil unless comparing
	Command   string           // the exact command line that reproduces the report
	Version   string           // tool version
	// Plans, when set, adds the capacity-plan section (report --target-rpm).
	Plans *Plans
	// Extra are files written into the report's directory with it, in
	// the same commit (compare's verdict.json).
	Extra []File
}

// comparing reports whether in is a baseline/candidate comparison.
func (in *Input) comparing() bool { return in.Candidate != nil }

// runs returns the runs of in with their roles, baseline first.
func (in *Input) runs() []roleRun {
	if in.Candidate == nil {
		return []roleRun{{role: roleRun1, run: &in.Baseline}}
	}
	return []roleRun{{role: roleBaseline, run: &in.Baseline}, {role: roleCandidate, run: in.Candidate}}
}

// Roles of the runs in a report.
const (
	roleRun1      = "run"
	roleBaseline  = "baseline"
	roleCandidate = "candidate"
)

type roleRun struct {
	role string
	run  *Run
}

// Format names the layout of report.json; bump it when fields change meaning.
// 2: a comparison's headline tiles hold the values its criteria judged,
// with their scope (metricRow.Scope), not always the whole run's.
const docFormat = "tpsreport.report/2"

// document is what a report shows, as data: report.json is this value, and
// report.html and summary.md render it. Values are in the units of
// docs/metrics.md; *Text fields hold them as shown.
type document struct {
	Format      string        `json:"format"`
	Tool        string        `json:"tool"`
	Version     string        `json:"version"`
	Mode        string        `json:"mode"` // single, compare
	Title       string        `json:"title"`
	Command     string        `json:"command"`
	Runs        []runFacts    `json:"runs"`
	Verdict     *verdictView  `json:"verdict"`
	Headline    []metricRow   `json:"headline"`
	Metrics     []metricGroup `json:"metrics"`
	Charts      []*figure     `json:"charts"`
	Definitions []definition  `json:"definitions"`
	Notes       []string      `json:"notes,omitempty"`
	// Findings say what a single run's numbers mean for it (findings.go).
	Findings []string `json:"findings,omitempty"`
	// Cost prices the run(s) when a price is known; Capacity is the fleet
	// plan of report --target-rpm (cost.go).
	Cost *costView `json:"cost,omitempty"`
	// Disagg is the section on disaggregated serving, when a run has
	// stages.
	Disagg   *disaggView `json:"disaggregation,omitempty"`
	Capacity *planView   `json:"capacity_plan,omitempty"`
	runs     []roleRun   // inputs, for renderers
}

// runFacts are the facts section of one run.
type runFacts struct {
	Role          string      `json:"role"` // run, baseline, candidate
	RunID         string      `json:"run_id"`
	Dir           string      `json:"dir"`
	IngestVersion string      `json:"ingest_version,omitempty"`
	Formats       []string    `json:"formats"`
	Inputs        []inputFact `json:"inputs"`
	InputBytes    int64       `json:"input_bytes"`
	RunStart      string      `json:"run_start,omitempty"`
	RunEnd        string      `json:"run_end,omitempty"`
	RunSeconds    float64     `json:"run_seconds"`
	WindowWidth   float64     `json:"window_width_seconds"`
	Windows       int         `json:"windows"`
	Cap           *int64      `json:"cap"`
	CapSource     string      `json:"cap_source"`
	CapInferred   bool        `json:"cap_inferred"`
	// NoEngine is set for a run of a client's or a gateway's records alone:
	// no slot was seen, so its inferred cap of 0 means nothing.
	NoEngine        bool           `json:"no_engine,omitempty"`
	Counts          schemas.Counts `json:"counts"`
	CountsReconcile bool           `json:"counts_reconcile"`
	RejectedBy      []countFact    `json:"rejected_by_reason"`
	SkippedBy       []countFact    `json:"skipped_by_reason"`
	Ignored         []ignoredFact  `json:"ignored_files"`
	DataQuality     []countFact    `json:"data_quality"`
	Models          []string       `json:"models"`
	ModelsOmitted   int64          `json:"models_omitted,omitempty"` // models past those listed
	Warnings        []string       `json:"warnings"`
	Replicas        []replicaFact  `json:"replicas,omitempty"`
	// ReplicasOmitted counts the replicas summary.json does not list (it
	// lists those with the most gap time).
	ReplicasOmitted int64 `json:"replicas_omitted,omitempty"`
	// EngineOnly: every span comes from an engine's log, so queueing before
	// the engine (gateway, load balancer, client) is not seen.
	EngineOnly bool         `json:"engine_only"`
	SLO        *schemas.SLO `json:"slo,omitempty"`
	// The offered load and token mix that compare's guards compare.
	OfferedRate      *float64 `json:"offered_rate"`
	ArrivalSpan      float64  `json:"arrival_span_seconds"`
	MeanInputTokens  *float64 `json:"mean_input_tokens"`
	MeanOutputTokens *float64 `json:"mean_output_tokens"`

	// As shown.
	SLOText     string `json:"-"`
	OfferedText string `json:"-"`
	TimeText    string `json:"-"`
	SpanText    string `json:"-"`
	WindowText  string `json:"-"`
	CapText     string `json:"-"`
	BytesText   string `json:"-"`
}

type inputFact struct {
	Path     string `json:"path"`
	Format   string `json:"format"`
	Detected bool   `json:"detected"` // Format was chosen by sniffing the input
	Size     int64  `json:"size"`
	SHA256   string `json:"sha256"`
	SizeText string `json:"-"`
}

// ignoredFact is a file of a directory input that ingest did not read.
type ignoredFact struct {
	Path   string `json:"path"`
	Reason string `json:"reason"`
}

// countFact is one named count; Flag marks a count that signals a problem.
type countFact struct {
	Name  string  `json:"name"`
	Value float64 `json:"value"`
	Flag  bool    `json:"flag"`
	Text  string  `json:"-"`
}

type replicaFact struct {
	Replica        string   `json:"replica"`
	Cap            *int64   `json:"cap"`
	GapFraction    *float64 `json:"gap_fraction"`
	Utilization    *float64 `json:"utilization"`
	MeanInFlight   *float64 `json:"mean_in_flight"`
	MeanQueueDepth *float64 `json:"mean_queue_depth"`
	Text           []string `json:"-"` // cap, gap_fraction, utilization, mean_in_flight, mean_queue_depth
}

// verdictView is the verdict section of a comparison.
type verdictView struct {
	Baseline      string            `json:"baseline"`
	Candidate     string            `json:"candidate"`
	Overall       string            `json:"overall"`
	Headline      string            `json:"headline"` // one sentence: did it help, and why
	Tally         string            `json:"tally"`    // 2 passed · 1 failed · 1 inconclusive
	Criteria      []criterionView   `json:"criteria"`
	Guards        []string          `json:"guards"`
	Bootstrap     schemas.Bootstrap `json:"bootstrap"`
	BootstrapText string            `json:"bootstrap_text"`
	Settings      schemas.Criteria  `json:"settings"`
	SettingsText  string            `json:"settings_text"`
	// Notes say what the criteria were computed over when it is not
	// everything, and what was allowed; they are no guards.
	Notes []string `json:"notes"`
	// Off lists the criteria turned off; OffText says so ("turned off: tpot").
	Off     []string `json:"off"`
	OffText string   `json:"off_text,omitempty"`
	// Canary describes a canary comparison's groups; nil otherwise.
	Canary *canaryView `json:"canary,omitempty"`
}

// canaryView is a canary comparison's groups as the report shows them.
type canaryView struct {
	Run    string           `json:"run"`
	Groups []canaryGroupRow `json:"groups"` // the canary, then its baseline
	// Unassigned says which spans are in neither group ("" when none).
	Unassigned string `json:"unassigned,omitempty"`
	// Why says why a canary verdict is sharper than a night-to-night one,
	// and Pairing how many times as wide each interval would be with the
	// groups resampled apart.
	Why     string `json:"why"`
	Pairing string `json:"pairing,omitempty"`
}

// canaryGroupRow is one group of a canary comparison.
type canaryGroupRow struct {
	Role               string `json:"role"` // "canary" or "baseline"
	Selectors          string `json:"selectors"`
	Replicas           string `json:"replicas"`
	Spans              string `json:"spans"`
	RequestsPerReplica string `json:"requests_per_replica"`
}

// canaryWhy is the report's sentence on why a canary verdict is sharper.
const canaryWhy = "Both groups served the same traffic at the same time, so each window is compared with itself: a burst, a quiet hour or a change in the prompt mix moves both groups alike and cancels from their difference, where two nights differ by all of it. Each replica was analysed alone over the same windows and each group's replicas pooled, so throughput is per replica whatever the groups' sizes; every interval resampled the same blocks of time in both groups."

func newCanaryView(v *schemas.Verdict) *canaryView {
	g := v.Canary
	if g == nil {
		return nil
	}
	row := func(role string, gr schemas.CanaryGroup, rest string) canaryGroupRow {
		sel := rest
		if len(gr.Selectors) > 0 {
			sel = strings.Join(gr.Selectors, " ")
		}
		return canaryGroupRow{Role: role, Selectors: sel, Replicas: strings.Join(gr.Replicas, ", "),
			Spans: fmtCount(gr.Spans), RequestsPerReplica: fmtCount(int64(math.Round(gr.RequestsPerReplica)))}
	}
	cv := &canaryView{Run: g.Run, Why: canaryWhy,
		Groups: []canaryGroupRow{row("canary", g.Candidate, ""), row("baseline", g.Baseline, "every other replica")}}
	if g.UnassignedSpans > 0 {
		cv.Unassigned = fmt.Sprintf("%s spans of the run are in neither group", fmtCount(g.UnassignedSpans))
		if g.NoReplicaSpans > 0 {
			cv.Unassigned += fmt.Sprintf(" (%s of them name no replica: a gateway's rejections, which no replica served)", fmtCount(g.NoReplicaSpans))
		}
		cv.Unassigned += "."
	}
	var parts []string
	for _, c := range v.Criteria {
		if k := c.Resampling.Narrowing(); k > 0 {
			parts = append(parts, fmt.Sprintf("%s %s×", c.Name, strconv.FormatFloat(k, 'f', 1, 64)))
		}
	}
	if parts != nil {
		cv.Pairing = "Resampled apart, not paired, the groups would have given intervals this many times as wide: " + strings.Join(parts, ", ") + "."
	}
	return cv
}

// criterionView is one criterion with its numbers, cleaned of NaN, and as shown.
type criterionView struct {
	Name    string `json:"name"`
	Title   string `json:"title"`
	Verdict string `json:"verdict"`
	Reason  string `json:"reason"`
	// Cause says where the idle time came from (gap_fraction only).
	Cause  string `json:"cause,omitempty"`
	Metric string `json:"metric"`
	// Key is the metric judged, under its name in the metric tables
	// (ttft_req.p95); MetricText is Metric without the scope it repeats.
	Key        string `json:"key"`
	MetricText string `json:"metric_text,omitempty"`
	// Scope is what the values are over (backlog windows, whole run,
	// delivered requests); ScopeText labels it as shown, with any warm-up
	// or cool-down left out.
	Scope     string   `json:"scope"`
	ScopeText string   `json:"scope_text"`
	Unit      unit     `json:"unit"`
	Baseline  *float64 `json:"baseline"`
	Candidate *float64 `json:"candidate"`
	Ratio     *float64 `json:"ratio,omitempty"`
	Diff      *float64 `json:"diff,omitempty"`
	Lo        *float64 `json:"lo,omitempty"`
	Hi        *float64 `json:"hi,omitempty"`
	Level     *float64 `json:"level,omitempty"`
	// MDE is the smallest change the comparison can see (relative for a
	// ratio, a difference of fractions otherwise).
	MDE  *float64      `json:"mde,omitempty"`
	Text criterionText `json:"text"`
}

type criterionText struct {
	Baseline  string `json:"baseline"`
	Candidate string `json:"candidate"`
	Change    string `json:"change"`
	Interval  string `json:"interval,omitempty"`
	// Sees is the smallest change the comparison can see: "sees ±12 %".
	Sees string `json:"sees,omitempty"`
}

// newDocument builds the report model of in. It never fails: unknown values
// become NULL and are shown as "—".
func newDocument(in Input) *document {
	d := &document{
		Format:      docFormat,
		Tool:        "tpsreport",
		Version:     in.Version,
		Command:     in.Command,
		Definitions: definitions,
		runs:        in.runs(),
	}
	ms := make([]*schemas.Metrics, 0, 2)
	for _, rr := range d.runs {
		d.Runs = append(d.Runs, newRunFacts(rr.role, rr.run))
		ms = append(ms, &rr.run.Summary.Metrics)
	}
	if in.comparing() {
		d.Mode = "compare"
		d.Title = runName(&in.Baseline) + " vs " + runName(in.Candidate)
		if in.Verdict != nil {
			d.Verdict = newVerdictView(in.Verdict)
		} else {
			d.Notes = append(d.Notes, "No verdict was computed for this comparison.")
		}
	} else {
		d.Mode = "single"
		d.Title = runName(&in.Baseline)
		d.Findings = findings(&in.Baseline)
	}
	d.Headline = headline(d.Verdict, ms)
	d.Metrics = metricTable(ms)
	markJudged(d.Metrics, d.Verdict)
	engineOnlyCaveats(d.Headline, d.runs)
	for i := range d.Metrics {
		engineOnlyCaveats(d.Metrics[i].Rows, d.runs)
	}
	d.Charts = figures(in)
	d.Cost = newCostView(in)
	d.Disagg = newDisaggView(in, d.runs)
	d.Capacity = newPlanView(in.Plans)
	return d
}

// runName is the run id of r, or its directory when the summary has none.
func runName(r *Run) string {
	for _, s := range []string{r.Summary.RunID, r.Manifest.RunID, r.Dir} {
		if s != "" {
			return s
		}
	}
	return "run"
}

func newRunFacts(role string, r *Run) runFacts {
	s := &r.Summary
	f := runFacts{
		Role:          role,
		RunID:         runName(r),
		Dir:           r.Dir,
		IngestVersion: r.Manifest.Version,
		Formats:       nonNil(r.Manifest.FormatsDetected),
		WindowWidth:   s.WindowWidth,
		Windows:       len(r.Windows),
		Cap:           s.Cap,
		CapSource:     s.CapSource,
		CapInferred:   s.CapSource == "inferred" && !noEngine(*s),
		NoEngine:      noEngine(*s),
		Models:        nonNil(s.DataQuality.Models),
		ModelsOmitted: s.DataQuality.ModelsOmitted,
		Warnings:      nonNil(s.Warnings),
		EngineOnly:    s.EngineOnly,
		SLO:           s.SLO,
		OfferedRate:   clean(s.OfferedRate),
		ArrivalSpan:   s.ArrivalSpan,

		MeanInputTokens:  clean(s.MeanInputTokens),
		MeanOutputTokens: clean(s.MeanOutputTokens),
	}
	f.SLOText = sloText(s.SLO)
	f.OfferedText = offeredText(s)
	for _, in := range r.Manifest.Inputs {
		f.Inputs = append(f.Inputs, inputFact{Path: in.Path, Format: in.Format, Detected: in.Detected, Size: in.Size, SHA256: in.SHA256, SizeText: fmtBytes(in.Size)})
		f.InputBytes += in.Size
	}
	if f.Inputs == nil {
		f.Inputs = []inputFact{}
	}
	f.BytesText = fmtBytes(f.InputBytes)

	start, end := s.RunStart, s.RunEnd
	if start.IsZero() && r.Manifest.TimeRange != nil {
		start, end = r.Manifest.TimeRange.Start, r.Manifest.TimeRange.End
	}
	f.RunStart, f.RunEnd = fmtStamp(start), fmtStamp(end)
	switch {
	case s.DurationsOnly != nil:
		// Each span counts from its own start: the run has no wall-clock
		// range, only its longest request.
		f.TimeText, f.SpanText = "durations only", "no wall-clock times: each request timed from its own start"
	case !start.IsZero() && !end.Before(start):
		f.RunSeconds = end.Sub(start).Seconds()
		f.TimeText = fmtTime(start) + " → " + fmtTime(end)
		f.SpanText = fmtSpan(f.RunSeconds)
	default:
		f.TimeText, f.SpanText = null, null
	}
	f.WindowText = null
	if s.WindowWidth > 0 {
		f.WindowText = fmtSeconds(s.WindowWidth) + " × " + strconv.Itoa(len(r.Windows)) + " windows"
	}

	f.CapText = null
	if s.Cap != nil {
		f.CapText = fmtCount(*s.Cap)
	}
	if s.CapSource != "" {
		f.CapText += " (" + s.CapSource + ")"
	}

	f.Counts = r.Manifest.Counts
	if f.Counts == (schemas.Counts{}) {
		dq := &s.DataQuality
		f.Counts = schemas.Counts{Read: dq.RecordsRead, Written: dq.SpansWritten, Rejected: dq.RecordsRejected, Skipped: dq.RecordsSkipped}
	}
	c := f.Counts
	f.CountsReconcile = c.Read == c.Written+c.Rejected+c.Skipped
	by := r.Manifest.RejectedBy
	if len(by) == 0 {
		by = s.DataQuality.RejectedBy
	}
	f.RejectedBy = countFacts(by)
	skipped := r.Manifest.SkippedBy
	if len(skipped) == 0 {
		skipped = s.DataQuality.SkippedBy
	}
	f.SkippedBy = countFacts(skipped)
	for i := range f.SkippedBy {
		f.SkippedBy[i].Flag = false // skipping a record is no error
	}
	f.Ignored = []ignoredFact{}
	for _, ig := range r.Manifest.Ignored {
		f.Ignored = append(f.Ignored, ignoredFact{Path: ig.Path, Reason: ig.Reason})
	}
	f.DataQuality = qualityFacts(&s.DataQuality)
	for _, rs := range s.Replicas {
		rf := replicaFact{
			Replica:        rs.Replica,
			Cap:            rs.Cap,
			GapFraction:    clean(rs.GapFraction),
			Utilization:    clean(rs.Utilization),
			MeanInFlight:   clean(rs.MeanInFlight),
			MeanQueueDepth: clean(rs.MeanQueueDepth),
		}
		capText := null
		if rs.Cap != nil {
			capText = fmtCount(*rs.Cap)
		}
		rf.Text = []string{capText, unitFraction.format(rf.GapFraction), unitFraction.format(rf.Utilization),
			unitRequests.format(rf.MeanInFlight), unitRequests.format(rf.MeanQueueDepth)}
		f.Replicas = append(f.Replicas, rf)
	}
	slices.SortStableFunc(f.Replicas, func(a, b replicaFact) int { return naturalCompare(a.Replica, b.Replica) })
	f.ReplicasOmitted = s.ReplicasOmitted
	return f
}

// naturalCompare orders strings as people number things: runs of digits
// compare by value, so vllm-2 comes before vllm-10. Equal values with
// different spellings (vllm-02, vllm-2) fall back to byte order.
func naturalCompare(a, b string) int {
	i, j := 0, 0
	for i < len(a) && j < len(b) {
		ca, cb := a[i], b[j]
		if isDigit(ca) && isDigit(cb) {
			si, sj := i, j
			for i < len(a) && isDigit(a[i]) {
				i++
			}
			for j < len(b) && isDigit(b[j]) {
				j++
			}
			na := strings.TrimLeft(a[si:i], "0")
			nb := strings.TrimLeft(b[sj:j], "0")
			if c := cmp.Compare(len(na), len(nb)); c != 0 {
				return c
			}
			if c := strings.Compare(na, nb); c != 0 {
				return c
			}
			continue
		}
		if ca != cb {
			return cmp.Compare(ca, cb)
		}
		i++
		j++
	}
	if c := cmp.Compare(len(a)-i, len(b)-j); c != 0 {
		return c
	}
	return strings.Compare(a, b)
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// countFacts lists a map of counts, largest first, ties by name.
func countFacts(m map[string]int64) []countFact {
	out := make([]countFact, 0, len(m))
	for k, v := range m {
		out = append(out, countFact{Name: k, Value: float64(v), Flag: v > 0, Text: fmtCount(v)})
	}
	slices.SortFunc(out, func(a, b countFact) int {
		if c := cmp.Compare(b.Value, a.Value); c != 0 {
			return c
		}
		return cmp.Compare(a.Name, b.Name)
	})
	return out
}

// timestampColumns orders the missing-timestamp counts as a span's life runs.
var timestampColumns = []string{"queued_at", "admitted_at", "first_token_at", "last_token_at", "released_at"}

// qualityFacts lists the data-quality counts (docs/metrics.md "Data
// quality"); non-zero ones are flagged.
func qualityFacts(dq *schemas.DataQuality) []countFact {
	var out []countFact
	add := func(name string, v int64) {
		out = append(out, countFact{Name: name, Value: float64(v), Flag: v > 0, Text: fmtCount(v)})
	}
	cols := slices.Clone(timestampColumns)
	var extra []string
	for k := range dq.MissingTimestamp {
		if !slices.Contains(timestampColumns, k) {
			extra = append(extra, k)
		}
	}
	slices.Sort(extra)
	for _, col := range append(cols, extra...) {
		add("missing "+col, dq.MissingTimestamp[col])
	}
	add("out_of_order", dq.OutOfOrder)
	add("duplicate_span_ids", dq.DuplicateSpanIDs)
	add("unlinked_retries", dq.UnlinkedRetries)
	add("spans_outside_state", dq.SpansOutOfState)
	add("sampling_holes", dq.SamplingHoles)
	add("spans_clipped", dq.SpansClipped)
	over := dq.OverCapTime
	out = append(out, countFact{Name: "over_cap_seconds", Value: over, Flag: over > 0, Text: fmtSeconds(over)})
	models := int64(len(dq.Models)) + dq.ModelsOmitted
	out = append(out, countFact{Name: "models", Value: float64(models), Flag: models > 1, Text: fmtCount(models)})
	if j := dq.Join; j != nil {
		// A joined span has the gateway's and the engine's view; the others one.
		out = append(out, countFact{Name: "joined gateway+engine spans", Value: float64(j.Matched), Text: fmtCount(j.Matched)})
		add("gateway-only spans", j.GatewayOnly)
		add("engine-only spans", j.EngineOnly)
	}
	return out
}

func newVerdictView(v *schemas.Verdict) *verdictView {
	vv := &verdictView{
		Baseline:  v.Baseline,
		Candidate: v.Candidate,
		Overall:   v.Overall,
		Guards:    nonNil(v.Guards),
		Bootstrap: v.Bootstrap,
		Settings:  v.Settings,
		Notes:     nonNil(v.Notes),
		Off:       nonNil(v.Settings.Off),
	}
	if len(vv.Off) > 0 {
		vv.OffText = "turned off: " + strings.Join(vv.Off, ", ")
	}
	conf := v.Settings.Confidence
	if conf <= 0 || conf >= 1 {
		conf = schemas.DefaultCriteria().Confidence
	}
	var pass, fail, inc []string
	for _, c := range v.Criteria {
		cv := newCriterionView(c, conf, v.Settings)
		vv.Criteria = append(vv.Criteria, cv)
		switch c.Verdict {
		case schemas.Pass:
			pass = append(pass, c.Title)
		case schemas.Fail:
			fail = append(fail, c.Title)
		default:
			inc = append(inc, c.Title)
		}
	}
	if vv.Criteria == nil {
		vv.Criteria = []criterionView{}
	}
	vv.Tally = fmt.Sprintf("%d passed · %d failed · %d inconclusive", len(pass), len(fail), len(inc))
	switch {
	case len(v.Criteria) == 0:
		vv.Headline = "No acceptance criterion was evaluated."
	case v.Overall == schemas.Pass:
		vv.Headline = "The candidate meets every acceptance criterion."
	case v.Overall == schemas.Fail:
		vv.Headline = throughputPrefix(v) + "the candidate fails " + plural(len(fail), "criterion", "criteria") + ": " + strings.Join(fail, "; ") + "."
	default:
		vv.Headline = throughputPrefix(v) + "the logs cannot decide " + plural(len(inc), "criterion", "criteria") + ": " + strings.Join(inc, "; ") + "."
	}
	vv.Headline = strings.ToUpper(vv.Headline[:1]) + vv.Headline[1:]
	vv.BootstrapText = bootstrapText(v.Bootstrap)
	if v.Canary != nil {
		vv.BootstrapText = canaryBootstrapText(v.Bootstrap, v.Canary)
	}
	vv.SettingsText = settingsText(v.Settings)
	vv.Canary = newCanaryView(v)
	return vv
}

// throughputPrefix opens a mixed verdict's headline with the throughput
// result, the first thing a reviewer asks about.
func throughputPrefix(v *schemas.Verdict) string {
	for _, c := range v.Criteria {
		if c.Name == "throughput" && c.Verdict == schemas.Pass {
			return "Throughput improved, but "
		}
	}
	return ""
}

func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.Itoa(n) + " " + many
}

// criterionUnit picks the unit of a criterion's numbers from the metric it
// judges.
func criterionUnit(c schemas.Criterion) unit {
	if m, ok := metricByKey(judgedKey(c)); ok {
		return m.Unit
	}
	if strings.HasSuffix(c.Metric, "_tps") {
		return unitTPS
	}
	if strings.HasSuffix(c.Metric, "_rate") || strings.HasSuffix(c.Metric, "_fraction") {
		return unitFraction
	}
	return ""
}

func newCriterionView(c schemas.Criterion, conf float64, settings schemas.Criteria) criterionView {
	u := criterionUnit(c)
	key, scope := judgedKey(c), criterionScope(c)
	cv := criterionView{
		Name: c.Name, Title: c.Title, Verdict: c.Verdict, Reason: c.Reason, Cause: c.Cause, Metric: c.Metric, Unit: u,
		Key: key, MetricText: metricText(c, key, scope), Scope: scope, ScopeText: scopeText(scope, settings),
		Baseline: clean(c.Baseline), Candidate: clean(c.Candidate),
		Ratio: clean(c.Ratio), Diff: clean(c.Diff), Lo: clean(c.Lo), Hi: clean(c.Hi), Level: clean(c.Level), MDE: clean(c.MDE),
	}
	if cv.Title == "" {
		cv.Title = c.Name
	}
	cv.Text.Baseline = u.format(cv.Baseline)
	cv.Text.Candidate = u.format(cv.Candidate)
	b, okb := finite(cv.Baseline)
	cand, okc := finite(cv.Candidate)
	switch {
	case cv.Ratio != nil:
		cv.Text.Change = fmtRatio(*cv.Ratio) + " (" + fmtRel(*cv.Ratio-1) + ")"
	case cv.Diff != nil:
		cv.Text.Change = u.formatDelta(*cv.Diff)
	case okb && okc:
		cv.Text.Change = u.formatDelta(cand - b)
	default:
		cv.Text.Change = null
	}
	if cv.Lo != nil && cv.Hi != nil {
		lvl := conf
		if cv.Level != nil {
			lvl = *cv.Level
		}
		level := fmtLevel(lvl)
		if cv.Ratio != nil {
			cv.Text.Interval = level + " CI " + fmtRatio(*cv.Lo) + " … " + fmtRatio(*cv.Hi)
		} else {
			cv.Text.Interval = level + " CI " + u.formatDelta(*cv.Lo) + " … " + u.formatDelta(*cv.Hi)
		}
	}
	switch {
	case cv.MDE == nil:
	case cv.Ratio != nil:
		cv.Text.Sees = "sees ±" + fmtShortPercent(roundTo(*cv.MDE, 2))
	case *cv.MDE >= 1:
		// A rate's smallest visible change is the whole range of rates.
		cv.Text.Sees = "too noisy to see any change"
	default:
		cv.Text.Sees = "sees ±" + fmtShortPP(roundTo(*cv.MDE, 4))
	}
	return cv
}

// roundTo rounds x to d decimals.
func roundTo(x float64, d int) float64 {
	p := math.Pow(10, float64(d))
	return math.Round(x*p) / p
}

func bootstrapText(b schemas.Bootstrap) string {
	if b.Resamples <= 0 || b.Criteria == 0 {
		return "No criterion was judged, so nothing was resampled."
	}
	side := func(runs, windows int) string {
		return plural(runs, "run", "runs") + " (" + plural(windows, "window", "windows") + ")"
	}
	return fmt.Sprintf("Each interval resamples blocks of consecutive windows, never single requests or windows as if they were independent, "+
		"%s times (seed %s): the baseline's %s and the candidate's %s%s; the block length follows each run's own autocorrelation. "+
		"Each of the %s may alarm on an unchanged system in at most %s of comparisons, so that together they alarm in at most %s "+
		"(docs/acceptance.md \"How the intervals are made\" and \"How often the verdict is wrong\").",
		fmtCount(int64(b.Resamples)), strconv.FormatUint(b.Seed, 10), side(b.BaselineRuns, b.BaselineWindows), side(b.CandidateRuns, b.CandidateWindows),
		wholeRuns(b), plural(b.Criteria, "criterion", "criteria"), fmtShortPercent(roundTo(b.Alpha/float64(b.Criteria), 5)), fmtShortPercent(b.Alpha))
}

// canaryBootstrapText is bootstrapText for a canary, whose groups are
// resampled together.
func canaryBootstrapText(b schemas.Bootstrap, g *schemas.Canary) string {
	if b.Resamples <= 0 || b.Criteria == 0 {
		return bootstrapText(b)
	}
	return fmt.Sprintf("Each interval resamples blocks of consecutive windows, never single requests or windows as if they were independent, "+
		"%s times (seed %s), and draws the same blocks of time for both groups: each resample takes every replica's windows in the blocks drawn, "+
		"the canary's %s and the baseline's %s over %s; the block length follows the autocorrelation of the groups' difference. "+
		"Each of the %s may alarm on an unchanged system in at most %s of comparisons, so that together they alarm in at most %s "+
		"(docs/acceptance.md \"Canary comparisons\").",
		fmtCount(int64(b.Resamples)), strconv.FormatUint(b.Seed, 10), plural(b.CandidateRuns, "replica", "replicas"), plural(b.BaselineRuns, "replica", "replicas"),
		plural(g.Windows, "window", "windows"), plural(b.Criteria, "criterion", "criteria"), fmtShortPercent(roundTo(b.Alpha/float64(b.Criteria), 5)), fmtShortPercent(b.Alpha))
}

// wholeRuns says that whole runs were resampled too, when a side had several.
func wholeRuns(b schemas.Bootstrap) string {
	if b.BaselineRuns > 1 || b.CandidateRuns > 1 {
		return ", whole runs resampled as well, so that the variance between runs enters every interval"
	}
	return ""
}

func settingsText(c schemas.Criteria) string {
	parts := []string{
		"min_improvement " + fmtShortPercent(c.MinImprovement),
		"success_tolerance " + fmtShortPP(c.SuccessTolerance),
		"gap_tolerance " + fmtShortPP(c.GapTolerance),
		"gap_floor " + fmtShortPercent(c.GapFloor),
		"retry_tolerance " + fmtShortPP(c.RetryTolerance),
		"min_backlog_windows " + strconv.Itoa(c.MinBacklogWindows),
		"load_mismatch " + fmtShortPercent(c.LoadMismatch),
		"alpha " + strconv.FormatFloat(c.Alpha, 'g', -1, 64),
		"resamples " + fmtCount(int64(c.Resamples)),
	}
	// Settings a verdict written before the latency criteria lacks (all 0).
	if c.TTFTTolerance != 0 || c.TPOTTolerance != 0 || c.SLOTolerance != 0 || c.TokenMismatch != 0 {
		parts = append(parts,
			"ttft_tolerance "+fmtShortPercent(c.TTFTTolerance),
			"tpot_tolerance "+fmtShortPercent(c.TPOTTolerance),
			"slo_tolerance "+fmtShortPP(c.SLOTolerance),
			"token_mismatch "+fmtShortPercent(c.TokenMismatch))
	}
	switch {
	case c.WarmupAuto:
		parts = append(parts, "warmup auto")
	case c.Warmup > 0:
		parts = append(parts, "warmup "+fmtSeconds(c.Warmup))
	}
	switch {
	case c.CooldownAuto:
		parts = append(parts, "cooldown auto")
	case c.Cooldown > 0:
		parts = append(parts, "cooldown "+fmtSeconds(c.Cooldown))
	}
	if c.AllowModelMismatch {
		parts = append(parts, "model mismatch allowed")
	}
	return strings.Join(parts, " · ")
}

// sloText shows an SLO's bounds: "ttft ≤ 2 s · tpot ≤ 80 ms"; "" without one.
func sloText(slo *schemas.SLO) string {
	if slo == nil {
		return ""
	}
	var parts []string
	for _, b := range []struct {
		name  string
		bound *float64
	}{{"ttft", slo.TTFT}, {"tpot", slo.TPOT}, {"e2e", slo.E2E}} {
		if v, ok := finite(b.bound); ok {
			parts = append(parts, b.name+" ≤ "+fmtSeconds(v))
		}
	}
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, " · ")
}

// offeredText shows the offered load and token mix that compare's guards
// compare: "5.88 req/s over 8 min 59 s · 512 input tokens per request ·
// 300 output tokens per delivered request"; "" when none is known.
func offeredText(s *schemas.Summary) string {
	var parts []string
	if v, ok := finite(s.OfferedRate); ok {
		p := unitRate.format(&v)
		if s.ArrivalSpan > 0 {
			p += " over " + fmtSpan(s.ArrivalSpan) + " of arrivals"
		}
		parts = append(parts, p)
	}
	if v, ok := finite(s.MeanInputTokens); ok {
		parts = append(parts, fmtSig(v)+" input tokens per request")
	}
	if v, ok := finite(s.MeanOutputTokens); ok {
		parts = append(parts, fmtSig(v)+" output tokens per delivered request")
	}
	return strings.Join(parts, " · ")
}

// noEngine reports whether a run holds no engine's record: its cap was
// inferred as 0 and no gap_fraction was measured (analyze says so).
func noEngine(s schemas.Summary) bool {
	return s.CapSource == "inferred" && s.Cap != nil && *s.Cap == 0 && s.GapFraction == nil && s.Requests > 0
}
