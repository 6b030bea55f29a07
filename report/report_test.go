package report

import (
	"bytes"
	"encoding/json"
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
		"| Throughput improves | ✅ PASS | 1,012 tok/s | 1,166 tok/s | 1.152× (+15.2 %), 95 % CI 1.081× … 1.224× |",
		"| Success rate not reduced | ❌ FAIL | 99.61 % | 98.12 % | −1.49 pp, p = 0.00031 |",
		"| gap\\_fraction decreases when backlog exists | ⚠️ INCONCLUSIVE | 4.31 % | 3.98 % | −0.33 pp |",
		"| `success_rate` | 99.63 % | 98.15 % | ▼ −1.48 pp (−1.5 %) · worse |",
		"| `gap_fraction` | 5.24 % | 4.76 % | ▼ −0.48 pp (−9.2 %) · better |",
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
			"95 % CI 1.081× … 1.224×",
			"p = 0.00031",
			"No guard fired: both runs have at least 5 backlog windows, their offered load differs by at most 20 %",
			"the 30 baseline backlog windows and 28 candidate backlog windows were resampled with replacement 2,000 times (method percentile, seed 20261120)",
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
			if imgs != 6 {
				t.Errorf("page has %d charts, want 6", imgs)
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

var wantCharts = []string{"tps", "state", "gap_fraction", "latency_cdf", "stream_vs_concurrency", "rates"}

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
	rates := figs[5]
	if rates.Series[0].Y[13] != nil || tps.Series[0].Y[13] == nil || *tps.Series[0].Y[13] != 0 {
		t.Errorf("idle window: success_rate %v, system_tps %v; want NULL and 0", rates.Series[0].Y[13], tps.Series[0].Y[13])
	}
	// Gap shading: one band per window with gap_time > 0, value = gap_fraction.
	state := figs[1]
	// Windows 0, 3–7, 21 and 28 have gap_time > 0 (14 is idle).
	if len(state.Bands) != 8 {
		t.Errorf("state chart has %d gap bands, want 8", len(state.Bands))
	}
	if b := state.Bands[1]; math.Abs(b.Value-0.06) > 1e-9 {
		t.Errorf("band of window 3 has value %v, want gap_fraction 0.06", b.Value)
	}
	if len(state.Rules) != 1 || state.Rules[0].Y != 64 || state.Rules[0].Label != "cap 64 (inferred)" {
		t.Errorf("cap rule = %+v", state.Rules)
	}
	if got := tps.XLabel; got != "minutes since run start (2026-11-20 14:00:17 UTC)" {
		t.Errorf("x label = %q", got)
	}
	cdf := figs[3].Series[0]
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

func TestEdgeCases(t *testing.T) {
	for name, in := range edgeInputs() {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			paths, err := Write(dir, in)
			if err != nil {
				t.Fatal(err)
			}
			if len(paths) != 9 {
				t.Errorf("wrote %d files, want 9", len(paths))
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
	want := []string{"tps.png", "state.png", "gap_fraction.png", "latency_cdf.png", "stream_vs_concurrency.png", "rates.png", "report.json", "summary.md", "report.html"}
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
		s.SystemTPS = &tps
		return IndexEntry{Name: name, Summary: s, Verdict: v}
	}
	runs := []IndexEntry{
		mk("nightly-2026-11-22", 2, &schemas.Verdict{Overall: schemas.Fail}),
		mk("nightly-2026-11-20", 0, nil),
		mk("nightly-2026-11-21", 1, &schemas.Verdict{Overall: schemas.Pass}),
		mk(hostile, 3, nil),
	}
	runs[2].Dir = filepath.Join(root, "run=nightly-2026-11-21", "report")
	// The nightly layout: ROOT/run=NAME/report/report.html, Dir the run's directory.
	runs[0].Dir = "run=nightly-2026-11-22"
	if err := os.MkdirAll(filepath.Join(root, runs[0].Dir, "report"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, runs[0].Dir, "report", "report.html"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := WriteIndex(root, runs); err != nil {
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
		"./run=nightly-2026-11-20/report.html",
		"./run=nightly-2026-11-21/report/report.html",
		"./run=nightly-2026-11-22/report/report.html",
		"./run=%3Cscript%3Ealert%281%29%3C/script%3E/report.html",
	}
	if !slices.Equal(links, want) {
		t.Errorf("links = %q, want %q", links, want)
	}
	for _, name := range []string{"trend_system_tps", "trend_gap_fraction", "trend_success_rate", "trend_ttft_p99"} {
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
	for _, w := range []string{"FAIL", "PASS", "1,000 tok/s", "950 tok/s", "inferred"} {
		if !strings.Contains(text, w) {
			t.Errorf("index text lacks %q", w)
		}
	}
	// An empty history still renders.
	var b bytes.Buffer
	if err := IndexHTML(&b, root, nil); err != nil || !strings.Contains(b.String(), "No runs yet.") {
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
