package report

import (
	"slices"
	"strings"

	"github.com/tpsreport/tpsreport/schemas"
)

// One number per metric name. A criterion judges a metric over a scope
// (docs/acceptance.md): throughput and gap_fraction over backlog windows,
// the rates over the whole run, the latencies over delivered requests; with
// a warm-up or cool-down, all of them without those windows. The metric
// tables show every metric over the whole run. Wherever the page shows a
// judged metric, it shows it under the name the tables use, labelled with
// its scope, and where the criterion's values read differently from the
// whole run's, it says both, each with its scope.

// Scopes of schemas.Criterion.Scope, and the label of the metric tables.
const (
	scopeBacklog  = "backlog windows"
	scopeWholeRun = "whole run"
	scopeRequests = "delivered requests"
)

// engineOnlyCaveat is what an engine-only run cannot show (docs/metrics.md
// "Offered load and token mix").
const engineOnlyCaveat = "engine logs only: queue time at the gateway is not seen"

// engineOnlyKeys are the metrics that count only the engine's queue when a
// run has no gateway or client log.
var engineOnlyKeys = []string{"gap_fraction", "t_queue.p50", "t_queue.p99"}

// criterionKeys are the metric names the criteria judge, as the metric
// tables name them, when the criterion's Metric does not start with one.
var criterionKeys = map[string]string{
	"throughput":     "retry_adjusted_system_tps",
	"success_rate":   "success_rate",
	"gap_fraction":   "gap_fraction",
	"retry_rate":     "retry_rate",
	"ttft":           "ttft_req.p95",
	"tpot":           "tpot_req.p95",
	"slo_attainment": "slo_attainment",
}

// criterionScopes are the scopes of a verdict written before Scope was.
var criterionScopes = map[string]string{
	"throughput":     scopeBacklog,
	"gap_fraction":   scopeBacklog,
	"success_rate":   scopeWholeRun,
	"retry_rate":     scopeWholeRun,
	"slo_attainment": scopeWholeRun,
	"ttft":           scopeRequests,
	"tpot":           scopeRequests,
}

// judgedKey is the metric a criterion judges, under its name in the metric
// tables ("" when unknown): the first word of its Metric when that is one
// ("retry_adjusted_system_tps over backlog windows"), else by its name
// (ttft judges ttft_req.p95).
func judgedKey(c schemas.Criterion) string {
	if f := strings.Fields(c.Metric); len(f) > 0 {
		if _, ok := metricByKey(f[0]); ok {
			return f[0]
		}
	}
	return criterionKeys[c.Name]
}

// criterionScope is what a criterion's values are over.
func criterionScope(c schemas.Criterion) string {
	if c.Scope != "" {
		return c.Scope
	}
	return criterionScopes[c.Name]
}

// scopeText labels a scope as the page shows it; a warm-up or cool-down is
// part of every criterion's scope.
func scopeText(scope string, s schemas.Criteria) string {
	out := scope
	if scope == scopeBacklog {
		out = "over backlog windows"
	}
	var cut []string
	switch {
	case s.WarmupAuto:
		cut = append(cut, "each run's warm-up (MSER-5)")
	case s.Warmup > 0:
		cut = append(cut, "warm-up "+fmtSeconds(s.Warmup))
	}
	switch {
	case s.CooldownAuto:
		cut = append(cut, "each run's cool-down (MSER-5)")
	case s.Cooldown > 0:
		cut = append(cut, "cool-down "+fmtSeconds(s.Cooldown))
	}
	if len(cut) > 0 {
		out += ", " + strings.Join(cut, " and ") + " left out"
	}
	return out
}

// metricText is a criterion's Metric without the scope it repeats
// ("gap_fraction over backlog windows" is gap_fraction, shown beside its
// scope), or "" when it says no more than the key.
func metricText(c schemas.Criterion, key, scope string) string {
	m := strings.TrimSpace(strings.TrimSuffix(c.Metric, " over "+scope))
	if m == key {
		return ""
	}
	// "success_rate (requests with a successful attempt)" beside the key
	// success_rate: the words in parentheses.
	if rest, ok := strings.CutPrefix(m, key+" ("); ok && strings.HasSuffix(rest, ")") {
		return strings.TrimSuffix(rest, ")")
	}
	return m
}

// headlineSlots are the headline tiles of a comparison with a verdict: the
// criterion whose values a tile shows, and the whole-run metric it shows
// when that criterion was not judged.
var headlineSlots = []struct{ criterion, fallback string }{
	{"throughput", "system_tps"},
	{"gap_fraction", "gap_fraction"},
	{"success_rate", "success_rate"},
	{"ttft", "ttft.p99"},
	{"slo_attainment", ""},
}

// headline builds the tiles at the top of the report. Without a verdict
// they show whole-run values; with one, a tile shows what its criterion
// judged, labelled with its scope, and the whole run's values as a second,
// labelled line where they read differently.
func headline(vv *verdictView, ms []*schemas.Metrics) []metricRow {
	if vv == nil || len(ms) != 2 {
		return metricRows(headlineKeys, ms)
	}
	var rows []metricRow
	for _, slot := range headlineSlots {
		i := slices.IndexFunc(vv.Criteria, func(c criterionView) bool { return c.Name == slot.criterion })
		if i < 0 || vv.Criteria[i].Key == "" {
			if slot.fallback != "" {
				rows = append(rows, newMetricRow(mustMetric(slot.fallback), ms))
			}
			continue
		}
		cv := vv.Criteria[i]
		def := mustMetric(cv.Key)
		row := rowOf(def, []*float64{cv.Baseline, cv.Candidate})
		row.Scope, row.Criterion = cv.ScopeText, cv.Name
		if whole := newMetricRow(def, ms); anyValue(whole.Values) && !slices.Equal(whole.Text, row.Text) {
			row.WholeRun = &scopedValues{Key: def.Key, Scope: scopeWholeRun, Values: whole.Values, Text: whole.Text}
		}
		rows = append(rows, row)
	}
	return rows
}

// markJudged notes, on each metric-table row a criterion judges, the
// criterion's values and scope when they read differently from the row's.
func markJudged(groups []metricGroup, vv *verdictView) {
	if vv == nil {
		return
	}
	for _, cv := range vv.Criteria {
		if cv.Key == "" {
			continue
		}
		for g := range groups {
			for r := range groups[g].Rows {
				row := &groups[g].Rows[r]
				text := []string{cv.Text.Baseline, cv.Text.Candidate}
				if row.Key != cv.Key || slices.Equal(row.Text, text) {
					continue
				}
				row.Judged = &scopedValues{Key: row.Key, Criterion: cv.Name, Scope: cv.ScopeText, Values: []*float64{cv.Baseline, cv.Candidate}, Text: text}
			}
		}
	}
}

// engineOnlyCaveats marks the rows whose values miss the queue before the
// engine in a run read from engine logs only.
func engineOnlyCaveats(rows []metricRow, runs []roleRun) {
	notes := engineOnlyNotes(runs)
	if len(notes) == 0 {
		return
	}
	for i := range rows {
		if slices.Contains(engineOnlyKeys, rows[i].Key) {
			rows[i].Caveats = notes
		}
	}
}

// engineOnlyNotes says which runs were read from engine logs only.
func engineOnlyNotes(runs []roleRun) []string {
	var roles []string
	for _, rr := range runs {
		if rr.run.Summary.EngineOnly {
			roles = append(roles, rr.role)
		}
	}
	switch {
	case len(roles) == 0:
		return nil
	case len(runs) == 1:
		return []string{engineOnlyCaveat}
	case len(roles) == len(runs):
		return []string{"both runs: " + engineOnlyCaveat}
	}
	return []string{roles[0] + ": " + engineOnlyCaveat}
}

func anyValue(vs []*float64) bool {
	return slices.ContainsFunc(vs, func(v *float64) bool { return v != nil })
}
