package ingest

import (
	"bytes"
	"errors"
	"slices"

	"github.com/tpsreport/tpsreport/ingest/internal/scan"
	"github.com/tpsreport/tpsreport/schemas"
)

// The kong format reads Kong Gateway log-plugin JSON (file-log, http-log,
// tcp-log: one object per request; http-log may batch them in arrays) with
// the AI Proxy block that ai-proxy / ai-proxy-advanced add when
// logging.log_statistics is on (kong/llm/plugin/shared-filters/
// serialize-analytics.lua):
//
//	ai.<plugin>.usage: prompt_tokens, completion_tokens, total_tokens, cost,
//	    time_per_token, time_to_first_token (ms, 3.12+),
//	    prompt_tokens_details.cached_tokens (3.11+)
//	ai.<plugin>.meta: request_model, response_model, provider_name,
//	    plugin_id, llm_latency (ms), request_mode (oneshot/stream/realtime)
//
// <plugin> is "proxy" for AI Proxy. Each entry of tries[] (one per upstream
// attempt of the balancer, with balancer_start in ms and, for a failed one,
// state and code) is one span: attempt i runs from its balancer_start (the
// first from started_at, the gateway's receipt) to the next try's
// balancer_start; the last one ends at started_at + latencies.request and
// carries the response status and the tokens. request_id is request.id
// (Kong 3.5+) or the X-Kong-Request-Id / X-Request-Id header. The request
// payload (ai.*.payload.request) is never read; of the response payload
// (ai.*.payload.response, logged with logging.log_payloads) only an engine's
// timing object is (engine_timings.go: vLLM's metrics, Dynamo's
// nvext.timing, llama.cpp's timings), which gives the last span the
// engine's arrival, admission and token times.

// SourceKong is the source column of spans read from Kong logs.
const SourceKong = "kong"

type kongReader struct{ *jsonRecordReader }

var _ Reader = (*kongReader)(nil)

func newKongReader(in Input) Reader {
	r := &kongReader{}
	r.jsonRecordReader = newJSONRecordReader(in, decodeKong)
	return r
}

func decodeKong(v any, _ []byte, out []Record) []Record {
	m, ok := v.(map[string]any)
	if !ok {
		return decodeReject(out, scan.Errorf(ErrBadType, -1, "want a JSON object, found %s", scan.KindName(v)))
	}
	spans, err := kongSpans(scan.Obj(m))
	if errors.Is(err, errNotARequest) {
		return append(out, Record{Kind: KindSkip, Skip: SkipNotARequest})
	}
	if err != nil {
		return decodeReject(out, err)
	}
	for _, sp := range spans {
		out = append(out, Record{Kind: KindSpan, Span: sp})
	}
	return out
}

// kongAI returns the ai.<plugin> block of an entry: "proxy" when present,
// else the first (by name) that has usage or meta.
func kongAI(o scan.Obj) scan.Obj {
	ai := o.Child("ai")
	if p := ai.Child("proxy"); p != nil {
		return p
	}
	names := make([]string, 0, len(ai))
	for k := range ai {
		names = append(names, k)
	}
	slices.Sort(names)
	for _, k := range names {
		if c := ai.Child(k); c != nil && (c.Child("usage") != nil || c.Child("meta") != nil) {
			return c
		}
	}
	return nil
}

func kongSpans(o scan.Obj) ([]schemas.Span, error) {
	var fe scan.FirstErr
	started := fe.Time(o.Get("started_at"), "started_at", nil)
	total := fe.Duration(o.Get("latencies", "request"), "latencies.request", 3)
	code := fe.Integer(o.Get("response", "status"), "response.status", 0, 999)
	id := fe.Str(o.Get("request", "id"), "request.id")
	if id == nil {
		id = fe.Str(o.Get("request", "headers", "x-kong-request-id"), "request.headers.x-kong-request-id")
	}
	if id == nil {
		id = fe.Str(o.Get("request", "headers", "x-request-id"), "request.headers.x-request-id")
	}
	ai := kongAI(o)
	if ai == nil && fe.Err == nil {
		// No AI plugin ran: a plain route's request, unless it is an LLM
		// API's that failed before the plugin did.
		path := fe.Str(o.Get("request", "uri"), "request.uri")
		if code != nil && gatewayNotARequest(*code < 400, path) {
			return nil, errNotARequest
		}
	}
	model := fe.Str(ai.Get("meta", "response_model"), "ai.proxy.meta.response_model")
	if model == nil {
		model = fe.Str(ai.Get("meta", "request_model"), "ai.proxy.meta.request_model")
	}
	in := fe.Tokens(ai.Get("usage", "prompt_tokens"), "ai.proxy.usage.prompt_tokens")
	if in == nil {
		in = fe.Tokens(ai.Get("usage", "prompt_token"), "ai.proxy.usage.prompt_token")
	}
	outTok := fe.Tokens(ai.Get("usage", "completion_tokens"), "ai.proxy.usage.completion_tokens")
	if outTok == nil {
		outTok = fe.Tokens(ai.Get("usage", "completion_token"), "ai.proxy.usage.completion_token")
	}
	cached := fe.Tokens(ai.Get("usage", "prompt_tokens_details", "cached_tokens"), "ai.proxy.usage.prompt_tokens_details.cached_tokens")
	ttft := fe.Duration(ai.Get("usage", "time_to_first_token"), "ai.proxy.usage.time_to_first_token", 3)
	mode := fe.Str(ai.Get("meta", "request_mode"), "ai.proxy.meta.request_mode")
	var et engineTimings
	var hasET bool
	if body, ok := ai.Get("payload", "response").(string); ok {
		if resp := responseBody(body); resp != nil {
			var err error
			et, hasET, err = engineTimingsOf(resp)
			fe.Keep(err)
		}
	}

	type try struct {
		start   *int64
		replica *string
		code    *int64
		state   *string
	}
	var tries []try
	if list, ok := o.Get("tries").([]any); ok {
		for i, t := range list {
			to, _ := t.(map[string]any)
			if to == nil {
				fe.Keep(scan.Errorf(ErrBadType, -1, "tries[%d]: want an object, found %s", i, scan.KindName(t)))
				continue
			}
			p := "tries[" + scan.Itoa(int64(i)) + "]."
			tr := try{
				start: fe.Time(scan.Obj(to).Get("balancer_start"), p+"balancer_start", nil),
				code:  fe.Integer(scan.Obj(to).Get("code"), p+"code", 0, 999),
				state: fe.Str(scan.Obj(to).Get("state"), p+"state"),
			}
			if ip := fe.Str(scan.Obj(to).Get("ip"), p+"ip"); ip != nil {
				r := *ip
				if port := fe.Integer(scan.Obj(to).Get("port"), p+"port", 0, 65535); port != nil {
					r += ":" + scan.Itoa(*port)
				}
				tr.replica = &r
			}
			tries = append(tries, tr)
		}
	}
	if fe.Err != nil {
		return nil, fe.Err
	}
	switch {
	case started == nil:
		if o.Get("latencies") == nil && ai != nil {
			return nil, scan.Errorf(ErrMissingField, -1, "missing started_at: the record holds the AI plugin's fields alone (an AI audit-log excerpt), no request timing. Try: the whole record a log plugin (file-log, http-log) writes")
		}
		return nil, scan.Errorf(ErrMissingField, -1, "missing started_at")
	case id == nil:
		return nil, scan.Errorf(ErrMissingField, -1, "missing request.id (Kong 3.5+) or an X-Kong-Request-Id / X-Request-Id request header")
	case code == nil:
		return nil, scan.Errorf(ErrMissingField, -1, "missing response.status")
	}
	end := scan.AddMicros(started, total)
	if len(tries) == 0 {
		tries = []try{{start: started}}
	}
	spans := make([]schemas.Span, len(tries))
	for i, tr := range tries {
		sp := &spans[i]
		*sp = schemas.Span{Source: SourceKong, RequestID: *id, Model: model, Replica: tr.replica}
		a := int32(i)
		sp.Attempt = &a
		sp.SpanID = *id
		if len(tries) > 1 {
			sp.SpanID = *id + "#" + scan.Itoa(int64(i))
		}
		sp.QueuedAt = tr.start
		if i == 0 || sp.QueuedAt == nil {
			sp.QueuedAt = started
		}
		if i > 0 {
			prev := tries[i-1]
			sp.RetryCause = schemas.Ptr("failed")
			if prev.code != nil {
				sp.RetryCause = schemas.Ptr(retryCauseHTTP(*prev.code))
			}
		}
		if i < len(tries)-1 {
			// A failed try: it ended when the balancer moved on.
			sp.ReleasedAt = tries[i+1].start
			sp.Status = schemas.StatusError
			sp.HTTPStatus = scan.HTTPStatus32(tr.code)
			if tr.code != nil {
				sp.Status = scan.StatusFromHTTP(*tr.code)
				if sp.Status == schemas.StatusOK {
					sp.Status = schemas.StatusError
				}
			}
			sp.Error = tr.state
			if sp.Error == nil {
				sp.Error = schemas.Ptr("failed")
			}
			continue
		}
		sp.ReleasedAt = end
		sp.HTTPStatus = scan.HTTPStatus32(code)
		sp.Status = scan.StatusFromHTTP(*code)
		if sp.Status != schemas.StatusOK {
			sp.Error = schemas.Ptr("http_" + scan.Itoa(*code))
		}
		sp.InputTokens, sp.OutputTokens, sp.CachedTokens = in, outTok, cached
		if ttft != nil && *ttft > 0 {
			sp.FirstTokenAt = scan.AddMicros(started, ttft)
			if sp.Status == schemas.StatusOK && (mode == nil || *mode == "stream") {
				sp.LastTokenAt = end
			}
		}
		if hasET {
			et.apply(sp)
		}
	}
	return spans, nil
}

// retryCauseHTTP names the cause of a retry after a try that got code.
func retryCauseHTTP(code int64) string {
	switch {
	case code == 429:
		return "429"
	case code == 408 || code == 504:
		return "timeout"
	case code >= 500:
		return "5xx"
	case code >= 400:
		return "4xx"
	}
	return "failed"
}

// sniffKong claims Kong log-plugin entries (latencies and request or
// response at the top level): 95 with started_at and an ai block, 90 with
// an ai block alone, 70 with started_at alone.
func sniffKong(head []byte) int {
	k := scan.FirstObjectKeys(head)
	if k["ai"] && !k["latencies"] && (bytes.Contains(head, []byte(`"plugin_id"`)) || bytes.Contains(head, []byte(`"provider_name"`))) {
		// The AI plugins' block alone (ai.proxy.meta names the plugin and
		// the provider): Kong's, to be rejected with the reason.
		return 60
	}
	if !k["latencies"] || !(k["request"] || k["response"]) {
		return 0
	}
	switch {
	case k["started_at"] && k["ai"]:
		return 95
	case k["ai"]:
		// An AI proxy entry without started_at is still Kong's: read as
		// kong, it is rejected for the missing field, not left unread.
		return 90
	case k["started_at"]:
		return 70
	}
	return 0
}
