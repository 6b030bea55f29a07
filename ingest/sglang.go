package ingest

import (
	"strconv"
	"strings"

	"github.com/tpsreport/tpsreport/schemas"
)

// What the SGLang formats share (schemas/formats/sglang.md): the request's
// meta_info, which both the request metrics export (sglang-metrics) and the
// --log-requests "Finish:" lines (sglang-log) carry, read into a span.
//
// SGLang's TokenizerManager builds meta_info per request
// (python/sglang/srt/managers/tokenizer_manager.py, _handle_batch_output):
// id, finish_reason, prompt_tokens, completion_tokens, cached_tokens,
// total_retractions, e2e_latency (seconds from received to finished); with
// --enable-metrics also queue_time (seconds the scheduler held it in its
// waiting queue: TimeStats.get_queueing_time, forward entry − wait queue
// entry) and the wall-clock stamps of _calculate_timing_metrics, epoch
// seconds: request_received_ts, request_sent_to_scheduler_ts,
// prefill_finished_ts (first output token seen), decode_finished_ts and
// response_sent_to_client_ts.

// sglangMeta is a span read from one meta_info.
//
//   - queued_at = engine_arrived_at = request_received_ts (the engine's HTTP
//     server received it; SGLang has no gateway in front);
//   - admitted_at = (request_sent_to_scheduler_ts, else request_received_ts)
//   - queue_time;
//   - first_token_at = prefill_finished_ts; released_at = decode_finished_ts,
//     else request_received_ts + e2e_latency; last_token_at = released_at
//     when a first token was seen.
//
// finishedAt, when not nil, is the instant of the log line that printed
// meta_info, used when meta_info has no request_received_ts (SGLang started
// without --enable-metrics): released_at = finishedAt, queued_at =
// finishedAt − e2e_latency, at the line's resolution.
func sglangMeta(meta obj, source string, finishedAt *int64, resolutionUS int32) (schemas.Span, error) {
	var fe firstErr
	sp := schemas.Span{Source: source}
	id := fe.str(meta.get("id"), "id")
	recv := fe.time(meta.get("request_received_ts"), "request_received_ts", nil)
	sent := fe.time(meta.get("request_sent_to_scheduler_ts"), "request_sent_to_scheduler_ts", nil)
	prefill := fe.time(meta.get("prefill_finished_ts"), "prefill_finished_ts", nil)
	done := fe.time(meta.get("decode_finished_ts"), "decode_finished_ts", nil)
	queue := fe.duration(meta.get("queue_time"), "queue_time", 6)
	e2e := fe.duration(meta.get("e2e_latency"), "e2e_latency", 6)
	sp.InputTokens = fe.tokens(meta.get("prompt_tokens"), "prompt_tokens")
	sp.OutputTokens = fe.tokens(meta.get("completion_tokens"), "completion_tokens")
	sp.CachedTokens = fe.tokens(meta.get("cached_tokens"), "cached_tokens")
	if fe.err != nil {
		return sp, fe.err
	}
	if id == nil {
		return sp, recordErrorf(ErrMissingField, -1, "missing id")
	}
	sp.SpanID, sp.RequestID = *id, *id
	if err := sglangStatus(meta.get("finish_reason"), &sp); err != nil {
		return sp, err
	}
	switch {
	case recv != nil:
		sp.QueuedAt = recv
		sp.ReleasedAt = done
		if sp.ReleasedAt == nil {
			sp.ReleasedAt = addMicros(recv, e2e)
		}
	case finishedAt != nil && e2e != nil:
		end := *finishedAt
		start := end - *e2e
		sp.ReleasedAt, sp.QueuedAt = &end, &start
		if resolutionUS > 0 {
			r := resolutionUS
			sp.TimeResolutionUS = &r
		}
	case finishedAt != nil:
		return sp, recordErrorf(ErrMissingField, -1, "meta_info has neither request_received_ts nor e2e_latency")
	default:
		return sp, recordErrorf(ErrMissingField, -1, "missing request_received_ts (Try: start SGLang with --enable-metrics, which adds the request's time stamps)")
	}
	sp.EngineArrivedAt = sp.QueuedAt
	if queue != nil {
		from := sent
		if from == nil {
			from = sp.QueuedAt
		}
		sp.AdmittedAt = addMicros(from, queue)
	}
	// A request refused or aborted before its first token has no token times.
	if prefill != nil {
		sp.FirstTokenAt = prefill
		sp.LastTokenAt = sp.ReleasedAt
	}
	return sp, nil
}

// sglangStatus maps finish_reason onto the span's status: a dict with type
// "stop" or "length" (BaseFinishReason.to_json) is ok; type "abort" is an
// error when it carries an HTTP status_code of 400 or more (a request SGLang
// refused), else aborted (the client went away, or abort_request). Older
// releases wrote the reason as a string ("FINISH_ABORT(...)").
func sglangStatus(v any, sp *schemas.Span) error {
	sp.Status = schemas.StatusOK
	switch x := v.(type) {
	case nil:
		return nil
	case string:
		if strings.Contains(strings.ToUpper(x), "ABORT") {
			sp.Status = schemas.StatusAborted
		}
		return nil
	case map[string]any:
		t, _ := x["type"].(string)
		switch t {
		case "stop", "length", "":
			return nil
		case "abort":
			sp.Status = schemas.StatusAborted
			code, err := valInt(x["status_code"], "finish_reason.status_code", 0, 999)
			if err != nil {
				return err
			}
			if code != nil && *code >= 400 && *code != 499 {
				sp.Status = schemas.StatusError
				c := int32(*code)
				sp.HTTPStatus = &c
				e := "abort " + strconv.Itoa(int(c))
				sp.Error = &e
			}
			return nil
		}
		return recordErrorf(ErrBadValue, -1, "finish_reason.type: unknown value %q", t)
	}
	return recordErrorf(ErrBadType, -1, "finish_reason: want an object, found %s", jsonKind(v))
}
