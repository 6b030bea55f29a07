package sim

import (
	"io"
	"strconv"

	"github.com/tpsreport/tpsreport/schemas"
)

// VLLMOTel writes what vLLM's request tracing (--otlp-traces-endpoint) sends
// through an OpenTelemetry collector's file exporter: one
// {"resourceSpans":[...]} object per line (OTLP/JSON, camelCase, 64-bit
// integers as strings), each holding one export batch of one replica.
//
// These are engine-side spans: one llm_request span per attempt that reached
// an engine (admitted); an attempt rejected or timed out in the gateway queue
// never reaches vLLM and has none, and neither has one that timed out or
// was cancelled in an engine's queue (vLLM traces the requests it
// scheduled). The engine sees the request when the gateway forwards it, so
// the span starts at the simulated engine_arrived_at (vLLM's arrival_time)
// and ends at released_at; the request waits in the engine's queue until
// admitted_at. Without a Dispatch policy the gateway forwards only into a
// free slot, so arrival and admission coincide and time_in_queue is 0:
//
//	startTimeUnixNano              engine_arrived_at
//	endTimeUnixNano                released_at
//	gen_ai.latency.time_in_queue   admitted_at − engine_arrived_at
//	time_to_first_token            first_token_at − engine_arrived_at
//	time_in_model_prefill          first_token_at − admitted_at
//	time_in_model_decode           last_token_at − first_token_at
//	time_in_model_inference        prefill + decode
//	e2e                            released_at − engine_arrived_at
//
// The token latencies are omitted for an attempt that emitted no token.
// gen_ai.request.id is "chatcmpl-" and the request id: vLLM's OpenAI server
// builds it from the X-Request-Id header the gateway forwards, so the retries
// of one request share it (and, with the propagated traceparent, the trace id).
// finish_reasons is "stop" for a success, "error" for an engine error and
// "abort" for an attempt the client gave up or a cancelled hedge. Resource:
// service.name "vllm", service.instance.id the replica (what vLLM's
// OTEL_RESOURCE_ATTRIBUTES set; ingest maps it to the replica). Durations are
// float seconds written exactly to the µs, so ns → µs rounding gives back
// the simulated instants.
//
// Spans are batched per replica as the SDK's BatchSpanProcessor does: a batch
// is written when it holds otelBatchSpans spans or when a span is released
// otelBatchDelay after the batch's first one; Flush writes what is left.
type VLLMOTel struct {
	lw    lineWriter
	sc    Scenario
	seed  uint64
	reps  map[string]*otelBatch
	order []string // replicas in order of first span, for Flush
}

var _ Writer = (*VLLMOTel)(nil)

const (
	otelBatchSpans = 256
	otelBatchDelay = 5_000_000 // µs: BatchSpanProcessor's schedule_delay
)

type otelBatch struct {
	first int64 // released_at of the batch's first span
	n     int
	buf   []byte // the spans, comma-separated
}

// NewVLLMOTel returns a writer of sc's run (with seed, for the ids) to w.
func NewVLLMOTel(w io.Writer, sc Scenario, seed uint64) *VLLMOTel {
	return &VLLMOTel{lw: lineWriter{w: w}, sc: sc.withDefaults(), seed: seed, reps: map[string]*otelBatch{}}
}

// WriteSpan adds the span of an admitted attempt to its replica's batch.
func (o *VLLMOTel) WriteSpan(s schemas.Span) error {
	if o.lw.err != nil {
		return o.lw.err
	}
	if s.AdmittedAt == nil || s.ReleasedAt == nil {
		return nil // never reached an engine
	}
	rep := ""
	if s.Replica != nil {
		rep = *s.Replica
	}
	b := o.reps[rep]
	if b == nil {
		b = &otelBatch{}
		o.reps[rep] = b
		o.order = append(o.order, rep)
	}
	rel := *s.ReleasedAt
	if b.n > 0 && rel-b.first >= otelBatchDelay {
		o.writeBatch(rep, b)
	}
	if b.n == 0 {
		b.first = rel
	} else {
		b.buf = append(b.buf, ',')
	}
	b.buf = o.appendSpan(b.buf, &s)
	b.n++
	if b.n >= otelBatchSpans {
		o.writeBatch(rep, b)
	}
	return o.lw.maybeFlush()
}

// WriteSample ignores engine stats: vLLM's traces carry none.
func (o *VLLMOTel) WriteSample(schemas.Sample) error { return nil }

// Flush writes the open batches and the buffer.
func (o *VLLMOTel) Flush() error {
	for _, rep := range o.order {
		if b := o.reps[rep]; b.n > 0 {
			o.writeBatch(rep, b)
		}
	}
	return o.lw.flush()
}

// writeBatch appends one line: the batch of replica rep as one resourceSpans.
func (o *VLLMOTel) writeBatch(rep string, b *otelBatch) {
	l := o.lw.buf
	l = append(l, `{"resourceSpans":[{"resource":{"attributes":[`...)
	l = otelStrAttr(l, "telemetry.sdk.language", "python", false)
	l = otelStrAttr(l, "telemetry.sdk.name", "opentelemetry", true)
	l = otelStrAttr(l, "telemetry.sdk.version", "1.26.0", true)
	l = otelStrAttr(l, "service.name", "vllm", true)
	if rep != "" {
		l = otelStrAttr(l, "service.instance.id", rep, true)
	}
	l = append(l, `]},"scopeSpans":[{"scope":{"name":"vllm.llm_engine"},"spans":[`...)
	l = append(l, b.buf...)
	l = append(l, "]}],\"schemaUrl\":\"\"}]}\n"...)
	o.lw.buf = l
	b.n, b.buf = 0, b.buf[:0]
}

func (o *VLLMOTel) appendSpan(b []byte, s *schemas.Span) []byte {
	adm, rel := *s.AdmittedAt, *s.ReleasedAt
	arr := adm
	if s.EngineArrivedAt != nil {
		arr = *s.EngineArrivedAt
	}
	b = append(b, `{"traceId":"`...)
	b = appendHexID(b, o.seed, "trace", s.RequestID, 16)
	b = append(b, `","spanId":"`...)
	b = appendHexID(b, o.seed, "span", s.SpanID, 8)
	b = append(b, `","parentSpanId":"","flags":1,"name":"llm_request","kind":2,"startTimeUnixNano":"`...)
	b = strconv.AppendInt(b, arr*1000, 10)
	b = append(b, `","endTimeUnixNano":"`...)
	b = strconv.AppendInt(b, rel*1000, 10)
	b = append(b, `","attributes":[`...)
	b = otelStrAttr(b, "gen_ai.request.id", "chatcmpl-"+s.RequestID, false)
	b = otelRawAttr(b, "gen_ai.request.top_p", `{"doubleValue":0.95}`)
	b = otelIntAttr(b, "gen_ai.request.max_tokens", o.sc.Output.Max)
	b = otelRawAttr(b, "gen_ai.request.temperature", `{"doubleValue":0.7}`)
	b = otelIntAttr(b, "gen_ai.request.n", 1)
	if s.Model != nil {
		b = otelStrAttr(b, "gen_ai.response.model", *s.Model, true)
	}
	if s.FirstTokenAt != nil {
		b = otelSecAttr(b, "gen_ai.latency.time_to_first_token", *s.FirstTokenAt-arr)
	}
	b = otelSecAttr(b, "gen_ai.latency.e2e", rel-arr)
	b = otelSecAttr(b, "gen_ai.latency.time_in_queue", adm-arr)
	if s.InputTokens != nil {
		b = otelIntAttr(b, "gen_ai.usage.prompt_tokens", *s.InputTokens)
	}
	if s.OutputTokens != nil {
		b = otelIntAttr(b, "gen_ai.usage.completion_tokens", *s.OutputTokens)
	}
	if s.FirstTokenAt != nil {
		prefill := *s.FirstTokenAt - adm
		b = otelSecAttr(b, "gen_ai.latency.time_in_model_prefill", prefill)
		if s.LastTokenAt != nil {
			decode := *s.LastTokenAt - *s.FirstTokenAt
			b = otelSecAttr(b, "gen_ai.latency.time_in_model_decode", decode)
			b = otelSecAttr(b, "gen_ai.latency.time_in_model_inference", prefill+decode)
		}
	}
	reason := "stop"
	switch s.Status {
	case schemas.StatusOK:
	case schemas.StatusError:
		reason = "error"
	default: // timeout, cancelled: the client went away and vLLM aborted it
		reason = "abort"
	}
	b = otelRawAttr(b, "gen_ai.response.finish_reasons", `{"arrayValue":{"values":[{"stringValue":"`+reason+`"}]}}`)
	return append(b, `],"status":{}}`...)
}

func otelKey(b []byte, key string, comma bool) []byte {
	if comma {
		b = append(b, ',')
	}
	b = append(b, `{"key":`...)
	b = appendString(b, key)
	return append(b, `,"value":`...)
}

func otelStrAttr(b []byte, key, v string, comma bool) []byte {
	b = append(otelKey(b, key, comma), `{"stringValue":`...)
	return append(appendString(b, v), "}}"...)
}

func otelRawAttr(b []byte, key, raw string) []byte {
	return append(append(otelKey(b, key, true), raw...), '}')
}

func otelIntAttr(b []byte, key string, v int64) []byte {
	b = append(otelKey(b, key, true), `{"intValue":"`...)
	return append(strconv.AppendInt(b, v, 10), `"}}`...)
}

func otelSecAttr(b []byte, key string, us int64) []byte {
	b = append(otelKey(b, key, true), `{"doubleValue":`...)
	return append(appendSeconds(b, us), "}}"...)
}
