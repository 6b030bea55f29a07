package ingest

import (
	"bytes"
	"strings"

	"github.com/tpsreport/tpsreport/ingest/internal/scan"
	"github.com/tpsreport/tpsreport/schemas"
)

// The otel-genai format reads OTLP/JSON traces (ExportTraceServiceRequest:
// resourceSpans[].scopeSpans[].spans[]), as the OpenTelemetry Collector's
// file exporter writes them (one request per line) or as one document, and
// keeps the spans that follow the OpenTelemetry GenAI semantic conventions
// (docs/gen-ai in open-telemetry/semantic-conventions): a span with any
// gen_ai.* attribute is one attempt; every other span is a skip.
//
//   - span_id: spanId. request_id: the x-request-id request header when the
//     instrumentation records it (http.request.header.x-request-id), else
//     spanId: a trace is a user's whole session (an agent makes many calls
//     in one trace), so the trace id does not identify one request.
//     attempt: http.request.resend_count when present; the resends of one
//     request are then grouped under their parent span (request_id =
//     parentSpanId).
//   - queued_at / released_at: startTimeUnixNano / endTimeUnixNano;
//     first_token_at: start + gen_ai.response.time_to_first_chunk (seconds).
//   - model: gen_ai.response.model, else gen_ai.request.model; replica:
//     server.address[:server.port].
//   - tokens: gen_ai.usage.input_tokens / output_tokens (or the older
//     prompt_tokens / completion_tokens), cache_read.input_tokens.
//   - status: status.code ERROR, error.type and http.response.status_code
//     (see schemas/formats/gateways.md). Prompt and completion attributes
//     (gen_ai.input.messages, ...) and events are never read.
//
// vllm-otel (format_vllm_otel.go) reads the same envelope with a one-pass
// scanner that is more than 3 times faster (BenchmarkOTLPDecoders). This format
// keeps the generic path because its inputs come in every shape
// jsonRecordReader takes (NDJSON, arrays, several pretty-printed documents,
// positions by line or offset), a malformed span is rejected alone while
// the rest of its document is read, and GenAI spans are a small share of a
// trace; the two formats' rejects differ (see vllm-otel), so one decoder
// would change one of them.

// SourceOTelGenAI is the source column of spans read from OTLP GenAI traces.
const SourceOTelGenAI = "otel-genai"

type otelGenAIReader struct{ *jsonRecordReader }

var _ Reader = (*otelGenAIReader)(nil)

func newOTelGenAIReader(in Input) Reader {
	r := &otelGenAIReader{}
	r.jsonRecordReader = newJSONRecordReader(in, decodeOTelGenAI)
	r.deriveIDs = true
	return r
}

// decodeOTelGenAI appends one record per span of an OTLP/JSON request.
func decodeOTelGenAI(v any, _ []byte, out []Record) []Record {
	m, ok := v.(map[string]any)
	if !ok {
		return decodeReject(out, scan.Errorf(ErrBadType, -1, "want a JSON object, found %s", scan.KindName(v)))
	}
	rss, ok := m["resourceSpans"].([]any)
	if !ok {
		if _, has := m["resourceSpans"]; has {
			return decodeReject(out, scan.Errorf(ErrBadType, -1, "resourceSpans: want an array, found %s", scan.KindName(m["resourceSpans"])))
		}
		return decodeReject(out, scan.Errorf(ErrMissingField, -1, "missing resourceSpans (want an OTLP/JSON ExportTraceServiceRequest)"))
	}
	for i, rs := range rss {
		rso, _ := rs.(map[string]any)
		sss, _ := rso["scopeSpans"].([]any)
		if sss == nil {
			sss, _ = rso["instrumentationLibrarySpans"].([]any) // OTLP < 0.15
		}
		for j, ss := range sss {
			sso, _ := ss.(map[string]any)
			spans, _ := sso["spans"].([]any)
			for k, s := range spans {
				so, ok := s.(map[string]any)
				if !ok {
					out = decodeReject(out, scan.Errorf(ErrBadType, -1,
						"resourceSpans[%d].scopeSpans[%d].spans[%d]: want an object, found %s", i, j, k, scan.KindName(s)))
					continue
				}
				var sp schemas.Span
				isGenAI, err := decodeOTelSpan(scan.Obj(so), &sp)
				switch {
				case err != nil:
					out = decodeReject(out, scan.Errorf(kindOf(err), -1,
						"resourceSpans[%d].scopeSpans[%d].spans[%d]: %v", i, j, k, err))
				case !isGenAI:
					out = append(out, Record{Kind: KindSkip, Skip: SkipNotARequest})
				default:
					out = append(out, Record{Kind: KindSpan, Span: sp})
				}
			}
		}
	}
	return out
}

// kindOf returns the sentinel kind of a RecordError, or ErrBadValue.
func kindOf(err error) error {
	if re, ok := err.(*RecordError); ok {
		return re.Kind
	}
	return ErrBadValue
}

// otelAttrs flattens OTLP attributes [{key, value: {stringValue|intValue|
// doubleValue|boolValue|arrayValue}}] into key → plain value (an array
// becomes its first element).
func otelAttrs(v any) map[string]any {
	list, _ := v.([]any)
	attrs := make(map[string]any, len(list))
	for _, a := range list {
		ao, _ := a.(map[string]any)
		key, _ := ao["key"].(string)
		val, _ := ao["value"].(map[string]any)
		if key == "" || val == nil {
			continue
		}
		attrs[key] = otelValue(val)
	}
	return attrs
}

func otelValue(val map[string]any) any {
	for _, k := range []string{"stringValue", "intValue", "doubleValue", "boolValue"} {
		if x, ok := val[k]; ok {
			return x
		}
	}
	if arr, ok := val["arrayValue"].(map[string]any); ok {
		if vals, _ := arr["values"].([]any); len(vals) > 0 {
			if first, ok := vals[0].(map[string]any); ok {
				return otelValue(first)
			}
		}
	}
	return nil
}

// decodeOTelSpan fills sp from one OTLP span. It reports false for a span
// without gen_ai.* attributes.
func decodeOTelSpan(so scan.Obj, sp *schemas.Span) (bool, error) {
	attrs := otelAttrs(so["attributes"])
	isGenAI := false
	for k := range attrs {
		if strings.HasPrefix(k, "gen_ai.") {
			isGenAI = true
			break
		}
	}
	if !isGenAI {
		return false, nil
	}
	*sp = schemas.Span{Source: SourceOTelGenAI}
	var fe scan.FirstErr
	spanID := fe.Str(so["spanId"], "spanId")
	parent := fe.Str(so["parentSpanId"], "parentSpanId")
	reqID := fe.Str(attrs["http.request.header.x-request-id"], "http.request.header.x-request-id")
	start := fe.Duration(so["startTimeUnixNano"], "startTimeUnixNano", -3)
	end := fe.Duration(so["endTimeUnixNano"], "endTimeUnixNano", -3)
	ttfc := fe.Duration(attrs["gen_ai.response.time_to_first_chunk"], "gen_ai.response.time_to_first_chunk", 6)
	sp.Model = fe.Str(attrs["gen_ai.response.model"], "gen_ai.response.model")
	if sp.Model == nil {
		sp.Model = fe.Str(attrs["gen_ai.request.model"], "gen_ai.request.model")
	}
	host := fe.Str(attrs["server.address"], "server.address")
	port := fe.Integer(attrs["server.port"], "server.port", 0, 65535)
	sp.InputTokens = fe.Tokens(attrs["gen_ai.usage.input_tokens"], "gen_ai.usage.input_tokens")
	if sp.InputTokens == nil {
		sp.InputTokens = fe.Tokens(attrs["gen_ai.usage.prompt_tokens"], "gen_ai.usage.prompt_tokens")
	}
	sp.OutputTokens = fe.Tokens(attrs["gen_ai.usage.output_tokens"], "gen_ai.usage.output_tokens")
	if sp.OutputTokens == nil {
		sp.OutputTokens = fe.Tokens(attrs["gen_ai.usage.completion_tokens"], "gen_ai.usage.completion_tokens")
	}
	sp.CachedTokens = fe.Tokens(attrs["gen_ai.usage.cache_read.input_tokens"], "gen_ai.usage.cache_read.input_tokens")
	resend := fe.Integer(attrs["http.request.resend_count"], "http.request.resend_count", 0, 1<<31-1)
	code := fe.Integer(attrs["http.response.status_code"], "http.response.status_code", 0, 999)
	errType := fe.Str(attrs["error.type"], "error.type")
	statusCode := so.Child("status").Get("code")
	if fe.Err != nil {
		return true, fe.Err
	}
	if start == nil || *start == 0 {
		return true, scan.Errorf(ErrMissingField, -1, "missing startTimeUnixNano")
	}
	// Without a spanId (a pasted span, a debug exporter's), SpanID stays
	// "": the reader gives the span an id from its place (FILE:LINE:N).
	if spanID != nil {
		sp.SpanID = *spanID
		sp.RequestID = *spanID
	}
	if reqID != nil {
		sp.RequestID = *reqID
	}
	if resend != nil {
		a := int32(*resend)
		sp.Attempt = &a
		// The resends of one HTTP request are siblings under the span of
		// the logical operation.
		if reqID == nil && parent != nil {
			sp.RequestID = *parent
		}
	}
	if host != nil {
		r := *host
		if port != nil {
			r += ":" + scan.Itoa(*port)
		}
		sp.Replica = &r
	}
	sp.QueuedAt = start
	if end != nil && *end != 0 {
		sp.ReleasedAt = end
	}
	sp.FirstTokenAt = scan.AddMicros(start, ttfc)
	sp.HTTPStatus = scan.HTTPStatus32(code)

	failed := false
	switch c := statusCode.(type) {
	case string:
		failed = c == "STATUS_CODE_ERROR" || c == "2"
	case interface{ String() string }: // json.Number
		failed = c.String() == "2"
	}
	switch {
	case failed || errType != nil:
		sp.Status = schemas.StatusError
		if code != nil {
			if st := scan.StatusFromHTTP(*code); st != schemas.StatusOK {
				sp.Status = st
			}
		}
		if errType != nil {
			e := strings.ToLower(*errType)
			switch {
			case strings.Contains(e, "timeout") || strings.Contains(e, "deadline"):
				sp.Status = schemas.StatusTimeout
			case strings.Contains(e, "cancel"):
				sp.Status = schemas.StatusCancelled
			}
			sp.Error = errType
		} else {
			sp.Error = schemas.Ptr("error")
		}
	case code != nil:
		sp.Status = scan.StatusFromHTTP(*code)
	default:
		sp.Status = schemas.StatusOK
	}
	if sp.Status == schemas.StatusOK && sp.FirstTokenAt != nil {
		sp.LastTokenAt = sp.ReleasedAt // a stream ends with its last chunk
	}
	return true, nil
}

// sniffOTelGenAI claims OTLP/JSON traces: 60 for resourceSpans, 95 when
// gen_ai. attributes show up in the head. A first object that starts well
// but does not parse (damage inside the first line) is judged by the head's
// text, as vLLM's OTLP sniffer judges it: otherwise a collector file whose
// first line was damaged would be read as vllm-otel and give nothing
// (review N12). A head that does not start with an object (a line cut by
// rotation) is left to detection's next line.
func sniffOTelGenAI(head []byte) int {
	keys := scan.FirstObjectKeys(head)
	if !keys["resourceSpans"] {
		t := bytes.TrimLeft(bytes.TrimPrefix(head, scan.BOM), " \t\r\n")
		if len(keys) > 0 || len(t) == 0 || (t[0] != '{' && t[0] != '[') || !bytes.Contains(head, []byte(`"resourceSpans"`)) {
			return 0
		}
	}
	if strings.Contains(string(head), `"gen_ai.`) {
		return 95
	}
	return 60
}
