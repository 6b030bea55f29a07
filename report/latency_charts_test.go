package report

import (
	"slices"
	"testing"
)

func figureNamed(t *testing.T, figs []*figure, name string) *figure {
	t.Helper()
	for _, f := range figs {
		if f.Name == name {
			return f
		}
	}
	t.Fatalf("no figure %s", name)
	return nil
}

// TestTradeoffFigure: one dot per window, its p95 TTFT against its
// throughput, each run in its colour; windows without backlog hollow.
func TestTradeoffFigure(t *testing.T) {
	in := latencyCompareInput()
	f := figureNamed(t, figures(in), "throughput_vs_ttft")
	if len(f.Series) != 2 || f.Series[0].Run != "baseline" || f.Series[1].Run != "candidate" || f.Series[0].color == f.Series[1].color {
		t.Fatalf("series %+v", f.Series)
	}
	for i, rr := range in.runs() {
		s := f.Series[i]
		if s.Kind != "scatter" || len(s.X) != len(rr.run.Windows) {
			t.Errorf("%s: %s of %d points, want a dot per window (%d)", rr.role, s.Kind, len(s.X), len(rr.run.Windows))
		}
		for j, w := range rr.run.Windows {
			if s.X[j] != *w.TTFTReq.P95 || *s.Y[j] != *w.RetryAdjustedSystemTPS || s.Hollow[j] {
				t.Errorf("%s window %d: (%v, %v, hollow %v), want (%v, %v), filled", rr.role, j, s.X[j], *s.Y[j], s.Hollow[j], *w.TTFTReq.P95, *w.RetryAdjustedSystemTPS)
			}
		}
	}
	if f.XLabel != "p95 of ttft_req in the window, seconds" || f.YLabel != "retry_adjusted_system_tps (tok/s)" || f.xAxis.log {
		t.Errorf("axes %q / %q, log %v", f.XLabel, f.YLabel, f.xAxis.log)
	}
	if len(f.keys) != 0 {
		t.Errorf("legend keys %v for a run without idle windows", f.keys)
	}

	// A single run without request latencies: span ttft and its idle
	// windows hollow (no idle window has a TTFT, so one is made).
	single := singleInput()
	single.Baseline.Windows[20].BacklogTime = 0
	f = figureNamed(t, figures(single), "throughput_vs_ttft")
	s := f.Series[0]
	if f.XLabel != "p95 of ttft in the window, seconds" || s.Label != "windows (26)" || len(f.keys) != 1 {
		t.Errorf("single run: x %q, label %q, keys %v", f.XLabel, s.Label, f.keys)
	}
	if n := len(slices.DeleteFunc(slices.Clone(s.Hollow), func(h bool) bool { return !h })); n != 1 {
		t.Errorf("%d hollow dots, want 1", n)
	}

	// A run a hundred times faster than the other: a log latency axis.
	fast := latencyCompareInput()
	for i := range fast.Candidate.Windows {
		w := &fast.Candidate.Windows[i]
		w.TTFTReq.P95 = ptr(*w.TTFTReq.P95 / 100)
	}
	f = figureNamed(t, figures(fast), "throughput_vs_ttft")
	if !f.xAxis.log || f.XLabel != "p95 of ttft_req in the window, seconds (log scale)" {
		t.Errorf("log axis %v, x label %q", f.xAxis.log, f.XLabel)
	}
	if _, err := f.render(); err != nil {
		t.Fatal(err)
	}
}

// TestLatencyOverTime: p50 and p95 of the request latencies per window, both
// runs aligned by offset like the other time charts.
func TestLatencyOverTime(t *testing.T) {
	in := latencyCompareInput()
	figs := figures(in)
	tps := figureNamed(t, figs, "tps")
	for _, tc := range []struct{ name, key string }{{"ttft_over_time", "ttft_req"}, {"tpot_over_time", "tpot_req"}} {
		f := figureNamed(t, figs, tc.name)
		var metrics []string
		for _, s := range f.Series {
			metrics = append(metrics, s.Run+" "+s.Metric)
		}
		want := []string{"baseline " + tc.key + ".p50", "baseline " + tc.key + ".p95", "candidate " + tc.key + ".p50", "candidate " + tc.key + ".p95"}
		if !slices.Equal(metrics, want) {
			t.Errorf("%s: series %v, want %v", tc.name, metrics, want)
		}
		if f.YLabel != tc.key+", seconds" || f.XLabel != tps.XLabel || !f.yAxis.seconds {
			t.Errorf("%s: axes %q / %q", tc.name, f.XLabel, f.YLabel)
		}
		// Same window offsets as the throughput chart.
		if !slices.Equal(f.Series[2].X, tps.Series[2].X) || !slices.Equal(f.Series[0].XEnd, tps.Series[0].XEnd) {
			t.Errorf("%s: windows not aligned with the throughput chart", tc.name)
		}
	}
	f := figureNamed(t, figs, "ttft_over_time")
	for j, w := range in.Candidate.Windows {
		if *f.Series[3].Y[j] != *w.TTFTReq.P95 || *f.Series[2].Y[j] != *w.TTFTReq.P50 {
			t.Errorf("candidate window %d: p50 %v p95 %v, want %v %v", j, *f.Series[2].Y[j], *f.Series[3].Y[j], *w.TTFTReq.P50, *w.TTFTReq.P95)
		}
	}
	if got := f.Series[1].Label; got != "baseline ttft_req.p95, whole run 1.64 s" {
		t.Errorf("legend %q, want the whole run's p95 (the TTFT criterion's value)", got)
	}
	// Without request latencies: the span-level ones, idle windows blank.
	single := figureNamed(t, figures(singleInput()), "tpot_over_time")
	if single.Series[0].Metric != "tpot.p50" || single.YLabel != "tpot, seconds" || single.Series[0].Y[13] != nil {
		t.Errorf("single run: %s, %q, idle window %v", single.Series[0].Metric, single.YLabel, single.Series[0].Y[13])
	}
}
