package sim

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/tpsreport/tpsreport/schemas"
)

// The files of a disaggregated run (WriteDisagg).
const (
	// StagesFile holds the run's stages in the canonical JSONL (ingest's
	// stages format).
	StagesFile = "stages.jsonl"
	// TRTLLMFile holds one TensorRT-LLM disaggregated perf metrics item
	// per request, as JSON lines (ingest's trtllm-perf format).
	TRTLLMFile = "trtllm-perf.jsonl"
	// DisaggLiteLLMFile holds the LiteLLM gateway's payload of each
	// request, its id TensorRT-LLM's ("chatcmpl-<id>"), so that analyze
	// joins the two.
	DisaggLiteLLMFile = "litellm.jsonl"
	// EPPFile holds the router's log: llm-d's endpoint picker's two lines
	// of each request, its receipt and its pick (ingest's llm-d-epp
	// format), the request id the canonical one.
	EPPFile = "epp.jsonl"
	// WorkerStagesFile holds the stages of stages.jsonl but the router's:
	// what the gateway and the workers log, for a run whose router stages
	// come from the router's own log (EPPFile).
	WorkerStagesFile = "stages-workers.jsonl"
)

// DisaggTruthFile is the truth of a view of a disaggregated run:
// truth.json for ViewStages, truth-VIEW.json for the others ('+' as '-').
func DisaggTruthFile(view string) string {
	if view == ViewStages {
		return TruthFile
	}
	return "truth-" + strings.ReplaceAll(view, "+", "-") + ".json"
}

// WriteDisagg runs sc with seed and writes into dir its spans (spans.jsonl,
// as the gateway saw each request), its stages (stages.jsonl), every
// worker's samples (samples.jsonl), TensorRT-LLM's perf metrics of the same
// requests (trtllm-perf.jsonl) and the truth of each view
// (DisaggTruthFile), each through a temporary name; and each worker's
// SGLang log of its requests' stages (SGLangWorkerLogs). The router's log
// (epp.jsonl) with the other stages (stages-workers.jsonl) gives the same
// stages as stages.jsonl, so ViewStages' truth is theirs too.
func WriteDisagg(dir string, sc Disagg, seed uint64) (map[string]DisaggTruth, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("create %s: %w", dir, err)
	}
	outs := &outFiles{dir: dir}
	defer outs.abort()
	create := outs.create
	workerLogs := map[string]*bufio.Writer{}
	for _, w := range SGLangWorkerLogs(sc) {
		bw, err := create(w + ".log")
		if err != nil {
			return nil, err
		}
		workerLogs[w] = bw
	}
	names := []string{formatFiles[FormatSpans], formatFiles[FormatSamples], StagesFile, TRTLLMFile, DisaggLiteLLMFile, EPPFile, WorkerStagesFile}
	ws := make([]*bufio.Writer, len(names))
	for i, name := range names {
		w, err := create(name)
		if err != nil {
			return nil, err
		}
		ws[i] = w
	}
	runID := sc.RunID
	if runID == "" {
		runID = sc.Name
	}
	gateway := NewLiteLLM(ws[4], Scenario{Name: sc.Name, RunID: runID, MaxAttempts: 1}, seed)
	var buf []byte
	line := func(w *bufio.Writer, b []byte) error {
		_, err := w.Write(append(b, '\n'))
		return err
	}
	truths, err := RunDisagg(sc, seed, DisaggWriter{
		Span: func(s schemas.Span) error {
			s.RunID, s.Source = runID, "spans"
			buf = AppendSpanJSON(buf[:0], &s)
			return line(ws[0], buf)
		},
		Sample: func(s schemas.Sample) error {
			s.RunID, s.Source = runID, "samples"
			buf = AppendSampleJSON(buf[:0], &s)
			return line(ws[1], buf)
		},
		Stage: func(s schemas.Stage) error {
			buf = AppendStageJSON(buf[:0], &s)
			if err := line(ws[2], buf); err != nil {
				return err
			}
			if s.Stage == schemas.StageRouter {
				return nil
			}
			return line(ws[6], buf)
		},
		Request: func(r DisaggRequest) error {
			buf = AppendTRTLLMDisagg(buf[:0], &r)
			if err := line(ws[3], buf); err != nil {
				return err
			}
			buf = AppendEPPLines(buf[:0], &r)
			if _, err := ws[5].Write(buf); err != nil {
				return err
			}
			for _, role := range []string{schemas.RolePrefill, schemas.RoleDecode} {
				worker := r.Prefill
				if role == schemas.RoleDecode {
					worker = r.Decode
				}
				buf = AppendSGLangStats(buf[:0], &r, role, sglangClock(worker))
				if _, err := workerLogs[worker].Write(buf); err != nil {
					return err
				}
			}
			return gateway.WriteSpan(disaggGatewaySpan(&r))
		},
	})
	if err != nil {
		return nil, err
	}
	if err := gateway.Flush(); err != nil {
		return nil, err
	}
	for _, view := range DisaggViews {
		w, err := create(DisaggTruthFile(view))
		if err != nil {
			return nil, err
		}
		b, err := json.MarshalIndent(truths[view], "", "  ")
		if err != nil {
			return nil, fmt.Errorf("encode truth: %w", err)
		}
		if _, err := w.Write(append(b, '\n')); err != nil {
			return nil, err
		}
	}
	if err := outs.commit(); err != nil {
		return nil, err
	}
	return truths, nil
}

// disaggGatewaySpan is r as the LiteLLM gateway in front of the
// disaggregated server logs it: from its receipt to the last token, its id
// TensorRT-LLM's request id (LiteLLM logs the upstream's response id).
func disaggGatewaySpan(r *DisaggRequest) schemas.Span {
	id := strconv.FormatInt(r.Num, 10)
	model := "sim-model"
	attempt := int32(0)
	in, out := r.Prompt, r.Output
	return schemas.Span{SpanID: id, RequestID: id, Attempt: &attempt, Model: &model,
		QueuedAt: &r.Arrived, AdmittedAt: &r.PrefillStart, FirstTokenAt: &r.FirstToken, LastTokenAt: &r.DecodeEnd, ReleasedAt: &r.DecodeEnd,
		InputTokens: &in, OutputTokens: &out, Status: schemas.StatusOK}
}

// AppendStageJSON appends s as one line of the canonical stages format (no
// newline): its keys in the order of schemas.Stage, nil fields omitted,
// timestamps as RFC 3339 UTC strings with six fraction digits. run_id and
// source are left to ingest.
func AppendStageJSON(b []byte, s *schemas.Stage) []byte {
	b = append(b, `{"request_id":`...)
	b = appendString(b, s.RequestID)
	if s.Attempt != nil {
		b = append(b, `,"attempt":`...)
		b = strconv.AppendInt(b, int64(*s.Attempt), 10)
	}
	b = append(b, `,"stage":`...)
	b = appendString(b, s.Stage)
	b = appendOptString(b, `,"role":`, s.Role)
	b = appendOptString(b, `,"replica":`, s.Replica)
	b = appendOptTime(b, `,"started_at":`, &s.StartedAt)
	b = appendOptTime(b, `,"ended_at":`, &s.EndedAt)
	if s.Bytes != nil {
		b = append(b, `,"bytes":`...)
		b = strconv.AppendInt(b, *s.Bytes, 10)
	}
	return append(b, '}')
}

// AppendTRTLLMDisagg appends r as TensorRT-LLM's disaggregated server
// records it (a perf_metrics_output_dir line, schemas/formats/trtllm.md),
// times in epoch seconds: the disaggregated server receives it when the
// gateway hands it on, the context server when the router has picked (its
// executor queues it on arrival at the prefill worker), the generation
// server when prefill ends; the KV transfer runs from the decode slot to
// KVEnd, and decode is scheduled when it ends.
func AppendTRTLLMDisagg(b []byte, r *DisaggRequest) []byte {
	sec := func(key string, us int64) {
		b = append(b, key...)
		b = appendSeconds(b, us)
	}
	b = append(b, `{"ctx_server":`...)
	b = appendString(b, r.Prefill)
	b = append(b, `,"gen_server":`...)
	b = appendString(b, r.Decode)
	sec(`,"disagg_server_arrival_time":`, r.DispatchedAt)
	sec(`,"disagg_server_first_token_time":`, r.FirstToken)
	b = append(b, `,"ctx_perf_metrics":{"request_id":`...)
	b = strconv.AppendInt(b, r.Num, 10)
	b = append(b, `,"ctx_request_id":`...)
	b = strconv.AppendInt(b, r.Num, 10)
	sec(`,"perf_metrics":{"timing_metrics":{"server_arrival_time":`, r.Routed)
	sec(`,"arrival_time":`, r.AtPrefill)
	sec(`,"first_scheduled_time":`, r.PrefillStart)
	sec(`,"first_token_time":`, r.PrefillEnd)
	sec(`,"server_first_token_time":`, r.PrefillEnd)
	sec(`,"last_token_time":`, r.PrefillEnd)
	b = append(b, `}}},"gen_perf_metrics":{"request_id":`...)
	b = strconv.AppendInt(b, 1_000_000+r.Num, 10)
	b = append(b, `,"ctx_request_id":`...)
	b = strconv.AppendInt(b, r.Num, 10)
	sec(`,"perf_metrics":{"timing_metrics":{"server_arrival_time":`, r.PrefillEnd)
	sec(`,"arrival_time":`, r.PrefillEnd)
	sec(`,"first_scheduled_time":`, r.KVEnd)
	sec(`,"first_token_time":`, r.FirstToken)
	sec(`,"server_first_token_time":`, r.FirstToken)
	sec(`,"last_token_time":`, r.DecodeEnd)
	b = append(b, `,"kv_cache_size":`...)
	b = strconv.AppendInt(b, r.KVBytes, 10)
	sec(`,"kv_cache_transfer_start":`, r.DecodeSlot)
	sec(`,"kv_cache_transfer_end":`, r.KVEnd)
	return append(b, `}}},"status":"complete"}`...)
}

// AppendEPPLines appends r's two lines in llm-d's endpoint picker's log
// (schemas/formats/llm-d.md), each with its newline: "EPP received request"
// when the gateway hands the request on, "Request handled" when the router
// has picked, naming the decode worker (the pick the EPP logs; the prefill
// worker goes in a header). ts is epoch seconds, as zap's production
// encoder writes it.
func AppendEPPLines(b []byte, r *DisaggRequest) []byte {
	b = append(b, `{"level":"info","ts":`...)
	b = appendSeconds(b, r.DispatchedAt)
	b = append(b, `,"caller":"handlers/server.go:309","msg":"EPP received request","x-request-id":`...)
	b = appendString(b, r.ID)
	b = append(b, "}\n"...)
	b = append(b, `{"level":"info","ts":`...)
	b = appendSeconds(b, r.Routed)
	b = append(b, `,"caller":"requestcontrol/director.go:364","msg":"Request handled","x-request-id":`...)
	b = appendString(b, r.ID)
	b = append(b, `,"objectiveKey":"sim/sim-model","incomingModelName":"sim-model","targetModel":"sim-model","endpoint":`...)
	b = appendString(b, r.Decode+":8000")
	return append(b, "}\n"...)
}

// SGLangWorkerLogs names the workers of sc, each of which WriteDisagg gives
// an SGLang log, NAME.log, of its Req Time Stats lines (AppendSGLangStats).
func SGLangWorkerLogs(sc Disagg) []string {
	var out []string
	for i := range sc.PrefillWorkers {
		out = append(out, "prefill-"+strconv.Itoa(i))
	}
	for i := range sc.DecodeWorkers {
		out = append(out, "decode-"+strconv.Itoa(i))
	}
	return out
}

// sglangClock is the wall-clock instant (µs since the epoch) at which a
// worker's time.perf_counter() read 0, its host's boot: its monotonic clock
// reads wall − sglangClock(worker). Each worker is a host of its own,
// booted at a time of its own.
func sglangClock(worker string) int64 {
	var h int64 = 17
	for _, c := range worker {
		h = h*31 + int64(c)
	}
	return DefaultStart - (3600+h%86400)*1_000_000 - h%1_000_000
}

// AppendSGLangStats appends r's Req Time Stats line on its prefill or decode
// worker (role), with its newline, as SGLang's scheduler logs it with
// --enable-request-time-stats-logging (schemas/formats/sglang.md): stamped
// to the second when the request completes there, start on the worker's
// monotonic clock (wall − clock), in seconds to the ms, durations in ms to
// 10 µs. The prefill line: the queue from its arrival, prefill; the decode
// line: the wait for a decode slot (the prealloc queue), the KV transfer,
// decode.
func AppendSGLangStats(b []byte, r *DisaggRequest, role string, clock int64) []byte {
	ms := func(us int64) []byte {
		return strconv.AppendFloat(nil, float64(us)/1e3, 'f', 2, 64)
	}
	stamp := func(us int64) {
		b = time.UnixMicro(us).UTC().AppendFormat(b, "[2006-01-02 15:04:05 TP0] ")
	}
	head := func(typ string, out int64) {
		b = append(b, "Req Time Stats(rid=pd-"...)
		b = strconv.AppendInt(b, r.Num, 10)
		b = append(b, ", bootstrap_room="...)
		b = strconv.AppendInt(b, r.Num, 10)
		b = append(b, ", input len="...)
		b = strconv.AppendInt(b, r.Prompt, 10)
		b = append(b, ", output len="...)
		b = strconv.AppendInt(b, out, 10)
		b = append(b, ", type="+typ+"): "...)
	}
	if role == schemas.RolePrefill {
		stamp(r.PrefillEnd)
		head("prefill", 1)
		b = append(b, "bootstrap_queue_duration(0.00ms) queue_duration="...)
		b = append(append(b, ms(r.PrefillStart-r.AtPrefill)...), "ms, forward_duration="...)
		b = append(append(b, ms(r.PrefillEnd-r.PrefillStart)...), "ms, start="...)
		b = strconv.AppendFloat(b, float64(r.AtPrefill-clock)/1e6, 'f', 3, 64)
		kv := max(r.KVEnd-r.DecodeSlot, 1)
		b = append(b, ", transfer_speed="...)
		b = strconv.AppendFloat(b, float64(r.KVBytes)/float64(kv)*1e6/1e9, 'f', 2, 64)
		b = append(b, "GB/s, transfer_total="...)
		b = strconv.AppendFloat(b, float64(r.KVBytes)/1e6, 'f', 2, 64)
		return append(b, "MB, #retries=0\n"...)
	}
	stamp(r.DecodeEnd)
	head("decode", r.Output)
	b = append(append(append(b, "prealloc_queue_duration("...), ms(r.DecodeSlot-r.PrefillEnd)...), "ms) transfer_duration="...)
	b = append(append(b, ms(r.KVEnd-r.DecodeSlot)...), "ms; queue_duration=0.00ms, forward_duration="...)
	b = append(append(b, ms(r.DecodeEnd-r.KVEnd)...), "ms, start="...)
	b = strconv.AppendFloat(b, float64(r.PrefillEnd-clock)/1e6, 'f', 3, 64)
	return append(b, '\n')
}
