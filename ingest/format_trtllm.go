package ingest

import (
	"strings"

	"github.com/tpsreport/tpsreport/ingest/internal/scan"
	"github.com/tpsreport/tpsreport/schemas"
)

// The trtllm-perf format reads TensorRT-LLM's per-request perf metrics
// (schemas/formats/trtllm.md): what trtllm-serve started with
// return_perf_metrics returns from its /perf_metrics endpoint (a JSON
// array, one item per finished request, saved with curl; appended polls
// give several arrays) or writes to perf_metrics_output_dir (JSON lines,
// the same items with a "status"). An item is
//
//	{"request_id": 7, "perf_metrics": {"first_iter": .., "last_iter": ..,
//	  "timing_metrics": {"arrival_time", "first_scheduled_time",
//	  "first_token_time", "last_token_time", "server_arrival_time",
//	  "server_first_token_time", ...}, "kv_cache_metrics": {...}}}
//
// and becomes one span:
//
//   - queued_at = engine_arrived_at = arrival_time (the executor's
//     enqueue), admitted_at = first_scheduled_time, first_token_at =
//     first_token_time, last_token_at = released_at = last_token_time;
//   - span_id = request_id = request_id; status ok ("complete"), else the
//     status word;
//   - tokens are unknown: perf metrics count KV-cache blocks
//     (num_reused_blocks), not tokens.
//
// The disaggregated server's items (ctx_server, gen_server,
// ctx_perf_metrics, gen_perf_metrics) are one span each: the context
// server's arrival, schedule and first token, the generation server's last
// token, replica = gen_server. Each also gives the request's stages
// (stages.parquet), on the same clock:
//
//   - router: disagg_server_arrival_time → the context server's
//     server_arrival_time (the disaggregated server's dispatch);
//   - queue and prefill on ctx_server (role prefill): arrival_time →
//     first_scheduled_time → first_token_time;
//   - on gen_server (role decode): queue from its arrival_time to
//     kv_cache_transfer_start, kv_transfer to kv_cache_transfer_end (bytes
//     kv_cache_size), queue again until first_scheduled_time, decode to
//     last_token_time; without the transfer's times, queue from
//     arrival_time to first_scheduled_time.
//
// What lies between (each server's own preprocessing and postprocessing)
// is the budget's unaccounted part. A stage whose times are missing is not
// written; one that would end before it starts makes the item a reject.
//
// TensorRT-LLM reads its times from the server's steady (monotonic) clock:
// seconds since the clock's start, not since the Unix epoch. A span whose
// arrival_time is earlier than 2000-01-01 as epoch seconds keeps those
// readings as they are, with time_origin "steady_clock"; one whose times
// are epoch seconds (shifted to wall-clock time) is wall-clock UTC. A span
// mixing the two is rejected.

// SourceTRTLLMPerf is the source column of spans read from TensorRT-LLM's
// per-request perf metrics.
const SourceTRTLLMPerf = "trtllm-perf"

type trtllmPerfReader struct{ *jsonRecordReader }

var _ Reader = (*trtllmPerfReader)(nil)

func newTRTLLMPerfReader(in Input) Reader {
	r := &trtllmPerfReader{newJSONRecordReader(in, decodeTRTLLMPerf)}
	// time_breakdown_metrics (per-step timings) is dropped unread.
	r.only = map[string]bool{"request_id": true, "perf_metrics": true, "status": true, "ctx_request_id": true,
		"disagg_request_id": true, "ctx_server": true, "gen_server": true, "disagg_server_arrival_time": true,
		"ctx_perf_metrics": true, "gen_perf_metrics": true}
	return r
}

var steadyOrigin = schemas.TimeOriginSteadyClock

func decodeTRTLLMPerf(v any, _ []byte, out []Record) []Record {
	m, ok := v.(map[string]any)
	if !ok {
		return decodeReject(out, scan.Errorf(ErrBadType, -1, "want a JSON object, found %s", scan.KindName(v)))
	}
	o := scan.Obj(m)
	var sp schemas.Span
	var stages []schemas.Stage
	var err error
	if o["ctx_perf_metrics"] != nil || o["gen_perf_metrics"] != nil || o["ctx_server"] != nil {
		sp, stages, err = trtllmDisagg(o)
	} else {
		sp, err = trtllmWorker(o)
	}
	if err != nil {
		return decodeReject(out, err)
	}
	out = append(out, Record{Kind: KindSpan, Span: sp})
	for _, st := range stages {
		out = append(out, Record{Kind: KindStage, Stage: st})
	}
	return out
}

// trtllmWorker reads one worker item (aggregated serving).
func trtllmWorker(o scan.Obj) (schemas.Span, error) {
	sp := schemas.Span{Source: SourceTRTLLMPerf}
	id, err := trtllmID(o["request_id"], "request_id")
	if err != nil {
		return sp, err
	}
	if o.Child("perf_metrics") == nil {
		if o["perf_metrics"] != nil {
			return sp, scan.Errorf(ErrBadType, -1, "perf_metrics: want an object, found %s", scan.KindName(o["perf_metrics"]))
		}
		return sp, scan.Errorf(ErrMissingField, -1, "missing perf_metrics (not a TensorRT-LLM /perf_metrics item)")
	}
	sp.SpanID, sp.RequestID = id, id
	if err := trtllmStatus(o["status"], &sp); err != nil {
		return sp, err
	}
	t, err := trtllmTimes(o.Child("perf_metrics", "timing_metrics"), "perf_metrics.timing_metrics")
	if err != nil {
		return sp, err
	}
	return sp, t.place(&sp, t.arrival, t.scheduled, t.first, t.last)
}

// trtllmDisagg reads one item of the disaggregated server: the context
// server's part and the generation server's, whose clocks it aligned.
func trtllmDisagg(o scan.Obj) (schemas.Span, []schemas.Stage, error) {
	sp := schemas.Span{Source: SourceTRTLLMPerf}
	var fe scan.FirstErr
	gen := fe.Str(o["gen_server"], "gen_server")
	ctxServer := fe.Str(o["ctx_server"], "ctx_server")
	dispatched := fe.Duration(o["disagg_server_arrival_time"], "disagg_server_arrival_time", 6)
	if fe.Err != nil {
		return sp, nil, fe.Err
	}
	ctxM, genM := o.Child("ctx_perf_metrics"), o.Child("gen_perf_metrics")
	if ctxM == nil {
		return sp, nil, scan.Errorf(ErrMissingField, -1, "missing ctx_perf_metrics (the context server's part of a disaggregated request)")
	}
	idV := o["disagg_request_id"]
	field := "disagg_request_id"
	if scan.IsUnknown(idV) {
		idV, field = ctxM["request_id"], "ctx_perf_metrics.request_id"
	}
	id, err := trtllmID(idV, field)
	if err != nil {
		return sp, nil, err
	}
	sp.SpanID, sp.RequestID, sp.Replica = id, id, gen
	if err := trtllmStatus(o["status"], &sp); err != nil {
		return sp, nil, err
	}
	ctx, err := trtllmTimes(ctxM.Child("perf_metrics", "timing_metrics"), "ctx_perf_metrics.perf_metrics.timing_metrics")
	if err != nil {
		return sp, nil, err
	}
	last := ctx.last
	var g trtllmTiming
	if genM != nil {
		if g, err = trtllmTimes(genM.Child("perf_metrics", "timing_metrics"), "gen_perf_metrics.perf_metrics.timing_metrics"); err != nil {
			return sp, nil, err
		}
		if g.last != nil {
			last = g.last
		}
	}
	if err := ctx.place(&sp, ctx.arrival, ctx.scheduled, ctx.first, last); err != nil {
		return sp, nil, err
	}
	stages, err := trtllmStages(id, dispatched, ctxServer, gen, ctx, g)
	return sp, stages, err
}

// trtllmStages are the stages of a disaggregated item (see the format's
// comment), each checked to start on the clock of the context server's
// arrival and to end no earlier than it starts.
func trtllmStages(id string, dispatched *int64, ctxServer, genServer *string, ctx, gen trtllmTiming) ([]schemas.Stage, error) {
	var out []schemas.Stage
	prefill, decode := schemas.RolePrefill, schemas.RoleDecode
	steady := *ctx.arrival < plausibleFrom
	add := func(stage string, role, replica *string, from, to *int64, names string) error {
		if from == nil || to == nil {
			return nil
		}
		if (*from < plausibleFrom) != steady || (*to < plausibleFrom) != steady {
			return scan.Errorf(ErrBadValue, -1, "%s: mixes a steady-clock reading with a wall-clock time", names)
		}
		if *to < *from {
			return scan.Errorf(ErrBadValue, -1, "%s: the %s stage ends %s s before it starts", names, stage, trtllmSeconds(*from-*to))
		}
		out = append(out, schemas.Stage{Source: SourceTRTLLMPerf, RequestID: id, Stage: stage, Role: role, Replica: replica, StartedAt: *from, EndedAt: *to})
		return nil
	}
	const c, g = "ctx_perf_metrics.perf_metrics.timing_metrics.", "gen_perf_metrics.perf_metrics.timing_metrics."
	err := add(schemas.StageRouter, nil, nil, dispatched, ctx.serverArrival, "disagg_server_arrival_time → "+c+"server_arrival_time")
	if err == nil {
		err = add(schemas.StageQueue, &prefill, ctxServer, ctx.arrival, ctx.scheduled, c+"arrival_time → first_scheduled_time")
	}
	if err == nil {
		err = add(schemas.StagePrefill, &prefill, ctxServer, ctx.scheduled, ctx.first, c+"first_scheduled_time → first_token_time")
	}
	if err != nil || gen.arrival == nil {
		return out, err
	}
	if gen.kvStart != nil && gen.kvEnd != nil {
		err = add(schemas.StageQueue, &decode, genServer, gen.arrival, gen.kvStart, g+"arrival_time → kv_cache_transfer_start")
		if err == nil {
			err = add(schemas.StageKVTransfer, &decode, genServer, gen.kvStart, gen.kvEnd, g+"kv_cache_transfer_start → kv_cache_transfer_end")
			if err == nil && gen.kvBytes != nil {
				out[len(out)-1].Bytes = gen.kvBytes
			}
		}
		if err == nil {
			err = add(schemas.StageQueue, &decode, genServer, gen.kvEnd, gen.scheduled, g+"kv_cache_transfer_end → first_scheduled_time")
		}
	} else {
		err = add(schemas.StageQueue, &decode, genServer, gen.arrival, gen.scheduled, g+"arrival_time → first_scheduled_time")
	}
	if err == nil {
		err = add(schemas.StageDecode, &decode, genServer, gen.scheduled, gen.last, g+"first_scheduled_time → last_token_time")
	}
	return out, err
}

// trtllmID reads a request id, a number or a string.
func trtllmID(v any, field string) (string, error) {
	s, err := scan.ValString(v, field)
	if err != nil {
		return "", err
	}
	if s == nil {
		return "", scan.Errorf(ErrMissingField, -1, "missing %s", field)
	}
	return *s, nil
}

// trtllmStatus maps the JSONL dump's status word ("complete") onto the
// span's; /perf_metrics items have none and finished.
func trtllmStatus(v any, sp *schemas.Span) error {
	s, err := scan.ValString(v, "status")
	if err != nil {
		return err
	}
	sp.Status = schemas.StatusOK
	if s == nil {
		return nil
	}
	switch w := strings.ToLower(*s); w {
	case "complete", "completed", "ok", "success":
	case "cancelled", "canceled":
		sp.Status = schemas.StatusCancelled
	case "timeout", "timed_out":
		sp.Status = schemas.StatusTimeout
	default:
		sp.Status = schemas.StatusError
		e := w
		sp.Error = &e
	}
	return nil
}

// trtllmTiming is one timing_metrics object, in µs of its clock; kvBytes
// is bytes.
type trtllmTiming struct {
	arrival, scheduled, first, last *int64
	serverArrival, kvStart, kvEnd   *int64
	kvBytes                         *int64
	field                           string
}

func trtllmTimes(t scan.Obj, field string) (trtllmTiming, error) {
	out := trtllmTiming{field: field}
	if t == nil {
		return out, scan.Errorf(ErrMissingField, -1, "missing %s", field)
	}
	var fe scan.FirstErr
	out.arrival = fe.Duration(t["arrival_time"], field+".arrival_time", 6)
	out.scheduled = fe.Duration(t["first_scheduled_time"], field+".first_scheduled_time", 6)
	out.first = fe.Duration(t["first_token_time"], field+".first_token_time", 6)
	out.last = fe.Duration(t["last_token_time"], field+".last_token_time", 6)
	out.serverArrival = fe.Duration(t["server_arrival_time"], field+".server_arrival_time", 6)
	out.kvStart = fe.Duration(t["kv_cache_transfer_start"], field+".kv_cache_transfer_start", 6)
	out.kvEnd = fe.Duration(t["kv_cache_transfer_end"], field+".kv_cache_transfer_end", 6)
	out.kvBytes = fe.Tokens(t["kv_cache_size"], field+".kv_cache_size")
	if fe.Err != nil {
		return out, fe.Err
	}
	if out.arrival == nil {
		return out, scan.Errorf(ErrMissingField, -1, "missing %s.arrival_time", field)
	}
	return out, nil
}

// place sets the span's instants, deciding the clock by arrival: readings
// before 2000-01-01 as epoch seconds are the steady clock's.
func (t trtllmTiming) place(sp *schemas.Span, arrival, scheduled, first, last *int64) error {
	steady := *arrival < plausibleFrom
	for _, c := range [...]struct {
		name string
		v    *int64
	}{{"first_scheduled_time", scheduled}, {"first_token_time", first}, {"last_token_time", last}} {
		if c.v != nil && (*c.v < plausibleFrom) != steady {
			return scan.Errorf(ErrBadValue, -1, "%s.%s: mixes a steady-clock reading with a wall-clock time (arrival_time %s s)",
				t.field, c.name, trtllmSeconds(*arrival))
		}
	}
	if steady {
		sp.TimeOrigin = &steadyOrigin
	}
	sp.QueuedAt, sp.EngineArrivedAt = arrival, arrival
	sp.AdmittedAt, sp.FirstTokenAt = scheduled, first
	sp.LastTokenAt, sp.ReleasedAt = last, last
	return nil
}

// trtllmSeconds formats µs as seconds for a message.
func trtllmSeconds(us int64) string {
	s := scan.Itoa(us / 1_000_000)
	frac := strings.TrimRight(scan.Itoa(1_000_000 + us%1_000_000)[1:], "0")
	if frac == "" {
		return s
	}
	return s + "." + frac
}

// sniffTRTLLMPerf scores 95 when the first object is a /perf_metrics item
// (request_id and perf_metrics) or a disaggregated server's item
// (ctx_perf_metrics or gen_perf_metrics beside ctx_server or
// disagg_server_arrival_time: the time breakdown README's sample has no
// ctx_server).
func sniffTRTLLMPerf(head []byte) int {
	keys := scan.FirstObjectKeys(head)
	switch {
	case keys["request_id"] && keys["perf_metrics"]:
		return 95
	case keys["ctx_server"] && (keys["ctx_perf_metrics"] || keys["gen_perf_metrics"] || keys["disagg_server_arrival_time"]):
		return 95
	case keys["disagg_server_arrival_time"] && (keys["ctx_perf_metrics"] || keys["gen_perf_metrics"]):
		return 95
	}
	return 0
}
