package ingest

// The LiteLLM decoding as it was before scanLine and liteLLMFields: the
// payload parsed into a map, its values read by path. It is kept here, for
// tests only, as the reference TestLiteLLMMatchesReference compares both
// of the reader's paths with.

import (
	"strings"
	"time"

	"github.com/tpsreport/tpsreport/schemas"
)

// refDecodeLiteLLM fills sp from a StandardLoggingPayload or a SpendLogs row.
func refDecodeLiteLLM(o obj, zone *time.Location, sp *schemas.Span) error {
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
