package compare

import (
	"fmt"
	"slices"
	"strings"

	"github.com/tpsreport/tpsreport/schemas"
)

// sloGuard fires when the runs were not all analysed with the same SLO:
// their attainments then measure different things.
func sloGuard(base, cand []Run) string {
	first := base[0].Summary.SLO
	same := first != nil
	for _, r := range append(append([]Run(nil), base...), cand...) {
		s := r.Summary.SLO
		same = same && s != nil && sameBound(first.TTFT, s.TTFT) && sameBound(first.TPOT, s.TPOT) && sameBound(first.E2E, s.E2E)
	}
	if same {
		return ""
	}
	return fmt.Sprintf("the runs were analysed with different SLOs (baseline %s, candidate %s): analyse both with the same --slo", sloTexts(base), sloTexts(cand))
}

// sloTexts writes the SLOs of a side's runs, each distinct one once.
func sloTexts(runs []Run) string {
	var out []string
	for _, r := range runs {
		if t := sloText(r.Summary.SLO); !slices.Contains(out, t) {
			out = append(out, t)
		}
	}
	return strings.Join(out, " and ")
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
