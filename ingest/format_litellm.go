package ingest

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/tpsreport/tpsreport/ingest/internal/scan"
	"github.com/tpsreport/tpsreport/schemas"
)

// The litellm format reads LiteLLM proxy logs in two shapes (see
// schemas/formats/gateways.md for the reasoning):
//
//   - StandardLoggingPayload (litellm/types/utils.py), as the S3, GCS and
//     generic-API loggers write it: one object, a JSON array of objects, or
//     NDJSON. Keys: id, trace_id, call_type, stream, status
//     (success/failure), startTime, endTime, completionStartTime, model,
//     model_group, model_id, api_base, prompt_tokens, completion_tokens,
//     metadata (attempted_retries, usage_object), error_information
//     (error_code, error_class), hidden_params.
//   - LiteLLM_SpendLogs rows (litellm/proxy/schema.prisma) as /spend/logs or
//     a row_to_json export gives them: request_id, startTime, endTime,
//     completionStartTime, model, model_group, model_id, api_base, status,
//     prompt_tokens, completion_tokens, metadata (an object or its JSON
//     text; status, error_information, attempted_retries, usage_object).
//
// Timestamps are epoch seconds (float), ISO 8601 with an offset, or naive
// "YYYY-MM-DD HH:MM:SS.ffffff" in Input.Zone (--tz; default UTC).
//
// One record is one attempt. request_id is trace_id (it groups the retries
// and fallbacks of one call) when present, else the record's own id; attempt
// is left NULL so that analyze numbers the attempts of a request by
// queued_at: attempted_retries counts retries within one model group only,
// so it collides across fallbacks. messages are never read; of response
// only the engine's timing objects are (metrics, nvext, timings:
// engine_timings.go), which give the span the engine's arrival, admission
// and token times.

// SourceLiteLLM is the source column of spans read from LiteLLM logs.
const SourceLiteLLM = "litellm"

type liteLLMReader struct {
	*jsonRecordReader
	scan.Decoder
	sc  scan.JSON
	f   liteLLMFields
	buf []byte // copies of escaped strings of the line being read
	// Per-value caches: the few models and API bases of a log.
	models scan.RecentStrings
	intern scan.Interner
	hosts  map[string]*string // scan.HostOf of each api_base seen
}

var _ Reader = (*liteLLMReader)(nil)

func newLiteLLMReader(in Input) Reader {
	r := &liteLLMReader{Decoder: scan.Decoder{Zone: in.Zone}, hosts: map[string]*string{}}
	r.jsonRecordReader = newJSONRecordReader(in, r.decode)
	r.only = liteLLMKeys
	r.lineDecoders = func() lineDecoder {
		w := &liteLLMReader{Decoder: scan.Decoder{Zone: in.Zone}, hosts: map[string]*string{}}
		return w.scanLine
	}
	return r
}

// liteLLMKeys are the top-level keys decodeLiteLLM reads; the others (messages,
// model_parameters, ...) are checked but not decoded. Of response only the
// engine's timing objects are read (engineTimingsOf).
var liteLLMKeys = map[string]bool{
	"id": true, "request_id": true, "trace_id": true, "metadata": true,
	"model": true, "model_group": true, "model_id": true, "api_base": true, "hidden_params": true,
	"startTime": true, "endTime": true, "completionStartTime": true,
	"prompt_tokens": true, "completion_tokens": true, "status": true, "error_information": true,
	"response": true, "response_time": true, "stream": true,
}

// liteLLMFields are the values decodeLiteLLM reads, by their paths in a
// payload or row.
type liteLLMFields struct {
	id, requestID, traceID, model, modelGroup, modelID, apiBase scan.Value
	start, end, first, promptTokens, completionTokens, status   scan.Value
	hiddenAPIBase                                               scan.Value // hidden_params.api_base
	responseTime, stream                                        scan.Value // checked against the times, not mapped
	errInfo                                                     liteLLMErrInfo

	// metadata, when it is an object (or, in a SpendLogs row, the text of one)
	metaTraceID, metaRetries, metaCached, metaStatus scan.Value
	metaErrInfo                                      liteLLMErrInfo

	// response: the parsed path's object (resp), or, from scanLine, the
	// raw JSON of its engine timing objects (respRaw: metrics, nvext,
	// timings) or its text (respText: a SpendLogs row may hold it as JSON
	// text).
	resp     scan.Obj
	respRaw  [3][]byte
	respText scan.Value
}

// liteLLMRespKeys are the keys of response whose raw values scanLine keeps,
// in the order of liteLLMFields.respRaw.
var liteLLMRespKeys = [3]string{"metrics", "nvext", "timings"}

// liteLLMErrInfo is an error_information object.
type liteLLMErrInfo struct {
	isObject       bool
	code, errClass scan.Value
}

// fieldsOf reads the fields of a payload decoded by scan.ParseValue.
func fieldsOf(o scan.Obj, f *liteLLMFields) {
	*f = liteLLMFields{}
	get := func(keys ...string) scan.Value { return scan.ValueOf(o.Get(keys...)) }
	f.id, f.requestID, f.traceID = get("id"), get("request_id"), get("trace_id")
	f.model, f.modelGroup, f.modelID = get("model"), get("model_group"), get("model_id")
	f.apiBase, f.hiddenAPIBase = get("api_base"), get("hidden_params", "api_base")
	f.start, f.end, f.first = get("startTime"), get("endTime"), get("completionStartTime")
	f.promptTokens, f.completionTokens, f.status = get("prompt_tokens"), get("completion_tokens"), get("status")
	f.responseTime, f.stream = get("response_time"), get("stream")
	errInfo := func(e scan.Obj) liteLLMErrInfo {
		if e == nil {
			return liteLLMErrInfo{}
		}
		return liteLLMErrInfo{true, scan.ValueOf(e.Get("error_code")), scan.ValueOf(e.Get("error_class"))}
	}
	f.errInfo = errInfo(o.Child("error_information"))
	meta := o.Child("metadata")
	if meta == nil {
		// SpendLogs exports may hold metadata as JSON text.
		if s, ok := o.Get("metadata").(string); ok && strings.HasPrefix(strings.TrimSpace(s), "{") {
			if v, err := scan.ParseValue([]byte(s), nil, nil); err == nil {
				meta, _ = v.(map[string]any)
			}
		}
	}
	f.metaTraceID, f.metaRetries = scan.ValueOf(meta.Get("trace_id")), scan.ValueOf(meta.Get("attempted_retries"))
	f.metaCached = scan.ValueOf(meta.Get("usage_object", "prompt_tokens_details", "cached_tokens"))
	f.metaStatus = scan.ValueOf(meta.Get("status"))
	f.metaErrInfo = errInfo(meta.Child("error_information"))
	f.resp = o.Child("response")
	if f.resp == nil {
		f.respText = scan.ValueOf(o.Get("response"))
	}
}

// decode is the jsonRecordReader's decode of a parsed value: arrays of
// payloads, pretty-printed documents, and NDJSON lines that scanLine leaves
// to it.
func (r *liteLLMReader) decode(v any, _ []byte, out []Record) []Record {
	m, ok := v.(map[string]any)
	if !ok {
		return decodeReject(out, scan.Errorf(ErrBadType, -1, "want a JSON object, found %s", scan.KindName(v)))
	}
	fieldsOf(scan.Obj(m), &r.f)
	var sp schemas.Span
	if err := r.decodeLiteLLM(&r.f, &sp); err != nil {
		return decodeReject(out, err)
	}
	return append(out, liteLLMRecord(&r.f, sp))
}

// liteLLMRecord is the record of a decoded payload's span, with what its
// fields show when they disagree: endTime − startTime against the
// payload's own response_time (more than 1 ms and 1 % apart), or a streamed
// call (stream: true) whose completionStartTime is its endTime, which leaves
// its TTFT unknown.
func liteLLMRecord(f *liteLLMFields, sp schemas.Span) Record {
	rec := Record{Kind: KindSpan, Span: sp}
	var what []string
	if f.responseTime.Class == scan.Number && sp.QueuedAt != nil && sp.ReleasedAt != nil {
		if rt, err := strconv.ParseFloat(string(f.responseTime.Text), 64); err == nil && rt >= 0 && rt < 1e9 {
			took := float64(*sp.ReleasedAt-*sp.QueuedAt) / 1e6
			if diff := math.Abs(took - rt); diff > 0.001 && diff > 0.01*rt {
				rec.Mismatch = InconsistentTiming
				what = append(what, fmt.Sprintf("endTime − startTime is %.1f ms while response_time is %.1f ms", took*1000, rt*1000))
			}
		}
	}
	if f.stream.Class == scan.True && sp.FirstTokenAt == nil && sp.Status == schemas.StatusOK {
		if rec.Mismatch == "" {
			rec.Mismatch = InconsistentFirstToken
		}
		what = append(what, "a streamed call (stream: true) whose completionStartTime is its endTime, so its TTFT is unknown")
	}
	if len(what) > 0 {
		rec.MismatchText = strings.Join(what, "; ") + " (id " + sp.SpanID + ")"
	}
	return rec
}

// scanLine decodes an NDJSON line in one pass of the JSON scanner, reading
// only the fields of liteLLMFields, without building the value. It reports
// false, having appended nothing, for a line it leaves to the parsed path
// (decode): one that is not an object, is not valid JSON (whose reject the
// parser words), or holds metadata as text.
func (r *liteLLMReader) scanLine(line []byte, out []Record) ([]Record, bool) {
	s := &r.sc
	s.Reset(line)
	r.buf = r.buf[:0]
	f := &r.f
	*f = liteLLMFields{}
	if s.Class() != scan.Object || r.scanObject(liteLLMTop, f) != nil || s.Finish() != nil {
		return out, false
	}
	var sp schemas.Span
	if err := r.decodeLiteLLM(f, &sp); err != nil {
		return decodeReject(out, err), true
	}
	return append(out, liteLLMRecord(f, sp)), true
}

// errMetaText stops scanLine at metadata given as JSON text.
var errMetaText = errors.New("metadata as text")

// liteLLMObject names the objects scanLine reads into liteLLMFields.
type liteLLMObject uint8

const (
	liteLLMTop liteLLMObject = iota
	liteLLMMeta
	liteLLMHidden
	liteLLMUsage
	liteLLMDetails
	liteLLMErrTop
	liteLLMErrMeta
	liteLLMResponse
)

// scanObject reads the object at the scanner into the fields of f that
// object which holds. A key given twice keeps its last value; an object
// given again replaces the one before.
func (r *liteLLMReader) scanObject(which liteLLMObject, f *liteLLMFields) error {
	s := &r.sc
	if err := s.BeginObject(); err != nil {
		return err
	}
	for first := true; ; first = false {
		key, ok, err := s.NextKey(first)
		if err != nil || !ok {
			return err
		}
		var dst *scan.Value
		var child liteLLMObject
		switch which {
		case liteLLMTop:
			switch string(key) {
			case "id":
				dst = &f.id
			case "request_id":
				dst = &f.requestID
			case "trace_id":
				dst = &f.traceID
			case "model":
				dst = &f.model
			case "model_group":
				dst = &f.modelGroup
			case "model_id":
				dst = &f.modelID
			case "api_base":
				dst = &f.apiBase
			case "startTime":
				dst = &f.start
			case "endTime":
				dst = &f.end
			case "completionStartTime":
				dst = &f.first
			case "response_time":
				dst = &f.responseTime
			case "stream":
				dst = &f.stream
			case "prompt_tokens":
				dst = &f.promptTokens
			case "completion_tokens":
				dst = &f.completionTokens
			case "status":
				dst = &f.status
			case "metadata":
				f.metaTraceID, f.metaRetries, f.metaCached, f.metaStatus = scan.Value{}, scan.Value{}, scan.Value{}, scan.Value{}
				f.metaErrInfo = liteLLMErrInfo{}
				child = liteLLMMeta
			case "hidden_params":
				f.hiddenAPIBase = scan.Value{}
				child = liteLLMHidden
			case "error_information":
				f.errInfo = liteLLMErrInfo{}
				child = liteLLMErrTop
			case "response":
				f.respRaw, f.respText = [3][]byte{}, scan.Value{}
				if s.Class() == scan.String {
					dst = &f.respText
				} else {
					child = liteLLMResponse
				}
			}
		case liteLLMResponse:
			i := -1
			switch string(key) {
			case liteLLMRespKeys[0]:
				i = 0
			case liteLLMRespKeys[1]:
				i = 1
			case liteLLMRespKeys[2]:
				i = 2
			}
			if i >= 0 && s.Class() == scan.Object {
				// Kept raw, decoded by engineTimingsOf.
				start := s.Pos
				if err := s.SkipValue(); err != nil {
					return err
				}
				f.respRaw[i] = s.Data[start:s.Pos]
				continue
			}
		case liteLLMMeta:
			switch string(key) {
			case "trace_id":
				dst = &f.metaTraceID
			case "attempted_retries":
				dst = &f.metaRetries
			case "status":
				dst = &f.metaStatus
			case "usage_object":
				f.metaCached = scan.Value{}
				child = liteLLMUsage
			case "error_information":
				f.metaErrInfo = liteLLMErrInfo{}
				child = liteLLMErrMeta
			}
		case liteLLMHidden:
			if string(key) == "api_base" {
				dst = &f.hiddenAPIBase
			}
		case liteLLMUsage:
			if string(key) == "prompt_tokens_details" {
				f.metaCached = scan.Value{}
				child = liteLLMDetails
			}
		case liteLLMDetails:
			if string(key) == "cached_tokens" {
				dst = &f.metaCached
			}
		case liteLLMErrTop, liteLLMErrMeta:
			e := &f.errInfo
			if which == liteLLMErrMeta {
				e = &f.metaErrInfo
			}
			switch string(key) {
			case "error_code":
				dst = &e.code
			case "error_class":
				dst = &e.errClass
			}
		}
		switch {
		case dst != nil:
			if err := scan.ScanValue(s, &r.buf, dst); err != nil {
				return err
			}
		case child != 0 && s.Class() == scan.Object:
			if child == liteLLMErrTop {
				f.errInfo.isObject = true
			} else if child == liteLLMErrMeta {
				f.metaErrInfo.isObject = true
			}
			if err := r.scanObject(child, f); err != nil {
				return err
			}
		case child == liteLLMMeta && s.Class() == scan.String:
			return errMetaText
		default:
			if err := s.SkipValue(); err != nil {
				return err
			}
		}
	}
}

// name is text for the few values of a column (models): interned.
func (r *liteLLMReader) name(fe *scan.FirstErr, v scan.Value, field string) *string {
	if v.Class == scan.String && !scan.IsUnknownText(v.Text) {
		return r.Arena.Str(r.models.Get(v.Text, &r.intern))
	}
	return r.Text(fe, v, field)
}

// host is scan.HostOf(base) for the API bases of a log, each parsed once.
func (r *liteLLMReader) host(base *string) *string {
	if base == nil {
		return nil
	}
	h, ok := r.hosts[*base]
	if !ok {
		h = scan.HostOf(base)
		if len(r.hosts) < scan.MaxInterned {
			r.hosts[*base] = h
		}
	}
	if h == nil {
		return nil
	}
	return r.Arena.Str(*h)
}

// decodeLiteLLM fills sp from the fields of a StandardLoggingPayload or a
// SpendLogs row.
func (r *liteLLMReader) decodeLiteLLM(f *liteLLMFields, sp *schemas.Span) error {
	*sp = schemas.Span{Source: SourceLiteLLM}
	var fe scan.FirstErr

	id := r.Text(&fe, f.id, "id")
	if id == nil {
		id = r.Text(&fe, f.requestID, "request_id")
	}
	trace := r.Text(&fe, f.traceID, "trace_id")
	if trace == nil {
		trace = r.Text(&fe, f.metaTraceID, "metadata.trace_id")
	}
	retries := r.Integer(&fe, f.metaRetries, "metadata.attempted_retries", 0, 1<<31-1)

	sp.Model = r.name(&fe, f.model, "model")
	if sp.Model == nil {
		sp.Model = r.name(&fe, f.modelGroup, "model_group")
	}
	base := r.Text(&fe, f.apiBase, "api_base")
	if base == nil {
		base = r.Text(&fe, f.hiddenAPIBase, "hidden_params.api_base")
	}
	sp.Replica = r.host(base)
	if sp.Replica == nil {
		sp.Replica = r.name(&fe, f.modelID, "model_id")
	}

	start := r.Time(&fe, f.start, "startTime")
	end := r.Time(&fe, f.end, "endTime")
	first := r.Time(&fe, f.first, "completionStartTime")
	in := r.Integer(&fe, f.promptTokens, "prompt_tokens", 0, 1<<62)
	outTok := r.Integer(&fe, f.completionTokens, "completion_tokens", 0, 1<<62)
	cached := r.Integer(&fe, f.metaCached, "metadata.usage_object.prompt_tokens_details.cached_tokens", 0, 1<<62)

	statusWord := r.name(&fe, f.status, "status")
	if statusWord == nil {
		statusWord = r.name(&fe, f.metaStatus, "metadata.status")
	}
	errInfo := f.errInfo
	if !errInfo.isObject {
		errInfo = f.metaErrInfo
	}
	codeText := r.Text(&fe, errInfo.code, "error_information.error_code")
	errClass := r.name(&fe, errInfo.errClass, "error_information.error_class")
	if fe.Err != nil {
		return fe.Err
	}

	switch {
	case id == nil:
		return scan.Errorf(ErrMissingField, -1, "missing id (StandardLoggingPayload) or request_id (SpendLogs)")
	case start == nil:
		return scan.Errorf(ErrMissingField, -1, "missing startTime")
	case end == nil:
		return scan.Errorf(ErrMissingField, -1, "missing endTime")
	}
	sp.SpanID = *id
	sp.RequestID = *id
	if trace != nil {
		sp.RequestID = *trace
	}
	if retries != nil && *retries > 0 {
		// Retries of one call may reuse its id; keep span ids unique.
		sp.SpanID = *id + "#retry" + scan.Itoa(*retries)
	}
	sp.QueuedAt, sp.ReleasedAt = start, end
	// completionStartTime equals endTime on non-streaming calls: no first
	// token time then.
	if first != nil && *first != *end {
		sp.FirstTokenAt = first
	}

	var code *int64
	if codeText != nil {
		if n, err := scan.ValInt(*codeText, "error_information.error_code", 100, 599); err == nil {
			code = n
		}
	}
	sp.HTTPStatus = scan.HTTPStatus32(code)

	word := "success"
	if statusWord != nil {
		word = strings.ToLower(*statusWord)
	}
	switch word {
	case "success":
		sp.Status = schemas.StatusOK
		sp.InputTokens, sp.OutputTokens, sp.CachedTokens = in, outTok, cached
		if sp.FirstTokenAt != nil {
			// A stream ends with its last token.
			sp.LastTokenAt = end
		}
	case "failure":
		sp.Status = liteLLMFailure(code, errClass)
		sp.Error = errClass
		if sp.Error == nil {
			sp.Error = schemas.Ptr("failure")
		}
		// LiteLLM logs 0 tokens on a failure: unknown, not none.
		sp.InputTokens, sp.OutputTokens, sp.CachedTokens = nonZero(in), nonZero(outTok), nonZero(cached)
	default:
		return scan.Errorf(ErrBadValue, -1, "status: unknown status %q (want success or failure)", *statusWord)
	}
	return r.engineTimings(f, sp)
}

// engineTimings reads the engine's timing object of the logged response,
// if any, into sp (engine_timings.go).
func (r *liteLLMReader) engineTimings(f *liteLLMFields, sp *schemas.Span) error {
	resp := f.resp
	if resp == nil && f.respText.Class == scan.String && len(f.respText.Text) > 0 && f.respText.Text[0] == '{' {
		// A SpendLogs row's response as JSON text.
		if v, err := scan.ParseValue(f.respText.Text, nil, nil); err == nil {
			resp, _ = v.(map[string]any)
		}
	}
	if resp == nil {
		for i, raw := range f.respRaw {
			if raw == nil {
				continue
			}
			v, err := scan.ParseValue(raw, nil, nil)
			if err != nil {
				return err
			}
			if resp == nil {
				resp = scan.Obj{}
			}
			resp[liteLLMRespKeys[i]] = v
		}
	}
	if resp == nil {
		return nil
	}
	et, ok, err := engineTimingsOf(resp)
	if err != nil || !ok {
		return err
	}
	et.apply(sp)
	return nil
}

// liteLLMFailure classifies a failed LiteLLM call by its error code and
// class (litellm/exceptions.py: Timeout, APIConnectionError, ...).
func liteLLMFailure(code *int64, class *string) string {
	if class != nil {
		c := strings.ToLower(*class)
		switch {
		case strings.Contains(c, "timeout"):
			return schemas.StatusTimeout
		case strings.Contains(c, "cancel"):
			return schemas.StatusCancelled
		}
	}
	if code != nil {
		if st := scan.StatusFromHTTP(*code); st != schemas.StatusOK {
			return st
		}
	}
	return schemas.StatusError
}

func nonZero(p *int64) *int64 {
	if p == nil || *p == 0 {
		return nil
	}
	return p
}

// sniffLiteLLM claims a StandardLoggingPayload (startTime, endTime and
// trace_id or call_type) or a SpendLogs row (startTime, endTime, request_id
// and spend).
func sniffLiteLLM(head []byte) int {
	k := scan.FirstObjectKeys(head)
	if !k["startTime"] || !k["endTime"] {
		return 0
	}
	switch {
	case k["trace_id"] && k["call_type"]:
		return 95
	case k["request_id"] && (k["spend"] || k["call_type"]):
		return 90
	case k["completionStartTime"]:
		return 70
	}
	return 40
}
