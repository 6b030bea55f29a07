package ingest

// The vllm-otel reader as it was before its hand-written decoder: OTLP/JSON
// through encoding/json into structs. It is kept here, for tests only, as
// the reference the decoder is compared with (TestVLLMOTelMatchesReference).

import (
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"strconv"
	"strings"

	"github.com/tpsreport/tpsreport/ingest/internal/scan"
	"github.com/tpsreport/tpsreport/schemas"
)

// refOTelReader holds what decodeDoc needs: the input's name and the
// (traceId, spanId) of the spans read.
type refOTelReader struct {
	name string
	seen map[string]bool
}

// OTLP/JSON, as the collector writes it (camelCase) or as protobuf's
// MessageToJson(preserving_proto_field_name=True) does (snake_case).
type refOTLPDoc struct {
	ResourceSpans  []refOTLPResourceSpans `json:"resourceSpans"`
	ResourceSpans2 []refOTLPResourceSpans `json:"resource_spans"`
}

type refOTLPResourceSpans struct {
	Resource struct {
		Attributes []refOTLPKV `json:"attributes"`
	} `json:"resource"`
	ScopeSpans  []refOTLPScopeSpans `json:"scopeSpans"`
	ScopeSpans2 []refOTLPScopeSpans `json:"scope_spans"`
	LibSpans    []refOTLPScopeSpans `json:"instrumentationLibrarySpans"` // OTLP < 0.15
}

type refOTLPScopeSpans struct {
	Spans []refOTLPSpan `json:"spans"`
}

type refOTLPSpan struct {
	TraceID    string          `json:"traceId"`
	TraceID2   string          `json:"trace_id"`
	SpanID     string          `json:"spanId"`
	SpanID2    string          `json:"span_id"`
	Name       string          `json:"name"`
	Start      json.RawMessage `json:"startTimeUnixNano"`
	Start2     json.RawMessage `json:"start_time_unix_nano"`
	End        json.RawMessage `json:"endTimeUnixNano"`
	End2       json.RawMessage `json:"end_time_unix_nano"`
	Attributes []refOTLPKV     `json:"attributes"`
	Status     struct {
		Code json.RawMessage `json:"code"`
	} `json:"status"`
}

type refOTLPKV struct {
	Key   string          `json:"key"`
	Value refOTLPAnyValue `json:"value"`
}

type refOTLPAnyValue struct {
	String  *string         `json:"stringValue"`
	String2 *string         `json:"string_value"`
	Int     json.RawMessage `json:"intValue"`
	Int2    json.RawMessage `json:"int_value"`
	Double  json.RawMessage `json:"doubleValue"`
	Double2 json.RawMessage `json:"double_value"`
	Array   *struct {
		Values []refOTLPAnyValue `json:"values"`
	} `json:"arrayValue"`
	Array2 *struct {
		Values []refOTLPAnyValue `json:"values"`
	} `json:"array_value"`
}

func (v *refOTLPAnyValue) str() (string, bool) {
	switch {
	case v.String != nil:
		return *v.String, true
	case v.String2 != nil:
		return *v.String2, true
	}
	return "", false
}

// number returns an int or double value as float64.
func (v *refOTLPAnyValue) number() (float64, bool, error) {
	for _, raw := range []json.RawMessage{v.Double, v.Double2, v.Int, v.Int2} {
		if len(raw) == 0 || string(raw) == "null" {
			continue
		}
		s := string(raw)
		if s[0] == '"' {
			if err := json.Unmarshal(raw, &s); err != nil {
				return 0, false, err
			}
		}
		switch s {
		case "NaN", "Infinity", "-Infinity":
			return 0, false, nil // unknown
		}
		f, err := strconv.ParseFloat(s, 64)
		if err != nil {
			return 0, false, err
		}
		return f, true, nil
	}
	return 0, false, nil
}

func (v *refOTLPAnyValue) strings() []string {
	if s, ok := v.str(); ok {
		return []string{s}
	}
	arr := v.Array
	if arr == nil {
		arr = v.Array2
	}
	if arr == nil {
		return nil
	}
	var out []string
	for i := range arr.Values {
		if s, ok := arr.Values[i].str(); ok {
			out = append(out, s)
		}
	}
	return out
}

// decodeDoc turns one OTLP document into records appended to out.
func (r *refOTelReader) decodeDoc(doc []byte, line int64, out []Record) []Record {
	reject := func(err error) []Record {
		raw := doc[:min(len(doc), scan.TooLongKeep)]
		return append(out, Record{Kind: KindReject, Line: line, Raw: raw, Err: parseErrorAt(r.name, line, err)})
	}
	var d refOTLPDoc
	if err := json.Unmarshal(doc, &d); err != nil {
		var se *json.SyntaxError
		var te *json.UnmarshalTypeError
		switch {
		case errors.As(err, &se):
			return reject(scan.Errorf(ErrBadJSON, int(se.Offset)-1, "invalid JSON: %v", err))
		case errors.As(err, &te):
			return reject(scan.Errorf(ErrBadType, int(te.Offset)-1, "OTLP: %s: %v", te.Field, err))
		}
		return reject(scan.Errorf(ErrBadJSON, -1, "invalid JSON: %v", err))
	}
	n := 0 // the span's place in the document
	for _, rs := range append(d.ResourceSpans, d.ResourceSpans2...) {
		replica := ""
		for _, key := range []string{"service.instance.id", "host.name", "k8s.pod.name"} {
			for _, kv := range rs.Resource.Attributes {
				if kv.Key == key && replica == "" {
					replica, _ = kv.Value.str()
				}
			}
		}
		for _, ss := range append(append(rs.ScopeSpans, rs.ScopeSpans2...), rs.LibSpans...) {
			for i := range ss.Spans {
				n++
				rec := Record{Line: line}
				if err := r.span(&ss.Spans[i], replica, &rec); err != nil {
					out = reject(err)
					continue
				}
				if rec.Kind == KindSpan && rec.Span.SpanID == "" {
					id := r.name + ":" + strconv.FormatInt(line, 10) + ":" + strconv.Itoa(n)
					rec.Span.SpanID = id
					if rec.Span.RequestID == "" {
						rec.Span.RequestID = id
					}
				}
				out = append(out, rec)
			}
		}
	}
	return out
}

// otlpID normalizes a trace or span id of n bytes, written in hex (OTLP/JSON)
// or base64 (protobuf's JSON mapping), to lower-case hex.
func refOTLPID(s string, n int) (string, bool) {
	if len(s) == 2*n {
		if _, err := hex.DecodeString(s); err == nil {
			return strings.ToLower(s), true
		}
	}
	if b, err := base64.StdEncoding.DecodeString(s); err == nil && len(b) == n {
		return hex.EncodeToString(b), true
	}
	return "", false
}

// otlpNanos reads a fixed64 nanosecond time, a JSON string or number.
func refOTLPNanos(raw json.RawMessage) (int64, bool) {
	s := string(raw)
	if len(s) >= 2 && s[0] == '"' {
		s = s[1 : len(s)-1]
	}
	v, err := strconv.ParseInt(s, 10, 64)
	if err != nil || v <= 0 {
		return 0, false
	}
	return v, true
}

func (r *refOTelReader) span(s *refOTLPSpan, replica string, rec *Record) error {
	if s.Name != "llm_request" {
		rec.Kind, rec.Skip = KindSkip, SkipNotARequest
		return nil
	}
	// An absent id is no error: without traceId the span is keyed on its
	// spanId alone; without spanId it gets an id from its place (decodeDoc)
	// and is not deduplicated.
	traceText, spanText := s.TraceID+s.TraceID2, s.SpanID+s.SpanID2
	traceID, ok1 := strings.Repeat("0", 32), true
	if traceText != "" {
		traceID, ok1 = refOTLPID(traceText, 16)
	}
	spanID, ok2 := "", true
	if spanText != "" {
		spanID, ok2 = refOTLPID(spanText, 8)
	}
	if !ok1 || !ok2 {
		return scan.Errorf(ErrBadValue, -1, "llm_request span: invalid traceId %q or spanId %q (want hex or base64)", traceText, spanText)
	}
	label := spanID
	if spanID == "" {
		label = "without spanId"
	}
	key := traceID + spanID
	if spanID != "" && r.seen[key] {
		rec.Kind, rec.Skip = KindSkip, SkipDuplicate // the same span exported twice
		return nil
	}
	startRaw := s.Start
	if len(startRaw) == 0 {
		startRaw = s.Start2
	}
	start, ok := refOTLPNanos(startRaw)
	if !ok {
		return scan.Errorf(ErrMissingField, -1, "llm_request span %s: missing or invalid startTimeUnixNano %q", label, string(startRaw))
	}
	endRaw := s.End
	if len(endRaw) == 0 {
		endRaw = s.End2
	}
	sp := schemas.Span{Source: SourceVLLMOTel, SpanID: spanID, Status: schemas.StatusOK}
	durs := map[string]int64{}
	var reqID, model string
	var reasons []string
	for i := range s.Attributes {
		kv := &s.Attributes[i]
		switch kv.Key {
		case "gen_ai.request.id":
			reqID, _ = kv.Value.str()
		case "gen_ai.response.model":
			model, _ = kv.Value.str()
		case "gen_ai.request.model":
			if model == "" {
				model, _ = kv.Value.str()
			}
		case "gen_ai.response.finish_reasons", "gen_ai.response.finish_reason":
			reasons = kv.Value.strings()
		case "gen_ai.usage.prompt_tokens", "gen_ai.usage.input_tokens",
			"gen_ai.usage.completion_tokens", "gen_ai.usage.output_tokens":
			f, ok, err := kv.Value.number()
			if err != nil || ok && (f < 0 || f != float64(int64(f))) {
				return scan.Errorf(ErrBadValue, -1, "llm_request span %s: %s: not a token count", label, kv.Key)
			}
			if !ok {
				continue
			}
			v := int64(f)
			if strings.HasSuffix(kv.Key, "prompt_tokens") || strings.HasSuffix(kv.Key, "input_tokens") {
				sp.InputTokens = &v
			} else {
				sp.OutputTokens = &v
			}
		case "gen_ai.latency.time_in_queue", "gen_ai.latency.time_to_first_token", "gen_ai.latency.e2e",
			"gen_ai.latency.time_in_model_prefill", "gen_ai.latency.time_in_model_decode":
			f, ok, err := kv.Value.number()
			if err != nil {
				return scan.Errorf(ErrBadType, -1, "llm_request span %s: %s: want a number", label, kv.Key)
			}
			if !ok {
				continue
			}
			ns, ok := vllmSecondsToNanos(f)
			if !ok || ns < 0 {
				return scan.Errorf(ErrBadValue, -1, "llm_request span %s: %s: %v is not a duration", label, kv.Key, f)
			}
			durs[strings.TrimPrefix(kv.Key, "gen_ai.latency.")] = ns
		}
	}
	at := func(ns int64) *int64 { v := vllmNsToMicros(ns); return &v }
	sp.QueuedAt = at(start)
	sp.EngineArrivedAt = sp.QueuedAt // the engine's arrival_time: its queue starts there
	var first, released int64
	hasFirst, hasReleased := false, false
	if d, ok := durs["time_to_first_token"]; ok {
		first, hasFirst = start+d, true
		sp.FirstTokenAt = at(first)
	}
	if d, ok := durs["e2e"]; ok {
		released, hasReleased = start+d, true
	} else if end, ok := refOTLPNanos(endRaw); ok && end >= start {
		released, hasReleased = end, true
	}
	if hasReleased {
		sp.ReleasedAt = at(released)
	}
	if d, ok := durs["time_in_model_prefill"]; ok && hasFirst {
		adm := min(max(first-d, start), first)
		sp.AdmittedAt = at(adm)
		if q, ok := durs["time_in_queue"]; ok {
			sp.EngineArrivedAt = at(min(max(adm-q, start), adm)) // the frontend's time comes before the queue
		}
	} else if d, ok := durs["time_in_queue"]; ok {
		adm := start + d
		if hasFirst {
			adm = min(adm, first)
		}
		sp.AdmittedAt = at(adm)
	}
	if d, ok := durs["time_in_model_decode"]; ok && hasFirst {
		last := first + d
		if hasReleased {
			last = min(last, max(released, first))
		}
		sp.LastTokenAt = at(last)
	} else if hasFirst && hasReleased && released >= first {
		sp.LastTokenAt = at(released) // V0: the last token is the finishing step
	}
	if reqID == "" {
		reqID = spanID
	}
	sp.RequestID = reqID
	if model != "" {
		sp.Model = &model
	}
	if replica != "" {
		sp.Replica = &replica
	}
	for _, reason := range reasons {
		switch strings.ToLower(reason) {
		case "abort":
			sp.Status = schemas.StatusAborted
		case "error":
			sp.Status = schemas.StatusError
		}
	}
	if code := strings.Trim(string(s.Status.Code), `"`); code == "2" || code == "STATUS_CODE_ERROR" {
		sp.Status = schemas.StatusError
	}
	if sp.Status != schemas.StatusOK && len(reasons) > 0 {
		e := "finish_reason " + strings.Join(reasons, ",")
		sp.Error = &e
	}
	if spanID != "" {
		r.seen[key] = true
	}
	rec.Kind = KindSpan
	rec.Span = sp
	return nil
}
