package ingest

import (
	"bytes"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"strconv"
	"strings"

	"github.com/tpsreport/tpsreport/schemas"
)

// The vllm-otel format is vLLM's request traces (--otlp-traces-endpoint) as
// OTLP/JSON: the collector's file exporter writes one {"resourceSpans":[...]}
// object per line; a single (pretty-printed) document is read too. Each span
// named llm_request is one record and becomes one span; every other span is
// a skipped record, and so is a span whose (traceId, spanId) was already
// read. A document that is not valid JSON is one rejected record.
//
// Clock domains (schemas/formats/vllm.md). The span starts at the request's
// arrival on the frontend's wall clock; gen_ai.latency.time_to_first_token
// and gen_ai.latency.e2e are wall-clock durations measured by the frontend
// from that arrival. V1's time_in_queue, time_in_model_prefill and
// time_in_model_decode are differences of the engine core's monotonic clock,
// whose origin is unknown on the wall clock. So:
//
//	queued_at      = start
//	first_token_at = start + ttft
//	released_at    = start + e2e (else the span's end)
//	admitted_at    = first_token_at − prefill (V1), else start + time_in_queue (V0)
//	last_token_at  = first_token_at + decode (V1), else released_at (V0)
//
// Both engine intervals are anchored at the wall-clock first token, so
// t_first_token and t_stream are exactly what the engine measured; the
// frontend's own time (tokenizing, IPC) lands in t_queue before admission
// and between the last token and the release. admitted_at is clamped into
// [queued_at, first_token_at] and last_token_at into [first_token_at,
// released_at]: the clocks differ by at most scheduling noise.

// vllmOTelMaxDoc bounds a pretty-printed single document held in memory.
const vllmOTelMaxDoc = 1 << 30

type vllmOTelReader struct {
	name    string
	lines   *lineSplitter
	rec     Record
	queue   []Record
	seen    map[string]bool
	decided bool
	done    bool
	err     error
}

var _ Reader = (*vllmOTelReader)(nil)

func newVLLMOTelReader(in Input) Reader {
	return &vllmOTelReader{name: in.Name, lines: newLineSplitter(in.R, in.MaxLineBytes), seen: map[string]bool{}}
}

// Record implements Reader.
func (r *vllmOTelReader) Record() *Record { return &r.rec }

// Err implements Reader.
func (r *vllmOTelReader) Err() error {
	if r.err != nil {
		return r.err
	}
	return r.lines.Err()
}

// Next implements Reader.
func (r *vllmOTelReader) Next() bool {
	if len(r.queue) > 0 {
		r.rec, r.queue = r.queue[0], r.queue[1:]
		return true
	}
	if r.done || !r.lines.Next() {
		return false
	}
	n := r.lines.Line()
	line := r.lines.Bytes()
	switch {
	case r.lines.Long():
		r.rec = Record{Kind: KindReject, Line: n, Raw: line, Err: parseErrorAt(r.name, n,
			recordErrorf(ErrTooLong, -1, "line is %d bytes, longer than the limit of %d bytes", r.lines.Len(), r.lines.max))}
		return true
	case isBlank(line):
		r.rec = Record{Kind: KindSkip, Line: n}
		return true
	}
	if !r.decided {
		r.decided = true
		t := bytes.TrimSpace(line)
		if len(t) > 0 && len(t) < 100 && (t[len(t)-1] == '{' || t[len(t)-1] == '[') && !json.Valid(t) {
			// The first line opens a pretty-printed document ("{", or
			// `{"resourceSpans": [`): read it whole, as one. A longer or
			// closed first line is one document per line, and a line that
			// does not parse is a reject.
			doc := append([]byte(nil), line...)
			for r.lines.Next() {
				if r.lines.Long() || len(doc) > vllmOTelMaxDoc {
					r.err = errors.New(r.name + ": OTLP document too large to read whole; write one document per line")
					return false
				}
				doc = append(append(doc, '\n'), r.lines.Bytes()...)
			}
			if r.lines.Err() != nil {
				return false
			}
			r.done = true
			line = doc
		}
	}
	r.queue = r.decodeDoc(line, n, r.queue[:0])
	if len(r.queue) == 0 {
		r.rec = Record{Kind: KindSkip, Line: n}
		return true
	}
	r.rec, r.queue = r.queue[0], r.queue[1:]
	return true
}

// OTLP/JSON, as the collector writes it (camelCase) or as protobuf's
// MessageToJson(preserving_proto_field_name=True) does (snake_case).
type otlpDoc struct {
	ResourceSpans  []otlpResourceSpans `json:"resourceSpans"`
	ResourceSpans2 []otlpResourceSpans `json:"resource_spans"`
}

type otlpResourceSpans struct {
	Resource struct {
		Attributes []otlpKV `json:"attributes"`
	} `json:"resource"`
	ScopeSpans  []otlpScopeSpans `json:"scopeSpans"`
	ScopeSpans2 []otlpScopeSpans `json:"scope_spans"`
	LibSpans    []otlpScopeSpans `json:"instrumentationLibrarySpans"` // OTLP < 0.15
}

type otlpScopeSpans struct {
	Spans []otlpSpan `json:"spans"`
}

type otlpSpan struct {
	TraceID    string          `json:"traceId"`
	TraceID2   string          `json:"trace_id"`
	SpanID     string          `json:"spanId"`
	SpanID2    string          `json:"span_id"`
	Name       string          `json:"name"`
	Start      json.RawMessage `json:"startTimeUnixNano"`
	Start2     json.RawMessage `json:"start_time_unix_nano"`
	End        json.RawMessage `json:"endTimeUnixNano"`
	End2       json.RawMessage `json:"end_time_unix_nano"`
	Attributes []otlpKV        `json:"attributes"`
	Status     struct {
		Code json.RawMessage `json:"code"`
	} `json:"status"`
}

type otlpKV struct {
	Key   string       `json:"key"`
	Value otlpAnyValue `json:"value"`
}

type otlpAnyValue struct {
	String  *string         `json:"stringValue"`
	String2 *string         `json:"string_value"`
	Int     json.RawMessage `json:"intValue"`
	Int2    json.RawMessage `json:"int_value"`
	Double  json.RawMessage `json:"doubleValue"`
	Double2 json.RawMessage `json:"double_value"`
	Array   *struct {
		Values []otlpAnyValue `json:"values"`
	} `json:"arrayValue"`
	Array2 *struct {
		Values []otlpAnyValue `json:"values"`
	} `json:"array_value"`
}

func (v *otlpAnyValue) str() (string, bool) {
	switch {
	case v.String != nil:
		return *v.String, true
	case v.String2 != nil:
		return *v.String2, true
	}
	return "", false
}

// number returns an int or double value as float64.
func (v *otlpAnyValue) number() (float64, bool, error) {
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

func (v *otlpAnyValue) strings() []string {
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
func (r *vllmOTelReader) decodeDoc(doc []byte, line int64, out []Record) []Record {
	reject := func(err error) []Record {
		raw := doc[:min(len(doc), tooLongKeep)]
		return append(out, Record{Kind: KindReject, Line: line, Raw: raw, Err: parseErrorAt(r.name, line, err)})
	}
	var d otlpDoc
	if err := json.Unmarshal(doc, &d); err != nil {
		var se *json.SyntaxError
		var te *json.UnmarshalTypeError
		switch {
		case errors.As(err, &se):
			return reject(recordErrorf(ErrBadJSON, int(se.Offset)-1, "invalid JSON: %v", err))
		case errors.As(err, &te):
			return reject(recordErrorf(ErrBadType, int(te.Offset)-1, "OTLP: %s: %v", te.Field, err))
		}
		return reject(recordErrorf(ErrBadJSON, -1, "invalid JSON: %v", err))
	}
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
				rec := Record{Line: line}
				if err := r.span(&ss.Spans[i], replica, &rec); err != nil {
					out = reject(err)
					continue
				}
				out = append(out, rec)
			}
		}
	}
	return out
}

// otlpID normalizes a trace or span id of n bytes, written in hex (OTLP/JSON)
// or base64 (protobuf's JSON mapping), to lower-case hex.
func otlpID(s string, n int) (string, bool) {
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
func otlpNanos(raw json.RawMessage) (int64, bool) {
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

func (r *vllmOTelReader) span(s *otlpSpan, replica string, rec *Record) error {
	if s.Name != "llm_request" {
		rec.Kind = KindSkip
		return nil
	}
	traceID, ok1 := otlpID(s.TraceID+s.TraceID2, 16)
	spanID, ok2 := otlpID(s.SpanID+s.SpanID2, 8)
	if !ok1 || !ok2 {
		return recordErrorf(ErrBadValue, -1, "llm_request span: invalid traceId %q or spanId %q (want hex or base64)", s.TraceID+s.TraceID2, s.SpanID+s.SpanID2)
	}
	key := traceID + spanID
	if r.seen[key] {
		rec.Kind = KindSkip // the same span exported twice
		return nil
	}
	startRaw := s.Start
	if len(startRaw) == 0 {
		startRaw = s.Start2
	}
	start, ok := otlpNanos(startRaw)
	if !ok {
		return recordErrorf(ErrMissingField, -1, "llm_request span %s: missing or invalid startTimeUnixNano %q", spanID, string(startRaw))
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
				return recordErrorf(ErrBadValue, -1, "llm_request span %s: %s: not a token count", spanID, kv.Key)
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
				return recordErrorf(ErrBadType, -1, "llm_request span %s: %s: want a number", spanID, kv.Key)
			}
			if !ok {
				continue
			}
			ns, ok := vllmSecondsToNanos(f)
			if !ok || ns < 0 {
				return recordErrorf(ErrBadValue, -1, "llm_request span %s: %s: %v is not a duration", spanID, kv.Key, f)
			}
			durs[strings.TrimPrefix(kv.Key, "gen_ai.latency.")] = ns
		}
	}
	at := func(ns int64) *int64 { v := vllmNsToMicros(ns); return &v }
	sp.QueuedAt = at(start)
	var first, released int64
	hasFirst, hasReleased := false, false
	if d, ok := durs["time_to_first_token"]; ok {
		first, hasFirst = start+d, true
		sp.FirstTokenAt = at(first)
	}
	if d, ok := durs["e2e"]; ok {
		released, hasReleased = start+d, true
	} else if end, ok := otlpNanos(endRaw); ok && end >= start {
		released, hasReleased = end, true
	}
	if hasReleased {
		sp.ReleasedAt = at(released)
	}
	if d, ok := durs["time_in_model_prefill"]; ok && hasFirst {
		sp.AdmittedAt = at(min(max(first-d, start), first))
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
	r.seen[key] = true
	rec.Kind = KindSpan
	rec.Span = sp
	return nil
}

// sniffVLLMOTel scores OTLP/JSON traces: 98 when they hold vLLM's
// llm_request spans or gen_ai.latency attributes, 50 for other OTLP traces.
func sniffVLLMOTel(head []byte) int {
	s := string(head)
	i := strings.IndexAny(s, "{[")
	if i < 0 || strings.TrimSpace(s[:i]) != "" {
		return 0
	}
	if !strings.Contains(s, `"resourceSpans"`) && !strings.Contains(s, `"resource_spans"`) {
		return 0
	}
	if strings.Contains(s, `"llm_request"`) || strings.Contains(s, `"gen_ai.latency.`) {
		return 98
	}
	return 50
}
