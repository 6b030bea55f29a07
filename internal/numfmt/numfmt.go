// Package numfmt writes numbers for people, one way for every output: the
// report's tables and cards, the reasons of a verdict, summary.md and the
// console. A reviewer reads "1.88 s" in the table and again in the reason,
// never "1.878 s" beside it.
//
// The conventions: about three significant digits; thousands separated;
// one minus sign (U+2212); no exponent; a value that rounds to zero shows no
// sign; a rate that is not exactly 0 or 1 never shows as 0 % or 100 %.
package numfmt

import (
	"math"
	"strconv"
	"strings"
)

// Minus is the typographic minus sign of signed values.
const Minus = "−"

// Sig formats v with about three significant digits, thousands
// separated, never with an exponent: below 0.0001 it shows 0 (without a sign).
func Sig(v float64) string {
	a := math.Abs(v)
	var s string
	switch {
	case a < 0.5e-4:
		return "0"
	case a >= 1000 || (a >= 1 && v == math.Trunc(v)):
		s = strconv.FormatFloat(v, 'f', 0, 64)
	case a >= 100:
		s = strconv.FormatFloat(v, 'f', 0, 64)
	case a >= 10:
		s = strconv.FormatFloat(v, 'f', 1, 64)
	case a >= 1:
		s = strconv.FormatFloat(v, 'f', 2, 64)
	default:
		// three significant digits below 1: 0.123, 0.0123, 0.00123
		d := min(2-int(math.Floor(math.Log10(a))), 6)
		s = strconv.FormatFloat(v, 'f', d, 64)
	}
	return Group(s)
}

// Group inserts thousands separators into the integer part of a formatted
// number and writes its Minus sign as U+2212; a negative number that shows as
// zero loses its sign.
func Group(s string) string {
	neg := strings.HasPrefix(s, "-")
	if neg {
		s = s[1:]
	}
	intPart, frac := s, ""
	if i := strings.IndexAny(s, ".e"); i >= 0 {
		intPart, frac = s[:i], s[i:]
	}
	if len(intPart) > 3 {
		var b strings.Builder
		pre := len(intPart) % 3
		if pre > 0 {
			b.WriteString(intPart[:pre])
		}
		for i := pre; i < len(intPart); i += 3 {
			if b.Len() > 0 {
				b.WriteByte(',')
			}
			b.WriteString(intPart[i : i+3])
		}
		intPart = b.String()
	}
	if neg && !ZeroText(intPart+frac) {
		return Minus + intPart + frac
	}
	return intPart + frac
}

// ZeroText reports whether a formatted number shows no non-zero digit.
func ZeroText(s string) bool {
	return !strings.ContainsAny(s, "123456789")
}

// Signed puts an explicit sign in front of a formatted magnitude, unless the
// magnitude shows as zero: a tiny change rounds to 0 without a sign.
func Signed(v float64, magnitude string) string {
	switch {
	case ZeroText(magnitude):
		return magnitude
	case v > 0:
		return "+" + magnitude
	case v < 0:
		return Minus + magnitude
	}
	return magnitude
}

// Seconds formats a duration in seconds: milliseconds below one second,
// microseconds below one millisecond. Instants are whole microseconds, so a
// duration under half a microsecond is 0.
func Seconds(v float64) string {
	a := math.Abs(v)
	switch {
	case a < 0.5e-6:
		return "0 s"
	case a < 1e-3:
		return Sig(v*1e6) + " µs"
	case a < 1:
		return Sig(v*1000) + " ms"
	}
	return Sig(v) + " s"
}

// Percent formats a fraction (0..1) as a percentage with enough decimals
// that 99.6 % and 99.96 % stay distinct, and that a rate which is not exactly
// 1 never shows as 100 %: 0.9999972 is "99.9997 %".
func Percent(f float64) string {
	p := f * 100
	a := math.Abs(p)
	var d int
	switch {
	case a == 0 || a == 100:
		d = 0
	case a >= 90 && a < 100:
		d = 2
		for d < 6 && strconv.FormatFloat(a, 'f', d, 64) == "100."+strings.Repeat("0", d) {
			d++
		}
	case a >= 10:
		d = 1
	case a >= 0.1:
		d = 2
	default:
		return Sig(p) + " %"
	}
	return Group(strconv.FormatFloat(p, 'f', d, 64)) + " %"
}

// PP formats a difference of two fractions in percentage points, signed.
func PP(d float64) string {
	p := math.Abs(d * 100)
	var s string
	switch {
	case p == 0:
		return "0 pp"
	case p >= 10:
		s = strconv.FormatFloat(p, 'f', 1, 64)
	case p >= 0.01:
		s = strconv.FormatFloat(p, 'f', 2, 64)
	default:
		s = Sig(p)
	}
	return Signed(d, s+" pp")
}

// Rel formats a relative change (0.124 = +12.4 %), signed.
func Rel(r float64) string {
	p := math.Abs(r * 100)
	var s string
	switch {
	case p == 0:
		return "0 %"
	case p >= 1000:
		s = Group(strconv.FormatFloat(p, 'f', 0, 64))
	case p >= 1:
		s = strconv.FormatFloat(p, 'f', 1, 64)
	default:
		s = strconv.FormatFloat(p, 'f', 2, 64)
	}
	return Signed(r, s+" %")
}

// Ratio formats a ratio of two values: "1.152×"; "0.00643×" below 0.1,
// where three decimals would leave one digit.
func Ratio(r float64) string {
	return RatioValue(r) + "×"
}

// RatioValue formats a ratio without its sign of multiplication, for a
// sentence: "ratio 1.152".
func RatioValue(r float64) string {
	if math.Abs(r) < 0.1 {
		return Sig(r)
	}
	return strconv.FormatFloat(r, 'f', 3, 64)
}
