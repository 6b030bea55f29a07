package sim

import (
	"io"
	"strconv"

	"github.com/tpsreport/tpsreport/schemas"
)

// SGLangMetrics writes what SGLang's request metrics export writes
// (--export-metrics-to-file with --enable-metrics;
// FileRequestMetricsExporter in
// python/sglang/srt/managers/request_metrics_exporter.py): one JSON object
// per finished request, {"request_parameters": "<the request as JSON
// text>", **meta_info}, in Python json.dumps's default layout (", " and
// ": "), as ingest's sglang-metrics format reads it (ingest/sglang.go).
//
// These are engine-side records: one per attempt that reached an engine
// (engine_arrived_at), admitted or not (an attempt the client gave up while
// it waited in the engine's queue is exported as an abort without
// queue_time, as SGLang exports a request aborted before prefill). Attempts
// rejected or timed out at the gateway never reach SGLang and have none.
//
//	id, request_parameters.rid   32 hex digits per attempt (SGLang's
//	                             uuid4().hex rid): attempts do not share one
//	finish_reason                {"type": "stop", "matched": 128009} on
//	                             success; {"type": "abort", "message":
//	                             "Internal server error", "status_code": 500}
//	                             for an engine error; {"type": "abort",
//	                             "message": "Client disconnected"} for an
//	                             attempt the client gave up or a cancelled hedge
//	prompt_tokens, completion_tokens, cached_tokens   the attempt's (0 when
//	                             unknown: SGLang always writes them)
//	queue_time                   admitted_at − engine_arrived_at (s); absent
//	                             when never admitted
//	e2e_latency                  released_at − engine_arrived_at (s)
//	request_received_ts, request_sent_to_scheduler_ts   engine_arrived_at
//	                             (epoch s; the simulator does not tokenize)
//	prefill_finished_ts          first_token_at; absent without a token
//	decode_finished_ts, response_sent_to_client_ts   released_at: the
//	                             simulated engine finishes a request
//	                             ReleaseDelay after its last token
//	                             (detokenize, slot release) and SGLang stamps
//	                             the finished request when it leaves
//
// The export names neither the model nor the server (one file per server):
// spans read from it have no replica. Times are written as the shortest
// decimal of the float64 nearest the µs value, which reads back to the same
// µs.
type SGLangMetrics struct {
	lw   lineWriter
	sc   Scenario
	seed uint64
}

var _ Writer = (*SGLangMetrics)(nil)

// NewSGLangMetrics returns a writer of sc's run (with seed, for the ids) to w.
func NewSGLangMetrics(w io.Writer, sc Scenario, seed uint64) *SGLangMetrics {
	return &SGLangMetrics{lw: lineWriter{w: w}, sc: sc.withDefaults(), seed: seed}
}

// WriteSample ignores engine stats: the export has none.
func (g *SGLangMetrics) WriteSample(schemas.Sample) error { return nil }

// Flush writes out the buffer.
func (g *SGLangMetrics) Flush() error { return g.lw.flush() }

// WriteSpan appends the record of an attempt that reached an engine.
func (g *SGLangMetrics) WriteSpan(s schemas.Span) error {
	if g.lw.err != nil {
		return g.lw.err
	}
	if s.EngineArrivedAt == nil || s.ReleasedAt == nil {
		return nil // never reached an engine
	}
	arr, rel := *s.EngineArrivedAt, *s.ReleasedAt
	var rid [32]byte
	id := appendHexID(rid[:0], g.seed, "sglang-rid", s.SpanID, 16)
	n := func(p *int64) int64 {
		if p == nil {
			return 0
		}
		return *p
	}
	b := g.lw.buf
	b = append(b, `{"request_parameters": "{\"rid\": \"`...)
	b = append(b, id...)
	b = append(b, `\", \"sampling_params\": {\"max_new_tokens\": `...)
	b = strconv.AppendInt(b, g.sc.Output.Max, 10)
	b = append(b, `}, \"stream\": true}", "id": "`...)
	b = append(b, id...)
	b = append(b, `", "finish_reason": `...)
	switch s.Status {
	case schemas.StatusOK:
		b = append(b, `{"type": "stop", "matched": 128009}`...)
	case schemas.StatusError:
		b = append(b, `{"type": "abort", "message": "Internal server error", "status_code": 500}`...)
	default:
		b = append(b, `{"type": "abort", "message": "Client disconnected"}`...)
	}
	b = append(b, `, "prompt_tokens": `...)
	b = strconv.AppendInt(b, n(s.InputTokens), 10)
	b = append(b, `, "weight_version": "default", "total_retractions": 0`...)
	if s.AdmittedAt != nil {
		b = append(b, `, "queue_time": `...)
		b = appendSeconds(b, *s.AdmittedAt-arr)
	}
	b = append(b, `, "completion_tokens": `...)
	b = strconv.AppendInt(b, n(s.OutputTokens), 10)
	b = append(b, `, "cached_tokens": `...)
	b = strconv.AppendInt(b, n(s.CachedTokens), 10)
	b = append(b, `, "e2e_latency": `...)
	b = appendSeconds(b, rel-arr)
	b = append(b, `, "request_received_ts": `...)
	b = appendSeconds(b, arr)
	b = append(b, `, "request_sent_to_scheduler_ts": `...)
	b = appendSeconds(b, arr)
	if s.FirstTokenAt != nil {
		b = append(b, `, "prefill_finished_ts": `...)
		b = appendSeconds(b, *s.FirstTokenAt)
	}
	b = append(b, `, "decode_finished_ts": `...)
	b = appendSeconds(b, rel)
	b = append(b, `, "response_sent_to_client_ts": `...)
	b = appendSeconds(b, rel)
	b = append(b, "}\n"...)
	g.lw.buf = b
	return g.lw.maybeFlush()
}
