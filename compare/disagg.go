package compare

import (
	"fmt"
	"math"
	"slices"

	"github.com/tpsreport/tpsreport/internal/numfmt"
	"github.com/tpsreport/tpsreport/schemas"
)

// Disaggregation says how the two runs' disaggregated serving differs
// (docs/acceptance.md "Disaggregated serving"): each part of the latency
// budget and each worker role in both, the part whose p95 moved most (of
// the parts both runs' logs record) and the role whose mean queue moved
// most, in one sentence. nil unless both
// runs have stages. It is information and changes no verdict: a budget is
// a description of where time went, not a test of a change.
func Disaggregation(base, cand *schemas.Disaggregation) *schemas.DisaggChange {
	if base == nil || cand == nil {
		return nil
	}
	ch := &schemas.DisaggChange{Parts: []schemas.PartChange{}, Roles: []schemas.RoleChange{}}
	bestMove := 0.0
	for _, part := range schemas.BudgetParts {
		b, c := base.Budget[part], cand.Budget[part]
		pc := schemas.PartChange{Part: part, BaselineP50: b.P50, CandidateP50: c.P50, BaselineP95: b.P95, CandidateP95: c.P95}
		ch.Parts = append(ch.Parts, pc)
		// A part one run's logs do not record reads 0 there: a difference
		// of what was logged, not a move.
		if b.P95 != nil && c.P95 != nil && base.PartLogged(part) && cand.PartLogged(part) {
			if m := math.Abs(*c.P95 - *b.P95); m > bestMove {
				bestMove, ch.Stage = m, part
			}
		}
	}
	bestQueue, bestUtil, utilRole := 0.0, 0.0, ""
	for _, br := range base.Roles {
		i := slices.IndexFunc(cand.Roles, func(r schemas.RoleState) bool { return r.Role == br.Role })
		if i < 0 {
			continue
		}
		cr := cand.Roles[i]
		ch.Roles = append(ch.Roles, schemas.RoleChange{Role: br.Role, Baseline: br, Candidate: cr})
		if m := math.Abs(cr.MeanQueue - br.MeanQueue); m > bestQueue {
			bestQueue, ch.Role = m, br.Role
		}
		if br.Utilization == nil || cr.Utilization == nil {
			continue
		}
		if m := math.Abs(*cr.Utilization - *br.Utilization); m > bestUtil {
			bestUtil, utilRole = m, br.Role
		}
	}
	if ch.Role == "" {
		ch.Role = utilRole
	}
	ch.Reason = disaggReason(ch)
	return ch
}

// DisaggregationNote says why a comparison has no disaggregation when one
// side has stages and the other none; "" otherwise.
func DisaggregationNote(base, cand *schemas.Disaggregation) string {
	switch {
	case base != nil && cand == nil:
		return "the baseline has stages (disaggregated serving) and the candidate none: the latency budget and the worker roles are not compared (Try: ingest the candidate's stages too)"
	case base == nil && cand != nil:
		return "the candidate has stages (disaggregated serving) and the baseline none: the latency budget and the worker roles are not compared (Try: ingest the baseline's stages too)"
	}
	return ""
}

// disaggReason is the change's sentence: the part that moved, at its p95
// and p50, and the role, with its workers, mean queue, utilization and the
// share of the run its queue waited while the other role had free slots.
func disaggReason(ch *schemas.DisaggChange) string {
	if ch.Stage == "" && ch.Role == "" {
		return "Of the latency budget, no part's p95 moved, and no worker role's queue or utilization."
	}
	s := "Of the latency budget, no part's p95 moved"
	if ch.Stage != "" {
		i := slices.IndexFunc(ch.Parts, func(p schemas.PartChange) bool { return p.Part == ch.Stage })
		p := ch.Parts[i]
		s = fmt.Sprintf("Of the latency budget, %s moved most: p95 %s → %s (p50 %s → %s)", p.Part,
			optSeconds(p.BaselineP95), optSeconds(p.CandidateP95), optSeconds(p.BaselineP50), optSeconds(p.CandidateP50))
	}
	if ch.Role == "" {
		return s + "; no worker role's queue or utilization moved."
	}
	i := slices.IndexFunc(ch.Roles, func(r schemas.RoleChange) bool { return r.Role == ch.Role })
	r := ch.Roles[i]
	b, c := r.Baseline, r.Candidate
	s += fmt.Sprintf("; of the worker roles, %s moved most: %s, mean queue %s → %s, utilization %s → %s",
		r.Role, workersPair(b.Workers, c.Workers), num(b.MeanQueue), num(c.MeanQueue), optPct(b.Utilization), optPct(c.Utilization))
	if b.BacklogOtherFreeFraction > 0 || c.BacklogOtherFreeFraction > 0 {
		other := map[string]string{schemas.RolePrefill: schemas.RoleDecode, schemas.RoleDecode: schemas.RolePrefill}[r.Role]
		if other != "" {
			s += fmt.Sprintf(", requests queued there while the %s workers had free slots %s → %s of the time",
				other, pct(b.BacklogOtherFreeFraction), pct(c.BacklogOtherFreeFraction))
		}
	}
	return s + "."
}

// optPct formats an optional fraction as a percentage.
func optPct(v *float64) string {
	if v == nil {
		return "none"
	}
	return pct(*v)
}

// optSeconds formats an optional duration in seconds.
func optSeconds(v *float64) string {
	if v == nil {
		return "none"
	}
	return numfmt.Seconds(*v)
}

func workersPair(b, c int64) string {
	if b == c {
		return fmt.Sprintf("%d workers", b)
	}
	return fmt.Sprintf("workers %d → %d", b, c)
}
