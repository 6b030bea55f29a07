package report

import (
	"math"

	"github.com/tpsreport/tpsreport/schemas"
)

// unit says how a metric's values are shown. Values are always held in the
// units of docs/metrics.md (seconds, fractions 0..1, tokens per second); unit
// only formats them.
type unit string

const (
	unitTPS      unit = "tok/s"
	unitSeconds  unit = "s"
	unitFraction unit = "fraction"
	unitCount    unit = "count"
	unitRate     unit = "req/s"
	unitRequests unit = "requests"
)

// format shows one value with its unit.
func (u unit) format(v *float64) string {
	x, ok := finite(v)
	if !ok {
		return null
	}
	switch u {
	case unitTPS:
		return fmtSig(x) + " tok/s"
	case unitSeconds:
		return fmtSeconds(x)
	case unitFraction:
		return fmtPercent(x)
	case unitCount:
		return fmtCount(int64(math.Round(x)))
	case unitRate:
		return fmtSig(x) + " req/s"
	}
	return fmtSig(x)
}

// formatDelta shows an absolute change, signed; fractions change in
// percentage points.
func (u unit) formatDelta(d float64) string {
	if u == unitFraction {
		return fmtPP(d)
	}
	a := math.Abs(d)
	if d == 0 {
		return u.format(&a)
	}
	return signed(d, u.format(&a))
}

// Direction of a metric: which way is good.
const (
	higherBetter = 1
	lowerBetter  = -1
	neutral      = 0
)

// metricDef is one row of the key-metrics table: its name in
// docs/metrics.md, how to read it from schemas.Metrics, its unit and which
// way is good.
type metricDef struct {
	Key    string
	Hint   string
	Unit   unit
	Better int
	Get    func(m *schemas.Metrics) *float64
}

func count(n int64) *float64 { v := float64(n); return &v }

func pct(get func(p *schemas.Percentiles) *float64, field func(m *schemas.Metrics) *schemas.Percentiles) func(m *schemas.Metrics) *float64 {
	return func(m *schemas.Metrics) *float64 { return get(field(m)) }
}

func p50(p *schemas.Percentiles) *float64  { return p.P50 }
func p90(p *schemas.Percentiles) *float64  { return p.P90 }
func p99(p *schemas.Percentiles) *float64  { return p.P99 }
func mean(p *schemas.Percentiles) *float64 { return p.Mean }

func ttft(m *schemas.Metrics) *schemas.Percentiles        { return &m.TTFT }
func tQueue(m *schemas.Metrics) *schemas.Percentiles      { return &m.TQueue }
func tFirstToken(m *schemas.Metrics) *schemas.Percentiles { return &m.TFirstToken }
func tStream(m *schemas.Metrics) *schemas.Percentiles     { return &m.TStream }
func tTotal(m *schemas.Metrics) *schemas.Percentiles      { return &m.TTotal }
func tpot(m *schemas.Metrics) *schemas.Percentiles        { return &m.TPOT }
func streamTPS(m *schemas.Metrics) *schemas.Percentiles   { return &m.StreamTPS }
func e2eTPS(m *schemas.Metrics) *schemas.Percentiles      { return &m.EndToEndTPS }
func gatewayOverhead(m *schemas.Metrics) *schemas.Percentiles {
	return &m.GatewayOverhead
}
func p95(p *schemas.Percentiles) *float64             { return p.P95 }
func ttftReq(m *schemas.Metrics) *schemas.Percentiles { return &m.TTFTReq }
func tpotReq(m *schemas.Metrics) *schemas.Percentiles { return &m.TPOTReq }
func e2eReq(m *schemas.Metrics) *schemas.Percentiles  { return &m.E2EReq }
func sloMet(m *schemas.Metrics) *float64 {
	if m.SLOMet == nil {
		return nil
	}
	return count(*m.SLOMet)
}

// metricGroupDef is a titled block of the key-metrics table.
type metricGroupDef struct {
	Title   string
	Metrics []metricDef
	// Show says whether the group has anything to show for the runs (nil:
	// always): samples, or spans joined from a gateway and an engine.
	Show func([]*schemas.Metrics) bool
}

// metricGroups is the key-metrics table, in the order reviewers read it.
var metricGroups = []metricGroupDef{
	{Title: "Throughput", Metrics: []metricDef{
		{"system_tps", "output tokens of successful spans per second", unitTPS, higherBetter, func(m *schemas.Metrics) *float64 { return m.SystemTPS }},
		{"retry_adjusted_system_tps", "output tokens of delivered spans per second (retries are waste)", unitTPS, higherBetter, func(m *schemas.Metrics) *float64 { return m.RetryAdjustedSystemTPS }},
		{"generated_tps", "output tokens of all spans per second, failed ones included", unitTPS, neutral, func(m *schemas.Metrics) *float64 { return m.GeneratedTPS }},
		{"input_tps", "prompt tokens of successful spans per second", unitTPS, higherBetter, func(m *schemas.Metrics) *float64 { return m.InputTPS }},
		{"waste_fraction", "share of generated tokens not delivered", unitFraction, lowerBetter, func(m *schemas.Metrics) *float64 { return m.WasteFraction }},
	}},
	{Title: "Load and outcomes", Metrics: []metricDef{
		{"arrival_rate", "new requests per second (offered load)", unitRate, neutral, func(m *schemas.Metrics) *float64 { return m.ArrivalRate }},
		{"requests", "logical requests completed", unitCount, neutral, func(m *schemas.Metrics) *float64 { return count(m.Requests) }},
		{"attempts", "attempts released, retries included", unitCount, neutral, func(m *schemas.Metrics) *float64 { return count(m.Attempts) }},
		{"success_rate", "completed requests with a successful attempt", unitFraction, higherBetter, func(m *schemas.Metrics) *float64 { return m.SuccessRate }},
		{"attempt_success_rate", "successful attempts / attempts", unitFraction, higherBetter, func(m *schemas.Metrics) *float64 { return m.AttemptSuccessRate }},
		{"retry_rate", "attempts that are retries", unitFraction, lowerBetter, func(m *schemas.Metrics) *float64 { return m.RetryRate }},
	}},
	{Title: "Idle time and engine state", Metrics: []metricDef{
		{"gap_fraction", "time with a queue but free slots / time", unitFraction, lowerBetter, func(m *schemas.Metrics) *float64 { return m.GapFraction }},
		{"backlog_gap_fraction", "of the time with a queue, share with free slots", unitFraction, lowerBetter, func(m *schemas.Metrics) *float64 { return m.BacklogGapFraction }},
		{"gap_time", "seconds with a queue but free slots", unitSeconds, lowerBetter, func(m *schemas.Metrics) *float64 { return num(m.GapTime) }},
		{"backlog_time", "seconds with a queue", unitSeconds, lowerBetter, func(m *schemas.Metrics) *float64 { return num(m.BacklogTime) }},
		{"engine_gap_time", "of gap_time: an engine held requests with free slots", unitSeconds, lowerBetter, func(m *schemas.Metrics) *float64 { return num(m.EngineGapTime) }},
		{"admission_gap_time", "of gap_time: requests held before an engine's queue (gateway, engine frontend)", unitSeconds, lowerBetter, func(m *schemas.Metrics) *float64 { return num(m.AdmissionGapTime) }},
		{"imbalance_gap_time", "of gap_time: requests at full replicas, others free", unitSeconds, lowerBetter, func(m *schemas.Metrics) *float64 { return num(m.ImbalanceGapTime) }},
		{"unattributed_gap_time", "of gap_time: where requests waited is unknown", unitSeconds, lowerBetter, func(m *schemas.Metrics) *float64 { return num(m.UnattributedGapTime) }},
		{"mean_in_flight", "time-average of requests running", unitRequests, neutral, func(m *schemas.Metrics) *float64 { return m.MeanInFlight }},
		{"mean_queue_depth", "time-average of requests waiting", unitRequests, lowerBetter, func(m *schemas.Metrics) *float64 { return m.MeanQueueDepth }},
		{"utilization", "mean_in_flight / cap", unitFraction, neutral, func(m *schemas.Metrics) *float64 { return m.Utilization }},
		{"little_concurrency", "arrival_rate × mean t_total (Little's law)", unitRequests, neutral, func(m *schemas.Metrics) *float64 { return m.LittleConcurrency }},
	}},
	{Title: "Idle time from scheduler samples", Show: anySampled, Metrics: []metricDef{
		{"gap_fraction_sampled", "gap_fraction from samples", unitFraction, lowerBetter, func(m *schemas.Metrics) *float64 { return m.GapFractionSampled }},
		{"backlog_gap_fraction_sampled", "backlog_gap_fraction from samples", unitFraction, lowerBetter, func(m *schemas.Metrics) *float64 { return m.BacklogGapFractionSampled }},
		{"mean_in_flight_sampled", "mean_in_flight from samples", unitRequests, neutral, func(m *schemas.Metrics) *float64 { return m.MeanInFlightSampled }},
		{"mean_queue_depth_sampled", "mean_queue_depth from samples", unitRequests, lowerBetter, func(m *schemas.Metrics) *float64 { return m.MeanQueueDepthSampled }},
		{"utilization_sampled", "utilization from samples", unitFraction, neutral, func(m *schemas.Metrics) *float64 { return m.UtilizationSampled }},
		{"sampled_seconds", "seconds covered by samples", unitSeconds, neutral, func(m *schemas.Metrics) *float64 { return m.SampledSeconds }},
	}},
	{Title: "Engine state from samples", Show: anyEngineState, Metrics: []metricDef{
		{"kv_cache_usage", "time-average KV-cache usage", unitFraction, neutral, func(m *schemas.Metrics) *float64 { return m.KVCacheUsage }},
		{"kv_cache_usage_max", "largest KV-cache usage reported", unitFraction, neutral, func(m *schemas.Metrics) *float64 { return m.KVCacheUsageMax }},
		{"preemptions", "requests the engines preempted", unitCount, lowerBetter, func(m *schemas.Metrics) *float64 {
			if m.Preemptions == nil {
				return nil
			}
			return count(*m.Preemptions)
		}},
		{"prefix_cache_hit_rate", "prompt tokens found in the prefix cache", unitFraction, higherBetter, func(m *schemas.Metrics) *float64 { return m.PrefixCacheHitRate }},
		{"spec_acceptance_rate", "speculative tokens accepted / proposed", unitFraction, higherBetter, func(m *schemas.Metrics) *float64 { return m.SpecAcceptanceRate }},
	}},
	{Title: "Latency of successful spans", Metrics: []metricDef{
		{"ttft.p50", "queued → first token, median", unitSeconds, lowerBetter, pct(p50, ttft)},
		{"ttft.p90", "queued → first token, 90th percentile", unitSeconds, lowerBetter, pct(p90, ttft)},
		{"ttft.p99", "queued → first token, 99th percentile", unitSeconds, lowerBetter, pct(p99, ttft)},
		{"t_queue.p50", "queued → admitted, median", unitSeconds, lowerBetter, pct(p50, tQueue)},
		{"t_queue.p99", "queued → admitted, 99th percentile", unitSeconds, lowerBetter, pct(p99, tQueue)},
		{"t_first_token.p50", "admitted → first token, median", unitSeconds, lowerBetter, pct(p50, tFirstToken)},
		{"t_stream.p50", "first → last token, median", unitSeconds, neutral, pct(p50, tStream)},
		{"t_total.p50", "queued → released, median", unitSeconds, lowerBetter, pct(p50, tTotal)},
		{"t_total.p99", "queued → released, 99th percentile", unitSeconds, lowerBetter, pct(p99, tTotal)},
		{"tpot.p50", "time per output token after the first, median", unitSeconds, lowerBetter, pct(p50, tpot)},
		{"tpot.p99", "time per output token after the first, 99th percentile", unitSeconds, lowerBetter, pct(p99, tpot)},
	}},
	{Title: "Latency of delivered requests, across retries", Show: anyRequestLatency, Metrics: []metricDef{
		{"ttft_req.p50", "first arrival → first token of the delivered attempt, median", unitSeconds, lowerBetter, pct(p50, ttftReq)},
		{"ttft_req.p95", "first arrival → first token, 95th percentile", unitSeconds, lowerBetter, pct(p95, ttftReq)},
		{"ttft_req.p99", "first arrival → first token, 99th percentile", unitSeconds, lowerBetter, pct(p99, ttftReq)},
		{"tpot_req.p50", "the delivered attempt's tpot, median", unitSeconds, lowerBetter, pct(p50, tpotReq)},
		{"tpot_req.p95", "the delivered attempt's tpot, 95th percentile", unitSeconds, lowerBetter, pct(p95, tpotReq)},
		{"e2e_req.p50", "first arrival → release of the delivered attempt, median", unitSeconds, lowerBetter, pct(p50, e2eReq)},
		{"e2e_req.p99", "first arrival → release of the delivered attempt, 99th percentile", unitSeconds, lowerBetter, pct(p99, e2eReq)},
	}},
	{Title: "Service level objective", Show: anySLO, Metrics: []metricDef{
		{"slo_attainment", "completed requests delivered within every bound of the SLO", unitFraction, higherBetter, func(m *schemas.Metrics) *float64 { return m.SLOAttainment }},
		{"goodput", "requests delivered within the SLO per second", unitRate, higherBetter, func(m *schemas.Metrics) *float64 { return m.Goodput }},
		{"slo_met", "requests delivered within the SLO", unitCount, neutral, sloMet},
	}},
	{Title: "Per-request speed", Metrics: []metricDef{
		{"stream_tps.p50", "output tokens / stream time, median", unitTPS, higherBetter, pct(p50, streamTPS)},
		{"stream_tps.mean", "output tokens / stream time, mean", unitTPS, higherBetter, pct(mean, streamTPS)},
		{"end_to_end_tps.p50", "output tokens / in-flight time, median", unitTPS, higherBetter, pct(p50, e2eTPS)},
	}},
	{Title: "Gateway (joined with the engine's spans)", Show: anyJoined, Metrics: []metricDef{
		{"gateway_overhead.p50", "gateway total − engine e2e, median", unitSeconds, lowerBetter, pct(p50, gatewayOverhead)},
		{"gateway_overhead.p99", "gateway total − engine e2e, 99th percentile", unitSeconds, lowerBetter, pct(p99, gatewayOverhead)},
		{"gateway_overhead.mean", "gateway total − engine e2e, mean", unitSeconds, lowerBetter, pct(mean, gatewayOverhead)},
	}},
}

// metricByKey finds a metric of the table by its name in docs/metrics.md.
func metricByKey(key string) (metricDef, bool) {
	for _, g := range metricGroups {
		for _, m := range g.Metrics {
			if m.Key == key {
				return m, true
			}
		}
	}
	return metricDef{}, false
}

// mustMetric is metricByKey for names fixed in this package.
func mustMetric(key string) metricDef {
	m, ok := metricByKey(key)
	if !ok {
		panic("report: unknown metric " + key)
	}
	return m
}

// headlineKeys are the tiles at the top of the report.
var headlineKeys = []string{"system_tps", "gap_fraction", "success_rate", "ttft.p99"}

// summaryKeys are the ten numbers of summary.md.
var summaryKeys = []string{
	"system_tps", "retry_adjusted_system_tps", "gap_fraction", "backlog_gap_fraction",
	"success_rate", "retry_rate", "ttft.p50", "ttft.p99", "stream_tps.p50", "utilization",
}

// metricRow is one metric across the runs of a report.
type metricRow struct {
	Key    string     `json:"key"`
	Hint   string     `json:"hint"`
	Unit   unit       `json:"unit"`
	Better string     `json:"better,omitempty"` // higher, lower; empty when neither is better
	Values []*float64 `json:"values"`           // one per run, in the order of runs
	Text   []string   `json:"text"`             // Values as shown

	// Comparison only: candidate − baseline, relative to |baseline|, and
	// whether the change is good for this metric.
	Delta        *float64 `json:"delta,omitempty"`
	DeltaText    string   `json:"delta_text,omitempty"`
	Relative     *float64 `json:"relative,omitempty"`
	RelativeText string   `json:"relative_text,omitempty"`
	Direction    string   `json:"direction,omitempty"` // better, worse, same

	// Scope says what Values are over, as shown: "whole run" in the metric
	// tables; a headline tile that shows a criterion's values has that
	// criterion's scope ("over backlog windows").
	Scope string `json:"scope"`
	// Criterion names the criterion whose values a headline tile shows.
	Criterion string `json:"criterion,omitempty"`
	// WholeRun is a criterion tile's second line: the run's own values of
	// the metric, when they read differently from the criterion's.
	WholeRun *scopedValues `json:"whole_run,omitempty"`
	// Judged is, in a metric table, the values the verdict judges under the
	// same name, when they read differently, with the scope that says why.
	Judged *scopedValues `json:"judged,omitempty"`
	// Caveats qualify the values: "baseline: engine logs only: queue time
	// at the gateway is not seen".
	Caveats []string `json:"caveats,omitempty"`
}

// scopedValues are a metric's values, one per run, over a labelled scope.
type scopedValues struct {
	Key       string     `json:"-"` // the metric's name
	Criterion string     `json:"criterion,omitempty"`
	Scope     string     `json:"scope"`
	Values    []*float64 `json:"values"`
	Text      []string   `json:"text"`
}

// sameThreshold is the relative change below which a difference is shown
// as "same" rather than coloured: direction colouring is a reading aid, the
// verdict decides significance.
const sameThreshold = 0.0005

func newMetricRow(def metricDef, ms []*schemas.Metrics) metricRow {
	vs := make([]*float64, len(ms))
	for i, m := range ms {
		vs[i] = def.Get(m)
	}
	return rowOf(def, vs)
}

// rowOf is the row of def with the given values, one per run.
func rowOf(def metricDef, vs []*float64) metricRow {
	row := metricRow{Key: def.Key, Hint: def.Hint, Unit: def.Unit, Scope: scopeWholeRun}
	switch def.Better {
	case higherBetter:
		row.Better = "higher"
	case lowerBetter:
		row.Better = "lower"
	}
	for _, x := range vs {
		v := clean(x)
		row.Values = append(row.Values, v)
		row.Text = append(row.Text, def.Unit.format(v))
	}
	if len(vs) != 2 {
		return row
	}
	b, okb := finite(row.Values[0])
	c, okc := finite(row.Values[1])
	if !okb || !okc {
		return row
	}
	d := c - b
	row.Delta = num(d)
	row.DeltaText = def.Unit.formatDelta(d)
	same := d == 0
	if b != 0 {
		rel := d / math.Abs(b)
		row.Relative = num(rel)
		if def.Unit != unitFraction {
			// A rate's change is its points: "+77.0 pp", not "+334.9 %" too.
			row.RelativeText = fmtRel(rel)
		}
		same = same || math.Abs(rel) < sameThreshold
	}
	switch {
	case def.Better == neutral:
	case same:
		row.Direction = "same"
	case (d > 0) == (def.Better == higherBetter):
		row.Direction = "better"
	default:
		row.Direction = "worse"
	}
	return row
}

// metricGroup is a titled block of rows.
type metricGroup struct {
	Title string      `json:"title"`
	Rows  []metricRow `json:"rows"`
}

func metricTable(ms []*schemas.Metrics) []metricGroup {
	var out []metricGroup
	for _, g := range metricGroups {
		if g.Show != nil && !g.Show(ms) {
			continue
		}
		mg := metricGroup{Title: g.Title}
		for _, def := range g.Metrics {
			mg.Rows = append(mg.Rows, newMetricRow(def, ms))
		}
		out = append(out, mg)
	}
	return out
}

func anySampled(ms []*schemas.Metrics) bool {
	for _, m := range ms {
		if _, ok := finite(m.SampledSeconds); ok {
			return true
		}
		if _, ok := finite(m.GapFractionSampled); ok {
			return true
		}
	}
	return false
}

// anyEngineState: some run has the engines' own state (KV cache, counters).
func anyEngineState(ms []*schemas.Metrics) bool {
	for _, m := range ms {
		if m.KVCacheUsage != nil || m.Preemptions != nil || m.PrefixCacheHitRate != nil || m.SpecAcceptanceRate != nil {
			return true
		}
	}
	return false
}

// anyRequestLatency: some run has request-level latencies (ttft_req, ...).
func anyRequestLatency(ms []*schemas.Metrics) bool {
	for _, m := range ms {
		if m.TTFTReq.N > 0 || m.TPOTReq.N > 0 || m.E2EReq.N > 0 {
			return true
		}
	}
	return false
}

// anySLO: some run was analysed with an SLO.
func anySLO(ms []*schemas.Metrics) bool {
	for _, m := range ms {
		if m.SLOMet != nil || m.SLOAttainment != nil {
			return true
		}
	}
	return false
}

// anyJoined: some run has spans joined from a gateway and an engine.
func anyJoined(ms []*schemas.Metrics) bool {
	for _, m := range ms {
		if m.GatewayOverhead.N > 0 {
			return true
		}
	}
	return false
}

func metricRows(keys []string, ms []*schemas.Metrics) []metricRow {
	rows := make([]metricRow, 0, len(keys))
	for _, k := range keys {
		rows = append(rows, newMetricRow(mustMetric(k), ms))
	}
	return rows
}
