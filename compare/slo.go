package compare

import (
	"fmt"
	"strings"

	"github.com/tpsreport/tpsreport/schemas"
)

// sloGuard fires when the runs were not analysed with the same SLO: their
// attainments then measure different things.
func sloGuard(b, c *schemas.SLO) string {
	if b != nil && c != nil && sameBound(b.TTFT, c.TTFT) && sameBound(b.TPOT, c.TPOT) && sameBound(b.E2E, c.E2E) {
		return ""
	}
	return fmt.Sprintf("the runs were analysed with different SLOs (baseline %s, candidate %s): analyse both with the same --slo", sloText(b), sloText(c))
}

func sameBound(a, b *float64) bool {
	return (a == nil) == (b == nil) && (a == nil || *a == *b)
}

// sloText writes an SLO the way analyze --slo takes it: "ttft=2s,tpot=80ms".
func sloText(s *schemas.SLO) string {
	if s == nil {
		return "none"
	}
	var parts []string
	for _, b := range []struct {
		name string
		v    *float64
	}{{"ttft", s.TTFT}, {"tpot", s.TPOT}, {"e2e", s.E2E}} {
		if b.v == nil {
			continue
		}
		if *b.v >= 1 || *b.v == 0 {
			parts = append(parts, b.name+"="+num(*b.v)+"s")
		} else {
			parts = append(parts, b.name+"="+num(*b.v*1000)+"ms")
		}
	}
	if parts == nil {
		return "no bound"
	}
	return strings.Join(parts, ",")
}

// sloAttainment: FAIL when the candidate's SLO attainment (Σ slo_met /
// Σ requests) is lower by more than the tolerance and a one-sided
// two-proportion z-test rejects equality; guard, when not empty, is the SLO
// guard, which makes it INCONCLUSIVE.
func sloAttainment(bSLO, cSLO *schemas.SLO, b, c counts, cr schemas.Criteria, guard string) schemas.Criterion {
	out := schemas.Criterion{Name: SLOAttainment, Title: "SLO attainment not reduced",
		Metric: "slo_attainment (completed requests delivered within the SLO)", Scope: ScopeRun}
	if bSLO == nil || cSLO == nil {
		out.Verdict = schemas.Inconclusive
		out.Reason = "Inconclusive: " + guard + "."
		return out
	}
	decided := sloProportion(b, c, cr, &out)
	if guard != "" {
		out.Verdict = schemas.Inconclusive
		if decided {
			out.Reason = guardReason(guard, out.Reason)
		} else {
			out.Reason = "Inconclusive: " + guard + "."
		}
	}
	return out
}

// sloProportion fills out with the attainment test; false when it could
// not be decided.
func sloProportion(b, c counts, cr schemas.Criteria, out *schemas.Criterion) bool {
	if b.sloMet == nil || c.sloMet == nil {
		out.Verdict = schemas.Inconclusive
		out.Reason = "slo_met was not recorded for every window of one of the runs: analyse both again with --slo."
		return false
	}
	proportionDrop(out, "SLO attainment", *b.sloMet, b.requests, *c.sloMet, c.requests, cr.SLOTolerance, cr.Alpha)
	return out.Verdict != schemas.Inconclusive
}
