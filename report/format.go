package report

import (
	"math"
	"strconv"
	"time"

	"github.com/tpsreport/tpsreport/internal/numfmt"
)

// null is how every rendering shows an unknown (NULL) value.
const null = "—"

// The number formats every output shares (internal/numfmt): the reasons of
// a verdict write their numbers with the same functions.
var (
	fmtSig     = numfmt.Sig
	group      = numfmt.Group
	signed     = numfmt.Signed
	fmtSeconds = numfmt.Seconds
	fmtPercent = numfmt.Percent
	fmtPP      = numfmt.PP
	fmtRel     = numfmt.Rel
	fmtRatio   = numfmt.Ratio
)

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

// fmtCount formats an integer count with thousands separators.
func fmtCount(n int64) string {
	return group(strconv.FormatInt(n, 10))
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
