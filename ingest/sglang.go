package ingest

import (
	"bytes"
	"strconv"

	"github.com/tpsreport/tpsreport/ingest/internal/scan"
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

// sglangFields are the values of meta_info that sglangMeta reads, by key;
// finishType and finishCode are finish_reason's type and status_code when
// it is an object.
type sglangFields struct {
	id, finish, finishType, finishCode                 scan.Value
	prompt, completion, cached, queue, e2e             scan.Value
	received, sentToScheduler, prefillDone, decodeDone scan.Value
}

// sglangFieldsOf reads the fields of a parsed meta_info.
func sglangFieldsOf(meta scan.Obj, f *sglangFields) {
	get := func(key string) scan.Value { return scan.ValueOf(meta.Get(key)) }
	*f = sglangFields{
		id: get("id"), finish: get("finish_reason"),
		prompt: get("prompt_tokens"), completion: get("completion_tokens"), cached: get("cached_tokens"),
		queue: get("queue_time"), e2e: get("e2e_latency"),
		received: get("request_received_ts"), sentToScheduler: get("request_sent_to_scheduler_ts"),
		prefillDone: get("prefill_finished_ts"), decodeDone: get("decode_finished_ts"),
	}
	if fr := meta.Child("finish_reason"); fr != nil {
		f.finishType, f.finishCode = scan.ValueOf(fr.Get("type")), scan.ValueOf(fr.Get("status_code"))
	}
}

// sglangMeta is a span read from one meta_info's fields.
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
func sglangMeta(f *sglangFields, d *scan.Decoder, source string, finishedAt *int64, resolutionUS int32) (schemas.Span, error) {
	var fe scan.FirstErr
	sp := schemas.Span{Source: source}
	id := d.Text(&fe, f.id, "id")
	recv := d.Time(&fe, f.received, "request_received_ts")
	sent := d.Time(&fe, f.sentToScheduler, "request_sent_to_scheduler_ts")
	prefill := d.Time(&fe, f.prefillDone, "prefill_finished_ts")
	done := d.Time(&fe, f.decodeDone, "decode_finished_ts")
	queue := d.Duration(&fe, f.queue, "queue_time", 6)
	e2e := d.Duration(&fe, f.e2e, "e2e_latency", 6)
	sp.InputTokens = d.Integer(&fe, f.prompt, "prompt_tokens", 0, 1<<62)
	sp.OutputTokens = d.Integer(&fe, f.completion, "completion_tokens", 0, 1<<62)
	sp.CachedTokens = d.Integer(&fe, f.cached, "cached_tokens", 0, 1<<62)
	if fe.Err != nil {
		return sp, fe.Err
	}
	if id == nil {
		return sp, scan.Errorf(ErrMissingField, -1, "missing id")
	}
	sp.SpanID, sp.RequestID = *id, *id
	if err := sglangStatus(f, d, &sp); err != nil {
		return sp, err
	}
	switch {
	case recv != nil:
		sp.QueuedAt = recv
		sp.ReleasedAt = done
		if sp.ReleasedAt == nil {
			sp.ReleasedAt = d.Add(recv, e2e)
		}
	case finishedAt != nil && e2e != nil:
		sp.ReleasedAt = d.Arena.Int64(*finishedAt)
		sp.QueuedAt = d.Arena.Int64(*finishedAt - *e2e)
		if resolutionUS > 0 {
			sp.TimeResolutionUS = d.Arena.Int32(resolutionUS)
		}
	case finishedAt != nil:
		return sp, scan.Errorf(ErrMissingField, -1, "meta_info has neither request_received_ts nor e2e_latency")
	default:
		return sp, scan.Errorf(ErrMissingField, -1, "missing request_received_ts (Try: start SGLang with --enable-metrics, which adds the request's time stamps)")
	}
	sp.EngineArrivedAt = sp.QueuedAt
	if queue != nil {
		from := sent
		if from == nil {
			from = sp.QueuedAt
		}
		sp.AdmittedAt = d.Add(from, queue)
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
func sglangStatus(f *sglangFields, d *scan.Decoder, sp *schemas.Span) error {
	sp.Status = schemas.StatusOK
	switch f.finish.Class {
	case 0, scan.Null:
		return nil
	case scan.String:
		if bytes.Contains(bytes.ToUpper(f.finish.Text), []byte("ABORT")) {
			sp.Status = schemas.StatusAborted
		}
		return nil
	case scan.Object:
		var t []byte
		if f.finishType.Class == scan.String {
			t = f.finishType.Text
		}
		switch string(t) {
		case "stop", "length", "":
			return nil
		case "abort":
			sp.Status = schemas.StatusAborted
			var fe scan.FirstErr
			code := d.Integer(&fe, f.finishCode, "finish_reason.status_code", 0, 999)
			if fe.Err != nil {
				return fe.Err
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
		return scan.Errorf(ErrBadValue, -1, "finish_reason.type: unknown value %q", t)
	}
	return scan.Errorf(ErrBadType, -1, "finish_reason: want an object, found %s", scan.KindName(f.finish.Any()))
}
