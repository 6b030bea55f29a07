package truth

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/tpsreport/tpsreport/analyze"
	"github.com/tpsreport/tpsreport/ingest"
	"github.com/tpsreport/tpsreport/schemas"
	"github.com/tpsreport/tpsreport/sim"
)

// The simulator writes the logs real systems write (sim.WriteFormats); these
// tests ingest each real format, analyse it and hold the result against
// truth.json. A real format records less than the simulator knows, so each
// format is checked twice:
//
//  1. Against truth.json, on the metrics the format carries exactly: counts
//     exactly, everything else to 1e-6 relative (compareKeys), for the run
//     and every window. Tolerances: vLLM OTel latencies are float seconds
//     that ingest turns into whole ns on a ns start, then rounds to the µs;
//     the simulator writes each µs duration as the shortest decimal of the
//     float64 nearest d/1e6, which float64 holds to ~1e-16 relative, so
//     round(f·1e9) is exactly d·1000 and no time moves (durations here are
//     far under the 2^53 ns ≈ 104 days where that would fail). LiteLLM's
//     epoch-second floats near 1.8e9 s have a spacing of 2.4e-7 s < 0.5 µs,
//     so rounding to the µs gives back every instant. Both therefore keep 1e-6
//     relative; no widened tolerance is needed.
//  2. Against the canonical spans projected onto what the format records
//     (projectOTel, projectLiteLLM: an explicit statement of what is lost),
//     ingested as canonical spans and analysed the same way: every truth key,
//     1e-6 relative. This proves that the metrics excluded from (1) differ
//     from the truth by the format's design and by nothing else.
//
// Each format is ingested with its name and with "auto", which must detect it
// and give the same result.

// seedFormats is the seed of these tests (truth_test.go uses 7 too).
const seedFormats = 7

// Metrics vLLM's engine-side spans carry exactly. Excluded, by design: the
// engine never sees the gateway queue nor the attempts that did not reach
// it (rejected with 429, timed out or cancelled while queued), and its span
// starts at the engine's arrival: the gateway's admission without a
// dispatch policy, so queued_at = admitted_at and backlog_time, gap_time,
// gap_fraction, backlog_gap_fraction, mean_queue_depth are all 0 (the queue
// is invisible), else when the gateway sent it to the engine's queue, so
// these count the engine's queues alone;
// arrivals and arrival_rate count first *engine* attempts at engine arrival;
// attempts, retry_attempts, attempt_success_rate and retry_rate count only
// engine attempts (numbered by analyze among them); requests and
// success_rate miss the requests none of whose attempts reached an engine;
// little_concurrency uses engine-side t_total. succeeded_requests is exact:
// a request succeeds on an engine, and nothing of it ends later outside one.
var otelExact = []string{
	"window_seconds", "system_tps", "generated_tps", "retry_adjusted_system_tps", "waste_fraction", "input_tps",
	"output_tokens", "generated_tokens", "delivered_tokens", "input_tokens", "successful_attempts",
	"succeeded_requests", "mean_in_flight", "utilization", "over_cap_time",
}

// projectOTel is a canonical span as a vLLM llm_request span records it: only
// attempts that an engine admitted, queued at their engine arrival, no attempt number or retry cause (analyze numbers attempts
// by queued_at), a client timeout or cancelled hedge seen as vLLM's abort,
// no cached tokens, no HTTP status.
func projectOTel(sp schemas.Span) (schemas.Span, bool) {
	if sp.AdmittedAt == nil {
		return sp, false
	}
	sp.QueuedAt = sp.EngineArrivedAt
	sp.Attempt, sp.RetryCause, sp.CachedTokens, sp.HTTPStatus, sp.Error = nil, nil, nil, nil, nil
	switch sp.Status {
	case schemas.StatusTimeout, schemas.StatusCancelled:
		sp.Status = schemas.StatusAborted
	}
	return sp, true
}

// Metrics LiteLLM's gateway payloads carry exactly. The gateway sees every
// attempt from receipt to end, so every event count, rate and request-level
// metric is exact. Excluded, by design: a gateway never knows admitted_at,
// so every span stays out of the state (docs/metrics.md) and backlog_time,
// gap_time, gap_fraction, backlog_gap_fraction, mean_in_flight,
// mean_queue_depth, utilization, over_cap_time are 0; LiteLLM logs 0 tokens
// for a call that raised (no usage object), which ingest reads as unknown,
// so the partial output of failed attempts is lost from generated_tokens,
// generated_tps and waste_fraction. Over the run only (runExact): a stream's
// last token is taken at endTime (the gateway's released_at, ReleaseDelay
// after the engine's last token) and input tokens have no admission instant
// to start from, so tokens are prorated over slightly different intervals:
// the run sums are exact, the per-window shares are not.
var (
	liteLLMExact = []string{
		"window_seconds", "arrivals", "arrival_rate", "requests", "succeeded_requests", "attempts",
		"successful_attempts", "retry_attempts", "success_rate", "attempt_success_rate", "retry_rate",
		"little_concurrency",
	}
	liteLLMRunExact = []string{
		"system_tps", "retry_adjusted_system_tps", "input_tps", "output_tokens", "delivered_tokens", "input_tokens",
	}
)

// projectLiteLLM is a canonical span as a LiteLLM StandardLoggingPayload
// records it: no admitted_at; no attempt number (analyze numbers the
// attempts of a trace_id by startTime); no engine arrival; first_token_at unless it equals the
// end (LiteLLM's non-streaming convention); last_token_at = released_at for
// a successful stream, else unknown; tokens of a failure unknown; replica
// the host:port of api_base; no http status on a success.
func projectLiteLLM(sp schemas.Span) (schemas.Span, bool) {
	ok := sp.Status == schemas.StatusOK
	sp.Attempt, sp.RetryCause, sp.EngineArrivedAt, sp.AdmittedAt, sp.LastTokenAt = nil, nil, nil, nil, nil
	if sp.FirstTokenAt != nil && *sp.FirstTokenAt == *sp.ReleasedAt {
		sp.FirstTokenAt = nil
	}
	if ok && sp.FirstTokenAt != nil {
		sp.LastTokenAt = sp.ReleasedAt
	}
	if ok {
		sp.HTTPStatus = nil
	} else {
		sp.InputTokens, sp.OutputTokens, sp.CachedTokens = nil, nil, nil
	}
	if sp.Replica != nil {
		sp.Replica = schemas.Ptr(*sp.Replica + ":8000")
	}
	return sp, true
}

// Metrics SGLang's request metrics export carries exactly. Like vLLM's
// engine spans (otelExact) it sees only the attempts that reached an engine,
// queued at their engine arrival; it also exports the attempts given up in an
// engine's queue (an abort without queue_time, out of the state). Each
// attempt has its own rid, so requests, retries and success_rate count
// attempts; the export names no server, so the run has one unnamed replica
// and is analysed with the pool's cap (poolCap). decode_finished_ts is the
// release, so last_token_at = released_at, ReleaseDelay after the simulated
// last token: output tokens are prorated over a slightly longer interval,
// exact over the run only (sglangRunExact), like LiteLLM's.
var (
	sglangExact = []string{
		"window_seconds", "input_tps", "input_tokens", "successful_attempts", "succeeded_requests",
		"mean_in_flight", "utilization", "over_cap_time",
	}
	sglangRunExact = []string{
		"system_tps", "generated_tps", "retry_adjusted_system_tps", "waste_fraction",
		"output_tokens", "generated_tokens", "delivered_tokens",
	}
)

// projectSGLang is a canonical span as SGLang's export records it: only
// attempts that reached an engine, queued at their engine arrival, each its
// own request (its span id stands for the rid), no attempt number, model or
// replica, tokens 0 when unknown, last_token_at = released_at when a first
// token came; an engine error is an abort with status_code 500 (error,
// http 500), a client's timeout or a cancelled hedge an abort (aborted).
func projectSGLang(sp schemas.Span) (schemas.Span, bool) {
	if sp.EngineArrivedAt == nil {
		return sp, false
	}
	sp.RequestID = sp.SpanID
	sp.QueuedAt = sp.EngineArrivedAt
	sp.Attempt, sp.RetryCause, sp.Model, sp.Replica = nil, nil, nil, nil
	zero := func(p *int64) *int64 {
		if p == nil {
			return schemas.Ptr(int64(0))
		}
		return p
	}
	sp.InputTokens, sp.OutputTokens, sp.CachedTokens = zero(sp.InputTokens), zero(sp.OutputTokens), zero(sp.CachedTokens)
	sp.LastTokenAt = nil
	if sp.FirstTokenAt != nil {
		sp.LastTokenAt = sp.ReleasedAt
	}
	sp.HTTPStatus, sp.Error = nil, nil
	switch sp.Status {
	case schemas.StatusOK:
	case schemas.StatusError:
		sp.HTTPStatus, sp.Error = schemas.Ptr(int32(500)), schemas.Ptr("abort 500")
	default:
		sp.Status = schemas.StatusAborted
	}
	return sp, true
}

// formatCase is one real format under test.
type formatCase struct {
	format string // ingest format, and sim format
	// exact: truth keys the format carries exactly, per window and for the run;
	// runExact: more keys exact over the whole run only.
	exact, runExact []string
	// project returns a canonical span as the format records it (false: the
	// format has no record of it).
	project func(schemas.Span) (schemas.Span, bool)
	// extent: analyse over truth.json's run extent (--from/--to) because the
	// format cannot see the run's first arrival or last release.
	extent bool
	// poolCap: the format names no replica, so --cap is the pool's.
	poolCap bool
}

var formatCases = []formatCase{
	{format: sim.FormatVLLMOTel, exact: otelExact, project: projectOTel, extent: true},
	// LiteLLM sees the run's first arrival and last release: its own extent.
	{format: sim.FormatLiteLLM, exact: liteLLMExact, runExact: liteLLMRunExact, project: projectLiteLLM},
	{format: sim.FormatSGLangMetrics, exact: sglangExact, runExact: sglangRunExact, project: projectSGLang, extent: true, poolCap: true},
}

// TestSimulatedFormatsTruth: for every scenario and every real format the
// simulator writes, ingest (explicit format and "auto") + analyze reproduces
// truth.json on what the format carries, and the canonical spans' projection
// onto the format on everything. -short keeps only shortScenario's
// LiteLLM + vLLM OTel join, the path of the demo and of a deployment.
func TestSimulatedFormatsTruth(t *testing.T) {
	for _, name := range sim.Names() {
		t.Run(name, func(t *testing.T) {
			if testing.Short() && name != shortScenario {
				t.Skip("slow; covers every real format the simulator writes (vLLM OTel, LiteLLM, vLLM log, their join) against truth.json for scenario " + name)
			}
			t.Parallel()
			sc, err := sim.Named(name)
			if err != nil {
				t.Fatal(err)
			}
			dir := t.TempDir()
			logs := filepath.Join(dir, "logs")
			truth, err := sim.WriteFormats(logs, sc, seedFormats)
			if err != nil {
				t.Fatal(err)
			}
			// The truth of the multi-format pass is the truth of the canonical pass.
			canon, err := sim.WriteFormats(filepath.Join(dir, "canon"), sc, seedFormats)
			if err != nil {
				t.Fatal(err)
			}
			if a, b := jsonMap(t, truth), jsonMap(t, canon); fmt.Sprint(a) != fmt.Sprint(b) {
				t.Fatal("WriteFormats truth differs from simulate's")
			}
			for _, fc := range formatCases {
				t.Run(fc.format, func(t *testing.T) {
					if testing.Short() {
						t.Skip("slow; covers " + fc.format + " alone, with its name and auto, against truth.json and the canonical spans' projection")
					}
					checkFormat(t, dir, sc, truth, fc)
				})
			}
			t.Run(sim.FormatVLLMLog, func(t *testing.T) {
				if testing.Short() {
					t.Skip("slow; covers the vLLM server log's samples and cap against the canonical samples, three ways")
				}
				checkVLLMLog(t, dir, sc, truth)
			})
			t.Run("litellm+vllm-otel", func(t *testing.T) { checkJoined(t, dir, sc, truth) })
		})
	}
}

func checkFormat(t *testing.T, dir string, sc sim.Scenario, truth sim.Truth, fc formatCase) {
	ctx := context.Background()
	capv := int64(sc.MaxNumSeqs)
	if fc.poolCap {
		capv = truth.Cap
	}
	opt := analyze.Options{Window: sc.Window, Cap: &capv}
	if fc.extent {
		from, to := truth.RunStart, truth.RunEnd
		opt.From, opt.To = &from, &to
	}
	input := filepath.Join(dir, "logs", sim.FormatFile(fc.format))

	// The projection of the canonical spans, as canonical spans.
	var proj bytes.Buffer
	var projected int64
	_, err := sim.Run(sc, seedFormats, func(sp schemas.Span) error {
		p, ok := fc.project(sp)
		if ok {
			projected++
			proj.Write(sim.AppendSpanJSON(nil, &p))
			proj.WriteByte('\n')
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	projFile := filepath.Join(dir, fc.format+".projected.jsonl")
	if err := os.WriteFile(projFile, proj.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	want := analyzeInput(t, ctx, dir, fc.format+"-projected", "spans", projFile, opt)

	var results []*schemas.RunResult
	for _, format := range []string{fc.format, ingest.FormatAuto} {
		run := filepath.Join(dir, "run-"+fc.format+"-"+format)
		man, err := ingest.Run(ctx, ingest.Options{RunID: sc.Name, Format: format, OutDir: run, Inputs: []string{input}})
		if err != nil {
			t.Fatalf("ingest --format %s: %v", format, err)
		}
		if len(man.Inputs) != 1 || man.Inputs[0].Format != fc.format {
			t.Fatalf("ingest --format %s: inputs %+v, want one read as %s", format, man.Inputs, fc.format)
		}
		if man.Counts.Rejected != 0 || man.Counts.Written-man.SamplesWritten != projected {
			t.Fatalf("ingest --format %s: counts %+v (samples %d), want %d spans and no reject (%v)",
				format, man.Counts, man.SamplesWritten, projected, man.RejectedBy)
		}
		o := opt
		o.Dir = run
		res, err := analyze.Run(ctx, o)
		if err != nil {
			t.Fatal(err)
		}
		results = append(results, res)
	}
	res := results[0]
	if got := *res.Summary.Cap; got != truth.Cap {
		t.Errorf("cap %d, want %d", got, truth.Cap)
	}

	// 1. truth.json, on what the format carries.
	tj := jsonMap(t, truth)
	tw := tj["windows"].([]any)
	if len(tw) != len(res.Windows) {
		t.Fatalf("%d windows, truth has %d", len(res.Windows), len(tw))
	}
	compareKeys(t, "truth run", only(jsonMap(t, res.Summary), fc.exact, fc.runExact), only(tj, fc.exact, fc.runExact))
	for i := range tw {
		compareKeys(t, fmt.Sprintf("truth window %d", i), only(jsonMap(t, res.Windows[i]), fc.exact), only(tw[i].(map[string]any), fc.exact))
	}
	// 2. The projection, on everything.
	sameAnalyses(t, "projection", res, want)
	// auto detection gives the same run.
	sameAnalyses(t, "auto", results[1], res)
}

// analyzeInput ingests one file in format and analyses it with opt.
func analyzeInput(t *testing.T, ctx context.Context, dir, name, format, input string, opt analyze.Options) *schemas.RunResult {
	t.Helper()
	run := filepath.Join(dir, "run-"+name)
	if _, err := ingest.Run(ctx, ingest.Options{RunID: name, Format: format, OutDir: run, Inputs: []string{input}}); err != nil {
		t.Fatal(err)
	}
	opt.Dir = run
	res, err := analyze.Run(ctx, opt)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// sameAnalyses compares every truth key of two analyses, run and windows.
func sameAnalyses(t *testing.T, what string, got, want *schemas.RunResult) {
	t.Helper()
	compareKeys(t, what+" run", jsonMap(t, got.Summary), jsonMap(t, want.Summary))
	if len(got.Windows) != len(want.Windows) {
		t.Fatalf("%s: %d windows, want %d", what, len(got.Windows), len(want.Windows))
	}
	for i := range got.Windows {
		compareKeys(t, fmt.Sprintf("%s window %d", what, i), jsonMap(t, got.Windows[i]), jsonMap(t, want.Windows[i]))
	}
}

// only keeps the keys of m in the lists, so that compareKeys (which skips a
// key absent from both) compares just those.
func only(m map[string]any, lists ...[]string) map[string]any {
	out := map[string]any{}
	for _, keys := range lists {
		for _, k := range keys {
			if v, ok := m[k]; ok {
				out[k] = v
			}
		}
	}
	return out
}

// sampledKeys are the sample-based state metrics (docs/metrics.md "Sampled
// state").
var sampledKeys = []string{
	"sampled_seconds", "backlog_time_sampled", "gap_time_sampled", "gap_fraction_sampled",
	"backlog_gap_fraction_sampled", "mean_in_flight_sampled", "mean_queue_depth_sampled", "utilization_sampled",
}

// checkVLLMLog: the vLLM server log holds no request (vLLM logs requests only
// with --enable-log-requests, and they print prompts), only each replica's
// max_num_seqs and its periodic stats, so its truth is the engine samples.
// truth.json has no sampled metrics (its state is exact, from the spans; a
// 10 s sample differs from it by sampling, not by any format), so the log is
// held against the canonical samples.jsonl of the same run, analysed the same
// way, on every sampled metric, to 1e-6 relative. Tolerance: vLLM's stamp
// has whole seconds (the docker stamp only gives ingest the year and the
// zone), so a sample's ts is truncated to the second; the named scenarios
// sample at Start + k·StatsInterval, whole seconds, so nothing moves and no
// widened tolerance is needed (the test checks that premise; with a
// sub-second phase each sample's hold would shift by < 1 s). The log's
// kv_cache_usage has vLLM's one decimal of a percent (±0.0005), and no
// metric uses it. The cap must come from the log alone (no --cap): the
// startup args line gives max_num_seqs, every stats line carries it, and
// the pool of the samples' replicas must be truth.json's cap. There are no
// spans, so the run extent is truth.json's (--from/--to). Checked three ways:
// the docker -t log (year from docker's stamp) with the format named and with
// "auto", and a plain `docker compose logs` variant read with --year.
func checkVLLMLog(t *testing.T, dir string, sc sim.Scenario, truth sim.Truth) {
	ctx := context.Background()
	if sc.Start%1_000_000 != 0 || sc.StatsInterval%time.Second != 0 {
		t.Fatalf("scenario %s samples off whole seconds: the exact comparison below does not apply", sc.Name)
	}
	from, to := truth.RunStart, truth.RunEnd
	opt := analyze.Options{Window: sc.Window, From: &from, To: &to}
	logs := filepath.Join(dir, "logs")
	want := analyzeInput(t, ctx, dir, "samples-canonical", "samples", filepath.Join(logs, "samples.jsonl"), opt)

	var plain bytes.Buffer
	w := sim.NewVLLMLog(&plain, sc, seedFormats)
	w.NoTimestamps = true
	if _, err := sim.Generate(sc, seedFormats, w); err != nil {
		t.Fatal(err)
	}
	plainFile := filepath.Join(dir, "vllm-plain.log")
	if err := os.WriteFile(plainFile, plain.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(plain.Bytes(), []byte("Z (APIServer")) {
		t.Fatal("NoTimestamps log has docker stamps")
	}
	year := truth.RunStart.Year()
	for _, v := range []struct {
		name, format, file string
		year               int
	}{
		{"docker-t", sim.FormatVLLMLog, filepath.Join(logs, sim.FormatFile(sim.FormatVLLMLog)), 0},
		{"docker-t-auto", ingest.FormatAuto, filepath.Join(logs, sim.FormatFile(sim.FormatVLLMLog)), 0},
		{"plain", sim.FormatVLLMLog, plainFile, year},
	} {
		run := filepath.Join(dir, "run-vllm-log-"+v.name)
		man, err := ingest.Run(ctx, ingest.Options{RunID: sc.Name, Format: v.format, OutDir: run, Inputs: []string{v.file}, Year: v.year})
		if err != nil {
			t.Fatalf("%s: %v", v.name, err)
		}
		switch {
		case len(man.Inputs) != 1 || man.Inputs[0].Format != sim.FormatVLLMLog:
			t.Fatalf("%s: inputs %+v, want one read as vllm-log", v.name, man.Inputs)
		case man.Counts.Rejected != 0:
			t.Fatalf("%s: %d rejects: %v", v.name, man.Counts.Rejected, man.RejectedBy)
		case man.SamplesWritten != truth.Sim.Samples:
			t.Fatalf("%s: %d samples, truth has %d", v.name, man.SamplesWritten, truth.Sim.Samples)
		case man.Counts.Written != truth.Sim.Samples+int64(sc.Replicas):
			t.Fatalf("%s: %d written, want %d samples and %d max_num_seqs facts", v.name, man.Counts.Written, truth.Sim.Samples, sc.Replicas)
		case man.MaxNumSeqs == nil || *man.MaxNumSeqs != int64(sc.MaxNumSeqs):
			t.Fatalf("%s: max_num_seqs %v, want %d", v.name, man.MaxNumSeqs, sc.MaxNumSeqs)
		}
		o := opt
		o.Dir = run
		res, err := analyze.Run(ctx, o)
		if err != nil {
			t.Fatal(err)
		}
		if res.Summary.Cap == nil || *res.Summary.Cap != truth.Cap || res.Summary.CapSource != analyze.CapFromSamples {
			t.Errorf("%s: cap %v from %q, want %d from samples", v.name, res.Summary.Cap, res.Summary.CapSource, truth.Cap)
		}
		compareList(t, v.name+" run", jsonMap(t, res.Summary), jsonMap(t, want.Summary), sampledKeys)
		if len(res.Windows) != len(want.Windows) || len(res.Windows) != len(truth.Windows) {
			t.Fatalf("%s: %d windows, canonical %d, truth %d", v.name, len(res.Windows), len(want.Windows), len(truth.Windows))
		}
		for i := range res.Windows {
			compareList(t, fmt.Sprintf("%s window %d", v.name, i), jsonMap(t, res.Windows[i]), jsonMap(t, want.Windows[i]), sampledKeys)
		}
		if g := res.Summary.SampledSeconds; g == nil || *g <= 0 {
			t.Errorf("%s: no sampled time", v.name)
		}
	}
	// A sanity bound, not a format tolerance: the 10 s samples of the run
	// average the exact in-flight state to within sampling error (≤ 3.1 %
	// for seed 7 in every scenario).
	if g, w := want.Summary.MeanInFlightSampled, truth.MeanInFlight; g == nil || w == nil || math.Abs(*g-*w) > 0.1**w {
		t.Errorf("mean_in_flight_sampled %v, truth mean_in_flight %v: beyond 10 %%", g, w)
	}
}

// compareList is compareKeys over the given keys.
func compareList(t *testing.T, what string, got, want map[string]any, keys []string) {
	t.Helper()
	for _, k := range keys {
		g, w := got[k], want[k]
		if w == nil || g == nil {
			if (w == nil) != (g == nil) {
				t.Errorf("%s %s: got %v, want %v", what, k, g, w)
			}
			continue
		}
		gf, wf := g.(float64), w.(float64)
		if math.Abs(gf-wf) > 1e-6*math.Max(math.Abs(gf), math.Abs(wf)) && math.Abs(gf-wf) > 1e-9 {
			t.Errorf("%s %s: got %.12g, want %.12g", what, k, gf, wf)
		}
	}
}

// checkJoined: the gateway's log and the engine's spans of one simulation,
// ingested into one run (FORMAT:INPUT arguments) and joined by analyze, give
// back what neither gives alone: every truth key, the state metrics (backlog,
// gap_fraction) included, for the run and every window, to 1e-6 relative.
// The gateway gives each attempt's receipt, outcome and numbering, the engine
// its admission, token times and counts (failed attempts' partial output too).
// Join coverage: every attempt a replica admitted joins, the others stay
// gateway-only, and no engine span is left over. In the simulator the gateway
// ends a response when the engine does, so gateway_overhead is the wait at
// the gateway, engine_arrived_at − queued_at: without a dispatch policy the
// gateway forwards at admission and its distribution is t_queue's; with one,
// its count and maximum over the successful spans are the canonical spans'.
func checkJoined(t *testing.T, dir string, sc sim.Scenario, truth sim.Truth) {
	ctx := context.Background()
	logs := filepath.Join(dir, "logs")
	var admitted, spans, okSpans int64
	var maxGateway int64
	if _, err := sim.Run(sc, seedFormats, func(sp schemas.Span) error {
		spans++
		if sp.AdmittedAt != nil {
			admitted++
		}
		if sp.Status == schemas.StatusOK {
			okSpans++
			maxGateway = max(maxGateway, *sp.EngineArrivedAt-*sp.QueuedAt)
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	run := filepath.Join(dir, "run-joined")
	_, err := ingest.Run(ctx, ingest.Options{RunID: sc.Name, Format: ingest.FormatAuto, OutDir: run, Inputs: []string{
		sim.FormatLiteLLM + ":" + filepath.Join(logs, sim.FormatFile(sim.FormatLiteLLM)),
		sim.FormatVLLMOTel + ":" + filepath.Join(logs, sim.FormatFile(sim.FormatVLLMOTel)),
	}})
	if err != nil {
		t.Fatal(err)
	}
	capv := int64(sc.MaxNumSeqs)
	res, err := analyze.Run(ctx, analyze.Options{Dir: run, Window: sc.Window, Cap: &capv})
	if err != nil {
		t.Fatal(err)
	}
	want := schemas.JoinCoverage{GatewaySpans: spans, EngineSpans: admitted, Matched: admitted, GatewayOnly: spans - admitted}
	if got := res.Summary.DataQuality.Join; got == nil || *got != want {
		t.Fatalf("join coverage %+v, want %+v", got, want)
	}
	tj := jsonMap(t, truth)
	tw := tj["windows"].([]any)
	if len(tw) != len(res.Windows) {
		t.Fatalf("%d windows, truth has %d", len(res.Windows), len(tw))
	}
	compareKeys(t, "joined run", jsonMap(t, res.Summary), tj)
	for i := range tw {
		compareKeys(t, fmt.Sprintf("joined window %d", i), jsonMap(t, res.Windows[i]), tw[i].(map[string]any))
	}
	compareReplicas(t, "joined", res.Summary.Replicas, truth)
	g := res.Summary.GatewayOverhead
	if sc.Dispatch != sim.DispatchFree {
		if g.N != okSpans || g.Max == nil || math.Abs(*g.Max-float64(maxGateway)/1e6) > 1e-9 {
			t.Errorf("gateway_overhead n %d max %v, want %d and %v s", g.N, deref(g.Max), okSpans, float64(maxGateway)/1e6)
		}
	} else if q := res.Summary.TQueue; g.N != q.N || fmt.Sprint(deref(g.P50), deref(g.P99), deref(g.Max)) != fmt.Sprint(deref(q.P50), deref(q.P99), deref(q.Max)) {
		t.Errorf("gateway_overhead %+v, want t_queue's distribution %+v", g, q)
	}
}

func deref(p *float64) any {
	if p == nil {
		return nil
	}
	return *p
}
