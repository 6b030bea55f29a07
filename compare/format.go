package compare

import (
	"math"
	"strconv"
	"strings"

	"github.com/tpsreport/tpsreport/internal/numfmt"
)

// Numbers in reasons are written as the report's tables write them
// (internal/numfmt): a reviewer reads the same digits in the table and in
// the sentence beside it.

// signed puts the sign of v in front of text, the formatted |v|, unless text
// shows zero.
func signed(v float64, text string) string { return numfmt.Signed(v, text) }

// fixed formats |v| with d decimals, adding decimals (up to 8) while a value
// that is not 0 would show as 0, or one that is not hi would show as hi.
func fixed(v float64, d int, hi float64) string {
	a := math.Abs(v)
	for ; d < 8; d++ {
		s := strconv.FormatFloat(a, 'f', d, 64)
		r, _ := strconv.ParseFloat(s, 64)
		if (r == 0) == (a == 0) && (r == hi) == (a == hi) {
			return s
		}
	}
	return strconv.FormatFloat(a, 'f', d, 64)
}

// pct formats a fraction as a percentage: 0.0112 is "1.12 %", 0.99934
// "99.93 %"; a rate such as 0.9999972 shows as "99.9997 %", never "100 %".
func pct(f float64) string { return numfmt.Percent(f) }

// pp formats a difference of fractions in percentage points, signed:
// −0.0026 is "−0.26 pp", −0.3211 "−32.1 pp".
func pp(f float64) string { return numfmt.PP(f) }

// rel formats a relative change without its sign ("27.7 %"): the sentence says
// whether it rose or fell.
func rel(r float64) string { return strings.TrimPrefix(numfmt.Rel(math.Abs(r)), "+") }

// ratio formats a ratio for a sentence: "1.152", "0.00643".
func ratio(r float64) string { return numfmt.RatioValue(r) }

// num formats a plain quantity with about three significant digits and no
// exponent: 24690 is "24,690", 5.125 is "5.13", 0.0001234 is "0.000123".
func num(v float64) string { return numfmt.Sig(v) }

// seconds formats a window width: 60 is "60 s", 0.5 is "0.5 s".
func seconds(v float64) string {
	return strconv.FormatFloat(v, 'f', -1, 64) + " s"
}
