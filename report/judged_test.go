package report

import (
	"bytes"
	"slices"
	"strings"
	"testing"

	"github.com/tpsreport/tpsreport/schemas"
)

// shownValue is one place the page shows a metric's values: an element
// with data-metric and data-scope, and the texts of its data-run children.
type shownValue struct {
	metric, scope, label string // label: the scope as the reader sees it beside the values
	runs                 map[string]string
	line                 int
}

// shownValues lists every place report.html shows values under a metric
// name. A table row's label is its table's column header.
func shownValues(t *testing.T, doc *htmlDoc) []shownValue {
	t.Helper()
	var out []shownValue
	for i, e := range doc.Elements {
		m, ok := e.Attrs["data-metric"]
		if !ok {
			continue
		}
		sv := shownValue{metric: m, scope: e.Attrs["data-scope"], label: doc.inner(i), runs: map[string]string{}, line: e.Line}
		if e.Tag == "tr" && !strings.Contains(e.Attrs["class"], "judged") {
			// The enclosing table's head labels the columns.
			for j := i - 1; j >= 0; j-- {
				if doc.Elements[j].Tag == "table" && doc.Elements[j].End > i {
					for k := j + 1; k < i; k++ {
						if doc.Elements[k].Tag == "thead" {
							sv.label = doc.inner(k)
							break
						}
					}
					break
				}
			}
		}
		for k := i + 1; k < e.End; k++ {
			c := doc.Elements[k]
			if _, nested := c.Attrs["data-metric"]; nested {
				t.Errorf("line %d: data-metric inside data-metric (line %d)", c.Line, e.Line)
			}
			if r, ok := c.Attrs["data-run"]; ok {
				sv.runs[r] = strings.TrimSpace(doc.inner(k))
			}
		}
		out = append(out, sv)
	}
	return out
}

// TestOneNumberPerMetric: wherever report.html shows values under a metric
// name, it shows its scope beside them; under one name and scope the values
// are the same everywhere; and the headline tiles show what the verdict
// judged, under the criterion's scope.
func TestOneNumberPerMetric(t *testing.T) {
	for name, in := range map[string]Input{
		"compare with warm-up": compareInput(),
		"latency criteria":     latencyCompareInput(),
		"single":               singleInput(),
	} {
		t.Run(name, func(t *testing.T) {
			_, doc := renderHTML(t, in)
			shown := shownValues(t, doc)
			if len(shown) == 0 {
				t.Fatal("no element carries data-metric")
			}
			type key struct{ metric, scope string }
			first := map[key]shownValue{}
			for _, sv := range shown {
				if sv.scope == "" {
					t.Errorf("line %d: %s shown without a scope", sv.line, sv.metric)
					continue
				}
				if !strings.Contains(sv.label, sv.scope) {
					t.Errorf("line %d: %s over %q: the reader does not see the scope (label %.80q)", sv.line, sv.metric, sv.scope, sv.label)
				}
				if len(sv.runs) == 0 {
					t.Errorf("line %d: %s shows no value", sv.line, sv.metric)
				}
				k := key{sv.metric, sv.scope}
				if f, ok := first[k]; ok && !mapsEqual(f.runs, sv.runs) {
					t.Errorf("%s %s: line %d shows %v, line %d shows %v under the same name and scope", sv.metric, sv.scope, f.line, f.runs, sv.line, sv.runs)
				}
				if _, ok := first[k]; !ok {
					first[k] = sv
				}
			}
			if in.Verdict == nil {
				return
			}
			d := newDocument(in)
			for _, cv := range d.Verdict.Criteria {
				sv, ok := first[key{cv.Key, cv.ScopeText}]
				if !ok {
					t.Errorf("criterion %s: %s %s not shown", cv.Name, cv.Key, cv.ScopeText)
					continue
				}
				if want := map[string]string{"baseline": cv.Text.Baseline, "candidate": cv.Text.Candidate}; !mapsEqual(sv.runs, want) {
					t.Errorf("criterion %s shows %v, want %v", cv.Name, sv.runs, want)
				}
			}
			// Each tile that stands for a criterion shows the criterion's values.
			for _, row := range d.Headline {
				if row.Criterion == "" {
					continue
				}
				i := slices.IndexFunc(d.Verdict.Criteria, func(c criterionView) bool { return c.Name == row.Criterion })
				cv := d.Verdict.Criteria[i]
				if row.Key != cv.Key || row.Scope != cv.ScopeText || row.First() != cv.Text.Baseline || row.Last() != cv.Text.Candidate {
					t.Errorf("tile %s %s %v, want criterion %s %s %s → %s", row.Key, row.Scope, row.Text, cv.Key, cv.ScopeText, cv.Text.Baseline, cv.Text.Candidate)
				}
			}
		})
	}
}

func mapsEqual(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

// TestThroughputTile: the throughput tile shows the criterion's value over
// backlog windows, and the whole run's as a second, labelled line.
func TestThroughputTile(t *testing.T) {
	d := newDocument(latencyCompareInput())
	tile := d.Headline[0]
	if tile.Key != "retry_adjusted_system_tps" || tile.Scope != "over backlog windows" || tile.Criterion != "throughput" {
		t.Fatalf("first tile %s %q %q, want the throughput criterion's metric over backlog windows", tile.Key, tile.Scope, tile.Criterion)
	}
	if want := []string{"987 tok/s", "1,163 tok/s"}; !slices.Equal(tile.Text, want) {
		t.Errorf("tile %v, want %v", tile.Text, want)
	}
	if w := tile.WholeRun; w == nil || w.Scope != "whole run" || !slices.Equal(w.Text, []string{"986 tok/s", "1,163 tok/s"}) {
		t.Errorf("second line %+v, want whole run 986 → 1,163 tok/s", w)
	}
	// The metric table row carries the whole run, and says what was judged.
	for _, g := range d.Metrics {
		for _, r := range g.Rows {
			if r.Key == "retry_adjusted_system_tps" {
				if r.Scope != "whole run" || r.Judged == nil || r.Judged.Scope != "over backlog windows" || r.Judged.Text[0] != "987 tok/s" {
					t.Errorf("row %s %q judged %+v", r.Key, r.Scope, r.Judged)
				}
			}
			if r.Key == "success_rate" && r.Judged != nil {
				t.Errorf("success_rate reads the same in the verdict and the table, yet has a judged line %+v", r.Judged)
			}
		}
	}
	// With a warm-up every criterion's scope says so.
	d = newDocument(compareInput())
	for _, cv := range d.Verdict.Criteria {
		if !strings.HasSuffix(cv.ScopeText, ", warm-up 60 s left out") {
			t.Errorf("%s scope %q does not say the warm-up was left out", cv.Name, cv.ScopeText)
		}
	}
}

// TestCriteriaInTheirUnits: each criterion's values in its unit, its scope
// beside its metric, notes apart from guards, criteria turned off, and the
// thresholds of every criterion.
func TestCriteriaInTheirUnits(t *testing.T) {
	in := latencyCompareInput()
	d := newDocument(in)
	got := map[string]criterionText{}
	scopes := map[string]string{}
	for _, cv := range d.Verdict.Criteria {
		got[cv.Name] = cv.Text
		scopes[cv.Name] = cv.Key + " " + cv.ScopeText
	}
	want := map[string]criterionText{
		"ttft":           {Baseline: "1.64 s", Candidate: "2.13 s", Change: "1.300× (+30.0 %)", Interval: "98 % CI 1.210× … 1.390×", Sees: "sees ±19 %"},
		"tpot":           {Baseline: "52.1 ms", Candidate: "52.1 ms", Change: "1.000× (0 %)", Interval: "98 % CI 0.980× … 1.020×", Sees: "sees ±10 %"},
		"slo_attainment": {Baseline: "96.57 %", Candidate: "96.63 %", Change: "+0.06 pp", Sees: "sees ±0.4 pp"},
	}
	for name, w := range want {
		if got[name] != w {
			t.Errorf("%s: %+v, want %+v", name, got[name], w)
		}
	}
	for name, w := range map[string]string{
		"throughput": "retry_adjusted_system_tps over backlog windows", "success_rate": "success_rate whole run",
		"ttft": "ttft_req.p95 delivered requests", "tpot": "tpot_req.p95 delivered requests", "slo_attainment": "slo_attainment whole run",
	} {
		if scopes[name] != w {
			t.Errorf("%s judges %q, want %q", name, scopes[name], w)
		}
	}
	if s := d.Verdict.SettingsText; !strings.Contains(s, "ttft_tolerance 10 % · tpot_tolerance 10 % · slo_tolerance 1 pp · token_mismatch 20 %") || strings.Contains(s, "warmup") {
		t.Errorf("thresholds %q", s)
	}
	c := schemas.DefaultCriteria()
	c.Warmup, c.Cooldown = 120, 30
	if s := settingsText(c); !strings.HasSuffix(s, " · warmup 120 s · cooldown 30 s") {
		t.Errorf("thresholds with warm-up and cool-down %q", s)
	}
	if d.Verdict.OffText != "turned off: gap_fraction" {
		t.Errorf("off %q", d.Verdict.OffText)
	}

	page, doc := renderHTML(t, in)
	checkSelfContained(t, page, doc)
	note := in.Verdict.Notes[0]
	var guards, notes string
	for i, e := range doc.Elements {
		switch e.Attrs["class"] {
		case "guards":
			guards = doc.inner(i)
		case "notes":
			notes = doc.inner(i)
		}
	}
	if !strings.Contains(notes, note) || strings.Contains(guards, note) {
		t.Errorf("the note is not shown apart from the guards:\nguards: %s\nnotes: %s", guards, notes)
	}
	text := doc.Text.String()
	for _, w := range []string{
		"Turned off: gap_fraction: not judged and not counted in the overall verdict.",
		"ttft_req.p95 delivered requests",
		"retry_adjusted_system_tps over backlog windows",
		"their token mix by at most 20 %",
	} {
		if !strings.Contains(text, w) {
			t.Errorf("page text lacks %q", w)
		}
	}

	var md bytes.Buffer
	if err := Markdown(&md, in); err != nil {
		t.Fatal(err)
	}
	s := md.String()
	for _, w := range []string{
		"| TTFT does not regress | ❌ FAIL | 1.64 s | 2.13 s | 1.300× (+30.0 %), 98 % CI 1.210× … 1.390× | ±19 % | `ttft_req.p95` delivered requests |",
		"| TPOT does not regress | ✅ PASS | 52.1 ms | 52.1 ms |",
		"| SLO attainment not reduced | ✅ PASS | 96.57 % | 96.63 % | +0.06 pp | ±0.4 pp | `slo_attainment` whole run |",
		"| Throughput improves | ✅ PASS | 987 tok/s | 1,163 tok/s | 1.179× (+17.9 %), 99 % CI 1.132× … 1.226× | ±6 % | `retry_adjusted_system_tps` over backlog windows |",
		"**Turned off:** gap\\_fraction (not judged, not counted in the overall verdict).",
		"**Guards:** none fired.",
		"**Notes** (no guards: what the criteria were computed over): the TTFT interval resamples",
		"| metric, whole run | baseline | candidate | change |",
	} {
		if !strings.Contains(s, w) {
			t.Errorf("summary.md lacks %q", w)
		}
	}
}

// TestEngineOnly: a run read from engine logs only says, next to
// gap_fraction and t_queue, that the gateway's queue is not seen.
func TestEngineOnly(t *testing.T) {
	const caveat = "engine logs only: queue time at the gateway is not seen"
	_, doc := renderHTML(t, latencyCompareInput())
	for _, sv := range shownValues(t, doc) {
		should := slices.Contains([]string{"gap_fraction", "t_queue.p50", "t_queue.p99"}, sv.metric)
		i := slices.IndexFunc(doc.Elements, func(e htmlNode) bool { return e.Line == sv.line && e.Attrs["data-metric"] == sv.metric })
		// The caveat sits in the row, or in the tile around the values.
		where := doc.inner(i)
		if doc.Elements[i].Attrs["class"] == "main" {
			where = doc.inner(i - 1)
		}
		if has := strings.Contains(where, "both runs: "+caveat); has != should {
			t.Errorf("line %d: %s caveat %v, want %v", sv.line, sv.metric, has, should)
		}
	}
	if !strings.Contains(doc.Text.String(), "engine logs only: queue time at the gateway is not seen, so t_queue, ttft and gap_fraction count the engine's queue alone") {
		t.Error("run facts do not say the runs are engine-only")
	}
	var md bytes.Buffer
	if err := Markdown(&md, latencyCompareInput()); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(md.String(), "⚠️ Both runs: "+caveat+" (`t_queue`, `ttft` and `gap_fraction` count the engine's queue alone).") {
		t.Errorf("summary.md does not say the runs are engine-only:\n%s", md.String())
	}

	// One run engine-only: named by its role.
	in := compareInput()
	in.Candidate.Summary.EngineOnly = true
	d := newDocument(in)
	for _, g := range d.Metrics {
		for _, r := range g.Rows {
			if r.Key == "gap_fraction" && !slices.Equal(r.Caveats, []string{"candidate: " + caveat}) {
				t.Errorf("gap_fraction caveats %q", r.Caveats)
			}
		}
	}

	// A single run: the findings and summary.md say it.
	single := singleInput()
	single.Baseline.Summary.EngineOnly = true
	md.Reset()
	if err := Markdown(&md, single); err != nil {
		t.Fatal(err)
	}
	for _, w := range []string{"- Only engine logs were read: queue time at the gateway is not seen", "⚠️ Engine logs only: queue time at the gateway is not seen"} {
		if !strings.Contains(md.String(), w) {
			t.Errorf("single-run summary.md lacks %q", w)
		}
	}
	// Runs with a gateway's log say nothing of it.
	_, doc = renderHTML(t, compareInput())
	if strings.Contains(doc.Text.String(), caveat) {
		t.Error("a run with a gateway's log is said to be engine-only")
	}
}

func TestGoldenLatency(t *testing.T) {
	var md, js bytes.Buffer
	in := latencyCompareInput()
	if err := Markdown(&md, in); err != nil {
		t.Fatal(err)
	}
	if err := JSON(&js, in); err != nil {
		t.Fatal(err)
	}
	golden(t, "compare_latency.summary.md", md.Bytes())
	golden(t, "compare_latency.report.json", js.Bytes())
}
