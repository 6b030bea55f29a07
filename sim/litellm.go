package sim

import (
	"io"
	"strconv"

	"github.com/tpsreport/tpsreport/schemas"
)

// LiteLLM writes what a LiteLLM proxy in front of the replicas logs: one
// StandardLoggingPayload per line (NDJSON, as its S3/GCS/generic-API loggers
// write it), for every attempt the gateway made, failures, 429 rejections
// and queue timeouts included.
//
//	id                   for an attempt a replica admitted, vLLM's response id
//	                     "chatcmpl-<request id>" (the gateway forwards the
//	                     request id as X-Request-Id, vLLM prefixes it, and the
//	                     first chunk of a stream carries it, so LiteLLM logs
//	                     it even when the stream later fails); for one never
//	                     admitted, LiteLLM's own call id, "chatcmpl-" and 32
//	                     random hex digits. analyze joins the first kind with
//	                     the vLLM OTel spans' gen_ai.request.id.
//	trace_id             a UUID per request: LiteLLM's trace id, shared by retries
//	startTime            queued_at (gateway receipt), epoch seconds, float
//	endTime              released_at
//	completionStartTime  first_token_at, else endTime (LiteLLM's convention)
//	status               "success" / "failure"
//	error_information    error_code (http status) and error_class
//	                     (InternalServerError 500, RateLimitError 429,
//	                     Timeout 408, CancelledError 499)
//	api_base, model_id   the replica's URL http://<replica>:8000/v1 and a
//	                     deployment id; null for an attempt never sent to one
//	prompt_tokens,       on success; 0 on a failure, as LiteLLM logs a call that
//	completion_tokens    raised (it has no usage object then)
//	metadata             attempted_retries (the attempt number), usage_object
//	                     with prompt_tokens_details.cached_tokens on success
//
// Never any prompt or completion text: messages and response are left out.
// Times are written as the shortest decimal of the float64 nearest the µs
// instant, which is what Python's json.dumps prints for LiteLLM's floats and
// which rounds back to the same µs.
type LiteLLM struct {
	lw   lineWriter
	sc   Scenario
	seed uint64
	// engineMetrics: log each successful response with vLLM's per-request
	// metrics object (NewLiteLLMMetrics).
	engineMetrics bool
}

var _ Writer = (*LiteLLM)(nil)

// NewLiteLLM returns a writer of sc's run (with seed, for the ids) to w.
func NewLiteLLM(w io.Writer, sc Scenario, seed uint64) *LiteLLM {
	return &LiteLLM{lw: lineWriter{w: w}, sc: sc.withDefaults(), seed: seed}
}

// NewLiteLLMMetrics returns a writer of the LiteLLM log of sc's run whose
// payloads also hold the response, as LiteLLM logs it when the proxy's
// response logging is on, and the response carries vLLM's per-request
// metrics object (vLLM ≥ 0.25 with --enable-per-request-metrics, PR #46768):
//
//	response             on success, the final response without any text:
//	                     id, object, created, model, one choice with content
//	                     null, usage, and metrics; null on a failure (an
//	                     error response carries no metrics)
//	metrics.queue_time_ms           admitted_at − engine_arrived_at (vLLM:
//	                                scheduled_ts − queued_ts)
//	metrics.time_to_first_token_ms  first_token_at − admitted_at (vLLM:
//	                                first_token_ts − scheduled_ts)
//	metrics.generation_time_ms      last_token_at − first_token_at
//	metrics.mean_itl_ms             generation_time_ms / (output tokens − 1),
//	                                omitted for one token
//	metrics.tokens_per_second       output tokens / (last_token_at −
//	                                admitted_at), omitted when that is 0
//
// Durations are the µs durations in ms, written as the shortest decimal of
// the float64 nearest d/1000, which reads back to the same µs. Everything
// else is what NewLiteLLM writes, byte for byte: completionStartTime (the
// first token as the client saw it, here the engine's first token) anchors
// the durations (ingest/engine_timings.go).
func NewLiteLLMMetrics(w io.Writer, sc Scenario, seed uint64) *LiteLLM {
	l := NewLiteLLM(w, sc, seed)
	l.engineMetrics = true
	return l
}

// WriteSample ignores engine stats: a gateway has none.
func (l *LiteLLM) WriteSample(schemas.Sample) error { return nil }

// Flush writes out the buffer.
func (l *LiteLLM) Flush() error { return l.lw.flush() }

// liteLLMErrors maps an attempt's http status to LiteLLM's exception class.
var liteLLMErrors = map[int32]string{
	408: "Timeout",
	429: "RateLimitError",
	499: "CancelledError",
	500: "InternalServerError",
}

// WriteSpan appends the payload of one attempt.
func (l *LiteLLM) WriteSpan(s schemas.Span) error {
	if l.lw.err != nil {
		return l.lw.err
	}
	if s.QueuedAt == nil || s.ReleasedAt == nil {
		return nil // the simulator always sets both
	}
	ok := s.Status == schemas.StatusOK
	start, end := *s.QueuedAt, *s.ReleasedAt
	first := end
	if s.FirstTokenAt != nil {
		first = *s.FirstTokenAt
	}
	var in, out, cached int64
	if ok {
		if s.InputTokens != nil {
			in = *s.InputTokens
		}
		if s.OutputTokens != nil {
			out = *s.OutputTokens
		}
		if s.CachedTokens != nil {
			cached = *s.CachedTokens
		}
	}
	model := l.sc.Model
	if s.Model != nil {
		model = *s.Model
	}

	b := l.lw.buf
	b = append(b, `{"id":"chatcmpl-`...)
	if s.AdmittedAt != nil {
		b = append(b, s.RequestID...)
	} else {
		b = appendHexID(b, l.seed, "litellm-id", s.SpanID, 16)
	}
	b = append(b, `","trace_id":"`...)
	b = appendUUID(b, l.seed, s.RequestID)
	b = append(b, `","call_type":"acompletion","stream":true,"custom_llm_provider":"hosted_vllm","response_cost":0.0,"status":"`...)
	if ok {
		b = append(b, "success"...)
	} else {
		b = append(b, "failure"...)
	}
	b = append(b, `","total_tokens":`...)
	b = strconv.AppendInt(b, in+out, 10)
	b = append(b, `,"prompt_tokens":`...)
	b = strconv.AppendInt(b, in, 10)
	b = append(b, `,"completion_tokens":`...)
	b = strconv.AppendInt(b, out, 10)
	b = append(b, `,"startTime":`...)
	b = appendSeconds(b, start)
	b = append(b, `,"endTime":`...)
	b = appendSeconds(b, end)
	b = append(b, `,"completionStartTime":`...)
	b = appendSeconds(b, first)
	b = append(b, `,"response_time":`...)
	b = appendSeconds(b, end-start)
	b = append(b, `,"model":`...)
	b = appendString(b, model)
	b = append(b, `,"model_group":`...)
	b = appendString(b, model)
	b = append(b, `,"model_id":`...)
	var base []byte
	if s.Replica != nil {
		b = append(append(b, '"'), "dep-"...)
		b = appendHexID(b, l.seed, "litellm-model-id", *s.Replica, 8)
		b = append(b, '"')
		base = appendString(nil, "http://"+*s.Replica+":8000/v1")
	} else {
		b = append(b, "null"...)
		base = []byte("null")
	}
	b = append(b, `,"api_base":`...)
	b = append(b, base...)
	b = append(b, `,"metadata":{"user_api_key_alias":"sim","attempted_retries":`...)
	var attempt int64
	if s.Attempt != nil {
		attempt = int64(*s.Attempt)
	}
	b = strconv.AppendInt(b, attempt, 10)
	b = append(b, `,"max_retries":`...)
	b = strconv.AppendInt(b, int64(l.sc.MaxAttempts-1), 10)
	b = append(b, `,"usage_object":`...)
	if ok {
		b = append(b, `{"prompt_tokens":`...)
		b = strconv.AppendInt(b, in, 10)
		b = append(b, `,"completion_tokens":`...)
		b = strconv.AppendInt(b, out, 10)
		b = append(b, `,"total_tokens":`...)
		b = strconv.AppendInt(b, in+out, 10)
		if s.CachedTokens != nil {
			b = append(b, `,"prompt_tokens_details":{"cached_tokens":`...)
			b = strconv.AppendInt(b, cached, 10)
			b = append(b, '}')
		}
		b = append(b, '}')
	} else {
		b = append(b, "null"...)
	}
	b = append(b, `},"cache_hit":false,"request_tags":[],"error_str":`...)
	code, class := "", ""
	if !ok {
		var h int32 = 500
		if s.HTTPStatus != nil {
			h = *s.HTTPStatus
		}
		code = strconv.Itoa(int(h))
		class = liteLLMErrors[h]
		if class == "" {
			class = "APIError"
		}
		b = appendString(b, "litellm."+class+": "+code)
	} else {
		b = append(b, "null"...)
	}
	b = append(b, `,"error_information":{"error_code":`...)
	b = appendString(b, code)
	b = append(b, `,"error_class":`...)
	b = appendString(b, class)
	b = append(b, `,"llm_provider":`...)
	if ok {
		b = append(b, `""`...)
	} else {
		b = append(b, `"hosted_vllm"`...)
	}
	b = append(b, `,"traceback":"","error_message":""}`...)
	if l.engineMetrics {
		b = l.appendResponse(b, &s, model, ok, in, out)
	}
	b = append(b, `,"model_parameters":{"stream":true},"hidden_params":{"api_base":`...)
	b = append(b, base...)
	b = append(b, "}}\n"...)
	l.lw.buf = b
	return l.lw.maybeFlush()
}

// appendUUID appends a version-4-shaped UUID drawn from (seed, key).
func appendUUID(b []byte, seed uint64, key string) []byte {
	var h [32]byte
	x := appendHexID(h[:0], seed, "uuid", key, 16)
	x[12] = '4'
	x[16] = "89ab"[x[16]%4]
	b = append(b, x[0:8]...)
	b = append(b, '-')
	b = append(b, x[8:12]...)
	b = append(b, '-')
	b = append(b, x[12:16]...)
	b = append(b, '-')
	b = append(b, x[16:20]...)
	b = append(b, '-')
	return append(b, x[20:32]...)
}

// appendResponse appends the payload's response key (NewLiteLLMMetrics).
func (l *LiteLLM) appendResponse(b []byte, s *schemas.Span, model string, ok bool, in, out int64) []byte {
	if !ok || s.AdmittedAt == nil || s.FirstTokenAt == nil || s.LastTokenAt == nil {
		return append(b, `,"response":null`...)
	}
	adm, first, last := *s.AdmittedAt, *s.FirstTokenAt, *s.LastTokenAt
	arr := adm
	if s.EngineArrivedAt != nil {
		arr = *s.EngineArrivedAt
	}
	b = append(b, `,"response":{"id":"chatcmpl-`...)
	b = append(b, s.RequestID...)
	b = append(b, `","object":"chat.completion","created":`...)
	b = strconv.AppendInt(b, *s.ReleasedAt/1_000_000, 10)
	b = append(b, `,"model":`...)
	b = appendString(b, model)
	b = append(b, `,"choices":[{"index":0,"finish_reason":"stop","message":{"role":"assistant","content":null}}],"usage":{"prompt_tokens":`...)
	b = strconv.AppendInt(b, in, 10)
	b = append(b, `,"completion_tokens":`...)
	b = strconv.AppendInt(b, out, 10)
	b = append(b, `,"total_tokens":`...)
	b = strconv.AppendInt(b, in+out, 10)
	b = append(b, `},"metrics":{"time_to_first_token_ms":`...)
	b = appendMillis(b, first-adm)
	b = append(b, `,"generation_time_ms":`...)
	b = appendMillis(b, last-first)
	b = append(b, `,"queue_time_ms":`...)
	b = appendMillis(b, adm-arr)
	if out > 1 {
		b = append(b, `,"mean_itl_ms":`...)
		b = strconv.AppendFloat(b, float64(last-first)/1000/float64(out-1), 'g', -1, 64)
	}
	if last > adm {
		b = append(b, `,"tokens_per_second":`...)
		b = strconv.AppendFloat(b, float64(out)/(float64(last-adm)/1e6), 'g', -1, 64)
	}
	return append(b, "}}"...)
}

// appendMillis appends the µs duration us in ms, as the shortest decimal of
// the float64 nearest us/1000 ("12.345"), which reads back to us.
func appendMillis(b []byte, us int64) []byte {
	return strconv.AppendFloat(b, float64(us)/1000, 'f', -1, 64)
}
