package ingest

import (
	"bytes"
	"strings"

	"github.com/tpsreport/tpsreport/ingest/internal/scan"
	"github.com/tpsreport/tpsreport/schemas"
)

// The NVIDIA Dynamo formats (schemas/formats/dynamo.md) read the request
// timings Dynamo's frontend keeps per request (RequestTracker,
// lib/llm/src/protocols/common/timing.rs): request_received_ms (the
// frontend's wall clock at receipt, epoch ms) and, in ms from it,
// prefill_wait_time_ms (to prefill start), ttft_ms (to the first token)
// and total_time_ms (to the end). Two places carry them:
//
//   - dynamo-trace: the request trace (DYN_REQUEST_TRACE=1), JSON lines of
//     schema "dynamo.request.trace.v1"; each "request_end" row's "request"
//     object is one span; tool and payload rows are skipped (payload rows,
//     which hold prompts, are never read);
//   - dynamo-nvext: responses whose "nvext" object carries "timing"
//     (requested with nvext.extra_fields ["timing"]), as a client or proxy
//     logged them; the final chunk of a stream counts, earlier chunks are
//     skipped.
//
// Both map alike (dynamoSpan): queued_at = engine_arrived_at =
// request_received_ms, admitted_at = + prefill_wait_time_ms, first_token_at
// = + ttft_ms, released_at = last_token_at = + total_time_ms; replica = the
// decode worker's id.

// Source names of the Dynamo formats.
const (
	SourceDynamoTrace = "dynamo-trace"
	SourceDynamoNvext = "dynamo-nvext"
)

// dynamoTraceSchema is the schema value of Dynamo's request trace rows.
const dynamoTraceSchema = "dynamo.request.trace.v1"

type dynamoTraceReader struct{ *jsonRecordReader }

var _ Reader = (*dynamoTraceReader)(nil)

func newDynamoTraceReader(in Input) Reader {
	r := &dynamoTraceReader{newJSONRecordReader(in, decodeDynamoTrace)}
	// agent_context, tool and payload (request and response bodies) are
	// dropped unread.
	r.only = map[string]bool{"schema": true, "event_type": true, "event_time_unix_ms": true, "request": true}
	return r
}

func decodeDynamoTrace(v any, _ []byte, out []Record) []Record {
	m, ok := v.(map[string]any)
	if !ok {
		return decodeReject(out, scan.Errorf(ErrBadType, -1, "want a JSON object, found %s", scan.KindName(v)))
	}
	o := scan.Obj(m)
	var fe scan.FirstErr
	schema := fe.Str(o["schema"], "schema")
	event := fe.Str(o["event_type"], "event_type")
	end := fe.Integer(o["event_time_unix_ms"], "event_time_unix_ms", 0, scan.MaxMicros/1000)
	if fe.Err != nil {
		return decodeReject(out, fe.Err)
	}
	switch {
	case schema == nil:
		return decodeReject(out, scan.Errorf(ErrMissingField, -1, "missing schema (not a Dynamo request trace row)"))
	case *schema != dynamoTraceSchema:
		return decodeReject(out, scan.Errorf(ErrBadValue, -1, "schema: %q is not %q", *schema, dynamoTraceSchema))
	case event == nil:
		return decodeReject(out, scan.Errorf(ErrMissingField, -1, "missing event_type"))
	case *event != "request_end":
		return append(out, Record{Kind: KindSkip, Skip: SkipUnusedLine}) // tool events, payload captures
	}
	req := o.Child("request")
	if req == nil {
		if o["request"] != nil {
			return decodeReject(out, scan.Errorf(ErrBadType, -1, "request: want an object, found %s", scan.KindName(o["request"])))
		}
		return decodeReject(out, scan.Errorf(ErrMissingField, -1, "missing request (a request_end row carries the request's metrics)"))
	}
	sp := schemas.Span{Source: SourceDynamoTrace}
	id := fe.Str(req["request_id"], "request.request_id")
	xid := fe.Str(req["x_request_id"], "request.x_request_id")
	sp.Model = fe.Str(req["model"], "request.model")
	sp.InputTokens = fe.Tokens(req["input_tokens"], "request.input_tokens")
	sp.OutputTokens = fe.Tokens(req["output_tokens"], "request.output_tokens")
	sp.CachedTokens = fe.Tokens(req["cached_tokens"], "request.cached_tokens")
	workers := dynamoWorkers(&fe, req.Child("worker"), "request.worker")
	sp.Replica = workers.replica()
	kvEst := fe.Duration(req["kv_transfer_estimated_latency_ms"], "request.kv_transfer_estimated_latency_ms", 3)
	reason := fe.Str(req.Get("finish_reason_metadata", "finish_reason"), "request.finish_reason_metadata.finish_reason")
	if fe.Err != nil {
		return decodeReject(out, fe.Err)
	}
	if id == nil {
		return decodeReject(out, scan.Errorf(ErrMissingField, -1, "missing request.request_id"))
	}
	sp.SpanID, sp.RequestID = *id, *id
	if xid != nil {
		// The caller's x-request-id: a gateway's retries of one request share it.
		sp.RequestID = *xid
	}
	dynamoStatus(reason, &sp)
	if err := dynamoTimes(req, "request.", end, &sp); err != nil {
		return decodeReject(out, err)
	}
	out = append(out, Record{Kind: KindSpan, Span: sp})
	return dynamoStages(out, &sp, workers, kvEst)
}

// dynamoWorkerIDs names the workers of a request's worker_id object:
// each "worker-<id>", with "/dpN" for a data-parallel rank.
type dynamoWorkerIDs struct{ prefill, decode *string }

// replica is the worker that decoded the request (in aggregated serving
// the one worker).
func (w dynamoWorkerIDs) replica() *string {
	if w.decode != nil {
		return w.decode
	}
	return w.prefill
}

// disaggregated reports whether the request's prefill and decode ran on
// two workers.
func (w dynamoWorkerIDs) disaggregated() bool {
	return w.prefill != nil && w.decode != nil && *w.prefill != *w.decode
}

func dynamoWorkers(fe *scan.FirstErr, w scan.Obj, field string) dynamoWorkerIDs {
	var ids dynamoWorkerIDs
	if w == nil {
		return ids
	}
	for _, role := range []string{"decode", "prefill"} {
		// Worker ids are u64 lease ids, beyond int64: kept as their digits.
		id, ok, err := scan.NumberText(w[role+"_worker_id"], field+"."+role+"_worker_id")
		fe.Keep(err)
		if ok && (bytes.ContainsAny(id, ".-eE") || len(id) > 20) {
			fe.Keep(scan.Errorf(ErrBadValue, -1, "%s.%s_worker_id: %q is not a worker id", field, role, id))
		}
		rank := fe.Integer(w[role+"_dp_rank"], field+"."+role+"_dp_rank", 0, 1<<31)
		if !ok || fe.Err != nil {
			continue
		}
		s := "worker-" + string(id)
		if rank != nil {
			s += "/dp" + scan.Itoa(*rank)
		}
		if role == "decode" {
			ids.decode = &s
		} else {
			ids.prefill = &s
		}
	}
	return ids
}

// dynamoStages appends the stages of a request whose prefill and decode
// ran on two workers (schemas/formats/dynamo.md "Disaggregated serving"),
// from its span's instants: the prefill worker's queue from the receipt to
// prefill's start (the frontend's routing in it), prefill to the first
// token, decode from there to the end. prefill_time_ms runs to the first
// token the frontend sees, so it holds the KV transfer; where the trace
// gives kv_transfer_estimated_latency_ms (the router's upper bound of the
// transfer, from prefill's end to the first token), the last that much of
// it is the kv_transfer stage instead (an estimate as long as all of
// prefill_time_ms bounds nothing: prefill keeps it). A request of one
// worker gives none.
func dynamoStages(out []Record, sp *schemas.Span, w dynamoWorkerIDs, kvEst *int64) []Record {
	if !w.disaggregated() || sp.AdmittedAt == nil || sp.FirstTokenAt == nil || sp.ReleasedAt == nil ||
		*sp.AdmittedAt > *sp.FirstTokenAt || *sp.FirstTokenAt > *sp.ReleasedAt {
		return out
	}
	prefill, decode := schemas.RolePrefill, schemas.RoleDecode
	add := func(stage string, role, rep *string, from, to int64) {
		out = append(out, Record{Kind: KindStage, Stage: schemas.Stage{Source: sp.Source, RequestID: sp.RequestID,
			Stage: stage, Role: role, Replica: rep, StartedAt: from, EndedAt: to}})
	}
	prefillEnd := *sp.FirstTokenAt
	if kvEst != nil && *kvEst > 0 && *kvEst < *sp.FirstTokenAt-*sp.AdmittedAt {
		prefillEnd = *sp.FirstTokenAt - *kvEst
	}
	add(schemas.StageQueue, &prefill, w.prefill, *sp.QueuedAt, *sp.AdmittedAt)
	add(schemas.StagePrefill, &prefill, w.prefill, *sp.AdmittedAt, prefillEnd)
	if prefillEnd < *sp.FirstTokenAt {
		add(schemas.StageKVTransfer, &decode, w.decode, prefillEnd, *sp.FirstTokenAt)
	}
	add(schemas.StageDecode, &decode, w.decode, *sp.FirstTokenAt, *sp.ReleasedAt)
	return out
}

// dynamoStatus maps an OpenAI finish reason onto the span's status: every
// reason a finished generation gives is ok.
func dynamoStatus(reason *string, sp *schemas.Span) {
	sp.Status = schemas.StatusOK
	if reason == nil {
		return
	}
	switch r := strings.ToLower(*reason); r {
	case "cancelled", "canceled", "abort", "aborted":
		sp.Status = schemas.StatusCancelled
	case "error":
		sp.Status = schemas.StatusError
		sp.Error = &r
	}
}

// dynamoTimes places a span by Dynamo's TimingInfo fields in t (prefix
// names them in errors). end, when not nil, is the instant (epoch ms) the
// row was written, the request's end when total_time_ms is missing.
func dynamoTimes(t scan.Obj, prefix string, endMs *int64, sp *schemas.Span) error {
	var fe scan.FirstErr
	recvMs := fe.Integer(t["request_received_ms"], prefix+"request_received_ms", 0, scan.MaxMicros/1000)
	wait := fe.Duration(t["prefill_wait_time_ms"], prefix+"prefill_wait_time_ms", 3)
	ttft := fe.Duration(t["ttft_ms"], prefix+"ttft_ms", 3)
	total := fe.Duration(t["total_time_ms"], prefix+"total_time_ms", 3)
	if fe.Err != nil {
		return fe.Err
	}
	if recvMs == nil {
		return scan.Errorf(ErrMissingField, -1, "missing %srequest_received_ms", prefix)
	}
	recv := *recvMs * 1000
	res := int32(1000)
	sp.TimeResolutionUS = &res
	sp.QueuedAt, sp.EngineArrivedAt = &recv, &recv
	sp.AdmittedAt = scan.AddMicros(&recv, wait)
	sp.FirstTokenAt = scan.AddMicros(&recv, ttft)
	sp.ReleasedAt = scan.AddMicros(&recv, total)
	if sp.ReleasedAt == nil && endMs != nil {
		e := *endMs * 1000
		sp.ReleasedAt = &e
	}
	if sp.ReleasedAt != nil && *sp.ReleasedAt < recv {
		return scan.Errorf(ErrBadValue, -1, "the request ends before request_received_ms")
	}
	if sp.FirstTokenAt != nil {
		sp.LastTokenAt = sp.ReleasedAt
	}
	return nil
}

// sniffDynamoTrace scores 98 when the first object is a row of schema
// dynamo.request.trace.v1.
func sniffDynamoTrace(head []byte) int {
	keys := scan.FirstObjectKeys(head)
	if keys["schema"] && keys["event_type"] && bytes.Contains(head, []byte(`"`+dynamoTraceSchema+`"`)) {
		return 98
	}
	return 0
}

type dynamoNvextReader struct{ *jsonRecordReader }

var _ Reader = (*dynamoNvextReader)(nil)

func newDynamoNvextReader(in Input) Reader {
	r := &dynamoNvextReader{newJSONRecordReader(in, decodeDynamoNvext)}
	r.only = map[string]bool{"id": true, "object": true, "model": true, "choices": true, "usage": true, "nvext": true}
	return r
}

func decodeDynamoNvext(v any, _ []byte, out []Record) []Record {
	m, ok := v.(map[string]any)
	if !ok {
		return decodeReject(out, scan.Errorf(ErrBadType, -1, "want a JSON object, found %s", scan.KindName(v)))
	}
	o := scan.Obj(m)
	timing := o.Child("nvext", "timing")
	finished := llamaFinished(o)
	if timing == nil || !finished {
		object, _ := o["object"].(string)
		if strings.HasSuffix(object, ".chunk") {
			return append(out, Record{Kind: KindSkip, Skip: SkipUnusedLine}) // a stream's chunk before its end
		}
		if timing == nil {
			return decodeReject(out, scan.Errorf(ErrMissingField, -1,
				"missing nvext.timing (Try: ask Dynamo for it with \"nvext\": {\"extra_fields\": [\"timing\"]} in the request)"))
		}
	}
	var fe scan.FirstErr
	sp := schemas.Span{Source: SourceDynamoNvext}
	id := fe.Str(o["id"], "id")
	sp.Model = fe.Str(o["model"], "model")
	sp.InputTokens = fe.Tokens(o.Get("usage", "prompt_tokens"), "usage.prompt_tokens")
	sp.OutputTokens = fe.Tokens(o.Get("usage", "completion_tokens"), "usage.completion_tokens")
	sp.CachedTokens = fe.Tokens(o.Get("usage", "prompt_tokens_details", "cached_tokens"), "usage.prompt_tokens_details.cached_tokens")
	workers := dynamoWorkers(&fe, o.Child("nvext", "worker_id"), "nvext.worker_id")
	sp.Replica = workers.replica()
	var reason *string
	if choices, ok := o["choices"].([]any); ok && len(choices) > 0 {
		if c, ok := choices[0].(map[string]any); ok {
			reason = fe.Str(c["finish_reason"], "choices[0].finish_reason")
		}
	}
	if fe.Err != nil {
		return decodeReject(out, fe.Err)
	}
	if id == nil {
		return decodeReject(out, scan.Errorf(ErrMissingField, -1, "missing id"))
	}
	sp.SpanID, sp.RequestID = *id, *id
	dynamoStatus(reason, &sp)
	if err := dynamoTimes(timing, "nvext.timing.", nil, &sp); err != nil {
		return decodeReject(out, err)
	}
	out = append(out, Record{Kind: KindSpan, Span: sp})
	return dynamoStages(out, &sp, workers, nil)
}

// sniffDynamoNvext scores 90 when the first object is an OpenAI-style
// response (choices) with Dynamo's nvext object.
func sniffDynamoNvext(head []byte) int {
	keys := scan.FirstObjectKeys(head)
	if keys["nvext"] && keys["choices"] {
		return 90
	}
	return 0
}
