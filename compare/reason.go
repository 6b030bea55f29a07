package compare

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/tpsreport/tpsreport/schemas"
)

// reason is the one-sentence reason of a judged criterion (docs/acceptance.md
// "Reasons"): the two values, the change with its interval, and what the
// verdict rests on; an INCONCLUSIVE adds the smallest change the comparison
// can see and how much more data would decide the change observed.
func (e *evaluation) reason(d definition, j judgement, verdict string, more *float64) string {
	c := e.c
	tol := d.tol(c)
	lvl := level(j.level)
	if j.open() {
		return e.openReason(d, j)
	}
	switch d.name {
	case Throughput:
		target := 1 + tol
		switch verdict {
		case schemas.Pass:
			return fmt.Sprintf("%s rose %s (ratio %s, %s interval %s–%s, all above 1).", d.label, rel(j.est-1), ratio(j.est), lvl, ratio(j.lo), ratio(j.hi))
		case schemas.Fail:
			return fmt.Sprintf("%s %s (ratio %s); even the %s interval's top, %s, is below the required %s.", d.label, moved(j.est), ratio(j.est), lvl, ratio(j.hi), ratio(target))
		}
		// Say which way it moved: a fall is not a failed improvement.
		what, how := "the change", "did not change"
		switch {
		case j.est < 1:
			what, how = "the fall", "fell "+rel(1-j.est)
		case j.est > 1:
			how = "rose " + rel(j.est-1)
			if tol != 0 {
				what = "an improvement of at least " + rel(tol)
			}
		}
		return fmt.Sprintf("%s %s (ratio %s, %s interval %s–%s): the data cannot tell %s from noise. %s",
			d.label, how, ratio(j.est), lvl, ratio(j.lo), ratio(j.hi), what, e.sees(d, j, more))
	case GapFraction:
		span := fmt.Sprintf("%s, %s interval %s", pp(j.est), lvl, ppRange(j.lo, j.hi))
		switch {
		case j.b == 0 && j.c == 0:
			return fmt.Sprintf("Neither run had free slots while requests waited (gap_fraction 0 %% in both): there was no idle time left to remove, and both are under the %s floor.", percent(c.GapFloor))
		case j.b < c.GapFloor && j.c < c.GapFloor:
			return fmt.Sprintf("Both runs are under the %s floor (%s → %s): there was no idle time left to remove.", percent(c.GapFloor), pct(j.b), pct(j.c))
		case verdict == schemas.Pass && e.causesMoved:
			return fmt.Sprintf("%s fell from %s to %s of the time (%s), though some of it moved to another cause.", d.label, pct(j.b), pct(j.c), span)
		case verdict == schemas.Pass:
			return fmt.Sprintf("%s fell from %s to %s of the time (%s): the change removed idle slots, it did not just shift them.", d.label, pct(j.b), pct(j.c), span)
		case verdict == schemas.Fail:
			return fmt.Sprintf("%s rose from %s to %s of the time (%s): requests waited while slots were free.", d.label, pct(j.b), pct(j.c), span)
		case math.Abs(j.est) <= tol:
			return fmt.Sprintf("gap_fraction %s → %s (%s) is within the %s tolerance. %s", pct(j.b), pct(j.c), pp(j.est), tolerance(tol), e.sees(d, j, more))
		}
		return fmt.Sprintf("gap_fraction %s → %s (%s): the data cannot tell the change from noise. %s", pct(j.b), pct(j.c), span, e.sees(d, j, more))
	case TTFT, TPOT:
		head := fmt.Sprintf("%s %s (%s, ratio %s, %s interval %s–%s)", d.label, latencyPair(j.b, j.c), latencyChange(j.est-1), ratio(j.est), lvl, ratio(j.lo), ratio(j.hi))
		switch {
		case verdict == schemas.Fail:
			return fmt.Sprintf("%s: above the %s tolerance.", head, percent(tol))
		case j.est > 1+tol:
			return fmt.Sprintf("%s: above the %s tolerance, but not significantly: the interval reaches 1.", head, percent(tol))
		case j.est > 1:
			return fmt.Sprintf("%s: within the %s tolerance.", head, percent(tol))
		}
		return head + ": no slower."
	}
	// The rates: success rate and SLO attainment must not fall, the retry
	// rate must not rise.
	up := d.rule == noRise
	worse := j.est < 0
	if up {
		worse = j.est > 0
	}
	span := fmt.Sprintf("%s interval %s", lvl, ppRange(j.lo, j.hi))
	switch {
	case verdict == schemas.Fail && up:
		return fmt.Sprintf("%s rose from %s to %s (%s; %s)%s.", d.label, pct(j.b), pct(j.c), pp(j.est), span, retryConsequence(e.thrRatio))
	case verdict == schemas.Fail:
		return fmt.Sprintf("%s fell from %s to %s (%s; %s).", d.label, pct(j.b), pct(j.c), pp(j.est), span)
	case worse && math.Abs(j.est) > tol:
		side := "lower"
		if up {
			side = "higher"
		}
		return fmt.Sprintf("%s %s → %s (%s), not significantly %s: the %s reaches 0.", d.label, pct(j.b), pct(j.c), pp(j.est), side, span)
	case up:
		return fmt.Sprintf("%s %s → %s (%s), within the %s tolerance or lower.", d.label, pct(j.b), pct(j.c), pp(j.est), tolerance(tol))
	}
	return fmt.Sprintf("%s %s → %s (%s), within the %s tolerance or better.", d.label, pct(j.b), pct(j.c), pp(j.est), tolerance(tol))
}

// openReason is the reason of a criterion whose interval is unbounded: a
// side had too few windows that add to it to measure its spread.
func (e *evaluation) openReason(d definition, j judgement) string {
	var head string
	switch {
	case d.name == TTFT || d.name == TPOT:
		head = fmt.Sprintf("%s %s (%s, ratio %s)", d.label, latencyPair(j.b, j.c), latencyChange(j.est-1), ratio(j.est))
	case d.ratio:
		head = fmt.Sprintf("%s ratio %s", d.label, ratio(j.est))
	default:
		head = fmt.Sprintf("%s %s → %s (%s)", d.label, pct(j.b), pct(j.c), pp(j.est))
	}
	if j.sb.episodes || j.sc.episodes {
		return fmt.Sprintf("%s, but a run's queue hardly ever emptied: its requests waited in too few queue episodes (fewer than two independent blocks a side) to tell any change from noise.", head)
	}
	what := "windows"
	if d.stat.lat >= 0 {
		what = "windows with delivered requests"
	}
	return fmt.Sprintf("%s, but the runs hold too few %s (fewer than two independent blocks a side) to tell any change from noise.", head, what)
}

// sees says what an undecided comparison can see: the smallest change it
// finds in four comparisons of five, and how many times the data would
// decide the change observed ("This comparison sees changes of ±12 % or
// more; about 16× the backlog time would decide one of +3.0 %.").
func (e *evaluation) sees(d definition, j judgement, more *float64) string {
	s := "This comparison sees changes of " + mdeText(d, j.mde) + " or more"
	if !d.ratio && j.mde >= 1 {
		s = "This comparison sees no change of any size"
	}
	switch {
	case more != nil && *more <= 1000:
		s += fmt.Sprintf("; about %s× the %s would decide one of %s", times(*more), d.data, changeText(d, j.est))
	case more != nil:
		s += "; the change observed is too small for any practical amount of data to decide"
	}
	return s + "."
}

// mdeText writes a minimum detectable effect: a relative change for a ratio
// ("±12 %"), percentage points for a difference ("±0.42 pp"); "none" for
// a rate whose smallest detectable change is the whole range of rates.
func mdeText(d definition, mde float64) string {
	if d.ratio {
		return "±" + fixed(mde*100, 0, math.Inf(1)) + " %"
	}
	if mde >= 1 {
		return "none"
	}
	return "±" + strings.TrimPrefix(pp(math.Abs(mde)), "+")
}

// MDEText writes criterion c's minimum detectable effect as the report and
// the console show it ("±12 %", "±0.42 pp"); "" when it has none.
func MDEText(c schemas.Criterion) string {
	if c.MDE == nil {
		return ""
	}
	return mdeText(definitionOf(c.Name), *c.MDE)
}

// changeText writes an observed change: relative for a ratio, in
// percentage points for a difference.
func changeText(d definition, est float64) string {
	if d.ratio {
		return latencyChange(est - 1)
	}
	return pp(est)
}

// times writes a factor of data: "4", "16", "1.5".
func times(k float64) string {
	if k < 10 {
		return strconv.FormatFloat(math.Ceil(k*10)/10, 'f', -1, 64)
	}
	return strconv.FormatFloat(math.Ceil(k), 'f', 0, 64)
}

// ppRange writes an interval of differences in percentage points:
// "−2.90 to −1.10 pp".
func ppRange(lo, hi float64) string {
	return strings.TrimSuffix(pp(lo), " pp") + " to " + pp(hi)
}
