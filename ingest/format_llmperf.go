package ingest

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/tpsreport/tpsreport/ingest/internal/scan"
	"github.com/tpsreport/tpsreport/schemas"
)

// The llmperf format reads ray-project/llmperf's per-request results,
// *_individual_responses.json (token_benchmark_ray.py; mapping in
// schemas/formats/loadtools.md): one JSON array, indented by 4, of the
// metrics each client returns (llmperf/common_metrics.py):
//
//	{"error_code", "error_msg", "inter_token_latency_s", "ttft_s",
//	 "end_to_end_latency_s", "request_output_throughput_token_per_s",
//	 "number_total_tokens", "number_output_tokens", "number_input_tokens"}
//
// The times are time.monotonic() differences from the request's own start:
// no record holds an instant, so the spans carry durations only
// (time_origin request): each starts at epoch 0, and
//
//	queued_at      = 0
//	first_token_at = ttft_s                   (when ttft_s > 0)
//	last_token_at  = released_at = end_to_end_latency_s
//
// so that our ttft is llmperf's ttft_s and t_total its end_to_end_latency_s.
// llmperf does not record when the last token came apart from the end of
// the stream, so tpot is (e2e − ttft)/(number_output_tokens − 1); llmperf's
// inter_token_latency_s is another measure (the last content chunk's time
// since the start, TTFT included, over the chunks received) and is not read.
// A record with a non-null error_code failed: status error, http_status the
// code when it is an HTTP status (llmperf writes -1 for an exception),
// error = error_msg cut to 120 bytes. The prompt and generated text are not
// in the file.
//
// The summary beside it (*_summary.json: flattened results_* aggregates)
// holds no request: such a document is one reject naming the per-request
// file to read instead.

// SourceLLMPerf is the source column of spans read from llmperf.
const SourceLLMPerf = "llmperf"

type llmperfReader struct{ docReader }

var _ Reader = (*llmperfReader)(nil)

func newLLMPerfReader(in Input) Reader {
	r := &llmperfReader{}
	r.docReader = newDocReader(in, maxDocument, r.doc)
	return r
}

// llmperfRecord is one element of *_individual_responses.json.
type llmperfRecord struct {
	ErrorCode    json.RawMessage `json:"error_code"`
	ErrorMsg     *string         `json:"error_msg"`
	TTFT         *float64        `json:"ttft_s"`
	E2E          *float64        `json:"end_to_end_latency_s"`
	InputTokens  *int64          `json:"number_input_tokens"`
	OutputTokens *int64          `json:"number_output_tokens"`
}

// requestOrigin is the time_origin of spans that carry durations only.
var requestOrigin = schemas.TimeOriginRequest

// doc turns one results document into records.
func (r *llmperfReader) doc(data []byte, line int64, k int, recs []Record) []Record {
	reject := func(line int64, err error) []Record {
		return append(recs, Record{Kind: KindReject, Line: line, Err: parseErrorAt(r.name, line, err)})
	}
	t := bytes.TrimLeft(data, " \t\r\n")
	if len(t) > 0 && t[0] == '{' {
		var o map[string]json.RawMessage
		if json.Unmarshal(data, &o) == nil && llmperfIsSummary(o) {
			name := "MODEL_IN_OUT_individual_responses.json"
			var n string
			if json.Unmarshal(o["name"], &n) == nil && strings.HasSuffix(n, "_summary") {
				name = strings.TrimSuffix(n, "_summary") + "_individual_responses.json"
			}
			return reject(line, scan.Errorf(ErrMissingField, -1,
				"aggregates only, no per-request records. Try %s, the per-request file llmperf writes beside it", name))
		}
		return reject(line, scan.Errorf(ErrBadType, -1, "want an array of per-request records (*_individual_responses.json), found an object"))
	}
	elems, err := jsonArrayElems(data, line)
	if err != nil {
		return reject(line, err)
	}
	if len(elems) == 0 {
		return reject(line, scan.Errorf(ErrMissingField, -1, "per-request results without requests"))
	}
	for i, el := range elems {
		var rec llmperfRecord
		if err := json.Unmarshal(el.raw, &rec); err != nil {
			var te *json.UnmarshalTypeError
			if errors.As(err, &te) && te.Field != "" {
				recs = reject(el.line, scan.Errorf(ErrBadType, -1, "%s: want %s, found %s", te.Field, te.Type, te.Value))
			} else {
				recs = reject(el.line, scan.Errorf(ErrBadType, -1, "want an object, found %s", scan.KindName(firstJSONValue(el.raw))))
			}
			continue
		}
		id := fmt.Sprintf("request-%d", i)
		if k > 0 {
			id = fmt.Sprintf("results-%d/request-%d", k+1, i)
		}
		sp, err := llmperfSpan(rec, id)
		if err != nil {
			recs = reject(el.line, err)
			continue
		}
		recs = append(recs, Record{Kind: KindSpan, Line: el.line, Span: sp})
	}
	return recs
}

// llmperfIsSummary reports whether o is an llmperf summary: flattened
// results_* aggregates.
func llmperfIsSummary(o map[string]json.RawMessage) bool {
	for key := range o {
		if strings.HasPrefix(key, "results_ttft_s_") || strings.HasPrefix(key, "results_end_to_end_latency_s_") {
			return true
		}
	}
	return false
}

// llmperfSpan maps one record.
func llmperfSpan(rec llmperfRecord, id string) (schemas.Span, error) {
	zero := int64(0)
	sp := schemas.Span{Source: SourceLLMPerf, SpanID: id, RequestID: id, Status: schemas.StatusOK,
		TimeOrigin: &requestOrigin, QueuedAt: &zero}
	for _, n := range []struct {
		v    *int64
		name string
	}{{rec.InputTokens, "number_input_tokens"}, {rec.OutputTokens, "number_output_tokens"}} {
		if n.v != nil && *n.v < 0 {
			return sp, scan.Errorf(ErrBadValue, -1, "%s: %d is negative", n.name, *n.v)
		}
	}
	sp.InputTokens = rec.InputTokens
	dur := func(v *float64, field string) (*int64, error) {
		if v == nil {
			return nil, scan.Errorf(ErrMissingField, -1, "%s: missing", field)
		}
		ns, ok := vllmSecondsToNanos(*v)
		if !ok || ns < 0 {
			return nil, scan.Errorf(ErrBadValue, -1, "%s: %v is not a duration", field, *v)
		}
		us := vllmNsToMicros(ns)
		return &us, nil
	}
	code := bytes.TrimSpace(rec.ErrorCode)
	if len(code) > 0 && !bytes.Equal(code, []byte("null")) {
		sp.Status = schemas.StatusError
		var n float64
		if json.Unmarshal(code, &n) == nil && n == float64(int32(n)) && n >= 100 && n <= 599 {
			sp.HTTPStatus = schemas.Ptr(int32(n))
		}
		text := ""
		if rec.ErrorMsg != nil {
			text = strings.TrimSpace(*rec.ErrorMsg)
		}
		if text == "" {
			var s string
			if json.Unmarshal(code, &s) == nil {
				text = s
			} else {
				text = "error_code " + string(code)
			}
		}
		text = cutUTF8(text, 120)
		sp.Error = &text
		// llmperf times a failed request as 0 s unless it measured it.
		if rec.E2E != nil {
			e, err := dur(rec.E2E, "end_to_end_latency_s")
			if err != nil {
				return sp, err
			}
			sp.ReleasedAt = e
		}
		return sp, nil
	}
	e2e, err := dur(rec.E2E, "end_to_end_latency_s")
	if err != nil {
		return sp, err
	}
	ttft, err := dur(rec.TTFT, "ttft_s")
	if err != nil {
		return sp, err
	}
	if *ttft > *e2e {
		return sp, scan.Errorf(ErrBadValue, -1, "ttft_s: %v is after end_to_end_latency_s %v", *rec.TTFT, *rec.E2E)
	}
	sp.OutputTokens = rec.OutputTokens
	sp.ReleasedAt, sp.LastTokenAt = e2e, e2e
	if *ttft > 0 { // llmperf leaves ttft_s 0 when no content came
		sp.FirstTokenAt = ttft
	} else {
		sp.LastTokenAt = nil
	}
	return sp, nil
}

// jsonElem is one element of a JSON array and the line it starts on.
type jsonElem struct {
	raw  json.RawMessage
	line int64
}

// jsonArrayElems splits data, a JSON array that starts on line, into its
// elements.
func jsonArrayElems(data []byte, line int64) ([]jsonElem, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('[') {
		return nil, scan.Errorf(ErrBadType, -1, "want an array of per-request records, found %s", scan.KindName(firstJSONValue(data)))
	}
	var out []jsonElem
	seen := 0
	for dec.More() {
		off := int(dec.InputOffset())
		for off < len(data) && (isJSONSpace(data[off]) || data[off] == ',') {
			off++
		}
		line += int64(bytes.Count(data[seen:off], []byte("\n")))
		seen = off
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return nil, scan.Errorf(ErrBadJSON, -1, "%v", err)
		}
		out = append(out, jsonElem{raw: raw, line: line})
	}
	return out, nil
}

// sniffLLMPerf scores llmperf's results: 95 for an array whose first element
// has ttft_s and end_to_end_latency_s (or number_input_tokens and
// error_code), 90 for a summary (results_ttft_s_* keys; read only to be
// refused with the name of the per-request file).
func sniffLLMPerf(head []byte) int {
	t := bytes.TrimLeft(head, " \t\r\n")
	if len(t) == 0 {
		return 0
	}
	keys := scan.FirstObjectKeys(t)
	switch t[0] {
	case '[':
		if keys["ttft_s"] && keys["end_to_end_latency_s"] || keys["number_input_tokens"] && keys["error_code"] {
			return 95
		}
	case '{':
		for k := range keys {
			if strings.HasPrefix(k, "results_ttft_s_") || strings.HasPrefix(k, "results_end_to_end_latency_s_") {
				return 90
			}
		}
	}
	return 0
}
