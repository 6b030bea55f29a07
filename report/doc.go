// Package report is the last stage of the pipeline: it renders the results of
// analyze (and the verdicts of a comparison) as one self-contained report.html,
// PNG charts, summary.md and report.json. It takes plain result structs from
// schemas and never imports analyze.
package report
