package report

import (
	"math"
	"strconv"
	"strings"
	"time"
)

// null is how every rendering shows an unknown (NULL) value.
const null = "—"

// minus is the typographic minus sign used in signed display values.
const minus = "−"

// finite returns *v and true when v is set and a finite number. NaN and ±Inf
// are treated as unknown everywhere in the report.
func finite(v *float64) (float64, bool) {
	if v == nil || math.IsNaN(*v) || math.IsInf(*v, 0) {
		return 0, false
	}
	return *v, true
}

// clean returns v, or nil when v is unset or not finite, so that JSON output
// never holds NaN (encoding/json refuses it) and renderers see one NULL.
func clean(v *float64) *float64 {
	if x, ok := finite(v); ok {
		return &x
	}
	return nil
}

// num wraps a plain float64 as an optional value (nil when not finite).
func num(v float64) *float64 {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return nil
	}
	return &v
}

// fmtSig formats v with about three significant digits, thousands
// separated, never with an exponent: below 0.0001 it shows 0 (without a sign).
func fmtSig(v float64) string {
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
	return group(s)
}

// group inserts thousands separators into the integer part of a formatted
// number and writes its minus sign as U+2212; a negative number that shows as
// zero loses its sign.
func group(s string) string {
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
	if neg && !zeroText(intPart+frac) {
		return minus + intPart + frac
	}
	return intPart + frac
}

// zeroText reports whether a formatted number shows no non-zero digit.
func zeroText(s string) bool {
	return !strings.ContainsAny(s, "123456789")
}

// signed puts an explicit sign in front of a formatted magnitude, unless the
// magnitude shows as zero: a tiny change rounds to 0 without a sign.
func signed(v float64, magnitude string) string {
	switch {
	case zeroText(magnitude):
		return magnitude
	case v > 0:
		return "+" + magnitude
	case v < 0:
		return minus + magnitude
	}
	return magnitude
}

// fmtCount formats an integer count with thousands separators.
func fmtCount(n int64) string {
	return group(strconv.FormatInt(n, 10))
}

// fmtSeconds formats a duration in seconds: milliseconds below one second,
// microseconds below one millisecond. Instants are whole microseconds, so a
// duration under half a microsecond is 0.
func fmtSeconds(v float64) string {
	a := math.Abs(v)
	switch {
	case a < 0.5e-6:
		return "0 s"
	case a < 1e-3:
		return fmtSig(v*1e6) + " µs"
	case a < 1:
		return fmtSig(v*1000) + " ms"
	}
	return fmtSig(v) + " s"
}

// fmtPercent formats a fraction (0..1) as a percentage with enough decimals
// that 99.6 % and 99.96 % stay distinct, and that a rate which is not exactly
// 1 never shows as 100 %: 0.9999972 is "99.9997 %".
func fmtPercent(f float64) string {
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
		return fmtSig(p) + " %"
	}
	return group(strconv.FormatFloat(p, 'f', d, 64)) + " %"
}

// fmtLevel formats a confidence level: 0.95 is "95 %".
func fmtLevel(c float64) string {
	return strconv.FormatFloat(c*100, 'g', 4, 64) + " %"
}

// fmtShortPercent formats a threshold fraction without padding: 0.2 is "20 %".
func fmtShortPercent(f float64) string {
	return strconv.FormatFloat(f*100, 'g', 4, 64) + " %"
}

// fmtShortPP formats a threshold difference of fractions: 0.001 is "0.1 pp".
func fmtShortPP(f float64) string {
	return strconv.FormatFloat(f*100, 'g', 4, 64) + " pp"
}

// fmtPP formats a difference of two fractions in percentage points, signed.
func fmtPP(d float64) string {
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
		s = fmtSig(p)
	}
	return signed(d, s+" pp")
}

// fmtRel formats a relative change (0.124 = +12.4 %), signed.
func fmtRel(r float64) string {
	p := math.Abs(r * 100)
	var s string
	switch {
	case p == 0:
		return "0 %"
	case p >= 1000:
		s = group(strconv.FormatFloat(p, 'f', 0, 64))
	case p >= 1:
		s = strconv.FormatFloat(p, 'f', 1, 64)
	default:
		s = strconv.FormatFloat(p, 'f', 2, 64)
	}
	return signed(r, s+" %")
}

// fmtRatio formats a ratio of two values: 1.152×.
func fmtRatio(r float64) string {
	return strconv.FormatFloat(r, 'f', 3, 64) + "×"
}

// fmtPValue formats a p-value with two significant digits; below 0.001 it
// says "p < 0.001", since the normal approximation behind it means nothing
// to more digits (and a p of exactly 0 is only a rounded one).
func fmtPValue(p float64) string {
	if p < 0.001 {
		return "p < 0.001"
	}
	return "p = " + strconv.FormatFloat(p, 'g', 2, 64)
}

// fmtBytes formats a size in bytes with binary prefixes.
func fmtBytes(n int64) string {
	const unit = 1024
	if n < unit {
		return strconv.FormatInt(n, 10) + " B"
	}
	v := float64(n)
	prefixes := []string{"KiB", "MiB", "GiB", "TiB", "PiB"}
	i := -1
	for v >= unit && i < len(prefixes)-1 {
		v /= unit
		i++
	}
	return fmtSig(v) + " " + prefixes[i]
}

// fmtTime formats an instant for people: UTC, second precision.
func fmtTime(t time.Time) string {
	if t.IsZero() {
		return null
	}
	return t.UTC().Format("2006-01-02 15:04:05 UTC")
}

// fmtStamp formats an instant for report.json: RFC 3339, UTC, microseconds.
func fmtStamp(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format("2006-01-02T15:04:05.000000Z07:00")
}

// fmtSpan formats a run length: 1 h 02 min, 12 min 05 s, 42.5 s.
func fmtSpan(sec float64) string {
	if sec < 60 {
		return fmtSeconds(sec)
	}
	d := time.Duration(math.Round(sec)) * time.Second
	h := int64(d / time.Hour)
	m := int64(d%time.Hour) / int64(time.Minute)
	s := int64(d%time.Minute) / int64(time.Second)
	if h > 0 {
		return strconv.FormatInt(h, 10) + " h " + pad2(m) + " min"
	}
	return strconv.FormatInt(m, 10) + " min " + pad2(s) + " s"
}

func pad2(n int64) string {
	if n < 10 {
		return "0" + strconv.FormatInt(n, 10)
	}
	return strconv.FormatInt(n, 10)
}
