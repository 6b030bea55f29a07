package capacity

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/tpsreport/tpsreport/schemas"
)

// The words of a plan, shared by plan's console output and the report's
// capacity section, so that both show the same arithmetic.

// Heading says what was planned for: "plan for 480 RPM (8 req/s) at 80 %
// utilization, SLO e2e ≤ 20 s met by ≥ 90 % of a window's requests".
func Heading(s Settings) string {
	h := fmt.Sprintf("plan for %s RPM (%s req/s) at %s utilization", Num(s.TargetRPM), Num(s.TargetRPM/60), Pct(s.Utilization))
	if s.SLO != nil {
		h += fmt.Sprintf(", SLO %s met by ≥ %s of a window's requests", SLOWords(*s.SLO), Pct(s.Attainment))
	}
	return h
}

// Answer is a plan's one-line answer: "5 replicas (by throughput), 20.00
// USD per hour", or "cannot be sized".
func Answer(p Plan) string {
	if p.SLOMissed != "" {
		return "no plan at this SLO: " + p.SLOMissed
	}
	if p.Replicas == nil {
		return "cannot be sized"
	}
	a := fmt.Sprintf("%s (%s)", Count(*p.Replicas, "replica"), BasisText(p.Basis))
	if p.CostPerHour != nil {
		a += fmt.Sprintf(", %s per hour", Money(p.CostPerHour, p.Currency))
	}
	return a
}

// ThroughputText is the throughput route's arithmetic, or why it has none.
func ThroughputText(s Settings, p Plan) string {
	t := p.Throughput
	if t.Replicas == nil {
		return t.Reason
	}
	what := "completions"
	if s.SLO != nil {
		what = fmt.Sprintf("completions meeting the SLO (of %s completed, %s)", Num(float64(t.Requests)), Pct(*t.Attainment))
	}
	out := fmt.Sprintf("%s req/s per replica = %s %s / %s s of %s / %s (%s) → ⌈%s / (%s × %s)⌉ = %d",
		Num(*t.CapacityPerReplica), Num(float64(t.Completions)), what, Num(t.Seconds), Count(int64(t.Windows), "backlog window"),
		Count(p.MeasuredReplicas, "replica"), p.ReplicasSource, Num(s.TargetRPM/60), Num(*t.CapacityPerReplica), Num(s.Utilization), *t.Replicas)
	if t.WindowsSkipped > 0 {
		out += fmt.Sprintf("; %s left out for missing the SLO", Count(int64(t.WindowsSkipped), "backlog window"))
	}
	return out
}

// LittleText is Little's-law route's arithmetic, or why it has none.
func LittleText(s Settings, p Plan) string {
	l := p.Little
	if l.Replicas == nil {
		return l.Reason
	}
	return fmt.Sprintf("%s req/s × %s s mean slot time (t_in_flight) = %s in flight; cap %s per replica (%s) → ⌈%s / (%s × %s)⌉ = %d",
		Num(s.TargetRPM/60), Num(*l.MeanSlotSeconds), Num(*l.Concurrency), Num(*l.CapPerReplica), l.CapSource,
		Num(*l.Concurrency), Num(*l.CapPerReplica), Num(s.Utilization), *l.Replicas)
}

// Fewest names the plans that need the fewest replicas (those tied with the
// best on replicas and cost per hour) and the sentence that says so; "" when
// no plan has a count.
func Fewest(plans []Plan) string {
	i := Best(plans)
	if i < 0 {
		return ""
	}
	b := plans[i]
	var names []string
	for _, q := range plans {
		if q.Replicas != nil && *q.Replicas == *b.Replicas && !cheaper(q.CostPerHour, b.CostPerHour) && !cheaper(b.CostPerHour, q.CostPerHour) {
			names = append(names, q.Run)
		}
	}
	out := fmt.Sprintf("fewest replicas: %s, %s", strings.Join(names, " and "), Count(*b.Replicas, "replica"))
	if b.CostPerHour != nil {
		out += fmt.Sprintf(" at %s per hour", Money(b.CostPerHour, b.Currency))
	}
	return out
}

// durationWords prints seconds as the user wrote them in --slo: "80 ms"
// under a second, "2 s" from one.
func durationWords(v float64) string {
	if v < 1 {
		return Num(v*1000) + " ms"
	}
	return Num(v) + " s"
}

// SLOWords prints an SLO as "ttft ≤ 2 s, tpot ≤ 80 ms".
func SLOWords(s schemas.SLO) string {
	var parts []string
	for _, b := range []struct {
		name string
		v    *float64
	}{{"ttft", s.TTFT}, {"tpot", s.TPOT}, {"e2e", s.E2E}} {
		if b.v != nil {
			parts = append(parts, b.name+" ≤ "+durationWords(*b.v))
		}
	}
	return strings.Join(parts, ", ")
}

// Num prints a figure: four significant digits, no e-notation, no trailing
// zeros, thousands grouped (8, 2.5, 0.08, 93.45, 1,234).
func Num(x float64) string {
	if x == 0 || math.IsNaN(x) || math.IsInf(x, 0) {
		return strconv.FormatFloat(x, 'f', -1, 64)
	}
	digits := max(0, 3-int(math.Floor(math.Log10(math.Abs(x)))))
	s := strconv.FormatFloat(x, 'f', digits, 64)
	if strings.Contains(s, ".") {
		s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	}
	return group(s)
}

// Money prints an amount to four significant digits and at least two
// decimals (4.000, 18.00, 0.9529, 0.0001934, 1,234.50), with the currency
// label when there is one; "—" for nil.
func Money(p *float64, currency string) string {
	if p == nil {
		return "—"
	}
	x := *p
	digits := 2
	if a := math.Abs(x); a > 0 {
		digits = min(12, max(2, 3-int(math.Floor(math.Log10(a)))))
	}
	s := group(strconv.FormatFloat(x, 'f', digits, 64))
	if currency != "" {
		s += " " + currency
	}
	return s
}

// Pct prints a share as a percentage without trailing zeros (80 %, 92.5 %).
func Pct(f float64) string { return Num(f*100) + " %" }

// Count prints n with its noun: "1 replica", "5 replicas".
func Count(n int64, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%s %ss", group(strconv.FormatInt(n, 10)), word)
}

// group puts thousands separators into the integer part of a number.
func group(s string) string {
	sign := ""
	if strings.HasPrefix(s, "-") {
		sign, s = "−", s[1:]
	}
	intPart, frac, hasFrac := strings.Cut(s, ".")
	for i := len(intPart) - 3; i > 0; i -= 3 {
		intPart = intPart[:i] + "," + intPart[i:]
	}
	if hasFrac {
		return sign + intPart + "." + frac
	}
	return sign + intPart
}
