// Package report is the last stage of the pipeline: it renders the results of
// analyze (and the verdicts of a comparison) as one self-contained report.html,
// PNG charts, summary.md and report.json. It takes plain result structs from
// schemas and never imports analyze.
//
// One model (model.go) is built from an Input; report.json is that model,
// and report.html (html/template, templates/ embedded) and summary.md render
// it, so the three always show the same numbers. Charts (charts.go decides
// what each shows, plot.go draws it with go-chart's raster renderer) are PNG
// files and data URIs in the page. Output is deterministic: the same Input
// gives the same bytes. Write puts every file in place by rename, and
// WriteIndex writes the nightly ROOT/index.html across runs.
package report
