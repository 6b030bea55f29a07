package ingest

import "bytes"

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

type sglangMetricsReader struct{ *jsonRecordReader }

var _ Reader = (*sglangMetricsReader)(nil)

func newSGLangMetricsReader(in Input) Reader {
	r := &sglangMetricsReader{newJSONRecordReader(in, decodeSGLangMetrics)}
	r.only = sglangMetricsKeys
	return r
}

// sglangMetricsKeys are the top-level keys read; request_parameters, the
// logprobs and the hidden states are dropped unread.
var sglangMetricsKeys = map[string]bool{
	"id": true, "finish_reason": true, "prompt_tokens": true, "completion_tokens": true, "cached_tokens": true,
	"e2e_latency": true, "queue_time": true, "request_received_ts": true, "request_sent_to_scheduler_ts": true,
	"prefill_finished_ts": true, "decode_finished_ts": true, "response_sent_to_client_ts": true,
}

func decodeSGLangMetrics(v any, _ []byte, out []Record) []Record {
	m, ok := v.(map[string]any)
	if !ok {
		return decodeReject(out, recordErrorf(ErrBadType, -1, "want a JSON object, found %s", jsonKind(v)))
	}
	sp, err := sglangMeta(m, SourceSGLangMetrics, nil, 0)
	if err != nil {
		return decodeReject(out, err)
	}
	return append(out, Record{Kind: KindSpan, Span: sp})
}

// sniffSGLangMetrics scores 95 when the first object has the exporter's
// request_parameters beside meta_info's id and e2e_latency or
// prompt_tokens.
func sniffSGLangMetrics(head []byte) int {
	keys := sniffFirstObject(head)
	if keys["request_parameters"] && keys["id"] && (keys["e2e_latency"] || keys["prompt_tokens"] || keys["finish_reason"]) {
		return 95
	}
	// A request longer than the sniffed head: the exporter writes
	// request_parameters first.
	if bytes.HasPrefix(firstLine(head), []byte(`{"request_parameters": "`)) {
		return 90
	}
	return 0
}
