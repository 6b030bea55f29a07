package report

import (
	"math"
	"slices"
	"time"

	"github.com/tpsreport/tpsreport/schemas"
)

// Fixtures: realistic runs built in Go so that every number in a golden file
// can be traced to a line here.

// runShape describes a synthetic run: per-window load and behaviour.
type runShape struct {
	id        string
	start     time.Time
	end       time.Time
	cap       int64
	capSource string
	tps       func(i int) float64 // system_tps of window i; < 0 means an idle window
	waste     float64             // share of generated tokens not delivered
	fail      float64             // share of requests that fail
	retry     float64             // share of attempts that are retries
	gap       func(i int) float64 // gap_fraction of window i
	ttftScale float64
	// requests adds request-level latencies (ttft_req, tpot_req, e2e_req)
	// and, with slo, an SLO's attainment.
	requests bool
	slo      *schemas.SLO
}

var (
	t0 = time.Date(2026, 11, 20, 14, 0, 17, 250_000_000, time.UTC)
)

// makeRun builds a Run from a shape: windows aligned to the minute, the first
// and last partial, and a run summary aggregated from the windows.
func makeRun(s runShape) Run {
	const W = 60.0
	var wins []schemas.Metrics
	var sum struct {
		out, gen, del, in, backlog, gapT, inflight, queue, secs float64
		engineGap, admissionGap, unattributedGap                float64
		arrivals, req, succ, att, sAtt, retry, sloMet           int64
	}
	first := s.start.Truncate(time.Minute)
	for i := 0; ; i++ {
		ws := first.Add(time.Duration(i) * time.Minute)
		if !ws.Before(s.end) {
			break
		}
		we := ws.Add(time.Minute)
		lo, hi := maxTime(ws, s.start), minTime(we, s.end)
		secs := hi.Sub(lo).Seconds()
		m := schemas.Metrics{WindowStart: ws, WindowEnd: we, WindowSeconds: secs}
		tps := s.tps(i)
		if tps < 0 { // idle: nothing arrives, nothing runs
			zero := 0.0
			m.SystemTPS, m.GeneratedTPS, m.RetryAdjustedSystemTPS, m.InputTPS = ptr(0), ptr(0), ptr(0), ptr(0)
			m.ArrivalRate, m.GapFraction, m.MeanInFlight, m.MeanQueueDepth, m.Utilization = ptr(0), ptr(0), ptr(0), ptr(0), ptr(zero)
			wins = append(wins, m)
			sum.secs += secs
			continue
		}
		out := tps * secs
		gen := out / (1 - s.waste)
		del := out * (1 - s.waste/2)
		in := out * 3.2
		arrivals := int64(math.Round(tps / 230 * secs))
		req := arrivals
		succ := req - int64(math.Round(float64(req)*s.fail))
		att := req + int64(math.Round(float64(req)*s.retry/(1-s.retry)))
		retries := att - req
		gf := s.gap(i)
		backlog := math.Min(secs, secs*(0.25+gf*2))
		gapT := gf * secs
		inflight := math.Min(float64(s.cap), float64(s.cap)*(0.55+0.4*math.Sin(float64(i)/3)*math.Sin(float64(i)/3)))
		queue := backlog / secs * (3 + 140*gf)
		m.SystemTPS, m.GeneratedTPS, m.RetryAdjustedSystemTPS = ptr(tps), ptr(gen/secs), ptr(del/secs)
		m.WasteFraction, m.InputTPS = ptr(1-del/gen), ptr(in/secs)
		m.OutputTokens, m.GeneratedTokens, m.DeliveredTokens, m.InputTokens = out, gen, del, in
		m.Arrivals, m.ArrivalRate = arrivals, ptr(float64(arrivals)/secs)
		m.Requests, m.SucceededRequests, m.Attempts, m.SuccessfulAttempts, m.RetryAttempts = req, succ, att, att-(req-succ), retries
		if req > 0 {
			m.SuccessRate = ptr(float64(succ) / float64(req))
			m.AttemptSuccessRate = ptr(float64(att-(req-succ)) / float64(att))
			m.RetryRate = ptr(float64(retries) / float64(att))
		}
		m.BacklogTime, m.GapTime, m.GapFraction = backlog, gapT, ptr(gf)
		// The idle time's causes: 30 % engine, 60 % admission, the rest unknown.
		m.EngineGapTime, m.AdmissionGapTime = 0.3*gapT, 0.6*gapT
		m.UnattributedGapTime = gapT - m.EngineGapTime - m.AdmissionGapTime
		sum.engineGap += m.EngineGapTime
		sum.admissionGap += m.AdmissionGapTime
		sum.unattributedGap += m.UnattributedGapTime
		if backlog > 0 {
			m.BacklogGapFraction = ptr(gapT / backlog)
		}
		m.MeanInFlight, m.MeanQueueDepth = ptr(inflight), ptr(queue)
		m.Utilization = ptr(inflight / float64(s.cap))
		m.LittleConcurrency = ptr(float64(arrivals) / secs * 14.2)
		// Latency rises with load: the tail with the cube of throughput.
		load := tps / 1100
		m.TTFT = dist(req, 0.31*s.ttftScale*(0.6+8*gf), 1.9*s.ttftScale*load*load*load)
		m.TPOT = dist(req, 0.0241*(0.9+0.2*inflight/float64(s.cap)), 0.061*(0.8+0.4*load))
		m.StreamTPS = dist(req, 41, 18)
		if s.requests {
			m.TTFTReq = dist(succ, *m.TTFT.P50*1.05, *m.TTFT.P99*1.1)
			m.TPOTReq = m.TPOT
			m.TPOTReq.N = succ
			m.E2EReq = dist(succ, 6.4, 25*load)
			if s.slo != nil {
				met := int64(math.Round(float64(succ) * (0.99 - 0.4*gf)))
				m.SLOMet, m.Goodput, m.SLOAttainment = &met, ptr(float64(met)/secs), ptr(float64(met)/float64(req))
				sum.sloMet += met
			}
		}
		wins = append(wins, m)
		sum.out += out
		sum.gen += gen
		sum.del += del
		sum.in += in
		sum.backlog += backlog
		sum.gapT += gapT
		sum.inflight += inflight * secs
		sum.queue += queue * secs
		sum.secs += secs
		sum.arrivals += arrivals
		sum.req += req
		sum.succ += succ
		sum.att += att
		sum.sAtt += att - (req - succ)
		sum.retry += retries
	}
	secs := s.end.Sub(s.start).Seconds()
	run := schemas.Metrics{WindowStart: s.start, WindowEnd: s.end, WindowSeconds: secs,
		SystemTPS: ptr(sum.out / secs), GeneratedTPS: ptr(sum.gen / secs), RetryAdjustedSystemTPS: ptr(sum.del / secs),
		WasteFraction: ptr(1 - sum.del/sum.gen), InputTPS: ptr(sum.in / secs),
		OutputTokens: sum.out, GeneratedTokens: sum.gen, DeliveredTokens: sum.del, InputTokens: sum.in,
		Arrivals: sum.arrivals, ArrivalRate: ptr(float64(sum.arrivals) / secs),
		Requests: sum.req, SucceededRequests: sum.succ, Attempts: sum.att, SuccessfulAttempts: sum.sAtt, RetryAttempts: sum.retry,
		SuccessRate: ptr(float64(sum.succ) / float64(sum.req)), AttemptSuccessRate: ptr(float64(sum.sAtt) / float64(sum.att)),
		RetryRate:   ptr(float64(sum.retry) / float64(sum.att)),
		BacklogTime: sum.backlog, GapTime: sum.gapT, GapFraction: ptr(sum.gapT / secs), BacklogGapFraction: ptr(sum.gapT / sum.backlog),
		EngineGapTime: sum.engineGap, AdmissionGapTime: sum.admissionGap, UnattributedGapTime: sum.unattributedGap,
		MeanInFlight: ptr(sum.inflight / secs), MeanQueueDepth: ptr(sum.queue / secs), Utilization: ptr(sum.inflight / secs / float64(s.cap)),
		LittleConcurrency: ptr(float64(sum.arrivals) / secs * 14.2),
		TQueue:            dist(sum.req, 0.042*s.ttftScale, 1.21*s.ttftScale),
		TTFT:              dist(sum.req, 0.31*s.ttftScale, 1.9*s.ttftScale),
		TFirstToken:       dist(sum.req, 0.12, 0.48),
		TStream:           dist(sum.req, 5.6, 21.4),
		TInFlight:         dist(sum.req, 5.9, 22.8),
		TTotal:            dist(sum.req, 6.3, 24.1),
		TPOT:              dist(sum.req, 0.0241, 0.061),
		StreamTPS:         dist(sum.req, 41.3, 17.9),
		EndToEndTPS:       dist(sum.req, 37.2, 14.1),
	}
	if s.requests {
		run.TTFTReq = dist(sum.succ, 0.33*s.ttftScale, 2.2*s.ttftScale)
		run.TPOTReq = dist(sum.succ, 0.0245, 0.064)
		run.E2EReq = dist(sum.succ, 6.4, 24.8)
		if s.slo != nil {
			met := sum.sloMet
			run.SLOMet, run.Goodput, run.SLOAttainment = &met, ptr(float64(met)/secs), ptr(float64(met)/float64(sum.req))
		}
	}
	c := s.cap
	summary := schemas.Summary{
		RunID: s.id, RunStart: s.start, RunEnd: s.end, WindowWidth: W, Cap: &c, CapSource: s.capSource,
		Metrics: run,
		DataQuality: schemas.DataQuality{
			RecordsRead: sum.att + 93, SpansWritten: sum.att, RecordsRejected: 81, RecordsSkipped: 12,
			RejectedBy:       map[string]int64{"bad_json": 52, "bad_timestamp": 29},
			SkippedBy:        map[string]int64{"blank": 9, "unused_line": 3},
			MissingTimestamp: map[string]int64{"admitted_at": 14, "queued_at": 0},
			OutOfOrder:       3,
			Models:           []string{"meta-llama/Llama-3.1-8B-Instruct"},
			SpansOutOfState:  14,
		},
		Warnings: []string{},
		SLO:      s.slo,
	}
	if s.capSource == "inferred" {
		summary.Warnings = append(summary.Warnings, "cap inferred from the maximum in_flight (64): gap_time is a lower bound; pass --cap or ingest samples")
	}
	return Run{
		Dir: "/data/tps/run=" + s.id,
		Manifest: schemas.Manifest{
			RunID: s.id, Tool: "tpsreport", Version: "0.4.0",
			Inputs: []schemas.InputFile{
				{Path: "logs/" + s.id + "/vllm-0.jsonl.gz", Format: "vllm-otel", Size: 12_884_301, SHA256: "9f2c1e0d8b7a6c5d4e3f2a1b0c9d8e7f6a5b4c3d2e1f0a9b8c7d6e5f4a3b2c1d"},
				{Path: "logs/" + s.id + "/gateway.jsonl", Format: "litellm", Detected: true, Size: 3_201_554, SHA256: "0a1b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f60718293a4b5c6d7e8f9"},
			},
			Counts:          schemas.Counts{Read: sum.att + 93, Written: sum.att, Rejected: 81, Skipped: 12},
			RejectedBy:      map[string]int64{"bad_json": 52, "bad_timestamp": 29},
			SkippedBy:       map[string]int64{"blank": 9, "unused_line": 3},
			Ignored:         []schemas.IgnoredFile{{Path: "logs/" + s.id + "/README.md", Reason: "no format claims it"}},
			TimeRange:       &schemas.TimeRange{Start: s.start, End: s.end},
			FormatsDetected: []string{"litellm", "vllm-otel"},
		},
		Summary:         summary,
		Windows:         wins,
		TTFTQuantiles:   quantiles(func(q float64) float64 { return s.ttftScale * (0.12 + 0.5*q + 1.6*math.Pow(q, 8)) }),
		TQueueQuantiles: quantiles(func(q float64) float64 { return s.ttftScale * 1.3 * math.Pow(math.Max(0, q-0.35), 2) }),
		Concurrency:     concurrency(s.cap, s.ttftScale),
	}
}

func ptr(v float64) *float64 { return &v }

func maxTime(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

func minTime(a, b time.Time) time.Time {
	if a.Before(b) {
		return a
	}
	return b
}

// dist is a plausible percentile object around a median and a tail value.
func dist(n int64, median, tail float64) schemas.Percentiles {
	if n == 0 {
		return schemas.Percentiles{}
	}
	return schemas.Percentiles{N: n, P50: ptr(median), P90: ptr(median + (tail-median)*0.45), P95: ptr(median + (tail-median)*0.7),
		P99: ptr(tail), Mean: ptr(median * 1.18), Max: ptr(tail * 1.6)}
}

func quantiles(f func(q float64) float64) []float64 {
	out := make([]float64, 101)
	for i := range out {
		out[i] = math.Round(f(float64(i)/100)*1e6) / 1e6
	}
	return out
}

func concurrency(cap int64, scale float64) []ConcurrencyPoint {
	var out []ConcurrencyPoint
	for c := int64(4); c <= cap; c += 4 {
		out = append(out, ConcurrencyPoint{
			InFlight:  float64(c),
			StreamTPS: math.Round(68/(1+float64(c)/38)/scale*10) / 10,
			N:         int64(40 + 900*math.Exp(-math.Pow(float64(c-44)/14, 2))),
		})
	}
	return out
}

// singleInput is a 30-window run with an idle stretch (windows 12–15, where
// rates and percentiles are NULL) and an inferred cap.
func singleInput() Input {
	r := makeRun(runShape{
		id: "nightly-2026-11-20", start: t0, end: t0.Add(29*time.Minute + 24*time.Second + 250*time.Millisecond),
		cap: 64, capSource: "inferred",
		tps: func(i int) float64 {
			if i >= 12 && i <= 15 {
				return -1
			}
			return 980 + 260*math.Sin(float64(i)/4)
		},
		waste: 0.04, fail: 0.006, retry: 0.021,
		gap: func(i int) float64 {
			switch {
			case i >= 3 && i <= 6:
				return 0.06 + 0.03*float64(i-3)
			case i%7 == 0:
				return 0.012
			}
			return 0
		},
		ttftScale: 1,
	})
	return Input{Baseline: r, Command: "tpsreport report --out reports/nightly-2026-11-20 /data/tps/run=nightly-2026-11-20", Version: "0.4.0"}
}

// compareInput is a baseline and a faster but less reliable candidate, with
// a verdict: throughput PASS, success rate FAIL, gap INCONCLUSIVE, retry PASS.
func compareInput() Input {
	base := makeRun(runShape{
		id: "baseline", start: t0, end: t0.Add(30 * time.Minute), cap: 64, capSource: "samples",
		tps:   func(i int) float64 { return 1010 + 120*math.Sin(float64(i)/3) },
		waste: 0.05, fail: 0.004, retry: 0.021,
		gap:       func(i int) float64 { return 0.02 + 0.05*math.Abs(math.Sin(float64(i)/2.5)) },
		ttftScale: 1,
	})
	start := t0.Add(24 * time.Second)
	cand := makeRun(runShape{
		id: "candidate", start: start, end: start.Add(27*time.Minute + 30*time.Second), cap: 64, capSource: "samples",
		tps:   func(i int) float64 { return 1165 + 130*math.Sin(float64(i)/3) },
		waste: 0.045, fail: 0.019, retry: 0.0235,
		gap:       func(i int) float64 { return 0.018 + 0.046*math.Abs(math.Sin(float64(i)/2.5)) },
		ttftScale: 0.86,
	})
	cand.Summary.Warnings = append(cand.Summary.Warnings, "12 spans of replica engine-2 have no admitted_at; they count in tokens but not in state")
	v := &schemas.Verdict{
		Baseline: "baseline", Candidate: "candidate", Overall: schemas.Fail,
		Criteria: []schemas.Criterion{
			// Four criteria judged at alpha 0.05: throughput and gap at
			// 1 − 0.05/4, the others (alarming only by failing) at 1 − 0.1/4.
			{Name: "throughput", Title: "Throughput improves", Verdict: schemas.Pass, Metric: "retry_adjusted_system_tps",
				Baseline: ptr(1012.4), Candidate: ptr(1166.1), Ratio: ptr(1.1518), Lo: ptr(1.081), Hi: ptr(1.224), Level: ptr(0.9875), MDE: ptr(0.11),
				Reason: "Delivered throughput under backlog rose 15.2 % (ratio 1.152, 98.75 % interval 1.081–1.224, all above 1)."},
			{Name: "success_rate", Title: "Success rate not reduced", Verdict: schemas.Fail, Metric: "success_rate",
				Baseline: ptr(0.9961), Candidate: ptr(0.9812), Diff: ptr(-0.0149), Lo: ptr(-0.0231), Hi: ptr(-0.0067), Level: ptr(0.975), MDE: ptr(0.0098),
				Reason: "Success rate fell from 99.6 % to 98.1 % (−1.49 pp; 97.5 % interval −2.31 to −0.67 pp)."},
			{Name: "gap_fraction", Title: "gap_fraction decreases when backlog exists", Verdict: schemas.Inconclusive, Metric: "gap_fraction",
				Baseline: ptr(0.0431), Candidate: ptr(0.0398), Diff: ptr(-0.0033), Lo: ptr(-0.0112), Hi: ptr(0.0046), Level: ptr(0.9875), MDE: ptr(0.0121),
				Reason: "gap_fraction 4.3 % → 4.0 % (−0.33 pp) is within the 0.5 pp tolerance. This comparison sees changes of ±1.21 pp or more."},
			{Name: "retry_rate", Title: "Retry rate does not increase", Verdict: schemas.Pass, Metric: "retry_rate",
				Baseline: ptr(0.0210), Candidate: ptr(0.0235), Diff: ptr(0.0025), Lo: ptr(-0.0012), Hi: ptr(0.0062), Level: ptr(0.975), MDE: ptr(0.0061),
				Reason: "Retry rate 2.1 % → 2.4 % (+0.25 pp), not significantly higher: the 97.5 % interval −0.12 to +0.62 pp reaches 0."},
		},
		Settings: schemas.DefaultCriteria(),
		Bootstrap: schemas.Bootstrap{Resamples: 2000, Seed: 20261120, BaselineRuns: 1, CandidateRuns: 1, BaselineWindows: 31, CandidateWindows: 28,
			Method: "circular block bootstrap of windows, runs resampled when several; t interval; Bonferroni over the criteria judged", Criteria: 4, Alpha: 0.05},
		// The criteria leave out the first minute, so their values differ
		// from the whole run's: the report must say which is which.
		Notes: []string{"warm-up 60 s excluded from every criterion: baseline 1 of 31 windows (223 completed requests), candidate 1 of 28 windows (276 completed requests)"},
	}
	v.Settings.Warmup = 60
	return Input{Baseline: base, Candidate: &cand, Verdict: v,
		Command: "tpsreport compare --out reports/cmp /data/tps/run=baseline /data/tps/run=candidate", Version: "0.4.0"}
}

// hostile is the model name, run id and error text that must stay text.
const hostile = "<script>alert(1)</script>"

// hostileInput puts markup from the logs everywhere a log value can appear.
func hostileInput() Input {
	in := compareInput()
	for _, r := range []*Run{&in.Baseline, in.Candidate} {
		r.Summary.DataQuality.Models = []string{hostile, "llama|`x`*_"}
		r.Summary.Warnings = append(r.Summary.Warnings, "error "+hostile+" from replica <b>x</b> | pipe")
		r.Summary.Replicas = []schemas.ReplicaState{{Replica: hostile, Cap: r.Summary.Cap, GapFraction: ptr(0.03), Utilization: ptr(0.8)}}
		r.Manifest.Inputs = append(r.Manifest.Inputs, schemas.InputFile{Path: "logs/" + hostile + ".jsonl", Format: "auto", Size: 10})
		r.Manifest.RejectedBy[hostile] = 1
		r.Dir = "/data/" + hostile
	}
	in.Candidate.Summary.RunID = hostile
	in.Verdict.Guards = []string{"guard " + hostile}
	in.Verdict.Criteria[0].Reason = "reason " + hostile
	in.Command = "tpsreport compare '" + hostile + "'"
	return in
}

// saturatedInput is a run at its cap of 32 with a short queue: mean_in_flight
// sits on the cap line at the right end, and the queue is under a tenth of it.
func saturatedInput() Input {
	in := singleInput()
	r := &in.Baseline
	c := int64(32)
	r.Summary.Cap, r.Summary.CapSource = &c, "samples"
	r.Summary.Warnings = nil
	r.Windows = slices.Clone(r.Windows)
	for i := range r.Windows {
		w := &r.Windows[i]
		if v, ok := finite(w.MeanQueueDepth); ok {
			w.MeanQueueDepth = ptr(v / 8)
		}
		if _, ok := finite(w.MeanInFlight); ok && i >= 16 {
			w.MeanInFlight = ptr(32)
		}
	}
	return in
}
