package report

import (
	"math"
	"testing"
	"time"

	"github.com/tpsreport/tpsreport/schemas"
)

func TestFormat(t *testing.T) {
	tests := []struct {
		name string
		got  string
		want string
	}{
		{"sig large", fmtSig(1234567.8), "1,234,568"},
		{"sig hundreds", fmtSig(871.14), "871"},
		{"sig tens", fmtSig(41.34), "41.3"},
		{"sig units", fmtSig(1.905), "1.91"},
		{"sig integer", fmtSig(60), "60"},
		{"sig small", fmtSig(0.012345), "0.0123"},
		{"sig tiny", fmtSig(0.00001234), "0"},
		{"sig tiny negative", fmtSig(-0.00001234), "0"},
		{"sig large no exponent", fmtSig(24690), "24,690"},
		{"sig 1e-4", fmtSig(0.000123), "0.000123"},
		{"sig negative", fmtSig(-1234.4), "−1,234"},
		{"sig negative small", fmtSig(-0.0123), "−0.0123"},
		{"seconds tiny negative", fmtSeconds(-1.23e-8), "0 s"},
		{"seconds µs", fmtSeconds(0.000412), "412 µs"},
		{"seconds negative ms", fmtSeconds(-0.0123), "−12.3 ms"},
		{"percent nearly one", fmtPercent(0.9999972), "99.9997 %"},
		{"percent 99.995", fmtPercent(0.99995), "99.995 %"},
		{"percent negative", fmtPercent(-0.0158), "−1.58 %"},
		{"sig zero", fmtSig(0), "0"},
		{"seconds ms", fmtSeconds(0.3104), "310 ms"},
		{"seconds", fmtSeconds(1.9), "1.90 s"},
		{"seconds zero", fmtSeconds(0), "0 s"},
		{"percent", fmtPercent(0.0158), "1.58 %"},
		{"percent near one", fmtPercent(0.99961), "99.96 %"},
		{"percent tens", fmtPercent(0.742), "74.2 %"},
		{"percent tiny", fmtPercent(0.000123), "0.0123 %"},
		{"percent one", fmtPercent(1), "100 %"},
		{"pp down", fmtPP(-0.0149), "−1.49 pp"},
		{"pp up", fmtPP(0.0025), "+0.25 pp"},
		{"pp zero", fmtPP(0), "0 pp"},
		{"pp tiny", fmtPP(-1e-9), "0 pp"},
		{"rel tiny", fmtRel(-0.000001), "0.00 %"},
		{"rel", fmtRel(0.1518), "+15.2 %"},
		{"rel small", fmtRel(-0.0012), "−0.12 %"},
		{"ratio", fmtRatio(1.1518), "1.152×"},
		{"p small", fmtPValue(0.00001), "p < 0.001"},
		{"p tiny", fmtPValue(3.05e-258), "p < 0.001"},
		{"p zero", fmtPValue(0), "p < 0.001"},
		{"p", fmtPValue(0.0031), "p = 0.0031"},
		{"p boundary", fmtPValue(0.001), "p = 0.001"},
		{"p large", fmtPValue(0.21), "p = 0.21"},
		{"bytes", fmtBytes(12_884_301), "12.3 MiB"},
		{"bytes small", fmtBytes(10), "10 B"},
		{"count", fmtCount(48213), "48,213"},
		{"level", fmtLevel(0.95), "95 %"},
		{"short percent", fmtShortPercent(0.2), "20 %"},
		{"short pp", fmtShortPP(0.001), "0.1 pp"},
		{"span", fmtSpan(1764.25), "29 min 24 s"},
		{"span hours", fmtSpan(3725), "1 h 02 min"},
		{"time", fmtTime(time.Date(2026, 11, 20, 14, 0, 17, 250e6, time.UTC)), "2026-11-20 14:00:17 UTC"},
		{"time zero", fmtTime(time.Time{}), "—"},
		{"tps unit", unitTPS.format(ptr(1012.4)), "1,012 tok/s"},
		{"null", unitTPS.format(nil), "—"},
		{"nan", unitSeconds.format(ptr(math.NaN())), "—"},
		{"delta tps", unitTPS.formatDelta(-43.4), "−43.4 tok/s"},
		{"delta tiny seconds", unitSeconds.formatDelta(-1.23e-8), "0 s"},
		{"negative seconds", unitSeconds.format(ptr(-0.0021)), "−2.10 ms"},
		{"delta seconds", unitSeconds.formatDelta(-0.0434), "−43.4 ms"},
		{"delta fraction", unitFraction.formatDelta(0.0151), "+1.51 pp"},
	}
	for _, tt := range tests {
		if tt.got != tt.want {
			t.Errorf("%s: got %q, want %q", tt.name, tt.got, tt.want)
		}
	}
}

func TestNiceTicks(t *testing.T) {
	tests := []struct {
		lo, hi       float64
		min, max, st float64
	}{
		{0, 29.4, 0, 30, 5},
		{0, 1296, 0, 1500, 250},
		{0, 0.15, 0, 0.15, 0.025},
		{0, 0, 0, 1, 0.2},
		{5, 5, 4.4, 5.6, 0.2},
		{math.NaN(), 3, 0, 1, 0.2},
	}
	for _, tt := range tests {
		min, max, step, ticks := niceTicks(tt.lo, tt.hi, 6)
		if math.Abs(min-tt.min) > 1e-9 || math.Abs(max-tt.max) > 1e-9 || math.Abs(step-tt.st) > 1e-9 {
			t.Errorf("niceTicks(%v, %v) = %v..%v step %v, want %v..%v step %v", tt.lo, tt.hi, min, max, step, tt.min, tt.max, tt.st)
		}
		if len(ticks) < 2 || ticks[0] != min || math.Abs(ticks[len(ticks)-1]-max) > 1e-9 {
			t.Errorf("niceTicks(%v, %v) ticks %v", tt.lo, tt.hi, ticks)
		}
	}
	s := scale{step: 0.025, percent: true}
	if got := s.label(0.075); got != "7.5 %" {
		t.Errorf("percent tick label = %q, want 7.5 %%", got)
	}
	if got := (scale{step: 0.5}).label(-1.5); got != "−1.5" {
		t.Errorf("negative tick label = %q, want −1.5", got)
	}
}

func TestMetricRowDirection(t *testing.T) {
	tests := []struct {
		key  string
		b, c float64
		want string
	}{
		{"system_tps", 1000, 1100, "better"},
		{"system_tps", 1000, 900, "worse"},
		{"gap_fraction", 0.05, 0.04, "better"},
		{"ttft.p99", 1.9, 2.1, "worse"},
		{"retry_rate", 0.02, 0.03, "worse"},
		{"success_rate", 0.99, 0.99, "same"},
		{"system_tps", 1000, 1000.1, "same"}, // below sameThreshold
		{"arrival_rate", 4, 5, ""},
	}
	for _, tt := range tests {
		def := mustMetric(tt.key)
		var mb, mc Run
		set := func(r *Run, v float64) {
			switch tt.key {
			case "system_tps":
				r.Summary.SystemTPS = ptr(v)
			case "gap_fraction":
				r.Summary.GapFraction = ptr(v)
			case "ttft.p99":
				r.Summary.TTFT.P99 = ptr(v)
			case "retry_rate":
				r.Summary.RetryRate = ptr(v)
			case "success_rate":
				r.Summary.SuccessRate = ptr(v)
			case "arrival_rate":
				r.Summary.ArrivalRate = ptr(v)
			}
		}
		set(&mb, tt.b)
		set(&mc, tt.c)
		row := newMetricRow(def, []*schemas.Metrics{&mb.Summary.Metrics, &mc.Summary.Metrics})
		if row.Direction != tt.want {
			t.Errorf("%s %v → %v: direction %q, want %q", tt.key, tt.b, tt.c, row.Direction, tt.want)
		}
	}
	// One value NULL: no delta, no colour.
	row := newMetricRow(mustMetric("system_tps"), []*schemas.Metrics{{SystemTPS: ptr(1)}, {}})
	if row.Delta != nil || row.Direction != "" || row.Text[1] != "—" {
		t.Errorf("NULL candidate: %+v", row)
	}
}
