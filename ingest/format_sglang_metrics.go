package ingest

import (
	"bytes"

	"github.com/tpsreport/tpsreport/ingest/internal/scan"
)

// The sglang-metrics format is SGLang's request metrics export
// (--export-metrics-to-file, files sglang-request-metrics-YYYYMMDD_HH.log in
// --export-metrics-to-file-dir): one JSON object per finished request,
// written by FileRequestMetricsExporter
// (python/sglang/srt/managers/request_metrics_exporter.py) as
// {"request_parameters": "<the request as a JSON string>", **meta_info}.
// request_parameters holds the prompt and is never read; meta_info becomes
// one span (sglangMeta). Health checks are not exported.
//
// Without --enable-metrics meta_info carries no wall-clock time: such a
// record is rejected with a hint, since a span needs its instants.

// SourceSGLangMetrics is the source column of spans read from SGLang's
// request metrics export.
const SourceSGLangMetrics = "sglang-metrics"

type sglangMetricsReader struct {
	*jsonRecordReader
	lit scan.Decoder
	sc  scan.JSON
	f   sglangFields
	buf []byte // copies of escaped strings of the line being read
}

var _ Reader = (*sglangMetricsReader)(nil)

func newSGLangMetricsReader(in Input) Reader {
	r := &sglangMetricsReader{}
	r.jsonRecordReader = newJSONRecordReader(in, r.decode)
	r.only = sglangMetricsKeys
	r.lineDecoders = func() lineDecoder { return (&sglangMetricsReader{}).scanLine }
	return r
}

// sglangMetricsKeys are the top-level keys read; request_parameters, the
// logprobs and the hidden states are dropped unread.
var sglangMetricsKeys = map[string]bool{
	"id": true, "finish_reason": true, "prompt_tokens": true, "completion_tokens": true, "cached_tokens": true,
	"e2e_latency": true, "queue_time": true, "request_received_ts": true, "request_sent_to_scheduler_ts": true,
	"prefill_finished_ts": true, "decode_finished_ts": true, "response_sent_to_client_ts": true,
}

// decode reads a parsed record: pretty-printed documents, and the lines
// scanLine leaves to it.
func (r *sglangMetricsReader) decode(v any, _ []byte, out []Record) []Record {
	m, ok := v.(map[string]any)
	if !ok {
		return decodeReject(out, scan.Errorf(ErrBadType, -1, "want a JSON object, found %s", scan.KindName(v)))
	}
	sglangFieldsOf(scan.Obj(m), &r.f)
	sp, err := sglangMeta(&r.f, &r.lit, SourceSGLangMetrics, nil, 0)
	if err != nil {
		return decodeReject(out, err)
	}
	return append(out, Record{Kind: KindSpan, Span: sp})
}

// scanLine decodes an NDJSON record in one pass of the JSON scanner, reading
// only sglangFields, without building the value: request_parameters, most
// of a record's bytes, is skipped as it is scanned. It reports false, having
// appended nothing, for a line it leaves to decode: one that is not an
// object or not valid JSON (whose reject the parser words).
func (r *sglangMetricsReader) scanLine(line []byte, out []Record) ([]Record, bool) {
	s := &r.sc
	s.Reset(line)
	r.buf = r.buf[:0]
	r.f = sglangFields{}
	if s.Class() != scan.Object || r.scanMeta() != nil || s.Finish() != nil {
		return out, false
	}
	sp, err := sglangMeta(&r.f, &r.lit, SourceSGLangMetrics, nil, 0)
	if err != nil {
		return decodeReject(out, err), true
	}
	return append(out, Record{Kind: KindSpan, Span: sp}), true
}

// scanMeta reads the record's object into r.f. A key given twice keeps its
// last value, as the parsed path's map does.
func (r *sglangMetricsReader) scanMeta() error {
	s, f := &r.sc, &r.f
	if err := s.BeginObject(); err != nil {
		return err
	}
	for first := true; ; first = false {
		key, ok, err := s.NextKey(first)
		if err != nil || !ok {
			return err
		}
		var dst *scan.Value
		switch string(key) {
		case "id":
			dst = &f.id
		case "prompt_tokens":
			dst = &f.prompt
		case "completion_tokens":
			dst = &f.completion
		case "cached_tokens":
			dst = &f.cached
		case "queue_time":
			dst = &f.queue
		case "e2e_latency":
			dst = &f.e2e
		case "request_received_ts":
			dst = &f.received
		case "request_sent_to_scheduler_ts":
			dst = &f.sentToScheduler
		case "prefill_finished_ts":
			dst = &f.prefillDone
		case "decode_finished_ts":
			dst = &f.decodeDone
		case "finish_reason":
			f.finishType, f.finishCode = scan.Value{}, scan.Value{}
			if s.Class() != scan.Object {
				dst = &f.finish
				break
			}
			f.finish = scan.Value{Class: scan.Object}
			if err := r.scanFinish(); err != nil {
				return err
			}
			continue
		}
		if dst != nil {
			err = scan.ScanValue(s, &r.buf, dst)
		} else {
			err = s.SkipValue()
		}
		if err != nil {
			return err
		}
	}
}

// scanFinish reads finish_reason's object: its type and status_code.
func (r *sglangMetricsReader) scanFinish() error {
	s, f := &r.sc, &r.f
	if err := s.BeginObject(); err != nil {
		return err
	}
	for first := true; ; first = false {
		key, ok, err := s.NextKey(first)
		if err != nil || !ok {
			return err
		}
		switch string(key) {
		case "type":
			err = scan.ScanValue(s, &r.buf, &f.finishType)
		case "status_code":
			err = scan.ScanValue(s, &r.buf, &f.finishCode)
		default:
			err = s.SkipValue()
		}
		if err != nil {
			return err
		}
	}
}

// sniffSGLangMetrics scores 95 when the first object has the exporter's
// request_parameters beside meta_info's id and e2e_latency or
// prompt_tokens.
func sniffSGLangMetrics(head []byte) int {
	keys := scan.FirstObjectKeys(head)
	if keys["request_parameters"] && keys["id"] && (keys["e2e_latency"] || keys["prompt_tokens"] || keys["finish_reason"]) {
		return 95
	}
	// A request longer than the sniffed head: the exporter writes
	// request_parameters first.
	if bytes.HasPrefix(scan.FirstLine(head), []byte(`{"request_parameters": "`)) {
		return 90
	}
	return 0
}
