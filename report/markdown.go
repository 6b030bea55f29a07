package report

import (
	"bufio"
	"fmt"
	"io"
	"strings"

	"github.com/tpsreport/tpsreport/schemas"
)

// maxMarkdownWarnings caps the warnings listed in summary.md so that it fits
// a review comment; report.html lists them all.
const maxMarkdownWarnings = 8

// Markdown writes summary.md: the verdict, the ten numbers that matter and
// the warnings, short enough for a review comment (under 60 lines). Values
// from the logs are escaped so that they cannot break the tables or inject
// markup.
func Markdown(w io.Writer, in Input) error {
	return writeMarkdown(w, newDocument(in))
}

func writeMarkdown(w io.Writer, d *document) error {
	bw := bufio.NewWriter(w)
	p := func(format string, a ...any) { fmt.Fprintf(bw, format+"\n", a...) }
	compare := d.Mode == "compare"

	// Title and context.
	if v := d.Verdict; v != nil {
		p("# %s %s: %s vs %s", verdictMark(v.Overall), v.Overall, mdEscape(d.Runs[0].RunID), mdEscape(d.Runs[1].RunID))
	} else if compare {
		p("# tpsreport: %s vs %s", mdEscape(d.Runs[0].RunID), mdEscape(d.Runs[1].RunID))
	} else {
		p("# tpsreport run report: %s", mdEscape(d.Runs[0].RunID))
	}
	p("")
	for _, r := range d.Runs {
		prefix := ""
		if compare {
			prefix = "**" + r.Role + "** "
		}
		capNote := ""
		if r.CapInferred {
			capNote = " ⚠️ inferred: gap metrics are lower bounds"
		}
		p("%s%s · %s · cap %s%s · records read %s, rejected %s%s, skipped %s%s<br>", prefix, mdEscape(r.TimeText), mdEscape(r.SpanText),
			mdEscape(r.CapText), capNote, fmtCount(r.Counts.Read), fmtCount(r.Counts.Rejected), mdReasons(r.RejectedBy),
			fmtCount(r.Counts.Skipped), mdReasons(r.SkippedBy))
	}
	p("")
	for _, f := range d.Findings {
		p("- %s", mdEscape(f))
	}
	if len(d.Findings) > 0 {
		p("")
	}

	// Verdict table.
	if v := d.Verdict; v != nil {
		p("%s", mdEscape(v.Headline))
		p("")
		p("| criterion | verdict | baseline | candidate | change | can see | judged | reason |")
		p("|---|---|--:|--:|---|---|---|---|")
		for _, c := range v.Criteria {
			change := c.Text.Change
			if c.Text.Interval != "" {
				change += ", " + c.Text.Interval
			}
			sees := strings.TrimPrefix(c.Text.Sees, "sees ")
			if sees == "" {
				sees = null
			}
			judged := mdEscape(c.ScopeText)
			if c.Key != "" {
				judged = "`" + c.Key + "` " + judged
			}
			reason := c.Reason
			if c.Cause != "" {
				reason += " " + c.Cause
			}
			p("| %s | %s %s | %s | %s | %s | %s | %s | %s |", mdEscape(c.Title), verdictMark(c.Verdict), mdEscape(c.Verdict),
				c.Text.Baseline, c.Text.Candidate, change, sees, judged, mdEscape(reason))
		}
		p("")
		if len(v.Off) > 0 {
			p("**Turned off:** %s (not judged, not counted in the overall verdict).", mdEscape(strings.Join(v.Off, ", ")))
			p("")
		}
		if cv := v.Canary; cv != nil {
			p("**Canary** of run %s, the same hours: %s", mdEscape(cv.Run), mdEscape(cv.Why))
			p("")
			p("| group | chosen by | replicas | spans | requests a replica |")
			p("|---|---|---|--:|--:|")
			for _, g := range cv.Groups {
				p("| %s | `%s` | %s | %s | %s |", g.Role, g.Selectors, mdEscape(g.Replicas), g.Spans, g.RequestsPerReplica)
			}
			p("")
			if cv.Unassigned != "" || cv.Pairing != "" {
				p("%s", mdEscape(strings.TrimSpace(cv.Unassigned+" "+cv.Pairing)))
				p("")
			}
		}
		if len(v.Guards) > 0 {
			p("**Guards:** %s", mdEscape(strings.Join(v.Guards, "; ")))
		} else {
			p("**Guards:** none fired.")
		}
		p("")
		if len(v.Notes) > 0 {
			p("**Notes** (no guards: what the criteria were computed over): %s", mdEscape(strings.Join(v.Notes, "; ")))
			p("")
		}
	} else {
		for _, n := range d.Notes {
			p("%s", mdEscape(n))
			p("")
		}
	}

	// The ten numbers.
	ms := make([]*schemas.Metrics, 0, len(d.runs))
	for _, rr := range d.runs {
		ms = append(ms, &rr.run.Summary.Metrics)
	}
	rows := metricRows(summaryKeys, ms)
	if compare {
		p("| metric, whole run | baseline | candidate | change |")
		p("|---|--:|--:|---|")
		for _, r := range rows {
			change := null
			if r.Delta != nil {
				change = r.Arrow() + " " + r.DeltaText
				if r.RelativeText != "" {
					change += " (" + r.RelativeText + ")"
				}
				if r.Direction == "better" || r.Direction == "worse" {
					change += " · " + r.Direction
				}
			}
			p("| `%s` | %s | %s | %s |", r.Key, r.First(), r.Last(), change)
		}
	} else {
		p("| metric, whole run | value |")
		p("|---|--:|")
		for _, r := range rows {
			p("| `%s` | %s |", r.Key, r.Last())
		}
	}
	p("")
	if c := d.Cost; c != nil {
		writeCostMarkdown(p, c, compare)
	}
	if v := d.Disagg; v != nil {
		writeDisaggMarkdown(p, v)
	}
	if c := d.Capacity; c != nil {
		p("**Capacity plan.** %s", mdEscape(c.Heading))
		p("")
		for _, l := range c.Lines {
			p("- %s: %s", mdEscape(l.Run), mdEscape(l.Answer))
		}
		if c.Fewest != "" {
			p("- %s", mdEscape(c.Fewest))
		}
		p("")
	}
	for _, n := range engineOnlyNotes(d.runs) {
		p("⚠️ %s (`t_queue`, `ttft` and `gap_fraction` count the engine's queue alone).", mdEscape(upperFirst(n)))
		p("")
	}

	// Warnings.
	var warns []string
	for _, r := range d.Runs {
		for _, w := range r.Warnings {
			if compare {
				w = r.Role + ": " + w
			}
			warns = append(warns, w)
		}
		if !r.CountsReconcile {
			warns = append(warns, r.Role+": record counts do not reconcile (read ≠ written + rejected + skipped)")
		}
	}
	if len(warns) > 0 {
		p("**Warnings**")
		p("")
		for i, w := range warns {
			if i == maxMarkdownWarnings {
				p("- … and %d more in report.html", len(warns)-maxMarkdownWarnings)
				break
			}
			p("- %s", mdEscape(w))
		}
		p("")
	}

	version := d.Version
	if version == "" {
		version = "(version unknown)"
	}
	cmd := ""
	if d.Command != "" {
		cmd = " · " + mdCode(d.Command)
	}
	p("<sub>tpsreport %s%s · charts, facts and definitions in report.html</sub>", mdEscape(version), cmd)
	return bw.Flush()
}

// mdReasons shows counts by reason after a total: " (bad_json 52, bad_timestamp 29)".
func mdReasons(cs []countFact) string {
	if len(cs) == 0 {
		return ""
	}
	return " (" + mdEscape(reasonList(cs)) + ")"
}

func verdictMark(v string) string {
	switch v {
	case schemas.Pass:
		return "✅"
	case schemas.Fail:
		return "❌"
	case schemas.Inconclusive:
		return "⚠️"
	}
	return "•"
}

// mdEscaper makes text from the logs inert in GitHub-flavoured Markdown:
// table pipes, emphasis, code, links and HTML; @ is an entity so that a log
// value cannot mention anyone.
var mdEscaper = strings.NewReplacer(
	`\`, `\\`,
	"`", "\\`",
	"|", `\|`,
	"*", `\*`,
	"_", `\_`,
	"[", `\[`,
	"]", `\]`,
	"~", `\~`,
	"<", "&lt;",
	">", "&gt;",
	"&", "&amp;",
	"@", "&#64;",
	"\r\n", " ",
	"\n", " ",
	"\r", " ",
)

func mdEscape(s string) string { return mdEscaper.Replace(s) }

// mdCode puts s in a code span whose fence is longer than any backtick run in
// s. Pipes still end a table cell, so mdCode is for text outside tables.
func mdCode(s string) string {
	s = strings.NewReplacer("\r\n", " ", "\n", " ", "\r", " ").Replace(s)
	longest, run := 0, 0
	for _, r := range s {
		if r == '`' {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	fence := strings.Repeat("`", longest+1)
	if longest > 0 || strings.HasPrefix(s, "`") || strings.HasSuffix(s, "`") {
		return fence + " " + s + " " + fence
	}
	return fence + s + fence
}

// upperFirst capitalises the first letter of s.
func upperFirst(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// writeDisaggMarkdown writes the disaggregated serving section: the
// change's sentence and the budget's p95 per run (the p50s are in the
// report).
func writeDisaggMarkdown(p func(string, ...any), v *disaggView) {
	if v.Reason != "" {
		p("**Disaggregated serving:** %s", mdEscape(v.Reason))
		p("")
	}
	head := []string{"budget p95"}
	rule := []string{"---"}
	for _, r := range v.Runs {
		head, rule = append(head, mdEscape(r)), append(rule, "--:")
	}
	p("| %s |", strings.Join(head, " | "))
	p("|%s|", strings.Join(rule, "|"))
	for _, r := range v.Parts {
		cells := []string{"`" + r.Part + "`"}
		if r.Moved {
			cells[0] += " (moved most)"
		}
		for _, t := range r.P95 {
			cells = append(cells, mdEscape(t))
		}
		p("| %s |", strings.Join(cells, " | "))
	}
	p("")
}

// writeCostMarkdown writes the cost table: each figure per run, and its
// change in a comparison, after the headline.
func writeCostMarkdown(p func(string, ...any), c *costView, compare bool) {
	if c.Headline != "" {
		p("**Cost:** %s", mdEscape(c.Headline))
		p("")
	}
	if compare {
		p("| cost | baseline | candidate | change |")
		p("|---|--:|--:|---|")
	} else {
		p("| cost | value |")
		p("|---|--:|")
	}
	for _, r := range c.Rows {
		cells := make([]string, 0, len(r.Text)+1)
		for _, t := range r.Text {
			cells = append(cells, mdEscape(t))
		}
		if compare {
			cells = append(cells, r.ChangeText)
		}
		p("| `%s` | %s |", r.Key, strings.Join(cells, " | "))
	}
	p("")
}
