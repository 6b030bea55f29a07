package report

import (
	"bytes"
	"fmt"
	"math"
	"strconv"

	"github.com/golang/freetype/truetype"
	chart "github.com/wcharczuk/go-chart/v2"
	"github.com/wcharczuk/go-chart/v2/drawing"
)

// Chart size in pixels: readable at 1200 px wide, two of them fit a laptop screen.
const (
	chartWidth  = 1200
	chartHeight = 420
	chartDPI    = 96
)

// figure is one chart as data: charts.go decides what it shows, report.json
// exports it, and render draws it with go-chart's raster renderer and font.
//
// The layout is ours rather than go-chart's Chart: that one puts the y axis
// on the right, spaces ticks unevenly, refuses a zero range and draws NULL
// (NaN) points as lines to nowhere; here NULL breaks a line, ranges always
// exist, and a figure without data says so.
type figure struct {
	Name   string   `json:"name"` // file name without .png
	File   string   `json:"file"`
	Title  string   `json:"title"`
	Alt    string   `json:"alt"` // what to look for, one sentence
	XLabel string   `json:"x_label"`
	YLabel string   `json:"y_label"`
	Series []series `json:"series"`
	Bands  []band   `json:"bands,omitempty"`
	Rules  []rule   `json:"rules,omitempty"`
	// Marks are vertical rules at an x, each labelled at the plot's top
	// (the index's change points).
	Marks []mark `json:"marks,omitempty"`
	Note  string `json:"note,omitempty"`
	// Y2Label names the right-hand axis of the series with axis2 set.
	Y2Label string `json:"y2_label,omitempty"`

	xAxis, yAxis, y2Axis axisSpec
	strips               []string    // labels of the strip rows above the plot; bands with strip > 0 go there
	cats                 []string    // categorical x axis: labels of x = 0, 1, 2, ...
	cats2                []string    // a second line under each category label, drawn where it fits
	keys                 []legendKey // legend entries that are no series: what dot colours mean
	empty                string      // what the plot says without data, instead of "no data"
	width                int
	height               int
}

// series is one line, step line, set of bars or points. Y[i] nil is NULL.
type series struct {
	Label  string     `json:"label"`
	Run    string     `json:"run,omitempty"`
	Metric string     `json:"metric"`
	Kind   string     `json:"kind"` // step, line, bars, points (joined), scatter (dots only)
	X      []float64  `json:"x"`
	XEnd   []float64  `json:"x_end,omitempty"` // step and bars: end of each interval
	Y      []*float64 `json:"y"`
	N      []int64    `json:"n,omitempty"` // points: sample size, drawn as dot area
	// Hollow marks scatter dots drawn as rings (a window without backlog).
	Hollow []bool `json:"hollow,omitempty"`

	color  drawing.Color
	dash   []float64
	width  float64
	slot   int // bars: which of slots side-by-side bars this series draws
	slots  int
	colors []drawing.Color // points: per-point colour overriding color
	axis2  bool            // plotted against the right-hand axis
	// base stacks bars: bar i stands on base[i] (the series below it)
	// instead of on 0; Y stays the series' own value.
	base []float64
}

// legendKey is a legend entry for a dot colour.
type legendKey struct {
	label string
	color drawing.Color
	ring  bool // a hollow dot
}

// band shades the x interval [X0, X1]: full plot height when Strip is 0,
// else the strip row Strip (1-based) above the plot; between Y0 and Y1
// when both are set (a noise band). Value in 0..1 sets opacity.
type band struct {
	Run   string   `json:"run,omitempty"`
	X0    float64  `json:"x0"`
	X1    float64  `json:"x1"`
	Y0    *float64 `json:"y0,omitempty"`
	Y1    *float64 `json:"y1,omitempty"`
	Value float64  `json:"value"`
	Strip int      `json:"strip,omitempty"`

	color drawing.Color
}

// rule is a horizontal reference line with a label at its right end.
type rule struct {
	Label string  `json:"label"`
	Y     float64 `json:"y"`

	color drawing.Color
	dash  []float64
}

// mark is a vertical reference line at X with a label at its top.
type mark struct {
	Label string  `json:"label"`
	X     float64 `json:"x"`

	color drawing.Color
}

// axisSpec fixes an axis range (nil ends come from the data) and how ticks read.
type axisSpec struct {
	min, max *float64
	percent  bool // values are fractions shown as %
	zero     bool // the range includes 0
	log      bool // logarithmic; values ≤ 0 sit at the axis' low end
	seconds  bool // values are seconds, ticks read "10 ms", "1 s"
}

// Palette. Baseline blue and candidate orange stay distinguishable for the
// common colour-vision deficiencies and in greyscale print (different lightness).
var (
	colBaseline  = drawing.ColorFromHex("3B6EA8")
	colCandidate = drawing.ColorFromHex("E8801A")
	colSecond    = drawing.ColorFromHex("2A9D8F")
	colGood      = drawing.ColorFromHex("2E8B57")
	colBad       = drawing.ColorFromHex("C23B22")
	colWarn      = drawing.ColorFromHex("C98A00")
	colGap       = drawing.ColorFromHex("D62728")
	colText      = drawing.ColorFromHex("222222")
	colMuted     = drawing.ColorFromHex("666666")
	colGrid      = drawing.ColorFromHex("E6E6E6")
	colAxis      = drawing.ColorFromHex("888888")
	colCap       = drawing.ColorFromHex("444444")
	colWhite     = drawing.ColorFromHex("FFFFFF")
	colNone      = drawing.ColorFromHex("8C959F")
	dashed       = []float64{9, 5}
	dotted       = []float64{3, 4}
)

// hasData reports whether any series has a finite point.
func (f *figure) hasData() bool {
	for _, s := range f.Series {
		for i, y := range s.Y {
			if _, ok := finite(y); ok && i < len(s.X) && !math.IsNaN(s.X[i]) && !math.IsInf(s.X[i], 0) {
				return true
			}
		}
	}
	return false
}

// painter draws text and shapes on a go-chart renderer.
type painter struct {
	r    chart.Renderer
	font *truetype.Font
}

func (p *painter) setFont(size float64, c drawing.Color) {
	p.r.SetFont(p.font)
	p.r.SetFontSize(size)
	p.r.SetFontColor(c)
}

func (p *painter) measure(s string, size float64) (w, h int) {
	p.setFont(size, colText)
	b := p.r.MeasureText(s)
	return b.Width(), b.Height()
}

// text draws s with its baseline at y; align 0 left, 1 centre, 2 right of x.
func (p *painter) text(s string, x, y int, size float64, c drawing.Color, align int) {
	w, _ := p.measure(s, size)
	switch align {
	case 1:
		x -= w / 2
	case 2:
		x -= w
	}
	p.setFont(size, c)
	p.r.Text(s, x, y)
}

// vtext draws s rotated to read bottom to top, centred on y, ascending to the left of x.
func (p *painter) vtext(s string, x, y int, size float64, c drawing.Color) {
	w, _ := p.measure(s, size)
	p.setFont(size, c)
	p.r.SetTextRotation(-math.Pi / 2)
	p.r.Text(s, x, y+w/2)
	p.r.ClearTextRotation()
}

// rect fills [x0,x1)×[y0,y1) with c (c may be translucent).
func (p *painter) rect(x0, y0, x1, y1 int, c drawing.Color) {
	if x1 <= x0 || y1 <= y0 {
		return
	}
	p.r.SetFillColor(c)
	p.r.MoveTo(x0, y0)
	p.r.LineTo(x1, y0)
	p.r.LineTo(x1, y1)
	p.r.LineTo(x0, y1)
	p.r.Close()
	p.r.Fill()
}

// polyline strokes a path through pts.
func (p *painter) polyline(pts [][2]int, c drawing.Color, width float64, dash []float64) {
	if len(pts) < 2 {
		return
	}
	p.r.SetStrokeColor(c)
	p.r.SetStrokeWidth(width)
	p.r.SetStrokeDashArray(dash)
	p.r.MoveTo(pts[0][0], pts[0][1])
	for _, q := range pts[1:] {
		p.r.LineTo(q[0], q[1])
	}
	p.r.Stroke()
	p.r.SetStrokeDashArray(nil)
}

func (p *painter) dot(x, y int, radius float64, fill, stroke drawing.Color) {
	p.r.SetFillColor(fill)
	p.r.SetStrokeColor(stroke)
	p.r.SetStrokeWidth(1.5)
	p.r.SetStrokeDashArray(nil)
	p.r.Circle(radius, x, y)
	p.r.FillStroke()
}

// scale maps data values to pixels.
type scale struct {
	lo, hi  float64 // data
	p0, p1  int     // pixels
	ticks   []float64
	step    float64
	percent bool
	seconds bool
	log     bool
	cats    []string
}

func (s scale) px(v float64) int {
	if s.hi == s.lo {
		return s.p0
	}
	if s.log {
		v = math.Max(v, s.lo) // 0 and below: at the low end
		return s.p0 + int(math.Round(math.Log10(v/s.lo)/math.Log10(s.hi/s.lo)*float64(s.p1-s.p0)))
	}
	return s.p0 + int(math.Round((v-s.lo)/(s.hi-s.lo)*float64(s.p1-s.p0)))
}

// label formats a tick value with as many decimals as the tick step needs.
func (s scale) label(v float64) string {
	if s.cats != nil {
		i := int(math.Round(v))
		if i >= 0 && i < len(s.cats) {
			return s.cats[i]
		}
		return ""
	}
	if s.seconds {
		return fmtSeconds(v)
	}
	step := s.step
	if s.percent {
		v *= 100
		step *= 100
	}
	d := decimals(step)
	if math.Abs(v) < step*1e-9 {
		v = 0
	}
	out := group(strconv.FormatFloat(v, 'f', d, 64))
	if s.percent {
		out += " %"
	}
	return out
}

// decimals is the number of decimals that shows multiples of step exactly.
func decimals(step float64) int {
	for d := 0; d < 8; d++ {
		x := step * math.Pow(10, float64(d))
		if math.Abs(x-math.Round(x)) < 1e-6*math.Max(1, x) {
			return d
		}
	}
	return 8
}

// niceTicks returns a range covering [lo, hi] with round tick marks, about
// target of them.
func niceTicks(lo, hi float64, target int) (min, max, step float64, ticks []float64) {
	if math.IsNaN(lo) || math.IsNaN(hi) || math.IsInf(lo, 0) || math.IsInf(hi, 0) {
		lo, hi = 0, 1
	}
	if hi < lo {
		lo, hi = hi, lo
	}
	if hi == lo {
		if lo == 0 {
			hi = 1
		} else {
			d := math.Abs(lo) * 0.1
			lo, hi = lo-d, hi+d
		}
	}
	raw := (hi - lo) / float64(target)
	mag := math.Pow(10, math.Floor(math.Log10(raw)))
	step = 10 * mag
	for _, m := range []float64{1, 2, 2.5, 5, 10} {
		if m*mag >= raw*(1-1e-9) {
			step = m * mag
			break
		}
	}
	min = math.Floor(lo/step+1e-9) * step
	max = math.Ceil(hi/step-1e-9) * step
	n := int(math.Round((max - min) / step))
	for i := 0; i <= n; i++ {
		ticks = append(ticks, min+float64(i)*step)
	}
	return min, max, step, ticks
}

// extent returns the finite data range of f's x values and of the y values
// of the series on the left-hand axis (axis2 false) or the right-hand one.
func (f *figure) extent(axis2 bool) (x0, x1, y0, y1 float64, ok bool) {
	x0, y0 = math.Inf(1), math.Inf(1)
	x1, y1 = math.Inf(-1), math.Inf(-1)
	for _, s := range f.Series {
		if s.axis2 != axis2 {
			continue
		}
		for i := range s.X {
			y, yok := finite(s.Y[i])
			if !yok {
				continue
			}
			if i < len(s.base) {
				y += s.base[i]
			}
			ok = true
			x0, x1 = math.Min(x0, s.X[i]), math.Max(x1, s.X[i])
			if i < len(s.XEnd) {
				x1 = math.Max(x1, s.XEnd[i])
			}
			y0, y1 = math.Min(y0, y), math.Max(y1, y)
		}
	}
	for _, b := range f.Bands {
		x0, x1 = math.Min(x0, b.X0), math.Max(x1, b.X1)
		if b.Y0 != nil && b.Y1 != nil && !axis2 && ok {
			y0, y1 = math.Min(y0, *b.Y0), math.Max(y1, *b.Y1)
		}
	}
	if !axis2 {
		for _, r := range f.Rules {
			y0, y1 = math.Min(y0, r.Y), math.Max(y1, r.Y)
		}
	}
	return x0, x1, y0, y1, ok
}

// hasAxis2 reports whether some series is drawn against the right-hand axis.
func (f *figure) hasAxis2() bool {
	for _, s := range f.Series {
		if s.axis2 {
			return true
		}
	}
	return false
}

// minPositiveX is the smallest x > 0 of a finite point, for a log axis.
func (f *figure) minPositiveX() (float64, bool) {
	m, ok := math.Inf(1), false
	for _, s := range f.Series {
		for i, x := range s.X {
			if _, yok := finite(s.Y[i]); yok && x > 0 && !math.IsInf(x, 0) {
				m, ok = math.Min(m, x), true
			}
		}
	}
	return m, ok
}

func (f *figure) size() (int, int) {
	w, h := f.width, f.height
	if w == 0 {
		w = chartWidth
	}
	if h == 0 {
		h = chartHeight
	}
	return w, h
}

// Font sizes in points at chartDPI.
const (
	titleSize  = 15.0
	labelSize  = 11.5
	tickSize   = 10.5
	legendSize = 10.5
	noteSize   = 9.5
)

// render draws f as a PNG. The same figure always gives the same bytes.
func (f *figure) render() ([]byte, error) {
	w, h := f.size()
	r, err := chart.PNG(w, h)
	if err != nil {
		return nil, fmt.Errorf("chart %s: %w", f.Name, err)
	}
	r.SetDPI(chartDPI)
	font, err := chart.GetDefaultFont()
	if err != nil {
		return nil, fmt.Errorf("chart %s: font: %w", f.Name, err)
	}
	p := &painter{r: r, font: font}
	p.rect(0, 0, w, h, colWhite)

	// Title, then the legend on the line below it.
	_, th := p.measure("Mg", titleSize)
	p.text(f.Title, 16, 10+th, titleSize, colText, 0)
	top := 10 + th + 10
	hasData := f.hasData()
	if hasData {
		top = f.drawLegend(p, 16, top, w-16)
	}
	top += 12

	x0, x1, y0, y1, _ := f.extent(false)
	if !hasData {
		x0, x1, y0, y1 = 0, 1, 0, 1
	}
	if f.xAxis.log {
		if m, ok := f.minPositiveX(); ok && hasData {
			x0 = m
		} else {
			x0, x1 = 0.001, 1
		}
	}
	xs := f.scaleFor(f.xAxis, x0, x1, xTicks)
	ys := f.scaleFor(f.yAxis, y0, y1, yTicks)
	axis2 := hasData && f.hasAxis2()
	var ys2 scale
	if axis2 {
		_, _, a, b, _ := f.extent(true)
		ys2 = f.scaleFor(f.y2Axis, a, b, yTicks)
	}

	// Margins: y tick labels and the rotated y label on the left; x tick
	// labels and the x label below.
	_, lh := p.measure("Mg", labelSize)
	tw := 0
	for _, t := range ys.ticks {
		tw = max(tw, first(p.measure(ys.label(t), tickSize)))
	}
	left := 16 + lh + 10 + tw + 8
	for _, s := range f.strips {
		left = max(left, 16+first(p.measure(s, noteSize))+8)
	}
	right := w - 24
	if axis2 {
		tw2 := 0
		for _, t := range ys2.ticks {
			tw2 = max(tw2, first(p.measure(ys2.label(t), tickSize)))
		}
		right = w - (16 + lh + 10 + tw2 + 8)
	}
	_, tkh := p.measure("0", tickSize)
	bottom := h - (10 + lh + 10 + tkh + 8)
	if hasText(f.cats2) {
		bottom -= tkh + 6
	}
	stripH, stripGap := 13, 4
	if len(f.strips) > 0 {
		top += len(f.strips)*(stripH+stripGap) + 10
	}
	top += 4
	xs.p0, xs.p1 = left, right
	ys.p0, ys.p1 = bottom, top
	ys2.p0, ys2.p1 = bottom, top

	// Grid, bands, series, rules, axes.
	if hasData {
		for _, t := range ys.ticks {
			y := ys.px(t)
			p.rect(left, y, right, y+1, colGrid)
			p.text(ys.label(t), left-8, y+tkh/2, tickSize, colMuted, 2)
		}
		f.drawXTicks(p, xs, bottom, tkh)
		if axis2 {
			for _, t := range ys2.ticks {
				y := ys2.px(t)
				p.rect(right, y, right+5, y+1, colAxis)
				p.text(ys2.label(t), right+8, y+tkh/2, tickSize, colMuted, 0)
			}
		}
	}
	for i, s := range f.strips {
		sy := stripY(top, i, len(f.strips), stripH, stripGap)
		p.rect(left, sy, right, sy+stripH, drawing.ColorFromHex("F4F4F4"))
		p.text(s, left-8, sy+stripH-2, noteSize, colMuted, 2)
	}
	ref := 0.1
	for _, b := range f.Bands {
		ref = math.Max(ref, b.Value)
	}
	for _, b := range f.Bands {
		bx0, bx1 := xs.px(b.X0), xs.px(b.X1)
		if bx1 <= bx0 {
			bx1 = bx0 + 1
		}
		c := b.color.WithAlpha(uint8(math.Round(255 * bandAlpha(b.Value, ref))))
		if b.Y0 != nil && b.Y1 != nil {
			p.rect(bx0, ys.px(*b.Y1), bx1, ys.px(*b.Y0), c)
			continue
		}
		if b.Strip == 0 {
			p.rect(bx0, top, bx1, bottom, c)
			continue
		}
		sy := stripY(top, b.Strip-1, len(f.strips), stripH, stripGap)
		p.rect(bx0, sy, bx1, sy+stripH, c)
	}
	var paths [][][2]int // every drawn line, in pixels, for placing labels
	for i := range f.Series {
		sc := ys
		if f.Series[i].axis2 && axis2 {
			sc = ys2
		}
		f.drawSeries(p, &f.Series[i], xs, sc)
		paths = append(paths, seriesPaths(&f.Series[i], xs, sc)...)
	}
	var taken []box
	for _, mk := range f.Marks {
		x := xs.px(mk.X)
		p.polyline([][2]int{{x, top}, {x, bottom}}, mk.color, 1.5, dashed)
		if mk.Label == "" {
			continue
		}
		lw, lh := p.measure(mk.Label, noteSize)
		// Right of the line, at the top; left of it where it would run out.
		x0 := x + 4
		if x0+lw > right {
			x0 = x - 4 - lw
		}
		y1 := top + lh + 2
		p.rect(x0-1, top+1, x0+lw+1, y1+2, colWhite)
		p.text(mk.Label, x0, y1, noteSize, mk.color, 0)
		taken = append(taken, box{x0, top, x0 + lw, y1})
	}
	for _, rl := range f.Rules {
		y := ys.px(rl.Y)
		p.polyline([][2]int{{left, y}, {right, y}}, rl.color, 1.5, rl.dash)
		if rl.Label == "" {
			continue
		}
		lw, lh := p.measure(rl.Label, noteSize)
		b := placeLabel(lw, lh, y, left, right, top, bottom, paths, taken)
		taken = append(taken, b)
		p.text(rl.Label, b.x0, b.y1, noteSize, rl.color, 0)
	}
	p.rect(left, bottom, right+1, bottom+1, colAxis)
	p.rect(left-1, top, left, bottom+1, colAxis)
	if axis2 {
		p.rect(right, top, right+1, bottom+1, colAxis)
	}

	// Axis labels.
	p.text(f.XLabel, (left+right)/2, h-10, labelSize, colText, 1)
	p.vtext(f.YLabel, 16+lh, (top+bottom)/2, labelSize, colText)
	if axis2 {
		p.vtext(f.Y2Label, w-12, (top+bottom)/2, labelSize, colText)
	}

	if !hasData {
		msg := "no data"
		switch {
		case f.empty != "":
			msg = f.empty
		case f.Note != "" && len(f.Series) == 0:
			msg = f.Note
		}
		p.text(msg, (left+right)/2, (top+bottom)/2, titleSize, colMuted, 1)
	}

	var buf bytes.Buffer
	if err := r.Save(&buf); err != nil {
		return nil, fmt.Errorf("chart %s: encode: %w", f.Name, err)
	}
	return buf.Bytes(), nil
}

func first(a, _ int) int { return a }

// stripY is the top of strip row i of n above a plot whose top is top.
func stripY(top, i, n, h, gap int) int {
	return top - 14 - (n-i)*(h+gap) + gap
}

// bandAlpha maps a band's value (a fraction) to an opacity proportional to
// it: the largest value of the chart, or 10 % if none is larger, gets the
// darkest shade, light enough that lines stay visible through it.
func bandAlpha(v, ref float64) float64 {
	if math.IsNaN(v) || v <= 0 || ref <= 0 {
		return 0
	}
	return 0.45 * math.Min(v/ref, 1)
}

// About how many ticks each axis gets.
const (
	xTicks = 10
	yTicks = 6
)

func (f *figure) scaleFor(a axisSpec, lo, hi float64, target int) scale {
	if f.cats != nil && target == xTicks {
		return scale{lo: -0.5, hi: float64(len(f.cats)) - 0.5, cats: f.cats, step: 1, ticks: catTicks(len(f.cats))}
	}
	if a.log {
		return logScale(lo, hi, a)
	}
	if a.zero {
		lo, hi = math.Min(lo, 0), math.Max(hi, 0)
	}
	if a.min != nil {
		lo = *a.min
	}
	if a.max != nil {
		hi = math.Max(*a.max, lo)
	} else if target == yTicks && hi > lo && f.hasData() {
		hi += 0.03 * (hi - lo) // data never touches the top of the frame
	}
	if a.percent && hi-lo < minPercentSpan {
		// A flat rate gets a span of one percentage point around it, not
		// niceTicks' ±10 % of its value (which put 100 % on a 90–110 % axis).
		c := (lo + hi) / 2
		lo, hi = c-minPercentSpan/2, c+minPercentSpan/2
		if a.zero && lo < 0 && c >= 0 {
			lo, hi = 0, minPercentSpan
		}
		if a.max != nil && hi > *a.max {
			lo, hi = *a.max-minPercentSpan, *a.max
		}
	}
	mn, mx, step, ticks := niceTicks(lo, hi, target)
	// A fixed end stays where it is, with the ticks inside it.
	if a.min != nil && mn < *a.min {
		mn = *a.min
	}
	if a.max != nil && mx > *a.max {
		mx = *a.max
	}
	var in []float64
	for _, t := range ticks {
		if t >= mn-step*1e-9 && t <= mx+step*1e-9 {
			in = append(in, t)
		}
	}
	return scale{lo: mn, hi: mx, step: step, ticks: in, percent: a.percent, seconds: a.seconds}
}

// minPercentSpan is the narrowest range of a percent axis: one percentage point.
const minPercentSpan = 0.01

// logScale covers [lo, hi] (lo > 0) with 1-2-5 ticks, at most four decades
// below hi so that one tiny value does not squash the rest.
func logScale(lo, hi float64, a axisSpec) scale {
	if !(hi > 0) || math.IsInf(hi, 0) {
		lo, hi = 0.001, 1
	}
	lo = math.Max(lo, hi*1e-4)
	if !(lo > 0) || lo >= hi {
		lo = hi / 10
	}
	var cands []float64
	for e := math.Floor(math.Log10(lo)); e <= math.Ceil(math.Log10(hi)); e++ {
		for _, m := range []float64{1, 2, 5} {
			cands = append(cands, m*math.Pow(10, e))
		}
	}
	mn, mx := cands[0], cands[len(cands)-1]
	for _, c := range cands {
		if c <= lo*(1+1e-9) {
			mn = c
		}
	}
	for i := len(cands) - 1; i >= 0; i-- {
		if cands[i] >= hi*(1-1e-9) {
			mx = cands[i]
		}
	}
	var ticks []float64
	for _, c := range cands {
		if c >= mn && c <= mx {
			ticks = append(ticks, c)
		}
	}
	// Too many ticks for a readable axis: keep decades only.
	if len(ticks) > 12 {
		var dec []float64
		for _, t := range ticks {
			if l := math.Log10(t); math.Abs(l-math.Round(l)) < 1e-9 {
				dec = append(dec, t)
			}
		}
		ticks = dec
	}
	return scale{lo: mn, hi: mx, ticks: ticks, log: true, seconds: a.seconds, percent: a.percent, step: mn}
}

func hasText(ss []string) bool {
	for _, s := range ss {
		if s != "" {
			return true
		}
	}
	return false
}

func catTicks(n int) []float64 {
	t := make([]float64, n)
	for i := range t {
		t[i] = float64(i)
	}
	return t
}

// drawXTicks draws x tick marks and labels, skipping labels that would overlap.
func (f *figure) drawXTicks(p *painter, xs scale, bottom, tkh int) {
	lastRight := math.MinInt
	for i, t := range xs.ticks {
		x := xs.px(t)
		label := xs.label(t)
		lw, _ := p.measure(label, tickSize)
		if xs.cats == nil {
			p.rect(x, xs.p1, x+1, bottom, colGrid)
		}
		p.rect(x, bottom, x+1, bottom+5, colAxis)
		if x-lw/2 <= lastRight+8 && i > 0 {
			continue
		}
		p.text(label, x, bottom+8+tkh, tickSize, colMuted, 1)
		lastRight = x + lw/2
	}
	// The second line (a run's name under its date) only where it fits
	// between its neighbours' labels.
	if xs.cats == nil || len(f.cats2) != len(xs.cats) || len(xs.ticks) == 0 {
		return
	}
	slot := xs.px(1) - xs.px(0)
	if len(xs.ticks) == 1 {
		slot = xs.p1 - xs.p0
	}
	for i, t := range xs.ticks {
		name := f.cats2[i]
		if name == "" {
			continue
		}
		if lw, _ := p.measure(name, tickSize); lw+8 <= slot {
			p.text(name, xs.px(t), bottom+8+2*tkh+6, tickSize, colMuted, 1)
		}
	}
}

// box is a rectangle of pixels.
type box struct{ x0, y0, x1, y1 int }

func (b box) hits(pts [][2]int) bool {
	for k := 1; k < len(pts); k++ {
		a, c := pts[k-1], pts[k]
		// Sample the segment every 2 px: exact enough for a label's box.
		n := max(abs(c[0]-a[0]), abs(c[1]-a[1]))/2 + 1
		for j := 0; j <= n; j++ {
			x := a[0] + (c[0]-a[0])*j/n
			y := a[1] + (c[1]-a[1])*j/n
			if x >= b.x0 && x <= b.x1 && y >= b.y0 && y <= b.y1 {
				return true
			}
		}
	}
	if len(pts) == 1 {
		x, y := pts[0][0], pts[0][1]
		return x >= b.x0-4 && x <= b.x1+4 && y >= b.y0-4 && y <= b.y1+4
	}
	return false
}

func (b box) overlaps(o box) bool {
	return b.x0 <= o.x1 && o.x0 <= b.x1 && b.y0 <= o.y1 && o.y0 <= b.y1
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// placeLabel finds where a rule's label of w×h pixels at height y touches no
// data line and no other label: just above the rule, else just below it, at
// the right end first, then the left, then further in. With no free place it
// takes the right end above the rule.
func placeLabel(w, h, y, left, right, top, bottom int, paths [][][2]int, taken []box) box {
	const pad = 5 // clear of a line's stroke by a few pixels
	xs := []int{right - 6 - w, left + 6}
	for _, f := range []float64{0.75, 0.25, 0.5, 0.875, 0.125, 0.625, 0.375} {
		xs = append(xs, left+int(f*float64(right-left))-w/2)
	}
	for _, above := range []bool{true, false} {
		y1 := y - 5 // text baseline above the rule
		if !above {
			y1 = y + h + 5
		}
		if y1-h < top || y1 > bottom {
			continue
		}
		for _, x := range xs {
			b := box{x, y1 - h, x + w, y1}
			pb := box{b.x0 - pad, b.y0 - pad, b.x1 + pad, b.y1 + pad}
			free := true
			for _, t := range taken {
				free = free && !pb.overlaps(t)
			}
			for _, pts := range paths {
				if !free {
					break
				}
				free = !pb.hits(pts)
			}
			if free {
				return b
			}
		}
	}
	y1 := max(y-5, top+h)
	return box{right - 6 - w, y1 - h, right - 6, y1}
}

// drawLegend lays out the series legend (and the note) from x, wrapping at
// maxX; it returns the y below it.
func (f *figure) drawLegend(p *painter, x, y, maxX int) int {
	type entry struct {
		label string
		color drawing.Color
		dash  []float64
		box   bool
		dot   bool
		key   bool // a dot colour only
		ring  bool // a hollow dot
		run   string
	}
	var es []entry
	seen := map[string]bool{}
	for _, s := range f.Series {
		if s.Label == "" || seen[s.Label] {
			continue
		}
		seen[s.Label] = true
		es = append(es, entry{label: s.Label, color: s.color, dash: s.dash, box: s.Kind == "bars", dot: s.Kind == "points", key: s.Kind == "scatter", run: s.Run})
	}
	for _, k := range f.keys {
		es = append(es, entry{label: k.label, color: k.color, key: true, ring: k.ring, run: "key"})
	}
	_, lh := p.measure("Mg", legendSize)
	cx, cy := x, y+lh
	rows := 0
	if len(es) > 0 {
		rows = 1
	}
	multiRun := len(es) > 2 && es[0].run != es[len(es)-1].run
	for i, e := range es {
		lw, _ := p.measure(e.label, legendSize)
		need := 30 + 6 + lw + 22
		// One row per run when runs have several series each.
		newRun := multiRun && i > 0 && e.run != es[i-1].run
		if (cx+need > maxX || newRun) && cx > x {
			cx, cy = x, cy+lh+8
			rows++
		}
		mid := cy - lh/2 + 1
		switch {
		case e.ring:
			p.dot(cx+15, mid, 4.5, colWhite, e.color)
		case e.key:
			p.dot(cx+15, mid, 5, e.color, colWhite)
		case e.box:
			p.rect(cx+4, mid-6, cx+26, mid+6, e.color)
		case e.dot:
			p.polyline([][2]int{{cx, mid}, {cx + 30, mid}}, e.color, 2, nil)
			p.dot(cx+15, mid, 4.5, e.color, colWhite)
		default:
			p.polyline([][2]int{{cx, mid}, {cx + 30, mid}}, e.color, 2.5, e.dash)
		}
		p.text(e.label, cx+36, cy, legendSize, colText, 0)
		cx += need
	}
	if f.Note != "" && f.hasData() {
		nw, _ := p.measure(f.Note, noteSize)
		if rows == 0 || cx+nw > maxX {
			if rows > 0 {
				cy += lh + 8
			}
			cx = x
		}
		p.text(f.Note, max(cx, maxX-nw), cy, noteSize, colMuted, 0)
		if rows == 0 {
			rows = 1
		}
	}
	if rows == 0 {
		return y
	}
	return cy + 6
}

func (f *figure) drawSeries(p *painter, s *series, xs, ys scale) {
	width := s.width
	if width == 0 {
		width = 2.5
	}
	switch s.Kind {
	case "bars":
		slots := max(s.slots, 1)
		for i := range s.X {
			y, ok := finite(s.Y[i])
			if !ok || i >= len(s.XEnd) {
				continue
			}
			a, b := xs.px(s.X[i]), xs.px(s.XEnd[i])
			wpx := b - a
			if wpx >= 6 {
				a++ // a hairline between neighbouring windows
				wpx -= 2
			}
			sw := max(wpx/slots, 1)
			a += s.slot * sw
			bottom := ys.p0
			if i < len(s.base) {
				bottom = ys.px(s.base[i])
				y += s.base[i]
				if y <= s.base[i] {
					continue // an empty layer of a stack draws nothing
				}
			}
			top := ys.px(y)
			if top >= bottom && y > 0 {
				top = bottom - 1 // a non-zero bar is never invisible
			}
			p.rect(a, top, a+sw, bottom, s.color)
		}
	case "points":
		var maxN int64 = 1
		for _, n := range s.N {
			maxN = max(maxN, n)
		}
		var path [][2]int
		for i := range s.X {
			y, ok := finite(s.Y[i])
			if !ok {
				continue
			}
			path = append(path, [2]int{xs.px(s.X[i]), ys.px(y)})
		}
		p.polyline(path, s.color.WithAlpha(150), 1.5, nil)
		k := 0
		for i := range s.X {
			if _, ok := finite(s.Y[i]); !ok {
				continue
			}
			radius := 4.5
			if i < len(s.N) {
				radius = 3 + 6*math.Sqrt(float64(s.N[i])/float64(maxN))
			}
			c := s.color
			if i < len(s.colors) {
				c = s.colors[i]
			}
			p.dot(path[k][0], path[k][1], radius, c, colWhite)
			k++
		}
	case "scatter":
		for i := range s.X {
			y, ok := finite(s.Y[i])
			if !ok || math.IsNaN(s.X[i]) || math.IsInf(s.X[i], 0) {
				continue
			}
			x, py := xs.px(s.X[i]), ys.px(y)
			if i < len(s.Hollow) && s.Hollow[i] {
				p.dot(x, py, 4.5, colWhite, s.color)
				continue
			}
			p.dot(x, py, 5, s.color.WithAlpha(210), colWhite)
		}
	case "step":
		var path [][2]int
		flush := func() {
			if len(path) == 1 {
				p.dot(path[0][0], path[0][1], 2.5, s.color, s.color)
			}
			p.polyline(path, s.color, width, s.dash)
			path = path[:0]
		}
		for i := range s.X {
			y, ok := finite(s.Y[i])
			if !ok {
				flush()
				continue
			}
			end := s.X[i]
			if i < len(s.XEnd) {
				end = s.XEnd[i]
			}
			if len(path) > 0 && i > 0 && i-1 < len(s.XEnd) && math.Abs(s.XEnd[i-1]-s.X[i]) > 1e-9 {
				flush() // windows are not contiguous
			}
			py := ys.px(y)
			path = append(path, [2]int{xs.px(s.X[i]), py})
			if xs.px(end) != xs.px(s.X[i]) {
				path = append(path, [2]int{xs.px(end), py})
			}
		}
		flush()
	default: // line
		var path [][2]int
		for i := range s.X {
			y, ok := finite(s.Y[i])
			if !ok {
				if len(path) == 1 {
					p.dot(path[0][0], path[0][1], 2.5, s.color, s.color)
				}
				p.polyline(path, s.color, width, s.dash)
				path = path[:0]
				continue
			}
			path = append(path, [2]int{xs.px(s.X[i]), ys.px(y)})
		}
		if len(path) == 1 {
			p.dot(path[0][0], path[0][1], 2.5, s.color, s.color)
		}
		p.polyline(path, s.color, width, s.dash)
	}
}

// seriesPaths are the pixel polylines drawSeries draws for s (bars as their
// outline, points as single-point paths), for keeping labels off the data.
func seriesPaths(s *series, xs, ys scale) [][][2]int {
	var out [][][2]int
	var path [][2]int
	flush := func() {
		if len(path) > 0 {
			out = append(out, path)
		}
		path = nil
	}
	for i := range s.X {
		y, ok := finite(s.Y[i])
		if !ok {
			flush()
			continue
		}
		x0, py := xs.px(s.X[i]), ys.px(y)
		switch s.Kind {
		case "bars":
			if i < len(s.XEnd) {
				x1 := xs.px(s.XEnd[i])
				out = append(out, [][2]int{{x0, ys.p0}, {x0, py}, {x1, py}, {x1, ys.p0}})
			}
		case "points":
			out = append(out, [][2]int{{x0, py}})
			path = append(path, [2]int{x0, py})
		case "scatter":
			out = append(out, [][2]int{{x0, py}})
		case "step":
			if len(path) > 0 && i > 0 && i-1 < len(s.XEnd) && math.Abs(s.XEnd[i-1]-s.X[i]) > 1e-9 {
				flush()
			}
			path = append(path, [2]int{x0, py})
			if i < len(s.XEnd) {
				path = append(path, [2]int{xs.px(s.XEnd[i]), py})
			}
		default:
			path = append(path, [2]int{x0, py})
		}
	}
	flush()
	return out
}
