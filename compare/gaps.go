package compare

import (
	"fmt"
	"strings"

	"github.com/tpsreport/tpsreport/schemas"
)

// Gap causes (docs/metrics.md "Where the idle time comes from"), in the order
// analyze attributes them.
const (
	EngineGap       = "engine_gap"
	AdmissionGap    = "admission_gap"
	ImbalanceGap    = "imbalance_gap"
	UnattributedGap = "unattributed_gap"
)

// GapCauseNames lists the causes in attribution order.
var GapCauseNames = []string{EngineGap, AdmissionGap, ImbalanceGap, UnattributedGap}

// GapCauseText says what a cause means, for a sentence: "68 % of the idle
// time was requests held at the gateway while engines had free slots".
var GapCauseText = map[string]string{
	EngineGap:       "requests held in an engine's queue while it had free slots",
	AdmissionGap:    "requests held before an engine's queue (at the gateway or in the engine's frontend) while engines had free slots",
	ImbalanceGap:    "requests queued at full replicas while other replicas had free slots",
	UnattributedGap: "requests whose logs do not say where they waited",
}

// causeTimes are a run's gap seconds by cause, in GapCauseNames order.
func causeTimes(m schemas.Metrics) [4]float64 {
	return [4]float64{m.EngineGapTime, m.AdmissionGapTime, m.ImbalanceGapTime, m.UnattributedGapTime}
}

// pooledCauses sums the windows' gap seconds by cause and their seconds.
func pooledCauses(ws []schemas.Metrics) (causes [4]float64, gap, secs float64) {
	for _, w := range ws {
		c := causeTimes(w)
		for i := range causes {
			causes[i] += c[i]
		}
		gap += w.GapTime
		secs += w.WindowSeconds
	}
	return causes, gap, secs
}

// gapCauses compares the causes of the idle time over the backlog windows of
// each run (bb, cb), the scope of the gap_fraction criterion. A run without
// backlog windows had no idle time under load: every cause 0.
func gapCauses(bb, cb []schemas.Metrics) []schemas.GapCause {
	if len(bb) == 0 {
		return nil
	}
	bc, bg, bs := pooledCauses(bb)
	cc, cg, cs := pooledCauses(cb)
	out := make([]schemas.GapCause, len(GapCauseNames))
	for i, name := range GapCauseNames {
		g := schemas.GapCause{Cause: name, Baseline: frac(bc[i], bs), Candidate: frac(cc[i], cs)}
		g.Diff = g.Candidate - g.Baseline
		if bg > 0 {
			s := bc[i] / bg
			g.BaselineShare = &s
		}
		if cg > 0 {
			s := cc[i] / cg
			g.CandidateShare = &s
		}
		out[i] = g
	}
	return out
}

func frac(a, b float64) float64 {
	if b <= 0 {
		return 0
	}
	return a / b
}

// causeSentence says where each run's idle time came from: the largest
// cause's share of it, and a cause that grew by more than the tolerance
// while the whole fell (idle time moved, not removed). "" when neither run
// had idle time.
func causeSentence(causes []schemas.GapCause, tolerance float64) string {
	if len(causes) == 0 {
		return ""
	}
	side := func(name string, share func(schemas.GapCause) *float64) string {
		best, bestShare := -1, 0.0
		for i, g := range causes {
			if s := share(g); s != nil && *s > bestShare {
				best, bestShare = i, *s
			}
		}
		if best < 0 {
			return "the " + name + " had no idle time"
		}
		c := causes[best]
		return fmt.Sprintf("%s of the %s's idle time was %s (%s)", sharePct(bestShare), name, GapCauseText[c.Cause], c.Cause)
	}
	var parts []string
	parts = append(parts, side("baseline", func(g schemas.GapCause) *float64 { return g.BaselineShare }))
	parts = append(parts, side("candidate", func(g schemas.GapCause) *float64 { return g.CandidateShare }))
	for _, g := range causesRose(causes, tolerance) {
		parts = append(parts, fmt.Sprintf("%s rose from %s to %s of the time: part of the idle time moved rather than went", g.Cause, pct(g.Baseline), pct(g.Candidate)))
	}
	s := strings.Join(parts, "; ") + "."
	return strings.ToUpper(s[:1]) + s[1:]
}

// causesRose lists the causes that rose by more than tolerance (a fraction
// of the backlog windows' time) while the idle time as a whole fell: idle
// time that moved from one cause to another rather than went (a fix must
// remove idle slots, not shift them: docs/acceptance.md).
func causesRose(causes []schemas.GapCause, tolerance float64) []schemas.GapCause {
	var total float64
	for _, g := range causes {
		total += g.Diff
	}
	var out []schemas.GapCause
	for _, g := range causes {
		if total < 0 && g.Diff > tolerance {
			out = append(out, g)
		}
	}
	return out
}

// sharePct writes a share as a whole percentage ("all" at 1).
func sharePct(s float64) string {
	if s >= 1 {
		return "all"
	}
	return fmt.Sprintf("%.0f %%", 100*s)
}
