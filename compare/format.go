package compare

import (
	"math"
	"strconv"
	"strings"
)

// Numbers in reasons follow the report's conventions: one minus sign (U+2212),
// no exponent, a value that rounds to zero shows no sign, and a rate that is
// not exactly 0 or 1 never shows as 0 % or 100 %.

const minus = "−"

// signed puts the sign of v in front of text, the formatted |v|, unless text
// shows zero.
func signed(v float64, text string) string {
	switch {
	case zeroText(text):
		return text
	case v > 0:
		return "+" + text
	case v < 0:
		return minus + text
	}
	return text
}

// zeroText reports whether a formatted number has no non-zero digit.
func zeroText(s string) bool {
	return !strings.ContainsAny(s, "123456789")
}

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

// pct formats a fraction as a percentage with one decimal: 0.011 is "1.1 %".
// A rate such as 0.9999972 shows as "99.9997 %", never "100.0 %".
func pct(f float64) string {
	return unsignedOrMinus(f, fixed(f*100, 1, 100)) + " %"
}

// pp formats a difference of fractions in percentage points, signed:
// −0.0026 is "−0.26 pp".
func pp(f float64) string {
	return signed(f, strconv.FormatFloat(math.Abs(f*100), 'f', 2, 64)) + " pp"
}

// rel formats a relative change without its sign ("27.7 %"): the sentence says
// whether it rose or fell.
func rel(r float64) string {
	return fixed(r*100, 1, math.Inf(1)) + " %"
}

// unsignedOrMinus keeps a negative value's sign (with the typographic minus)
// unless it shows as zero.
func unsignedOrMinus(v float64, text string) string {
	if v < 0 && !zeroText(text) {
		return minus + text
	}
	return text
}

// num formats a plain quantity with about four significant digits and no
// exponent: 24690 is "24,690", 5.125 is "5.125", 0.0001234 is "0.0001234".
func num(v float64) string {
	a := math.Abs(v)
	var s string
	switch {
	case a == 0:
		return "0"
	case a >= 1000:
		s = strconv.FormatFloat(a, 'f', 0, 64)
	default:
		d := 3 - int(math.Floor(math.Log10(a)))
		s = strconv.FormatFloat(a, 'f', min(d, 8), 64)
		if strings.Contains(s, ".") {
			s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
		}
	}
	return unsignedOrMinus(v, group(s))
}

// group puts thousands separators into the integer part of an unsigned number.
func group(s string) string {
	intPart, frac, _ := strings.Cut(s, ".")
	if frac != "" {
		frac = "." + frac
	}
	var b strings.Builder
	for i, c := range intPart {
		if i > 0 && (len(intPart)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	return b.String() + frac
}

// seconds formats a window width: 60 is "60 s", 0.5 is "0.5 s".
func seconds(v float64) string {
	return strconv.FormatFloat(v, 'f', -1, 64) + " s"
}
