package ingest

import (
	"strings"
	"time"

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
// "YYYY-MM-DD HH:MM:SS.ffffff" in GatewayOptions.Zone (default UTC).
//
// One record is one attempt. request_id is trace_id (it groups the retries
// and fallbacks of one call) when present, else the record's own id; attempt
// is left NULL so that analyze numbers the attempts of a request by
// queued_at: attempted_retries counts retries within one model group only,
// so it collides across fallbacks. messages and response are never read.

// SourceLiteLLM is the source column of spans read from LiteLLM logs.
const SourceLiteLLM = "litellm"

type liteLLMReader struct {
	*docReader
	zone *time.Location
}

var _ Reader = (*liteLLMReader)(nil)

func newLiteLLMReaderOpts(in Input, opt GatewayOptions) Reader {
	r := &liteLLMReader{zone: opt.Zone}
	r.docReader = newDocReader(in, r.decode)
	r.only = liteLLMKeys
	return r
}

// liteLLMKeys are the top-level keys decodeLiteLLM reads; the others (messages,
// response, model_parameters, ...) are checked but not decoded.
var liteLLMKeys = map[string]bool{
	"id": true, "request_id": true, "trace_id": true, "metadata": true,
	"model": true, "model_group": true, "model_id": true, "api_base": true, "hidden_params": true,
	"startTime": true, "endTime": true, "completionStartTime": true,
	"prompt_tokens": true, "completion_tokens": true, "status": true, "error_information": true,
}

func (r *liteLLMReader) decode(v any, _ []byte, out []Record) []Record {
	m, ok := v.(map[string]any)
	if !ok {
		return decodeReject(out, recordErrorf(ErrBadType, -1, "want a JSON object, found %s", jsonKind(v)))
	}
	var sp schemas.Span
	if err := decodeLiteLLM(obj(m), r.zone, &sp); err != nil {
		return decodeReject(out, err)
	}
	return append(out, Record{Kind: KindSpan, Span: sp})
}

// decodeLiteLLM fills sp from a StandardLoggingPayload or a SpendLogs row.
func decodeLiteLLM(o obj, zone *time.Location, sp *schemas.Span) error {
	*sp = schemas.Span{Source: SourceLiteLLM}
	var fe firstErr

	meta := o.child("metadata")
	if meta == nil {
		// SpendLogs exports may hold metadata as JSON text.
		if s, ok := o.get("metadata").(string); ok && strings.HasPrefix(strings.TrimSpace(s), "{") {
			if v, err := parseJSONValue([]byte(s), nil, nil); err == nil {
				meta, _ = v.(map[string]any)
			}
		}
	}

	id := fe.str(o.get("id"), "id")
	if id == nil {
		id = fe.str(o.get("request_id"), "request_id")
	}
	trace := fe.str(o.get("trace_id"), "trace_id")
	if trace == nil {
		trace = fe.str(meta.get("trace_id"), "metadata.trace_id")
	}
	retries := fe.integer(meta.get("attempted_retries"), "metadata.attempted_retries", 0, 1<<31-1)

	sp.Model = fe.str(o.get("model"), "model")
	if sp.Model == nil {
		sp.Model = fe.str(o.get("model_group"), "model_group")
	}
	base := fe.str(o.get("api_base"), "api_base")
	if base == nil {
		base = fe.str(o.get("hidden_params", "api_base"), "hidden_params.api_base")
	}
	sp.Replica = hostOf(base)
	if sp.Replica == nil {
		sp.Replica = fe.str(o.get("model_id"), "model_id")
	}

	start := fe.time(o.get("startTime"), "startTime", zone)
	end := fe.time(o.get("endTime"), "endTime", zone)
	first := fe.time(o.get("completionStartTime"), "completionStartTime", zone)
	in := fe.tokens(o.get("prompt_tokens"), "prompt_tokens")
	outTok := fe.tokens(o.get("completion_tokens"), "completion_tokens")
	cached := fe.tokens(meta.get("usage_object", "prompt_tokens_details", "cached_tokens"),
		"metadata.usage_object.prompt_tokens_details.cached_tokens")

	statusWord := fe.str(o.get("status"), "status")
	if statusWord == nil {
		statusWord = fe.str(meta.get("status"), "metadata.status")
	}
	errInfo := o.child("error_information")
	if errInfo == nil {
		errInfo = meta.child("error_information")
	}
	codeText := fe.str(errInfo.get("error_code"), "error_information.error_code")
	errClass := fe.str(errInfo.get("error_class"), "error_information.error_class")
	if fe.err != nil {
		return fe.err
	}

	switch {
	case id == nil:
		return recordErrorf(ErrMissingField, -1, "missing id (StandardLoggingPayload) or request_id (SpendLogs)")
	case start == nil:
		return recordErrorf(ErrMissingField, -1, "missing startTime")
	case end == nil:
		return recordErrorf(ErrMissingField, -1, "missing endTime")
	}
	sp.SpanID = *id
	sp.RequestID = *id
	if trace != nil {
		sp.RequestID = *trace
	}
	if retries != nil && *retries > 0 {
		// Retries of one call may reuse its id; keep span ids unique.
		sp.SpanID = *id + "#retry" + itoa(*retries)
	}
	sp.QueuedAt, sp.ReleasedAt = start, end
	// completionStartTime equals endTime on non-streaming calls: no first
	// token time then.
	if first != nil && *first != *end {
		sp.FirstTokenAt = first
	}

	var code *int64
	if codeText != nil {
		if n, err := valInt(*codeText, "error_information.error_code", 100, 599); err == nil {
			code = n
		}
	}
	sp.HTTPStatus = httpStatus32(code)

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
		return recordErrorf(ErrBadValue, -1, "status: unknown status %q (want success or failure)", *statusWord)
	}
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
		if st := statusFromHTTP(*code); st != schemas.StatusOK {
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
	k := sniffFirstObject(head)
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
