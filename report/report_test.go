package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"image"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tpsreport/tpsreport/schemas"
)

// golden compares got with testdata/golden/name; UPDATE_GOLDEN=1 rewrites it.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", "golden", name)
	if os.Getenv("UPDATE_GOLDEN") != "" {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run UPDATE_GOLDEN=1 go test ./report/ to create it)", err)
	}
	if bytes.Equal(got, want) {
		return
	}
	g, w := strings.Split(string(got), "\n"), strings.Split(string(want), "\n")
	for i := 0; i < max(len(g), len(w)); i++ {
		var gl, wl string
		if i < len(g) {
			gl = g[i]
		}
		if i < len(w) {
			wl = w[i]
		}
		if gl != wl {
			t.Fatalf("%s differs at line %d:\n got: %s\nwant: %s\n(UPDATE_GOLDEN=1 go test ./report/ rewrites it; read the diff)", path, i+1, gl, wl)
		}
	}
}

func TestGolden(t *testing.T) {
	cases := []struct {
		name string
		in   Input
	}{
		{"single", singleInput()},
		{"compare", compareInput()},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var md, js bytes.Buffer
			if err := Markdown(&md, tc.in); err != nil {
				t.Fatal(err)
			}
			if err := JSON(&js, tc.in); err != nil {
				t.Fatal(err)
			}
			golden(t, tc.name+".summary.md", md.Bytes())
			golden(t, tc.name+".report.json", js.Bytes())
		})
	}
}

func TestMarkdownContent(t *testing.T) {
	var md bytes.Buffer
	if err := Markdown(&md, compareInput()); err != nil {
		t.Fatal(err)
	}
	s := md.String()
	for _, want := range []string{
		"# ❌ FAIL: baseline vs candidate",
		"| Throughput improves | ✅ PASS | 1,012 tok/s | 1,166 tok/s | 1.152× (+15.2 %), 98.75 % CI 1.081× … 1.224× | ±11 % |",
		"| Success rate not reduced | ❌ FAIL | 99.61 % | 98.12 % | −1.49 pp, 97.5 % CI −2.31 pp … −0.67 pp | ±0.98 pp |",
		"| gap\\_fraction decreases when backlog exists | ⚠️ INCONCLUSIVE | 4.31 % | 3.98 % | −0.33 pp, 98.75 % CI −1.12 pp … +0.46 pp | ±1.21 pp |",
		"| `success_rate` | 99.63 % | 98.15 % | ▼ −1.48 pp · worse |",
		"| `gap_fraction` | 5.24 % | 4.76 % | ▼ −0.48 pp · better |",
		"**Guards:** none fired.",
	} {
		if !strings.Contains(s, want) {
			t.Errorf("summary.md lacks %q", want)
		}
	}
	// The ten numbers, in order.
	var keys []string
	for _, m := range regexp.MustCompile("(?m)^\\| `([a-z_.0-9]+)` \\|").FindAllStringSubmatch(s, -1) {
		keys = append(keys, m[1])
	}
	if !slices.Equal(keys, summaryKeys) {
		t.Errorf("metric rows = %v, want %v", keys, summaryKeys)
	}
}

func TestMarkdownFitsReviewComment(t *testing.T) {
	in := hostileInput()
	// Priced, with a hostile currency label: the cost table counts too.
	in.Verdict.Cost = compareCostInput().Verdict.Cost
	in.Verdict.Cost.Baseline.Currency, in.Verdict.Cost.Candidate.Currency = hostile, hostile
	for i := range 40 {
		in.Candidate.Summary.Warnings = append(in.Candidate.Summary.Warnings, "warning number "+strings.Repeat("x", i))
	}
	var md bytes.Buffer
	if err := Markdown(&md, in); err != nil {
		t.Fatal(err)
	}
	s := md.String()
	if n := strings.Count(s, "\n"); n >= 60 {
		t.Errorf("summary.md has %d lines, want < 60:\n%s", n, s)
	}
	if !strings.Contains(s, "- … and 35 more in report.html") {
		t.Errorf("summary.md does not say how many warnings it left out:\n%s", s)
	}
	// Code spans show their content literally; outside them nothing may be raw.
	outside := regexp.MustCompile("`+[^`]*`+").ReplaceAllString(s, "")
	if strings.Contains(outside, hostile) || strings.Contains(outside, "<b>") {
		t.Errorf("summary.md holds raw markup from the logs:\n%s", s)
	}
	if !strings.Contains(s, "&lt;script&gt;alert(1)&lt;/script&gt;") {
		t.Errorf("summary.md lost the escaped log value")
	}
	// Every table row keeps its column count: no pipe from the logs leaks.
	cols := 0
	for _, line := range strings.Split(s, "\n") {
		if !strings.HasPrefix(line, "|") {
			cols = 0
			continue
		}
		n := len(regexp.MustCompile(`(^|[^\\])\|`).FindAllString(line, -1))
		if cols == 0 {
			cols = n
		} else if n != cols {
			t.Errorf("table row has %d cells, header %d: %s", n-1, cols-1, line)
		}
	}
}

func TestMdEscape(t *testing.T) {
	tests := []struct{ in, want string }{
		{"plain text", "plain text"},
		{"a|b", `a\|b`},
		{"`code`", "\\`code\\`"},
		{"<img src=x>", "&lt;img src=x&gt;"},
		{"*bold* _it_ [l](u)", `\*bold\* \_it\_ \[l\](u)`},
		{"two\nlines", "two lines"},
		{"@team", "&#64;team"},
		{`back\slash`, `back\\slash`},
	}
	for _, tt := range tests {
		if got := mdEscape(tt.in); got != tt.want {
			t.Errorf("mdEscape(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
	if got, want := mdCode("a ``b`` c"), "``` a ``b`` c ```"; got != want {
		t.Errorf("mdCode = %q, want %q", got, want)
	}
}

var wantSections = []string{"verdict", "facts", "metrics", "charts", "definitions", "reproduce"}

// checkSelfContained fails when the page can reach anything outside itself.
func checkSelfContained(t *testing.T, page string, doc *htmlDoc) {
	t.Helper()
	low := strings.ToLower(page)
	for _, bad := range []string{"http://", "https://", "<script", "javascript:", "@import"} {
		if strings.Contains(low, bad) {
			t.Errorf("page contains %q", bad)
		}
	}
	ids := map[string]bool{}
	for _, e := range doc.Elements {
		if id := e.Attrs["id"]; id != "" {
			if ids[id] {
				t.Errorf("duplicate id %q", id)
			}
			ids[id] = true
		}
	}
	for _, ref := range doc.references() {
		r := strings.TrimSpace(strings.ToLower(ref))
		switch {
		case strings.HasPrefix(r, "//"), strings.Contains(r, "://"):
			t.Errorf("network reference %q", ref)
		case strings.HasPrefix(r, "data:image/png;base64,"), r == "data:,":
		case strings.HasPrefix(r, "#"):
			if !ids[ref[1:]] {
				t.Errorf("link %q to a missing id", ref)
			}
		case strings.HasPrefix(r, "./") && strings.HasSuffix(r, "/report.html"):
		default:
			t.Errorf("unexpected reference %q", ref)
		}
	}
}

func renderHTML(t *testing.T, in Input) (string, *htmlDoc) {
	t.Helper()
	var b bytes.Buffer
	if err := HTML(&b, in); err != nil {
		t.Fatal(err)
	}
	doc, err := parseHTML(b.String())
	if err != nil {
		t.Fatalf("report.html is not well formed: %v", err)
	}
	return b.String(), doc
}

func TestHTML(t *testing.T) {
	cases := []struct {
		name string
		in   Input
		want []string // text the reader must see
	}{
		{"single", singleInput(), []string{
			"Single-run report: there is no baseline",
			"inferred from the maximum in_flight seen: gap_time and gap_fraction are lower bounds",
			"The cap of 64 was inferred from the maximum in_flight seen",
			"tpsreport report --out reports/nightly-2026-11-20 /data/tps/run=nightly-2026-11-20",
		}},
		{"compare", compareInput(), []string{
			"Throughput improved, but the candidate fails 1 criterion: Success rate not reduced.",
			"2 passed · 1 failed · 1 inconclusive",
			"98.75 % CI 1.081× … 1.224×",
			"sees ±0.98 pp",
			"No guard fired: both runs have at least 5 backlog windows, their offered load differs by at most 20 %",
			"Each interval resamples blocks of consecutive windows, never single requests or windows as if they were independent, 2,000 times (seed 20261120): the baseline's 1 run (31 windows) and the candidate's 1 run (28 windows); the block length follows each run's own autocorrelation. Each of the 4 criteria may alarm on an unchanged system in at most 1.25 % of comparisons, so that together they alarm in at most 5 %",
			"vLLM bench's TPOT, which excludes the first token; GuideLLM's time per output token includes the first token",
			"GenAI-Perf's ITL is a per-request TPOT",
			"equals our system_tps only under constant load",
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			page, doc := renderHTML(t, tc.in)
			if got := doc.ids("section"); !slices.Equal(got, wantSections) {
				t.Errorf("sections = %v, want %v", got, wantSections)
			}
			checkSelfContained(t, page, doc)
			text := doc.Text.String()
			for _, w := range tc.want {
				if !strings.Contains(text, w) {
					t.Errorf("page text lacks %q", w)
				}
			}
			var imgs int
			for _, e := range doc.Elements {
				if e.Tag == "img" {
					imgs++
					if e.Attrs["alt"] == "" {
						t.Errorf("img without alt text")
					}
				}
			}
			if imgs != len(wantCharts) {
				t.Errorf("page has %d charts, want %d", imgs, len(wantCharts))
			}
			if !strings.Contains(page, "@media print") {
				t.Error("no print styles")
			}
		})
	}
}

func TestHTMLVerdictBadges(t *testing.T) {
	_, doc := renderHTML(t, compareInput())
	var badges []string
	for _, e := range doc.Elements {
		if e.Tag == "span" && strings.HasPrefix(e.Attrs["class"], "badge") {
			badges = append(badges, e.Attrs["class"])
		}
	}
	// Page title, overall banner, then one per criterion in order.
	want := []string{"badge big fail", "badge big fail", "badge pass", "badge fail", "badge inconclusive", "badge pass"}
	if !slices.Equal(badges, want) {
		t.Errorf("badges = %v, want %v", badges, want)
	}
	// Direction colouring of the key metrics.
	d := newDocument(compareInput())
	dirs := map[string]string{}
	for _, g := range d.Metrics {
		for _, r := range g.Rows {
			dirs[r.Key] = r.Direction
		}
	}
	for key, want := range map[string]string{
		"system_tps": "better", "success_rate": "worse", "gap_fraction": "better", "retry_rate": "worse",
		"ttft.p99": "better", "utilization": "", "arrival_rate": "", "stream_tps.p50": "same",
	} {
		if dirs[key] != want {
			t.Errorf("direction of %s = %q, want %q", key, dirs[key], want)
		}
	}
}

func TestHTMLEscapesLogValues(t *testing.T) {
	page, doc := renderHTML(t, hostileInput())
	checkSelfContained(t, page, doc)
	if strings.Contains(page, hostile) || strings.Contains(page, "<b>x</b>") {
		t.Fatal("markup from the logs reached report.html unescaped")
	}
	for _, e := range doc.Elements {
		if e.Tag == "script" || e.Tag == "b" {
			t.Errorf("page has a <%s> element (line %d)", e.Tag, e.Line)
		}
	}
	text := doc.Text.String()
	for _, w := range []string{
		"vs " + hostile, // title
		"error " + hostile + " from replica <b>x</b> | pipe",
		"guard " + hostile,
		"reason " + hostile,
		"tpsreport compare '" + hostile + "'",
		"/data/" + hostile,
		"logs/" + hostile + ".jsonl",
		"llama|`x`*_",
	} {
		if !strings.Contains(text, w) {
			t.Errorf("page text lacks %q as text", w)
		}
	}
	if c := strings.Count(page, "&lt;script&gt;alert(1)&lt;/script&gt;"); c < 8 {
		t.Errorf("escaped model name appears %d times, want it wherever the value is shown", c)
	}
}

// pngStats decodes a PNG and counts its distinct colours and non-white pixels.
func pngStats(t *testing.T, b []byte) (img image.Image, colours int, inked float64) {
	t.Helper()
	img, err := png.Decode(bytes.NewReader(b))
	if err != nil {
		t.Fatalf("decode png: %v", err)
	}
	// Count up to 256 distinct colours: enough to tell a chart from a blank.
	seen := map[uint32]bool{}
	var n, ink int
	bounds := img.Bounds()
	for y := bounds.Min.Y; y < bounds.Max.Y; y++ {
		for x := bounds.Min.X; x < bounds.Max.X; x++ {
			var r, g, b uint8
			switch m := img.(type) {
			case *image.RGBA:
				i := m.PixOffset(x, y)
				r, g, b = m.Pix[i], m.Pix[i+1], m.Pix[i+2]
			case *image.NRGBA:
				i := m.PixOffset(x, y)
				r, g, b = m.Pix[i], m.Pix[i+1], m.Pix[i+2]
			default:
				rr, gg, bb, _ := img.At(x, y).RGBA()
				r, g, b = uint8(rr>>8), uint8(gg>>8), uint8(bb>>8)
			}
			if len(seen) < 256 {
				seen[uint32(r)<<16|uint32(g)<<8|uint32(b)] = true
			}
			n++
			if r < 0xf0 || g < 0xf0 || b < 0xf0 {
				ink++
			}
		}
	}
	return img, len(seen), float64(ink) / float64(n)
}

var wantCharts = []string{"tps", "state", "engine_state", "gap_causes", "gap_fraction", "latency_cdf", "stream_vs_concurrency", "rates", "throughput_vs_ttft", "ttft_over_time", "tpot_over_time"}

func TestCharts(t *testing.T) {
	for name, in := range map[string]Input{"single": singleInput(), "compare": compareInput()} {
		t.Run(name, func(t *testing.T) {
			charts, err := Charts(in)
			if err != nil {
				t.Fatal(err)
			}
			var names []string
			for _, c := range charts {
				names = append(names, c.Name)
				img, colours, inked := pngStats(t, c.PNG)
				if got := img.Bounds().Size(); got != image.Pt(chartWidth, chartHeight) {
					t.Errorf("%s: size %v, want %dx%d", c.Name, got, chartWidth, chartHeight)
				}
				if colours < 64 || inked < 0.02 {
					t.Errorf("%s looks blank: %d colours, %.1f %% non-white", c.Name, colours, inked*100)
				}
				if c.Title == "" || c.Alt == "" {
					t.Errorf("%s has no title or alt text", c.Name)
				}
			}
			if !slices.Equal(names, wantCharts) {
				t.Errorf("charts = %v, want %v", names, wantCharts)
			}
			again, err := Charts(in)
			if err != nil {
				t.Fatal(err)
			}
			for i := range charts {
				if !bytes.Equal(charts[i].PNG, again[i].PNG) {
					t.Errorf("%s: bytes differ between two renders of the same input", charts[i].Name)
				}
			}
		})
	}
}

// figByName is the figure of figs named name.
func figByName(t *testing.T, figs []*figure, name string) *figure {
	t.Helper()
	for _, f := range figs {
		if f.Name == name {
			return f
		}
	}
	t.Fatalf("no figure %s", name)
	return nil
}

func TestChartData(t *testing.T) {
	in := singleInput()
	figs := figures(in)
	tps := figs[0]
	if len(tps.Series) != 2 || len(tps.Series[0].X) != 30 {
		t.Fatalf("tps chart: %d series of %d windows, want 2 of 30", len(tps.Series), len(tps.Series[0].X))
	}
	// The first window is partial: run start 14:00:17.25 to 14:01.
	if s := tps.Series[0]; s.X[0] != 0 || math.Abs(s.XEnd[0]-42.75/60) > 1e-9 || math.Abs(s.X[1]-42.75/60) > 1e-9 {
		t.Errorf("window offsets %v..%v, %v; want 0..0.7125, 0.7125", s.X[0], s.XEnd[0], s.X[1])
	}
	// Idle windows: tps 0, rates NULL (a gap in the line, not a zero).
	rates := figByName(t, figs, "rates")
	if rates.Series[0].Y[13] != nil || tps.Series[0].Y[13] == nil || *tps.Series[0].Y[13] != 0 {
		t.Errorf("idle window: success_rate %v, system_tps %v; want NULL and 0", rates.Series[0].Y[13], tps.Series[0].Y[13])
	}
	// Gap shading: one band per window with gap_time > 0, value = gap_fraction.
	state := figByName(t, figs, "state")
	// Windows 0, 3–7, 21 and 28 have gap_time > 0 (14 is idle).
	if len(state.Bands) != 8 {
		t.Errorf("state chart has %d gap bands, want 8", len(state.Bands))
	}
	if b := state.Bands[1]; math.Abs(b.Value-0.06) > 1e-9 {
		t.Errorf("band of window 3 has value %v, want gap_fraction 0.06", b.Value)
	}
	// The cause chart stacks the four causes of each window, each layer on
	// the ones below it (the fixture: 30 % engine, 60 % admission, 10 %
	// unattributed of every window's gap_time).
	causes := figByName(t, figs, "gap_causes")
	if len(causes.Series) != 4 {
		t.Fatalf("gap_causes chart: %d series, want 4", len(causes.Series))
	}
	for j, w := range in.Baseline.Windows {
		want := []float64{w.EngineGapTime, w.AdmissionGapTime, w.ImbalanceGapTime, w.UnattributedGapTime}
		below := 0.0
		for k, s := range causes.Series {
			var base float64
			if j < len(s.base) {
				base = s.base[j]
			}
			if y := s.Y[j]; y == nil || *y != want[k] || math.Abs(base-below) > 1e-12 {
				t.Errorf("window %d, %s: %v on %v, want %v on %v", j, s.Metric, y, base, want[k], below)
			}
			below += want[k]
		}
	}
	if w := in.Baseline.Windows[3]; w.AdmissionGapTime <= 0 || w.EngineGapTime <= 0 {
		t.Fatalf("fixture window 3 has no admission or engine gap: %+v", w)
	}
	if len(state.Rules) != 1 || state.Rules[0].Y != 64 || state.Rules[0].Label != "cap 64 (inferred)" {
		t.Errorf("cap rule = %+v", state.Rules)
	}
	if got := tps.XLabel; got != "minutes since run start (2026-11-20 14:00:17 UTC)" {
		t.Errorf("x label = %q", got)
	}
	cdf := figByName(t, figs, "latency_cdf").Series[0]
	if len(cdf.X) != 101 || *cdf.Y[50] != 0.5 || cdf.X[50] != in.Baseline.TTFTQuantiles[50] {
		t.Errorf("ttft CDF: %d points, y[50]=%v at x=%v", len(cdf.X), *cdf.Y[50], cdf.X[50])
	}

	cmp := figures(compareInput())
	if got := cmp[0].XLabel; !strings.Contains(got, "since each run's start") {
		t.Errorf("comparison x label = %q", got)
	}
	if c := cmp[0].Series; c[0].Run != "baseline" || c[2].Run != "candidate" || c[0].color == c[2].color {
		t.Errorf("comparison series runs/colours: %s %s", c[0].Run, c[2].Run)
	}
	if len(cmp[1].strips) != 2 || cmp[1].Bands[0].Strip == 0 {
		t.Errorf("comparison gap shading should be per-run strips")
	}
	if len(cmp[1].Rules) != 1 || cmp[1].Rules[0].Label != "cap 64 (samples), both runs" {
		t.Errorf("shared cap rule = %+v", cmp[1].Rules)
	}
}

// edgeInputs are the degenerate runs a report must survive.
func edgeInputs() map[string]Input {
	nan := math.NaN()
	empty := Run{Summary: schemas.Summary{RunID: "empty"}}
	one := singleInput().Baseline
	one.Windows = one.Windows[5:6]
	one.Concurrency = one.Concurrency[:1]
	one.TTFTQuantiles = []float64{0.4}
	null := Run{Summary: schemas.Summary{RunID: "nulls", RunStart: t0, RunEnd: t0.Add(3 * time.Minute), WindowWidth: 60}}
	for i := range 3 {
		ws := t0.Truncate(time.Minute).Add(time.Duration(i) * time.Minute)
		null.Windows = append(null.Windows, schemas.Metrics{WindowStart: ws, WindowEnd: ws.Add(time.Minute), WindowSeconds: 60})
	}
	nans := singleInput().Baseline
	nans.Windows = slices.Clone(nans.Windows)
	for i := range nans.Windows {
		w := &nans.Windows[i]
		w.SystemTPS, w.GapFraction, w.SuccessRate, w.MeanInFlight = &nan, &nan, &nan, &nan
	}
	nans.Summary.SystemTPS = &nan
	nans.Summary.TTFT.P99 = &nan
	nans.TTFTQuantiles = []float64{nan, nan}
	nans.Concurrency = []ConcurrencyPoint{{InFlight: nan, StreamTPS: nan, N: 3}, {InFlight: 2, StreamTPS: math.Inf(1), N: 1}}
	zeroSecs := singleInput().Baseline
	zeroSecs.Windows = []schemas.Metrics{{WindowStart: t0}}
	return map[string]Input{
		"zero windows":    {Baseline: empty},
		"one window":      {Baseline: one},
		"all null":        {Baseline: null},
		"nan":             {Baseline: nans},
		"zero length":     {Baseline: zeroSecs},
		"compare empties": {Baseline: empty, Candidate: &null, Verdict: &schemas.Verdict{Overall: schemas.Inconclusive}},
	}
}

// shortEdgeCases are the edge inputs TestEdgeCases keeps under -short: a
// single run and a comparison whose every metric is NULL or missing. The
// others are as slow (each writes the whole report, six charts) and are left
// to `make test`.
var shortEdgeCases = []string{"all null", "compare empties"}

func TestEdgeCases(t *testing.T) {
	inputs := edgeInputs()
	for _, name := range shortEdgeCases {
		if _, ok := inputs[name]; !ok {
			t.Errorf("shortEdgeCases names %q, which is no edge input", name)
		}
	}
	for name, in := range inputs {
		t.Run(name, func(t *testing.T) {
			if testing.Short() && !slices.Contains(shortEdgeCases, name) {
				t.Skip("slow; covers the whole report written for the edge input " + name)
			}
			dir := t.TempDir()
			paths, err := Write(dir, in)
			if err != nil {
				t.Fatal(err)
			}
			if len(paths) != len(wantCharts)+3 {
				t.Errorf("wrote %d files, want %d", len(paths), len(wantCharts)+3)
			}
			for _, p := range paths {
				b, err := os.ReadFile(p)
				if err != nil {
					t.Fatal(err)
				}
				switch filepath.Ext(p) {
				case ".png":
					img, colours, _ := pngStats(t, b)
					if img.Bounds().Dx() != chartWidth || colours < 8 {
						t.Errorf("%s: %v, %d colours", p, img.Bounds(), colours)
					}
				case ".json":
					var v map[string]any
					if err := json.Unmarshal(b, &v); err != nil {
						t.Errorf("report.json: %v", err)
					}
				case ".html":
					doc, err := parseHTML(string(b))
					if err != nil {
						t.Fatal(err)
					}
					checkSelfContained(t, string(b), doc)
					if !strings.Contains(doc.Text.String(), "—") {
						t.Error("no NULL shown as —")
					}
				}
			}
		})
	}
}

func TestEmptyFiguresSayNoData(t *testing.T) {
	for _, f := range figures(Input{Baseline: Run{}}) {
		if f.hasData() {
			t.Errorf("%s has data for an empty run", f.Name)
		}
	}
	nulls := edgeInputs()["all null"]
	for _, f := range figures(nulls) {
		if f.hasData() {
			t.Errorf("%s has data when every metric is NULL", f.Name)
		}
	}
	var js bytes.Buffer
	if err := JSON(&js, edgeInputs()["nan"]); err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(js.Bytes(), []byte("NaN")) {
		t.Error("report.json holds NaN")
	}
}

func TestWrite(t *testing.T) {
	dir := t.TempDir()
	// A previous report is replaced.
	if err := os.WriteFile(filepath.Join(dir, "report.html"), []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	paths, err := Write(dir, compareInput())
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, p := range paths {
		names = append(names, filepath.Base(p))
	}
	want := []string{"tps.png", "state.png", "engine_state.png", "gap_causes.png", "gap_fraction.png", "latency_cdf.png", "stream_vs_concurrency.png", "rates.png",
		"throughput_vs_ttft.png", "ttft_over_time.png", "tpot_over_time.png", "report.json", "summary.md", "report.html"}
	if !slices.Equal(names, want) {
		t.Errorf("wrote %v, want %v", names, want)
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != len(want) {
		t.Errorf("directory holds %d entries, want %d (temporary files left?)", len(entries), len(want))
	}
	first := map[string][]byte{}
	for _, p := range paths {
		first[filepath.Base(p)], _ = os.ReadFile(p)
	}
	if string(first["report.html"]) == "old" {
		t.Error("report.html was not replaced")
	}
	// The page embeds the same PNG bytes as the files.
	doc, err := parseHTML(string(first["report.html"]))
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(imgSources(doc), string(dataURI(first["tps.png"]))) {
		t.Error("report.html does not embed tps.png")
	}
	dir2 := t.TempDir()
	paths2, err := Write(dir2, compareInput())
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range paths2 {
		b, _ := os.ReadFile(p)
		if !bytes.Equal(b, first[filepath.Base(p)]) {
			t.Errorf("%s differs between two writes of the same input", filepath.Base(p))
		}
	}
	info, err := os.Stat(paths[0])
	if err != nil {
		t.Fatal(err)
	}
	if info.Mode().Perm() != 0o644 {
		t.Errorf("mode %v, want 0644", info.Mode().Perm())
	}
}

func TestWriteError(t *testing.T) {
	file := filepath.Join(t.TempDir(), "not-a-dir")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Write(filepath.Join(file, "out"), singleInput()); err == nil {
		t.Fatal("Write into a path under a file succeeded")
	}
}

func TestIndex(t *testing.T) {
	root := t.TempDir()
	mk := func(name string, day int, v *schemas.Verdict) IndexEntry {
		s := singleInput().Baseline.Summary
		s.RunID = name
		s.RunStart = s.RunStart.AddDate(0, 0, day)
		s.RunEnd = s.RunEnd.AddDate(0, 0, day)
		tps := 900 + 50*float64(day)
		s.SystemTPS, s.RetryAdjustedSystemTPS = &tps, &tps
		return IndexEntry{Name: name, Summary: s, Verdict: v}
	}
	// The caller's order is kept, even when it is not by date.
	runs := []IndexEntry{
		mk("nightly-2026-11-22", 2, &schemas.Verdict{Baseline: "nightly-2026-11-21", Overall: schemas.Fail}),
		mk("nightly-2026-11-20", 0, nil),
		mk("nightly-2026-11-21", 1, &schemas.Verdict{Baseline: "nightly-2026-11-20", Overall: schemas.Pass}),
		mk(hostile, 3, nil),
	}
	runs[2].Dir = filepath.Join(root, "run=nightly-2026-11-21", "report")
	// The nightly layout: ROOT/run=NAME/report/report.html and
	// ROOT/run=NAME/compare/report.html, Dir the run's directory.
	runs[0].Dir = "run=nightly-2026-11-22"
	// The night of 11-22 also judged its canary.
	runs[0].Canary = &schemas.Verdict{Overall: schemas.Pass, Canary: &schemas.Canary{Candidate: schemas.CanaryGroup{Replicas: []string{"vllm-3"}}}}
	for _, sub := range []string{"report", "compare", "canary"} {
		if err := os.MkdirAll(filepath.Join(root, runs[0].Dir, sub), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(root, runs[0].Dir, sub, "report.html"), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := WriteIndex(root, "test", runs); err != nil {
		t.Fatal(err)
	}
	page, err := os.ReadFile(filepath.Join(root, "index.html"))
	if err != nil {
		t.Fatal(err)
	}
	doc, err := parseHTML(string(page))
	if err != nil {
		t.Fatal(err)
	}
	checkSelfContained(t, string(page), doc)
	if strings.Contains(string(page), hostile) {
		t.Error("run name reached index.html unescaped")
	}
	var links []string
	for _, e := range doc.Elements {
		if e.Tag == "a" && strings.HasSuffix(e.Attrs["href"], "report.html") {
			links = append(links, e.Attrs["href"])
		}
	}
	want := []string{
		"./run=nightly-2026-11-22/report/report.html",
		"./run=nightly-2026-11-22/compare/report.html", // the FAIL badge
		"./run=nightly-2026-11-22/canary/report.html",  // the canary's PASS badge
		"./run=nightly-2026-11-20/report.html",
		"./run=nightly-2026-11-21/report/report.html", // no comparison report: the PASS badge is no link
		"./run=%3Cscript%3Ealert%281%29%3C/script%3E/report.html",
	}
	if !slices.Equal(links, want) {
		t.Errorf("links = %q, want %q", links, want)
	}
	if !strings.Contains(string(page), `<span class="vs-run">vllm-3 vs the others</span>`) {
		t.Error("index.html does not name the canary's replicas")
	}
	for _, name := range []string{"trend_retry_adjusted_system_tps", "trend_backlog_gap_fraction", "trend_success_rate", "trend_ttft_req_p95"} {
		b, err := os.ReadFile(filepath.Join(root, name+".png"))
		if err != nil {
			t.Fatal(err)
		}
		img, colours, _ := pngStats(t, b)
		if img.Bounds().Dy() != trendHeight || colours < 64 {
			t.Errorf("%s: %v, %d colours", name, img.Bounds(), colours)
		}
		if !slices.Contains(imgSources(doc), string(dataURI(b))) {
			t.Errorf("index.html does not embed %s.png", name)
		}
	}
	text := doc.Text.String()
	for _, w := range []string{"FAIL", "vs nightly-2026-11-21", "PASS", "vs nightly-2026-11-20", "not compared", "1,000 tok/s", "950 tok/s", "inferred"} {
		if !strings.Contains(text, w) {
			t.Errorf("index text lacks %q", w)
		}
	}
	// An empty history still renders.
	var b bytes.Buffer
	if err := IndexHTML(&b, root, "test", nil); err != nil || !strings.Contains(b.String(), "No runs yet.") {
		t.Errorf("empty index: %v", err)
	}
}

func imgSources(d *htmlDoc) []string {
	var out []string
	for _, e := range d.Elements {
		if e.Tag == "img" {
			out = append(out, e.Attrs["src"])
		}
	}
	return out
}

func TestReportHref(t *testing.T) {
	tests := []struct {
		root string
		e    IndexEntry
		want string
	}{
		{"/r", IndexEntry{Name: "a"}, "./run=a/report.html"},
		{"/r", IndexEntry{Name: "a", Dir: "/r/run=a"}, "./run=a/report.html"},
		{"/r", IndexEntry{Name: "a", Dir: "/elsewhere/a"}, "./../elsewhere/a/report.html"},
		{"r", IndexEntry{Name: "a", Dir: "r/run=a/out"}, "./run=a/out/report.html"},
		{"r", IndexEntry{Name: "a", Dir: "run=a"}, "./run=a/report.html"},
		{"/r", IndexEntry{Name: "a:b c"}, "./run=a:b%20c/report.html"},
	}
	for _, tt := range tests {
		if got := reportHref(tt.root, tt.e); got != tt.want {
			t.Errorf("reportHref(%q, %+v) = %q, want %q", tt.root, tt.e, got, tt.want)
		}
	}
}

// TestIndexChanges: twelve nights whose throughput falls by a fifth from
// the seventh on: the index lists the change point above the runs, linking
// the run it starts at and the one before, and the throughput trend marks
// it in red between the two, labelled with the change; the other trends,
// flat, have no mark and no row.
func TestIndexChanges(t *testing.T) {
	root := t.TempDir()
	var runs []IndexEntry
	for day := 0; day < 12; day++ {
		s := singleInput().Baseline.Summary
		s.RunStart = s.RunStart.AddDate(0, 0, day)
		tps := 1000 * (1 + 0.004*float64(day%3-1))
		if day >= 6 {
			tps *= 0.8
		}
		s.RetryAdjustedSystemTPS = &tps
		runs = append(runs, IndexEntry{Name: fmt.Sprintf("night-%02d", day+1), Summary: s})
	}
	changes, rows := indexChanges(root, runs)
	if len(changes) != 1 || len(rows) != 1 {
		t.Fatalf("changes %+v, want one", changes)
	}
	want := indexChange{Metric: "retry_adjusted_system_tps", Run: "night-07", RunHref: "./run=night-07/report.html",
		Prev: "night-06", PrevHref: "./run=night-06/report.html", Before: "1,000", After: "800", Change: "−20.0 %", P: rows[0].P, Regression: true}
	if rows[0] != want {
		t.Errorf("row %+v, want %+v", rows[0], want)
	}
	figs := trendFigures(runs, changes)
	for _, f := range figs {
		switch {
		case f.Name == "trend_retry_adjusted_system_tps":
			if len(f.Marks) != 1 || f.Marks[0].X != 5.5 || f.Marks[0].Label != "change −20.0 %" || f.Marks[0].color != colBad {
				t.Errorf("%s marks %+v, want one red at 5.5, change −20.0 %%", f.Name, f.Marks)
			}
			if _, err := f.render(); err != nil {
				t.Fatal(err)
			}
		case len(f.Marks) > 0:
			t.Errorf("%s marks %+v, want none", f.Name, f.Marks)
		}
	}
	var b bytes.Buffer
	if err := IndexHTML(&b, root, "test", runs); err != nil {
		t.Fatal(err)
	}
	for _, w := range []string{`<section id="changes">`, `<a href="./run=night-07/report.html">night-07</a>`, `<a href="./run=night-06/report.html">night-06</a>`, "−20.0 %", "regression"} {
		if !strings.Contains(b.String(), w) {
			t.Errorf("index.html lacks %q", w)
		}
	}
}

func TestTrendFigures(t *testing.T) {
	mk := func(name string, day int, v *schemas.Verdict, success float64) IndexEntry {
		s := singleInput().Baseline.Summary
		s.RunStart = time.Date(2026, 11, 20+day, 23, 30, 0, 0, time.FixedZone("CET", 3600))
		s.SuccessRate = ptr(success)
		return IndexEntry{Name: name, Summary: s, Verdict: v}
	}
	runs := []IndexEntry{
		mk("b", 0, nil, 1),
		mk("a", 1, &schemas.Verdict{Overall: schemas.Pass}, 1),
		mk("c", 2, &schemas.Verdict{Overall: schemas.Fail}, 1),
	}
	figs := trendFigures(runs, nil)
	f := figs[2]
	if f.Name != "trend_success_rate" {
		t.Fatalf("figure %s, want trend_success_rate", f.Name)
	}
	// x axis: UTC dates of the run starts (23:30 CET is 22:30 UTC), names below.
	if want := []string{"2026-11-20", "2026-11-21", "2026-11-22"}; !slices.Equal(f.cats, want) {
		t.Errorf("categories %q, want %q", f.cats, want)
	}
	if want := []string{"b", "a", "c"}; !slices.Equal(f.cats2, want) {
		t.Errorf("second line %q, want the names in the caller's order %q", f.cats2, want)
	}
	var keys []string
	for _, k := range f.keys {
		keys = append(keys, k.label)
	}
	if want := []string{"PASS", "FAIL", "not compared"}; !slices.Equal(keys, want) {
		t.Errorf("legend keys %q, want %q", keys, want)
	}
	// Every run at 100 %: the axis is 99–100 %, not 90–110 %.
	_, _, y0, y1, _ := f.extent(false)
	sc := f.scaleFor(f.yAxis, y0, y1, yTicks)
	if sc.lo != 0.99 || sc.hi != 1 {
		t.Errorf("success_rate axis %v–%v, want 0.99–1", sc.lo, sc.hi)
	}
}

// TestNoiseBands: each stretch between change points gets a band of its
// median ± 2 robust standard deviations. For 10 12 11 13 the median is
// 11.5 and the absolute deviations 1.5 0.5 0.5 1.5 have median 1, so the
// band is 11.5 ± 2·1.4826 = 8.5348–14.4652; 30 31 29 32 gives 27.5348–
// 33.4652. The three runs after the second change have no band.
func TestNoiseBands(t *testing.T) {
	var ys []*float64
	for _, v := range []float64{10, 12, 11, 13, 30, 31, 29, 32, 50, 51, 52} {
		ys = append(ys, ptr(v))
	}
	bands := noiseBands(ys, []mark{{X: 7.5}, {X: 3.5}})
	want := [][4]float64{{-0.5, 3.5, 8.5348, 14.4652}, {3.5, 7.5, 27.5348, 33.4652}}
	if len(bands) != len(want) {
		t.Fatalf("%d bands, want %d", len(bands), len(want))
	}
	for i, b := range bands {
		got := [4]float64{b.X0, b.X1, *b.Y0, *b.Y1}
		for k := range got {
			if math.Abs(got[k]-want[i][k]) > 1e-9 {
				t.Errorf("band %d: %v, want %v", i, got, want[i])
				break
			}
		}
	}
}

func TestChartAxes(t *testing.T) {
	// Rates: failed requests and retries on an axis scaled to them. The
	// largest value is the baseline's last retry rate, 2.73 %; with 3 %
	// headroom the axis ends at the next 0.5 pp tick, 3 %.
	rates := figByName(t, figures(compareInput()), "rates")
	_, _, y0, y1, _ := rates.extent(false)
	if sc := rates.scaleFor(rates.yAxis, y0, y1, yTicks); sc.lo != 0 || math.Abs(sc.hi-0.03) > 1e-12 {
		t.Errorf("rates axis %v–%v, want 0–0.03", sc.lo, sc.hi)
	}
	// All zero: 0–1 %, not 0–100 %.
	if sc := rates.scaleFor(rates.yAxis, 0, 0, yTicks); sc.hi != 0.01 {
		t.Errorf("rates axis of zeros ends at %v, want 0.01", sc.hi)
	}

	// Latency: a log time axis from the 1-2-5 tick at or below the smallest
	// positive quantile to the one at or above the largest.
	lat := figByName(t, figures(compareInput()), "latency_cdf")
	if !lat.xAxis.log {
		t.Fatal("latency CDF has a linear time axis")
	}
	// 1.3 ms … 2.2 s: 1 ms … 5 s, ticks 1-2-5 in each of 3.7 decades.
	sc := logScale(0.0013, 2.2, lat.xAxis)
	if math.Abs(sc.lo-0.001) > 1e-15 || sc.hi != 5 || len(sc.ticks) != 12 || sc.label(0.01) != "10 ms" || sc.label(2) != "2 s" {
		t.Errorf("log scale %v–%v ticks %v", sc.lo, sc.hi, sc.ticks)
	}
	// 10 ms is log10(10)/log10(5000) = 0.2703 of the way: 108 px of 400.
	sc.p0, sc.p1 = 0, 400
	if sc.px(0) != 0 || sc.px(0.01) != 108 || sc.px(5) != 400 {
		t.Errorf("log px: 0→%d, 10 ms→%d, 5 s→%d; want 0, 108, 400", sc.px(0), sc.px(0.01), sc.px(5))
	}
	// One value far below the rest does not stretch the axis past 4 decades.
	if sc := logScale(1e-9, 2, lat.xAxis); sc.lo != 0.0002 || len(sc.ticks) != 4 {
		t.Errorf("log scale from 1 ns: %v–%v ticks %v; want from 0.2 ms, decades only", sc.lo, sc.hi, sc.ticks)
	}

	// State: a queue under a fifth of the running count (and cap), or five
	// times above it, gets its own axis.
	deep := singleInput()
	for i := range deep.Baseline.Windows {
		if q := deep.Baseline.Windows[i].MeanQueueDepth; q != nil {
			v := *q * 50 // at most 685, against in_flight 60.8 and cap 64
			deep.Baseline.Windows[i].MeanQueueDepth = &v
		}
	}
	tests := []struct {
		name  string
		in    Input
		split bool
	}{
		{"queue at most 13.7, in_flight 60.8 and cap 64 (4.7×)", singleInput(), false},
		{"queue at most 1.7, cap 32", saturatedInput(), true},
		{"queue at most 685, in_flight 60.8 and cap 64", deep, true},
	}
	for _, tt := range tests {
		st := figures(tt.in)[1]
		var got bool
		for _, s := range st.Series {
			if s.Metric == "mean_queue_depth" {
				got = s.axis2
			}
		}
		if got != tt.split || (st.Y2Label != "") != tt.split {
			t.Errorf("%s: queue on its own axis %v, want %v", tt.name, got, tt.split)
		}
	}
}

func TestPlaceLabel(t *testing.T) {
	// Plot 100..900 × 50..350; a rule at y = 200 and a 60×12 label.
	// A line along the rule at the right half takes away the right-end
	// places above it; the label goes to the left end, above the rule.
	flat := [][][2]int{{{500, 199}, {900, 199}}, {{500, 185}, {900, 185}}}
	if b := placeLabel(60, 12, 200, 100, 900, 50, 350, flat, nil); b != (box{106, 183, 166, 195}) {
		t.Errorf("got %+v, want the left end above the rule", b)
	}
	// Lines above and below across the whole width: no free place, so the
	// right end above the rule.
	full := [][][2]int{{{100, 190}, {900, 190}}, {{100, 210}, {900, 210}}}
	if b := placeLabel(60, 12, 200, 100, 900, 50, 350, full, nil); b != (box{834, 183, 894, 195}) {
		t.Errorf("got %+v, want the fallback at the right end", b)
	}
	// A label already there is avoided like a line.
	taken := []box{{834, 183, 894, 195}}
	if b := placeLabel(60, 12, 200, 100, 900, 50, 350, nil, taken); b.x0 != 106 {
		t.Errorf("got %+v, want the left end", b)
	}
	// The state chart of a saturated run: the cap label is clear of every line.
	f := figByName(t, figures(saturatedInput()), "state")
	if _, err := f.render(); err != nil {
		t.Fatal(err)
	}
}

// BenchmarkWriteIndex365 is the nightly index of a year of runs: the
// history's change points (a throughput step at run 200), the table and
// the trend charts, written to disk.
func BenchmarkWriteIndex365(b *testing.B) {
	base := singleInput().Baseline.Summary
	t0 := time.Date(2026, 1, 1, 2, 0, 0, 0, time.UTC)
	var runs []IndexEntry
	for i := 0; i < 365; i++ {
		s := base
		s.RunStart = t0.Add(time.Duration(i) * 24 * time.Hour)
		w := 1 + 0.01*float64(i%7-3)
		tps := 1000 * w
		if i >= 200 {
			tps *= 0.9
		}
		s.Metrics.RetryAdjustedSystemTPS = ptr(tps)
		runs = append(runs, IndexEntry{Name: fmt.Sprintf("nightly-%03d", i), Dir: fmt.Sprintf("run=nightly-%03d", i), Summary: s})
	}
	dir := b.TempDir()
	for b.Loop() {
		if err := WriteIndex(dir, "bench", runs); err != nil {
			b.Fatal(err)
		}
	}
}
