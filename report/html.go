package report

import (
	"embed"
	"encoding/base64"
	"fmt"
	"html/template"
	"io"
	"strings"

	"github.com/tpsreport/tpsreport/schemas"
)

//go:embed templates/*.html templates/style.css
var templateFS embed.FS

// templates are parsed once; a broken template fails every test of the package.
var templates = template.Must(template.New("report").Funcs(template.FuncMap{
	"vclass":   verdictClass,
	"upper":    strings.ToUpper,
	"shortsha": shortSHA,
	"count":    fmtCount,
	"wbr":      wbr,
}).ParseFS(templateFS, "templates/*.html"))

// stylesheet is inlined into every page.
var stylesheet = func() template.CSS {
	b, err := templateFS.ReadFile("templates/style.css")
	if err != nil {
		panic(err)
	}
	return template.CSS(b)
}()

// verdictClass maps a verdict to its CSS class.
func verdictClass(v string) string {
	switch v {
	case schemas.Pass:
		return "pass"
	case schemas.Fail:
		return "fail"
	case schemas.Inconclusive:
		return "inconclusive"
	}
	return "none"
}

// wbr escapes a metric name and lets it break after "_" and ".", so that a
// narrow table column can wrap system_tps rather than overflow.
func wbr(s string) template.HTML {
	e := template.HTMLEscapeString(s)
	e = strings.ReplaceAll(e, "_", "_<wbr>")
	e = strings.ReplaceAll(e, ".", ".<wbr>")
	return template.HTML(e)
}

func shortSHA(s string) string {
	if len(s) > 12 {
		return s[:12] + "…"
	}
	return s
}

// htmlFigure is a figure with its PNG as a data URI.
type htmlFigure struct {
	*figure
	Src template.URL
}

// htmlPage is what templates/report.html renders.
type htmlPage struct {
	*document
	CSS     template.CSS
	Figures []htmlFigure
	Compare bool
	// Guard thresholds, for the sentence on guards that did not fire.
	MinBacklog    int
	LoadMismatch  string
	TokenMismatch string // "" for a verdict written before the token-mix guard
}

// dataURI embeds a PNG in the page; the bytes are ours, so the URL is trusted.
func dataURI(png []byte) template.URL {
	return template.URL("data:image/png;base64," + base64.StdEncoding.EncodeToString(png))
}

// HTML writes report.html: one self-contained page, styles and charts inline,
// no script and no network reference. Every string from the logs is escaped.
func HTML(w io.Writer, in Input) error {
	d := newDocument(in)
	charts, err := renderFigures(d.Charts)
	if err != nil {
		return err
	}
	return writeHTML(w, d, charts)
}

func writeHTML(w io.Writer, d *document, charts []Chart) error {
	page := htmlPage{document: d, CSS: stylesheet, Compare: d.Mode == "compare"}
	crit := schemas.DefaultCriteria()
	// A verdict written before its settings were recorded has none.
	if d.Verdict != nil && d.Verdict.Settings.Confidence != 0 {
		crit = d.Verdict.Settings
	}
	page.MinBacklog, page.LoadMismatch = crit.MinBacklogWindows, fmtShortPercent(crit.LoadMismatch)
	if crit.TokenMismatch > 0 {
		page.TokenMismatch = fmtShortPercent(crit.TokenMismatch)
	}
	for i, f := range d.Charts {
		page.Figures = append(page.Figures, htmlFigure{figure: f, Src: dataURI(charts[i].PNG)})
	}
	if err := templates.ExecuteTemplate(w, "report.html", page); err != nil {
		return fmt.Errorf("render report.html: %w", err)
	}
	return nil
}

// Methods the templates call on the model.

// Last is the value of the last run: the candidate, or the only run.
func (r metricRow) Last() string { return r.Text[len(r.Text)-1] }

// First is the value of the first run: the baseline, or the only run.
func (r metricRow) First() string { return r.Text[0] }

// DirClass is the CSS class of the row's change.
func (r metricRow) DirClass() string {
	if r.Direction == "" {
		return "dir-none"
	}
	return "dir-" + r.Direction
}

// Arrow shows which way the value moved, so colour is never the only cue.
func (r metricRow) Arrow() string {
	switch {
	case r.Delta == nil:
		return ""
	case r.Direction == "same" || *r.Delta == 0:
		return "="
	case *r.Delta > 0:
		return "▲"
	}
	return "▼"
}
