package ingest

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strings"

	"github.com/tpsreport/tpsreport/ingest/internal/scan"
	"github.com/tpsreport/tpsreport/schemas"
)

// The inference-perf format reads per_request_lifecycle_metrics.json, the
// per-request report of kubernetes-sigs/inference-perf (reportgen/base.py;
// schemas/formats/loadtools.md has the mapping): one JSON array (indented
// by the local file storage, on one line by GCS and S3) of
//
//	{"start_time", "end_time", "request", "response", "info", "error"}
//
// start_time and end_time are the client's time.perf_counter() seconds
// around the HTTP exchange; "info" is InferenceInfo.model_dump(), whose
// shape changed twice:
//
//   - before 3b882ba: {input_tokens, output_tokens, output_token_times, ...};
//   - 3b882ba to f23cb85: {input_tokens, response_info: {output_tokens
//     [, output_token_times, chunk_times, response_chunks, server_usage]}};
//   - since f23cb85: {request_metrics: {text: {input_tokens}, image, video,
//     audio}, response_metrics: {output_tokens, server_usage
//     [, output_token_times, ...]}, input_tokens, ...}.
//
// perf_counter's origin is arbitrary, so the times are relative to the
// benchmark as vllm-bench's are (time_origin benchmark): the first request
// of the file starts at epoch 0. Per request, t0 = min(start_time):
//
//	queued_at      = start_time − t0
//	first_token_at = output_token_times[0] − t0      (more than one time)
//	last_token_at  = output_token_times[-1] − t0     (more than one time)
//	released_at    = end_time − t0
//
// so that our ttft, t_total and tpot (t_stream/(n − 1), n = output_tokens)
// are inference-perf's time_to_first_token, request_latency and
// time_per_output_token. Like inference-perf, a request with one token time
// or none (not streamed) has no TTFT. A request with a non-null error
// failed: status error, error = "error_type: error_msg" cut to 120 bytes.
// The request body and response text are never read or kept.
//
// The stage, summary and adapter reports (stage_N_lifecycle_metrics.json,
// summary_lifecycle_metrics.json, adapter_*_lifecycle_metrics.json) hold
// aggregates only; such a document is one reject naming the per-request
// file to read instead.

// SourceInferencePerf is the source column of spans read from inference-perf.
const SourceInferencePerf = "inference-perf"

type inferencePerfReader struct{ docReader }

var _ Reader = (*inferencePerfReader)(nil)

func newInferencePerfReader(in Input) Reader {
	r := &inferencePerfReader{}
	r.docReader = newDocReader(in, maxDocument, r.doc)
	return r
}

// inferencePerfEntry is one element of the per-request report, as far as
// this format reads it.
type inferencePerfEntry struct {
	StartTime *float64           `json:"start_time"`
	EndTime   *float64           `json:"end_time"`
	Info      *inferencePerfInfo `json:"info"`
	Error     *struct {
		ErrorType string `json:"error_type"`
		ErrorMsg  string `json:"error_msg"`
	} `json:"error"`
}

// inferencePerfInfo holds the keys of every shape of InferenceInfo.
type inferencePerfInfo struct {
	InputTokens      *int64                 `json:"input_tokens"`
	OutputTokens     *int64                 `json:"output_tokens"`      // before 3b882ba
	OutputTokenTimes []float64              `json:"output_token_times"` // before 3b882ba
	ResponseInfo     *inferencePerfResponse `json:"response_info"`      // 3b882ba to f23cb85
	ResponseMetrics  *inferencePerfResponse `json:"response_metrics"`   // since f23cb85
	RequestMetrics   *struct {
		Text *struct {
			InputTokens *int64 `json:"input_tokens"`
		} `json:"text"`
	} `json:"request_metrics"`
}

type inferencePerfResponse struct {
	OutputTokens     *int64    `json:"output_tokens"`
	OutputTokenTimes []float64 `json:"output_token_times"`
}

// tokens returns the input and output token counts and the output token
// times, from whichever shape info has.
func (in *inferencePerfInfo) tokens() (input, output *int64, times []float64) {
	if in == nil {
		return nil, nil, nil
	}
	input = in.InputTokens
	if rm := in.RequestMetrics; rm != nil && rm.Text != nil && rm.Text.InputTokens != nil {
		input = rm.Text.InputTokens
	}
	output, times = in.OutputTokens, in.OutputTokenTimes
	for _, resp := range []*inferencePerfResponse{in.ResponseInfo, in.ResponseMetrics} {
		if resp != nil {
			output, times = resp.OutputTokens, resp.OutputTokenTimes
		}
	}
	return input, output, times
}

// doc turns one report document into records.
func (r *inferencePerfReader) doc(data []byte, line int64, k int, recs []Record) []Record {
	reject := func(line int64, err error) []Record {
		return append(recs, Record{Kind: KindReject, Line: line, Err: parseErrorAt(r.name, line, err)})
	}
	t := bytes.TrimLeft(data, " \t\r\n")
	if len(t) > 0 && t[0] == '{' {
		var o map[string]json.RawMessage
		if json.Unmarshal(data, &o) == nil && (o["load_summary"] != nil || o["successes"] != nil && o["failures"] != nil) {
			return reject(line, scan.Errorf(ErrMissingField, -1,
				"aggregates only, no per-request records. Try per_request_lifecycle_metrics.json, the per-request report inference-perf writes beside it (report.request_lifecycle.per_request: true)"))
		}
		return reject(line, scan.Errorf(ErrBadType, -1, "want an array of per-request records (per_request_lifecycle_metrics.json), found an object"))
	}
	// Split the array into its elements, each with the line it starts on.
	dec := json.NewDecoder(bytes.NewReader(data))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('[') {
		return reject(line, scan.Errorf(ErrBadType, -1, "want an array of per-request records, found %s", scan.KindName(firstJSONValue(data))))
	}
	type elem struct {
		e    inferencePerfEntry
		line int64
		err  error
	}
	var elems []elem
	seen := 0 // data[:seen] holds line − 1 more newlines than the document's first line
	for dec.More() {
		off := int(dec.InputOffset())
		for off < len(data) && (isJSONSpace(data[off]) || data[off] == ',') {
			off++
		}
		line += int64(bytes.Count(data[seen:off], []byte("\n")))
		seen = off
		el := elem{line: line}
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return reject(el.line, scan.Errorf(ErrBadJSON, -1, "%v", err))
		}
		if err := json.Unmarshal(raw, &el.e); err != nil {
			var te *json.UnmarshalTypeError
			if errors.As(err, &te) && te.Field != "" {
				el.err = scan.Errorf(ErrBadType, -1, "%s: want %s, found %s", te.Field, te.Type, te.Value)
			} else {
				el.err = scan.Errorf(ErrBadType, -1, "want an object, found %s", scan.KindName(firstJSONValue(raw)))
			}
		}
		elems = append(elems, el)
	}
	t0 := math.Inf(1)
	for _, el := range elems {
		if el.err == nil && el.e.StartTime != nil && !math.IsNaN(*el.e.StartTime) {
			t0 = math.Min(t0, *el.e.StartTime)
		}
	}
	if len(elems) == 0 {
		return reject(line, scan.Errorf(ErrMissingField, -1, "per-request report without requests"))
	}
	for i, el := range elems {
		if el.err != nil {
			recs = reject(el.line, el.err)
			continue
		}
		id := fmt.Sprintf("request-%d", i)
		if k > 0 {
			id = fmt.Sprintf("report-%d/request-%d", k+1, i)
		}
		sp, err := inferencePerfSpan(el.e, t0, id)
		if err != nil {
			recs = reject(el.line, err)
			continue
		}
		recs = append(recs, Record{Kind: KindSpan, Line: el.line, Span: sp})
	}
	return recs
}

// firstJSONValue decodes the first JSON value of b, or nil.
func firstJSONValue(b []byte) any {
	var v any
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	_ = dec.Decode(&v)
	return v
}

// inferencePerfSpan maps one request, its perf_counter times rebased on t0.
func inferencePerfSpan(e inferencePerfEntry, t0 float64, id string) (schemas.Span, error) {
	sp := schemas.Span{Source: SourceInferencePerf, SpanID: id, RequestID: id, Status: schemas.StatusOK, TimeOrigin: &benchOrigin}
	at := func(v float64, field string) (*int64, error) {
		ns, ok := vllmSecondsToNanos(v - t0)
		if !ok {
			return nil, scan.Errorf(ErrBadValue, -1, "%s: %v is not a perf_counter time of this run", field, v)
		}
		us := vllmNsToMicros(ns)
		return &us, nil
	}
	switch {
	case e.StartTime == nil:
		return sp, scan.Errorf(ErrMissingField, -1, "start_time: missing")
	case e.EndTime == nil:
		return sp, scan.Errorf(ErrMissingField, -1, "end_time: missing")
	case *e.EndTime < *e.StartTime:
		return sp, scan.Errorf(ErrBadValue, -1, "end_time: before start_time")
	}
	var err error
	if sp.QueuedAt, err = at(*e.StartTime, "start_time"); err != nil {
		return sp, err
	}
	if sp.ReleasedAt, err = at(*e.EndTime, "end_time"); err != nil {
		return sp, err
	}
	in, out, times := e.Info.tokens()
	for _, n := range []struct {
		v    *int64
		name string
	}{{in, "info input_tokens"}, {out, "info output_tokens"}} {
		if n.v != nil && *n.v < 0 {
			return sp, scan.Errorf(ErrBadValue, -1, "%s: %d is negative", n.name, *n.v)
		}
	}
	sp.InputTokens = in
	if e.Error != nil {
		sp.Status = schemas.StatusError
		text := strings.TrimSpace(strings.TrimPrefix(e.Error.ErrorType+": "+e.Error.ErrorMsg, ": "))
		text = strings.TrimSuffix(text, ":")
		if text != "" {
			text = cutUTF8(text, 120)
			sp.Error = &text
		}
		return sp, nil
	}
	sp.OutputTokens = out
	if len(times) > 1 {
		first, last := times[0], times[len(times)-1]
		switch {
		case first < *e.StartTime:
			return sp, scan.Errorf(ErrBadValue, -1, "output_token_times[0]: before start_time")
		case last > *e.EndTime:
			return sp, scan.Errorf(ErrBadValue, -1, "output_token_times: the last after end_time")
		case last < first:
			return sp, scan.Errorf(ErrBadValue, -1, "output_token_times: the last before the first")
		}
		if sp.FirstTokenAt, err = at(first, "output_token_times[0]"); err != nil {
			return sp, err
		}
		if sp.LastTokenAt, err = at(last, "output_token_times"); err != nil {
			return sp, err
		}
	}
	return sp, nil
}

// sniffInferencePerf scores inference-perf's reports: 95 for an array
// whose first element has start_time, end_time and request or info (the
// per-request report), 90 for a lifecycle summary (load_summary, or
// successes and failures; read only to be refused with the name of the
// per-request file).
func sniffInferencePerf(head []byte) int {
	t := bytes.TrimLeft(head, " \t\r\n")
	if len(t) == 0 {
		return 0
	}
	keys := scan.FirstObjectKeys(t)
	switch t[0] {
	case '[':
		if keys["start_time"] && keys["end_time"] && (keys["request"] || keys["info"]) {
			return 95
		}
	case '{':
		if keys["load_summary"] || keys["successes"] && keys["failures"] {
			return 90
		}
	}
	return 0
}
