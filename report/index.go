package report

import (
	"bytes"
	"fmt"
	"html/template"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/wcharczuk/go-chart/v2/drawing"

	"github.com/tpsreport/tpsreport/capacity"
	"github.com/tpsreport/tpsreport/history"
	"github.com/tpsreport/tpsreport/internal/robust"
	"github.com/tpsreport/tpsreport/schemas"
)

// IndexEntry is one run of a nightly history (ROOT/run=NAME/, schemas/README.md
// "A run dataset"). Dir is the run's directory, absolute or relative to the index root; empty
// means ROOT/run=NAME. The index links to Dir/report.html, or to
// Dir/report/report.html when only that one exists.
type IndexEntry struct {
	Name    string
	Dir     string
	Summary schemas.Summary
	Verdict *schemas.Verdict // the run compared with an earlier one; nil if not
	// Canary is the run's canary verdict (run --canary: its canary replicas
	// against its others); nil if none.
	Canary *schemas.Verdict
	// Stale, when set, says that the verdict's baseline was re-run since
	// the comparison: the verdict is of data that is gone.
	Stale string
}

// trendHeight is the height of the index's trend charts.
const trendHeight = 360

// WriteIndex writes ROOT/index.html, a self-contained page listing the runs
// with their headline numbers and trend charts across runs, and each trend
// chart as ROOT/trend_*.png; version names the tpsreport that wrote it.
// Files are written atomically.
func WriteIndex(root, version string, runs []IndexEntry) error {
	var page bytes.Buffer
	charts, err := indexHTML(&page, root, version, runs)
	if err != nil {
		return err
	}
	files := make([]outFile, 0, len(charts)+1)
	for _, c := range charts {
		files = append(files, outFile{c.File(), c.PNG})
	}
	files = append(files, outFile{"index.html", page.Bytes()})
	_, err = writeFiles(root, files)
	return err
}

// IndexHTML writes the index page of the runs under root to w.
func IndexHTML(w io.Writer, root, version string, runs []IndexEntry) error {
	_, err := indexHTML(w, root, version, runs)
	return err
}

// indexRow is one run of the index table.
type indexRow struct {
	Name string
	Href string
	// CompareHref links the verdict badge to the comparison report, when
	// the run has one; ComparedWith names the run it was compared with.
	CompareHref  string
	ComparedWith string
	Start        string
	StartParts   []string // Start's date and time, each kept on its line
	Span         string
	Cells        []metricRow
	Cap          string
	Inferred     bool
	Verdict      string
	Stale        string
	// CanaryVerdict is the run's canary verdict, CanaryHref its report and
	// CanaryOf its canary replicas.
	CanaryVerdict, CanaryHref, CanaryOf string
	Warnings                            int
	// Cost is the run's cost per million delivered tokens, when priced.
	Cost string
}

type indexPage struct {
	CSS     template.CSS
	Version string // of the tpsreport that wrote the page
	Columns []string
	Cost    bool // some run is priced: the cost column shows
	// CostUnit labels the cost column: the currency of the first priced
	// run (a run priced in another one shows its own in its cell).
	CostUnit string
	Rows     []indexRow
	Figures  []htmlFigure
	// Changes are the history's change points (history.Find), shown
	// above the runs.
	Changes []indexChange
}

// indexKeys are the index's columns: the values the criteria judge, as a
// run's summary holds them (throughput over the whole run; gap_fraction
// over the windows with a backlog; the TTFT criterion's ttft_req.p95), so
// that a verdict, its trend and the history's change points speak of one
// number.
var indexKeys = []string{"retry_adjusted_system_tps", "backlog_gap_fraction", "success_rate", "ttft_req.p95"}

// indexChange is one change point of the history (history.Find) in the
// index's table of changes: the run it starts at and the run before it,
// each linked to its report.
type indexChange struct {
	Metric, Run, RunHref, Prev, PrevHref string
	Before, After, Change, P             string
	Regression                           bool
}

// indexChanges finds the change points of the runs' series, in the order
// the runs are given, and the table rows that name them.
func indexChanges(root string, runs []IndexEntry) ([]history.Change, []indexChange) {
	nights := make([]history.Night, len(runs))
	at := map[string]int{}
	for i, e := range runs {
		nights[i] = history.Night{Name: e.Name, Summary: e.Summary}
		at[e.Name] = i
	}
	changes := history.Find(nights, history.Metrics, history.Options{})
	var rows []indexChange
	for _, c := range changes {
		m, _ := history.MetricNamed(c.Metric)
		i := at[c.Night]
		r := indexChange{Metric: c.Metric, Run: c.Night, RunHref: reportHref(root, runs[i]),
			Before: m.Format(c.Before), After: m.Format(c.After), Change: c.ChangeText(),
			P: strconv.FormatFloat(c.P, 'g', 2, 64), Regression: c.Regression}
		if i > 0 {
			r.Prev, r.PrevHref = runs[i-1].Name, reportHref(root, runs[i-1])
		}
		rows = append(rows, r)
	}
	return changes, rows
}

// indexHTML lists runs in the order given: the caller sorts them (by run
// start, ties by name), and the trend charts follow the same order.
func indexHTML(w io.Writer, root, version string, runs []IndexEntry) ([]Chart, error) {
	changes, changeRows := indexChanges(root, runs)
	figs := trendFigures(runs, changes)
	charts, err := renderFigures(figs)
	if err != nil {
		return nil, err
	}
	page := indexPage{CSS: stylesheet, Version: version, Columns: indexKeys, Changes: changeRows}
	for i, f := range figs {
		page.Figures = append(page.Figures, htmlFigure{figure: f, Src: dataURI(charts[i].PNG)})
	}
	for _, e := range runs {
		s := e.Summary
		row := indexRow{Name: e.Name, Href: reportHref(root, e), Start: fmtTime(s.RunStart), Span: null,
			Cells: metricRows(indexKeys, []*schemas.Metrics{&s.Metrics}), Cap: null,
			Inferred: s.CapSource == "inferred", Warnings: len(s.Warnings)}
		if date, clock, ok := strings.Cut(row.Start, " "); ok {
			row.StartParts = []string{date, clock}
		}
		if !s.RunStart.IsZero() && !s.RunEnd.Before(s.RunStart) {
			row.Span = strings.NewReplacer(" h", "\u00a0h", " min", "\u00a0min", " s", "\u00a0s", " ms", "\u00a0ms").Replace(fmtSpan(s.RunEnd.Sub(s.RunStart).Seconds()))
		}
		if s.Cap != nil {
			row.Cap = fmtCount(*s.Cap)
		}
		row.Cost = null
		if c := s.Cost; c != nil {
			if !page.Cost {
				page.Cost, page.CostUnit = true, c.Currency
			}
			cur := c.Currency
			if cur == page.CostUnit {
				cur = ""
			}
			row.Cost = capacity.Money(c.CostPerMillionTokens, cur)
		}
		if e.Verdict != nil {
			row.Verdict = e.Verdict.Overall
			row.ComparedWith = e.Verdict.Baseline
			row.CompareHref = compareHref(root, e)
			row.Stale = e.Stale
		}
		if c := e.Canary; c != nil {
			row.CanaryVerdict = c.Overall
			row.CanaryHref = subHref(root, e, "canary")
			if c.Canary != nil {
				row.CanaryOf = strings.Join(c.Canary.Candidate.Replicas, ", ")
			}
		}
		page.Rows = append(page.Rows, row)
	}
	if err := templates.ExecuteTemplate(w, "index.html", page); err != nil {
		return nil, fmt.Errorf("render index.html: %w", err)
	}
	return charts, nil
}

// reportHref is the relative link from root/index.html to a run's report.html.
func reportHref(root string, e IndexEntry) string {
	dir := runDir(root, e)
	if !exists(filepath.Join(root, dir, "report.html")) && exists(filepath.Join(root, dir, "report", "report.html")) {
		dir = filepath.Join(dir, "report")
	}
	return relHref(dir, "report.html")
}

// compareHref is the relative link to the run's comparison report,
// Dir/compare/report.html, or "" when there is none.
func compareHref(root string, e IndexEntry) string { return subHref(root, e, "compare") }

// subHref is the relative link from root/index.html to the report.html in
// a run's folder sub (compare, canary); "" when there is none.
func subHref(root string, e IndexEntry, sub string) string {
	dir := runDir(root, e)
	if !exists(filepath.Join(root, dir, sub, "report.html")) {
		return ""
	}
	return relHref(filepath.Join(dir, sub), "report.html")
}

// runDir is the directory of a run relative to root.
func runDir(root string, e IndexEntry) string {
	dir := e.Dir
	switch {
	case dir == "":
		dir = "run=" + e.Name
	case filepath.IsAbs(dir):
		absRoot, err := filepath.Abs(root)
		if err == nil {
			if rel, err := filepath.Rel(absRoot, dir); err == nil {
				dir = rel
			}
		}
	default:
		// A relative Dir that already starts with root is made relative to it.
		if rel, err := filepath.Rel(filepath.Clean(root), filepath.Clean(dir)); err == nil && !strings.HasPrefix(rel, "..") {
			dir = rel
		}
	}
	return filepath.Clean(dir)
}

// relHref is the URL of dir/file relative to the index, each segment escaped.
func relHref(dir, file string) string {
	parts := strings.Split(filepath.ToSlash(dir), "/")
	for i, p := range parts {
		if p != "." && p != ".." {
			parts[i] = url.PathEscape(p)
		}
	}
	// "./" keeps a first segment with a colon from reading as a URL scheme.
	return "./" + strings.TrimPrefix(strings.Join(append(parts, file), "/"), "./")
}

func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// Dot colours of the trend charts, by verdict against the run compared with.
var verdictColors = []struct {
	verdict, label string
	color          drawing.Color
}{
	{schemas.Pass, "PASS", colGood},
	{schemas.Fail, "FAIL", colBad},
	{schemas.Inconclusive, "INCONCLUSIVE", colWarn},
	{"", "not compared", colNone},
}

// trendFigures are the index's charts: one headline metric per run, in the
// order of runs, each labelled by its start date (UTC) and, when it fits,
// its name.
func trendFigures(runs []IndexEntry, changes []history.Change) []*figure {
	cats := make([]string, len(runs))
	names := make([]string, len(runs))
	colors := make([]drawing.Color, len(runs))
	present := map[string]bool{}
	for i, e := range runs {
		cats[i] = shorten(e.Name, 22)
		if !e.Summary.RunStart.IsZero() {
			cats[i] = e.Summary.RunStart.UTC().Format("2006-01-02")
			names[i] = shorten(e.Name, 22)
		}
		v := ""
		if e.Verdict != nil {
			v = e.Verdict.Overall
			if v != schemas.Pass && v != schemas.Fail {
				v = schemas.Inconclusive
			}
		}
		present[v] = true
		for _, vc := range verdictColors {
			if vc.verdict == v {
				colors[i] = vc.color
			}
		}
	}
	var keys []legendKey
	for _, vc := range verdictColors {
		if present[vc.verdict] {
			keys = append(keys, legendKey{label: vc.label, color: vc.color})
		}
	}
	note := "dot colour: verdict against the run it was compared with"
	xlabel := "run start (UTC date) and run name, oldest first"
	if slices.Equal(cats, names) || allEmpty(names) {
		xlabel = "run, oldest first"
	}
	type trendSpec struct {
		name, key, title, ylabel string
		axis                     axisSpec
		get                      func(*schemas.Summary) *float64 // nil: the metric key's
	}
	specs := []trendSpec{
		{"trend_retry_adjusted_system_tps", "retry_adjusted_system_tps", "retry_adjusted_system_tps per run (the throughput criterion's, over the whole run)", "tokens per second (tok/s)", axisSpec{zero: true}, nil},
		{"trend_backlog_gap_fraction", "backlog_gap_fraction", "backlog_gap_fraction per run (what the gap_fraction criterion judges)", "gap_fraction (% of backlog time)", axisSpec{zero: true, percent: true}, nil},
		{"trend_success_rate", "success_rate", "success_rate per run", "success_rate", axisSpec{percent: true, max: num(1)}, nil},
		{"trend_ttft_req_p95", "ttft_req.p95", "ttft_req p95 per run (what the TTFT criterion judges)", "seconds", axisSpec{zero: true}, nil},
	}
	// The cost trend, when some run is priced, in the first priced run's
	// currency (runs priced in another one are left out of it).
	currency, priced := "", false
	for _, e := range runs {
		if c := e.Summary.Cost; c != nil && !priced {
			currency, priced = c.Currency, true
		}
	}
	if priced {
		ylabel := "cost per million tokens"
		if currency != "" {
			ylabel = currency + " per million tokens"
		}
		specs = append(specs, trendSpec{"trend_cost_per_million_tokens", "cost_per_million_tokens", "cost per million tokens per run", ylabel, axisSpec{zero: true},
			func(s *schemas.Summary) *float64 {
				if s.Cost == nil || s.Cost.Currency != currency {
					return nil
				}
				return s.Cost.CostPerMillionTokens
			}})
	}
	figs := make([]*figure, 0, len(specs))
	for _, sp := range specs {
		get := sp.get
		if get == nil {
			def := mustMetric(sp.key)
			get = func(s *schemas.Summary) *float64 { return def.Get(&s.Metrics) }
		}
		s := series{Label: sp.key, Metric: sp.key, Kind: "points", X: make([]float64, len(runs)), Y: make([]*float64, len(runs)),
			color: colBaseline, colors: colors}
		for i := range runs {
			s.X[i] = float64(i)
			s.Y[i] = clean(get(&runs[i].Summary))
		}
		f := &figure{Name: sp.name, File: sp.name + ".png", Title: sp.title, Alt: sp.title + " across the runs of this history, oldest first.",
			XLabel: xlabel, YLabel: sp.ylabel, Series: []series{s}, Note: note,
			yAxis: sp.axis, cats: cats, cats2: names, keys: keys, height: trendHeight}
		// A change point is a dashed line between the run it starts at and
		// the one before, labelled with the change.
		at := map[string]int{}
		for i, e := range runs {
			at[e.Name] = i
		}
		for _, c := range changes {
			if c.Metric != sp.key {
				continue
			}
			col := colGood
			if c.Regression {
				col = colBad
			}
			f.Marks = append(f.Marks, mark{Label: "change " + c.ChangeText(), X: float64(at[c.Night]) - 0.5, color: col})
		}
		f.Bands = noiseBands(s.Y, f.Marks)
		if len(f.Bands) > 0 {
			f.Alt += " Grey band: the runs' noise, their median ± 2 robust standard deviations between change points."
			f.Note = "grey band: noise between change points · " + note
		}
		if len(f.Marks) > 0 {
			f.Alt += " Dashed lines: change points (red a regression, green an improvement)."
		}
		figs = append(figs, f)
	}
	return figs
}

// noiseBands shade each stretch of runs between change points (marks, at
// half-integer x) with its noise band: the median of its values ± 2 robust
// standard deviations (1.4826 times the median absolute deviation), where
// a run at the level the stretch runs at lies about 95 times in 100. A
// stretch of fewer than four values has no band.
func noiseBands(ys []*float64, marks []mark) []band {
	cuts := []float64{-0.5}
	for _, m := range marks {
		cuts = append(cuts, m.X)
	}
	slices.Sort(cuts)
	cuts = append(cuts, float64(len(ys))-0.5)
	var out []band
	for k := 0; k+1 < len(cuts); k++ {
		var vs []float64
		for i := range ys {
			if x := float64(i); x > cuts[k] && x < cuts[k+1] && ys[i] != nil {
				vs = append(vs, *ys[i])
			}
		}
		if len(vs) < 4 {
			continue
		}
		med := robust.Median(vs)
		sd := robust.Sigma(vs, med)
		lo, hi := med-2*sd, med+2*sd
		out = append(out, band{X0: cuts[k], X1: cuts[k+1], Y0: &lo, Y1: &hi, Value: 1, color: colNoise})
	}
	return out
}

// colNoise shades a trend's noise band.
var colNoise = drawing.ColorFromHex("B8C4D0")

func allEmpty(ss []string) bool {
	for _, s := range ss {
		if s != "" {
			return false
		}
	}
	return true
}

// shorten cuts s to n runes with an ellipsis.
func shorten(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}
