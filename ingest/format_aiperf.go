package ingest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/tpsreport/tpsreport/ingest/internal/scan"
	"github.com/tpsreport/tpsreport/schemas"
)

// The aiperf format reads the per-request files of NVIDIA's load tools
// (schemas/formats/loadtools.md has the mapping):
//
//   - AIPerf's profile_export.jsonl: one MetricRecordInfo per line,
//     {"metadata": {request_start_ns, request_end_ns, x_request_id,
//     was_cancelled, cancellation_time_ns, ...}, "metrics": {NAME: {value,
//     unit}}, "error": {code, type, message} | null};
//   - GenAI-Perf's profile_export.json (written by perf_analyzer):
//     {"experiments": [{"experiment": {mode, value}, "requests":
//     [{timestamp, response_timestamps, response_outputs, ...}]}]}, times in
//     ns since the epoch.
//
// Both clocks are wall clock (epoch ns), so time_origin stays NULL. An AIPerf
// record is placed as AIPerf places it itself (its max_response_timestamp is
// the request's timestamp_ns + request_latency):
//
//	queued_at      = request_start_ns
//	first_token_at = queued_at + time_to_first_token
//	last_token_at  = released_at = queued_at + request_latency (else request_end_ns)
//
// so that our ttft, t_total and tpot (t_stream/(n − 1)) are AIPerf's TTFT,
// request latency and ITL ((latency − TTFT)/(OSL − 1)). A record of the
// warm-up phase (metadata.benchmark_phase "warmup") is skipped (warmup), as
// AIPerf leaves it out of every result.
//
// A GenAI-Perf request keeps only the responses that carry content, as
// GenAI-Perf does (an OpenAI stream's role chunk, empty last chunk and [DONE]
// are dropped): queued_at = timestamp, first_token_at = the first,
// last_token_at = released_at = the last of them. Token counts are in the
// file only for service kind triton_c_api (TensorRT-LLM in process), as token
// ids: output_tokens = the number of response output_ids, input_tokens =
// len(request_inputs.input_ids), GenAI-Perf's own counts. Otherwise
// GenAI-Perf counts tokens by running its tokenizer on the response text,
// which we do not: the counts stay NULL and the reader says so once
// (notices).
//
// The summaries (profile_export_aiperf.json, profile_export_genai_perf.json)
// hold aggregates only; such a document is one reject naming the file to
// read instead. Response text is only looked at for being non-empty, never
// kept.

// SourceAIPerf is the source column of spans read from AIPerf and GenAI-Perf.
const SourceAIPerf = "aiperf"

type aiperfReader struct {
	*jsonRecordReader
	// textOnly counts the GenAI-Perf requests whose token counts are not in
	// the file, by service kind (notices).
	textOnly map[string]int64
}

var _ Reader = (*aiperfReader)(nil)

func newAIPerfReader(in Input) Reader {
	r := &aiperfReader{textOnly: map[string]int64{}}
	r.jsonRecordReader = newJSONRecordReader(in, r.decode)
	return r
}

// notices implements noticer: the JSON reader's, and the GenAI-Perf requests
// read without token counts.
func (r *aiperfReader) notices() []string {
	out := r.jsonRecordReader.notices()
	var n int64
	var kinds []string
	for k, c := range r.textOnly {
		n += c
		kinds = append(kinds, fmt.Sprintf("%q", k))
	}
	if n == 0 {
		return out
	}
	slices.Sort(kinds)
	return append(out, fmt.Sprintf("%s: %d GenAI-Perf request(s) of service kind %s hold response text, not token counts "+
		"(GenAI-Perf counts tokens with the tokenizer it ran with, which tpsreport does not run): their input_tokens and output_tokens are NULL, "+
		"so tpot and token throughput are not derived. A response chunk is not a token: GenAI-Perf's output_sequence_length is not the number of chunks",
		r.name, n, strings.Join(kinds, ", ")))
}

// aiperfUnitScale maps AIPerf's time units to scan.ValDuration's scale.
var aiperfUnitScale = map[string]int{"ns": -3, "us": 0, "ms": 3, "sec": 6, "s": 6}

// decode turns one JSON value into records.
func (r *aiperfReader) decode(v any, _ []byte, out []Record) []Record {
	m, ok := v.(map[string]any)
	if !ok {
		return decodeReject(out, scan.Errorf(ErrBadType, -1, "want a JSON object, found %s", scan.KindName(v)))
	}
	o := scan.Obj(m)
	switch {
	case o.Get("metadata") != nil:
		if aiperfWarmup(o.Child("metadata")) {
			return append(out, Record{Kind: KindSkip, Skip: SkipWarmup})
		}
		sp, err := aiperfRecord(o)
		if err != nil {
			return decodeReject(out, err)
		}
		rec := Record{Kind: KindSpan, Span: sp}
		if what := aiperfTimingMismatch(o); what != "" {
			rec.Mismatch, rec.MismatchText = InconsistentTiming, what
		}
		return append(out, rec)
	case o.Get("experiments") != nil:
		return genaiPerfExport(o, out, r.textOnly)
	case aiperfIsSummary(o):
		file := "profile_export.jsonl, the per-request file AIPerf writes beside it"
		if o.Get("was_cancelled") == nil && o.Get("error_summary") == nil {
			file = "profile_export.json, the per-request file GenAI-Perf writes beside it"
		}
		return decodeReject(out, scan.Errorf(ErrMissingField, -1, "aggregates only, no per-request records. Try %s", file))
	}
	return decodeReject(out, scan.Errorf(ErrMissingField, -1, "neither an AIPerf record (metadata) nor a GenAI-Perf profile export (experiments)"))
}

// aiperfWarmup reports whether an AIPerf record is of a warm-up phase:
// metadata.benchmark_phase (AIPerf's CreditPhase, "warmup" or "profiling")
// or, in AIPerf's multi-phase runs, metadata.phase_kind is "warmup". Only a
// known warm-up record is skipped; any other phase is read.
func aiperfWarmup(md scan.Obj) bool {
	for _, k := range []string{"benchmark_phase", "phase_kind"} {
		if s, ok := md.Get(k).(string); ok && strings.EqualFold(s, "warmup") {
			return true
		}
	}
	return false
}

// aiperfIsSummary reports whether o is a summary: metrics as {unit, avg, ...}.
func aiperfIsSummary(o scan.Obj) bool {
	for _, k := range []string{"request_latency", "time_to_first_token", "request_throughput"} {
		if c := o.Child(k); c != nil && c.Get("unit") != nil && (c.Get("avg") != nil || c.Get("p50") != nil) {
			return true
		}
	}
	return false
}

// aiperfMetric reads metrics.NAME as µs by its unit, or nil when absent.
func aiperfMetric(o scan.Obj, name string) (*int64, error) {
	m := o.Child("metrics", name)
	if m == nil {
		return nil, nil
	}
	unit, _ := m.Get("unit").(string)
	scale, ok := aiperfUnitScale[unit]
	if !ok {
		return nil, scan.Errorf(ErrBadValue, -1, "metrics.%s.unit: %q is not a time unit", name, unit)
	}
	return scan.ValDuration(m.Get("value"), "metrics."+name+".value", scale)
}

// aiperfTimingMismatch says how a record's inter-chunk latencies disagree
// with its request latency less its TTFT (the time from the first chunk to
// the last, which they divide), or "" when they agree to within 1 ms or 1 %
// of the request latency, or a value is missing. The record is read as the
// mapping says either way: request_latency and time_to_first_token.
func aiperfTimingMismatch(o scan.Obj) string {
	ttft, err1 := aiperfMetric(o, "time_to_first_token")
	lat, err2 := aiperfMetric(o, "request_latency")
	m := o.Child("metrics", "inter_chunk_latency")
	if err1 != nil || err2 != nil || ttft == nil || lat == nil || m == nil {
		return ""
	}
	scale, ok := aiperfUnitScale[fmt.Sprint(m.Get("unit"))]
	list, isList := m.Get("value").([]any)
	if !ok || !isList || len(list) == 0 {
		return ""
	}
	var sum int64
	for _, v := range list {
		d, err := scan.ValDuration(v, "metrics.inter_chunk_latency.value", scale)
		if err != nil || d == nil {
			return ""
		}
		sum += *d
	}
	stream := *lat - *ttft
	if diff := max(sum-stream, stream-sum); diff <= max(1000, *lat/100) {
		return ""
	}
	ms := func(us int64) string { return strconv.FormatFloat(float64(us)/1000, 'f', 1, 64) + " ms" }
	return fmt.Sprintf("inter_chunk_latency sums to %s while request_latency − time_to_first_token is %s (request %v)",
		ms(sum), ms(stream), o.Get("metadata", "x_request_id"))
}

// aiperfTokens reads the first of metrics.NAMES present as a token count.
func aiperfTokens(o scan.Obj, names ...string) (*int64, error) {
	for _, name := range names {
		if m := o.Child("metrics", name); m != nil {
			return scan.ValTokens(m.Get("value"), "metrics."+name+".value")
		}
	}
	return nil, nil
}

// aiperfNanos reads an instant in ns since the epoch as µs.
func aiperfNanos(v any, field string) (*int64, error) {
	num, ok, err := scan.NumberText(v, field)
	if err != nil || !ok {
		return nil, err
	}
	us, _, fits := scan.ScaleDecimal(num, -3)
	if !fits || us < scan.MinMicros || us > scan.MaxMicros {
		return nil, scan.Errorf(ErrBadTimestamp, -1, "%s: invalid timestamp %q: out of range (years 0000 to 9999)", field, num)
	}
	return &us, nil
}

// aiperfRecord maps one AIPerf MetricRecordInfo.
func aiperfRecord(o scan.Obj) (schemas.Span, error) {
	md := o.Child("metadata")
	var f scan.FirstErr
	sp := schemas.Span{Source: SourceAIPerf, Status: schemas.StatusOK}
	start, err := aiperfNanos(md.Get("request_start_ns"), "metadata.request_start_ns")
	f.Keep(err)
	end, err := aiperfNanos(md.Get("request_end_ns"), "metadata.request_end_ns")
	f.Keep(err)
	cancelAt, err := aiperfNanos(md.Get("cancellation_time_ns"), "metadata.cancellation_time_ns")
	f.Keep(err)
	ttft, err := aiperfMetric(o, "time_to_first_token")
	f.Keep(err)
	lat, err := aiperfMetric(o, "request_latency")
	f.Keep(err)
	in, err := aiperfTokens(o, "input_sequence_length", "error_isl")
	f.Keep(err)
	outTok, err := aiperfTokens(o, "output_sequence_length", "output_token_count")
	f.Keep(err)
	id := f.Str(md.Get("x_request_id"), "metadata.x_request_id")
	if f.Err != nil {
		return sp, f.Err
	}
	if start == nil {
		return sp, scan.Errorf(ErrMissingField, -1, "metadata.request_start_ns: missing")
	}
	if id == nil {
		s := fmt.Sprintf("session-%v/turn-%v", md.Get("session_num"), md.Get("turn_index"))
		id = &s
	}
	sp.SpanID, sp.RequestID = *id, *id
	sp.QueuedAt = start
	sp.InputTokens = in
	if e := o.Child("error"); e != nil {
		sp.Status = schemas.StatusError
		if c, ok := e.Get("code").(json.Number); ok {
			if n, err := c.Int64(); err == nil && n >= 100 && n <= 599 {
				h := int32(n)
				sp.HTTPStatus = &h
			}
		}
		typ, _ := e.Get("type").(string)
		msg, _ := e.Get("message").(string)
		text := strings.TrimSpace(strings.TrimPrefix(typ+": "+msg, ": "))
		text = strings.TrimSuffix(text, ":")
		if text != "" {
			text = cutUTF8(text, 120)
			sp.Error = &text
		}
	}
	if md.Get("was_cancelled") == true {
		sp.Status = schemas.StatusCancelled
	}
	switch {
	case lat != nil:
		sp.ReleasedAt = scan.AddMicros(start, lat)
	case sp.Status == schemas.StatusCancelled && cancelAt != nil:
		sp.ReleasedAt = cancelAt
	default:
		sp.ReleasedAt = end
	}
	if sp.ReleasedAt != nil && *sp.ReleasedAt < *start {
		return sp, scan.Errorf(ErrBadValue, -1, "metadata.request_end_ns: before request_start_ns")
	}
	if ttft != nil {
		sp.FirstTokenAt = scan.AddMicros(start, ttft)
		if sp.ReleasedAt != nil && *sp.FirstTokenAt > *sp.ReleasedAt {
			return sp, scan.Errorf(ErrBadValue, -1, "metrics.time_to_first_token: longer than request_latency")
		}
		sp.LastTokenAt = sp.ReleasedAt
	}
	if sp.Status == schemas.StatusOK || outTok != nil && *outTok > 0 {
		sp.OutputTokens = outTok
	}
	return sp, nil
}

// genaiPerfExport maps a GenAI-Perf profile export: one span per request.
// textOnly counts, by service kind, the requests without token counts.
func genaiPerfExport(o scan.Obj, out []Record, textOnly map[string]int64) []Record {
	exps, ok := o.Get("experiments").([]any)
	if !ok {
		return decodeReject(out, scan.Errorf(ErrBadType, -1, "experiments: want an array, found %s", scan.KindName(o.Get("experiments"))))
	}
	kind, _ := o.Get("service_kind").(string)
	n := 0
	for k, e := range exps {
		eo, _ := e.(map[string]any)
		reqs, ok := scan.Obj(eo).Get("requests").([]any)
		if !ok {
			out = decodeReject(out, scan.Errorf(ErrBadType, -1, "experiments[%d].requests: want an array, found %s", k, scan.KindName(scan.Obj(eo).Get("requests"))))
			n++
			continue
		}
		for i, q := range reqs {
			sp, err := genaiPerfRequest(k, i, q, kind)
			if err != nil {
				out = decodeReject(out, err)
			} else {
				if sp.OutputTokens == nil && sp.Status == schemas.StatusOK {
					textOnly[kind]++
				}
				out = append(out, Record{Kind: KindSpan, Span: sp})
			}
			n++
		}
	}
	if n == 0 {
		return decodeReject(out, scan.Errorf(ErrMissingField, -1, "GenAI-Perf profile export without requests"))
	}
	return out
}

// genaiPerfRequest maps request i of experiment k of a GenAI-Perf export of
// service kind kind.
func genaiPerfRequest(k, i int, v any, kind string) (schemas.Span, error) {
	id := fmt.Sprintf("e%d/%d", k, i)
	sp := schemas.Span{Source: SourceAIPerf, SpanID: id, RequestID: id, Status: schemas.StatusOK}
	m, ok := v.(map[string]any)
	if !ok {
		return sp, scan.Errorf(ErrBadType, -1, "experiments[%d].requests[%d]: want an object, found %s", k, i, scan.KindName(v))
	}
	q := scan.Obj(m)
	field := fmt.Sprintf("experiments[%d].requests[%d]", k, i)
	start, err := aiperfNanos(q.Get("timestamp"), field+".timestamp")
	if err != nil {
		return sp, err
	}
	if start == nil {
		return sp, scan.Errorf(ErrMissingField, -1, "%s.timestamp: missing", field)
	}
	sp.QueuedAt = start
	ts, _ := q.Get("response_timestamps").([]any)
	outs, _ := q.Get("response_outputs").([]any)
	var first, last *int64
	for j, t := range ts {
		at, err := aiperfNanos(t, fmt.Sprintf("%s.response_timestamps[%d]", field, j))
		if err != nil {
			return sp, err
		}
		if at == nil || len(outs) == len(ts) && !genaiPerfHasContent(outs[j]) {
			continue
		}
		if *at < *start {
			return sp, scan.Errorf(ErrBadValue, -1, "%s.response_timestamps[%d]: before the request's timestamp", field, j)
		}
		if first == nil {
			first = at
		}
		last = at
	}
	if first == nil {
		sp.Status = schemas.StatusError
		e := "no response with content"
		sp.Error = &e
		return sp, nil
	}
	sp.FirstTokenAt, sp.LastTokenAt, sp.ReleasedAt = first, last, last
	if kind == "triton_c_api" || kind == "" && genaiPerfHasIDs(outs) {
		sp.OutputTokens = genaiPerfOutputIDs(outs)
		if ids, ok := q.Child("request_inputs").Get("input_ids").([]any); ok {
			n := int64(len(ids))
			sp.InputTokens = &n
		}
	}
	return sp, nil
}

// genaiPerfHasIDs reports whether every response output carries output_ids
// (an export without service_kind written for TensorRT-LLM in process).
func genaiPerfHasIDs(outs []any) bool {
	for _, v := range outs {
		m, _ := v.(map[string]any)
		if _, ok := m["output_ids"]; !ok {
			return false
		}
	}
	return len(outs) > 0
}

// genaiPerfOutputIDs counts a request's output tokens as GenAI-Perf does
// for service kind triton_c_api (llm_profile_data_parser.py
// _get_output_token_counts): over every response, the length of an
// output_ids array, 1 for a single id, and 1 for a response without ids
// (GenAI-Perf's EMPTY_RESPONSE_TOKEN placeholder of an empty first or last
// response).
func genaiPerfOutputIDs(outs []any) *int64 {
	var n int64
	for _, v := range outs {
		m, _ := v.(map[string]any)
		if ids, ok := m["output_ids"].([]any); ok {
			n += int64(len(ids))
		} else {
			n++
		}
	}
	return &n
}

// genaiPerfHasContent reports whether a response output carries generated
// content, as GenAI-Perf's parser decides before measuring: Triton's
// text_output non-empty; an OpenAI response (SSE "data: " chunk or whole
// body) whose first choice has text, delta.content or message.content.
// What cannot be read is counted as content.
func genaiPerfHasContent(v any) bool {
	m, _ := v.(map[string]any)
	o := scan.Obj(m)
	if t, ok := o.Get("text_output").(string); ok {
		return t != ""
	}
	r, ok := o.Get("response").(string)
	if !ok {
		return true
	}
	r = strings.TrimSpace(r)
	r = strings.TrimSpace(strings.TrimPrefix(r, "data:"))
	if r == "[DONE]" || r == "" {
		return false
	}
	var body struct {
		Choices []struct {
			Text    *string         `json:"text"`
			Delta   *genaiPerfChunk `json:"delta"`
			Message *genaiPerfChunk `json:"message"`
		} `json:"choices"`
	}
	if json.NewDecoder(bytes.NewReader([]byte(r))).Decode(&body) != nil {
		return true
	}
	if len(body.Choices) == 0 {
		return false // a usage-only chunk
	}
	c := body.Choices[0]
	for _, s := range []*string{c.Text, c.Delta.content(), c.Message.content()} {
		if s != nil && *s != "" {
			return true
		}
	}
	return false
}

// genaiPerfChunk is an OpenAI choice's delta or message.
type genaiPerfChunk struct {
	Content *string `json:"content"`
}

func (c *genaiPerfChunk) content() *string {
	if c == nil {
		return nil
	}
	return c.Content
}

// sniffAIPerf scores AIPerf's and GenAI-Perf's files: 95 for an AIPerf
// record line or a GenAI-Perf profile export, 90 for their summaries (read
// only to be refused with the name of the per-request file).
func sniffAIPerf(head []byte) int {
	s := string(head)
	t := strings.TrimSpace(s)
	if !strings.HasPrefix(t, "{") {
		return 0
	}
	if keys := scan.TopLevelKeys(scan.FirstLine(head)); keys["metadata"] && keys["metrics"] && strings.Contains(s, `"request_start_ns"`) {
		return 95
	}
	if strings.Contains(s, `"experiments"`) && strings.Contains(s, `"response_timestamps"`) {
		return 95
	}
	if strings.Contains(s, `"input_config"`) && (strings.Contains(s, `"time_to_first_token"`) || strings.Contains(s, `"request_latency"`)) &&
		strings.Contains(s, `"unit"`) && strings.Contains(s, `"avg"`) {
		return 90
	}
	return 0
}
