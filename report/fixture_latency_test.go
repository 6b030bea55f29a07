package report

import (
	"math"
	"time"

	"github.com/tpsreport/tpsreport/schemas"
)

// latencyCompareInput is a comparison with every criterion of
// docs/acceptance.md that the runs support, read from engine logs only
// (gap_fraction turned off, since it cannot see the gateway's queue), with
// request-level latencies and an SLO. Its criteria are computed from the runs
// as compare computes them, so that the numbers the verdict judges and the
// numbers the tables show can be checked against each other.
func latencyCompareInput() Input {
	slo := &schemas.SLO{TTFT: ptr(2), TPOT: ptr(0.08)}
	base := makeRun(runShape{
		id: "vllm-0.6", start: t0, end: t0.Add(20 * time.Minute), cap: 64, capSource: "logs",
		tps:   func(i int) float64 { return 1010 + 120*math.Sin(float64(i)/3) },
		waste: 0.05, fail: 0.004, retry: 0.021,
		gap:       func(i int) float64 { return 0.02 + 0.05*math.Abs(math.Sin(float64(i)/2.5)) },
		ttftScale: 1, requests: true, slo: slo,
	})
	cand := makeRun(runShape{
		id: "vllm-0.7", start: t0.Add(24 * time.Second), end: t0.Add(24*time.Second + 19*time.Minute), cap: 64, capSource: "logs",
		tps:   func(i int) float64 { return 1190 + 150*math.Sin(float64(i)/3) },
		waste: 0.045, fail: 0.005, retry: 0.02,
		gap:       func(i int) float64 { return 0.018 + 0.046*math.Abs(math.Sin(float64(i)/2.5)) },
		ttftScale: 1.3, requests: true, slo: slo,
	})
	for _, r := range []*Run{&base, &cand} {
		r.Summary.EngineOnly = true
		r.Manifest.Inputs = r.Manifest.Inputs[:1]
		r.Manifest.FormatsDetected = []string{"vllm-otel"}
		r.Summary.ArrivalSpan = r.Summary.WindowSeconds - 3
		r.Summary.OfferedRate = ptr(float64(r.Summary.Arrivals) / r.Summary.ArrivalSpan)
		r.Summary.MeanInputTokens, r.Summary.MeanOutputTokens = ptr(512), ptr(287.5)
	}
	settings := schemas.DefaultCriteria()
	settings.Off = []string{"gap_fraction"}
	v := judge(&base, &cand, settings)
	v.Notes = []string{"the TTFT interval resamples an evenly spaced subsample of 200,000 of the baseline's 250,000 requests, in release order (the p95 itself is over all of them)"}
	return Input{Baseline: base, Candidate: &cand, Verdict: v,
		Command: "tpsreport compare --criteria acceptance.yaml --out reports/cmp /data/tps/run=vllm-0.6 /data/tps/run=vllm-0.7", Version: "0.5.0"}
}

// judge computes the values of the criteria as compare does (the verdicts
// and reasons are made up): throughput and gap_fraction over the backlog
// windows, the rates over the run, the latencies from the run's request
// percentiles.
func judge(b, c *Run, settings schemas.Criteria) *schemas.Verdict {
	backlogMean := func(r *Run) float64 {
		var sum float64
		var n int
		for _, w := range r.Windows {
			if w.BacklogTime > 0 && w.RetryAdjustedSystemTPS != nil {
				sum += *w.RetryAdjustedSystemTPS
				n++
			}
		}
		return sum / float64(n)
	}
	ratio := func(x, y *float64) *float64 { return ptr(*y / *x) }
	diff := func(x, y *float64) *float64 { return ptr(*y - *x) }
	bs, cs := &b.Summary, &c.Summary
	tb, tc := ptr(backlogMean(b)), ptr(backlogMean(c))
	crits := []schemas.Criterion{
		{Name: "throughput", Title: "Throughput improves", Verdict: schemas.Pass, Metric: "retry_adjusted_system_tps over backlog windows", Scope: scopeBacklog,
			Baseline: tb, Candidate: tc, Ratio: ratio(tb, tc), Lo: ptr(*tc / *tb * 0.96), Hi: ptr(*tc / *tb * 1.04), Level: ptr(0.99), MDE: ptr(0.06),
			Reason: "Delivered throughput under backlog rose (all of the interval above 1)."},
		{Name: "success_rate", Title: "Success rate not reduced", Verdict: schemas.Pass, Metric: "success_rate (requests with a successful attempt)", Scope: scopeWholeRun,
			Baseline: bs.SuccessRate, Candidate: cs.SuccessRate, Diff: diff(bs.SuccessRate, cs.SuccessRate), Level: ptr(0.98), MDE: ptr(0.004),
			Reason: "Success rate is within the 0.1 pp tolerance."},
		{Name: "retry_rate", Title: "Retry rate does not increase", Verdict: schemas.Pass, Metric: "retry_rate (attempts that are retries)", Scope: scopeWholeRun,
			Baseline: bs.RetryRate, Candidate: cs.RetryRate, Diff: diff(bs.RetryRate, cs.RetryRate), Level: ptr(0.98), MDE: ptr(0.004),
			Reason: "Retry rate is lower."},
		{Name: "ttft", Title: "TTFT does not regress", Verdict: schemas.Fail, Metric: "p95 of request TTFT (ttft_req, from first arrival across retries)", Scope: scopeRequests,
			Baseline: bs.TTFTReq.P95, Candidate: cs.TTFTReq.P95, Ratio: ratio(bs.TTFTReq.P95, cs.TTFTReq.P95), Lo: ptr(1.21), Hi: ptr(1.39), Level: ptr(0.98), MDE: ptr(0.19),
			Reason: "TTFT p95 1.64 s → 2.13 s (+30 %, ratio 1.30, 98 % interval 1.21–1.39): above the 10 % tolerance."},
		{Name: "tpot", Title: "TPOT does not regress", Verdict: schemas.Pass, Metric: "p95 of request TPOT (tpot_req)", Scope: scopeRequests,
			Baseline: bs.TPOTReq.P95, Candidate: cs.TPOTReq.P95, Ratio: ratio(bs.TPOTReq.P95, cs.TPOTReq.P95), Lo: ptr(0.98), Hi: ptr(1.02), Level: ptr(0.98), MDE: ptr(0.1),
			Reason: "TPOT p95 52.1 ms → 52.1 ms (0 %, ratio 1.00, 98 % interval 0.98–1.02): no slower."},
		{Name: "slo_attainment", Title: "SLO attainment not reduced", Verdict: schemas.Pass, Metric: "slo_attainment (completed requests delivered within the SLO)", Scope: scopeWholeRun,
			Baseline: bs.SLOAttainment, Candidate: cs.SLOAttainment, Diff: diff(bs.SLOAttainment, cs.SLOAttainment), Level: ptr(0.98), MDE: ptr(0.004),
			Reason: "SLO attainment is within the 1 pp tolerance."},
	}
	return &schemas.Verdict{Baseline: b.Summary.RunID, Candidate: c.Summary.RunID, Overall: schemas.Fail, Criteria: crits,
		Guards: []string{}, Settings: settings,
		Bootstrap: schemas.Bootstrap{Resamples: 2000, Seed: 20261120, BaselineRuns: 1, CandidateRuns: 1, BaselineWindows: len(b.Windows), CandidateWindows: len(c.Windows),
			Method: "circular block bootstrap of windows, runs resampled when several; t interval; Bonferroni over the criteria judged", Criteria: 5, Alpha: 0.05}}
}
