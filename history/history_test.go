package history

import (
	"fmt"
	"math"
	"testing"
	"time"

	"github.com/tpsreport/tpsreport/schemas"
)

func f64(v float64) *float64 { return &v }

// TestFind: on 24 nights whose success_rate falls from 99 % to 95 % at
// night 13 and whose TTFT p95 is flat, Find names the night, the medians
// on each side (hand-computed from the values below), the change in
// percentage points and a regression; nights without a value are left
// out of a series (slo_attainment: none has an SLO) and do not shift the
// night a change point names.
func TestFind(t *testing.T) {
	var nights []Night
	t0 := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	for i := 0; i < 24; i++ {
		s := schemas.Summary{RunStart: t0.Add(time.Duration(i) * 24 * time.Hour)}
		// ±0.2 pp around 99 % and 95 %: medians 0.99 and 0.95 exactly.
		wiggle := []float64{-0.002, 0, 0.002}[i%3]
		if i >= 12 {
			s.Metrics.SuccessRate = f64(0.95 + wiggle)
		} else {
			s.Metrics.SuccessRate = f64(0.99 + wiggle)
		}
		s.Metrics.TTFTReq.P95 = f64(0.8 + 0.01*wiggle)
		if i == 5 {
			s.Metrics.SuccessRate = nil // a night without a request
		}
		nights = append(nights, Night{Name: fmt.Sprintf("night-%02d", i+1), Summary: s})
	}
	got := Find(nights, Metrics, Options{})
	if len(got) != 1 {
		t.Fatalf("change points %+v, want one", got)
	}
	c := got[0]
	if c.Metric != "success_rate" || c.Night != "night-13" || c.Start != "2026-11-13T00:00:00Z" {
		t.Errorf("change point %+v, want success_rate at night-13 (2026-11-13)", c)
	}
	if math.Abs(c.Before-0.99) > 1e-12 || math.Abs(c.After-0.95) > 1e-12 || math.Abs(c.Change+0.04) > 1e-12 || !c.Points {
		t.Errorf("before %v after %v change %v (points %v), want 0.99, 0.95, −0.04 pp", c.Before, c.After, c.Change, c.Points)
	}
	if !c.Regression || c.NightsBefore != 11 || c.NightsAfter != 12 || c.P > 0.01 {
		t.Errorf("regression %v, nights %d/%d, p %v: want a regression over 11 and 12 nights, p ≤ 0.01", c.Regression, c.NightsBefore, c.NightsAfter, c.P)
	}

	// The same fall in throughput is a relative change; a rise in TTFT is
	// a regression, a fall is not; a shift of 0.5 %, though significant
	// over these quiet nights, is below MinChange and not reported.
	for _, tc := range []struct {
		metric     string
		a, b       float64
		change     float64
		regression bool
	}{
		{"retry_adjusted_system_tps", 1000, 900, -0.1, true},
		{"ttft_req.p95", 0.5, 0.6, 0.2, true},
		{"ttft_req.p95", 0.6, 0.5, -1.0 / 6, false},
		{"retry_adjusted_system_tps", 1000, 995, 0, false},
	} {
		m, _ := MetricNamed(tc.metric)
		var ns []Night
		for i := 0; i < 20; i++ {
			v := tc.a
			if i >= 10 {
				v = tc.b
			}
			v *= 1 + 0.001*float64(i%3-1)
			s := schemas.Summary{}
			s.Metrics.RetryAdjustedSystemTPS, s.Metrics.TTFTReq.P95 = f64(v), f64(v)
			ns = append(ns, Night{Name: fmt.Sprint(i), Summary: s})
		}
		got := Find(ns, []Metric{m}, Options{})
		if tc.change == 0 {
			if len(got) != 0 {
				t.Errorf("%s %v → %v: %+v, want none below MinChange", tc.metric, tc.a, tc.b, got)
			}
			if len(ChangePoints(func() (xs []float64) {
				for _, n := range ns {
					xs = append(xs, *m.Value(&n.Summary))
				}
				return xs
			}(), Options{})) != 1 {
				t.Errorf("%s %v → %v: the shift is not significant, so the test shows nothing", tc.metric, tc.a, tc.b)
			}
			continue
		}
		if len(got) != 1 || got[0].Night != "10" || math.Abs(got[0].Change-tc.change) > 1e-9 || got[0].Points || got[0].Regression != tc.regression {
			t.Errorf("%s %v → %v: %+v, want one change at night 10 of %v, regression %v", tc.metric, tc.a, tc.b, got, tc.change, tc.regression)
		}
	}
}

// BenchmarkFind365 is `tpsreport history` over a year of nights: every
// series the history follows, throughput with a step, the others flat.
func BenchmarkFind365(b *testing.B) {
	var nights []Night
	for i := 0; i < 365; i++ {
		w := 1 + 0.01*float64(i%7-3)
		s := schemas.Summary{}
		tps := 1000 * w
		if i >= 200 {
			tps *= 0.9
		}
		s.Metrics.RetryAdjustedSystemTPS = f64(tps)
		s.Metrics.BacklogGapFraction, s.Metrics.SuccessRate, s.Metrics.RetryRate = f64(0.1*w), f64(0.99*w), f64(0.01*w)
		s.Metrics.TTFTReq.P95, s.Metrics.TPOTReq.P95, s.Metrics.SLOAttainment = f64(0.5*w), f64(0.02*w), f64(0.95*w)
		s.Cost = &schemas.Cost{CostPerMillionTokens: f64(0.8 * w)}
		nights = append(nights, Night{Name: fmt.Sprint(i), Summary: s})
	}
	for b.Loop() {
		Find(nights, Metrics, Options{})
	}
}
