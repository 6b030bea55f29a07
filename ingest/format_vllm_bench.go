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

// The vllm-bench format is the result file of `vllm bench serve` (formerly
// benchmarks/benchmark_serving.py): one JSON object (--save-result) or one
// per line (--append-result). schemas/formats/vllm.md has the mapping.
//
// With --save-detailed the file holds per-request arrays (input_lens,
// output_lens, ttfts, itls, latencies, start_times, errors); each request
// becomes one span. start_times are the client's time.perf_counter(), whose
// origin is arbitrary, so the spans' times are relative to the benchmark:
// the first request starts at 1970-01-01T00:00:00Z (epoch 0) and the times
// mean "seconds since the benchmark's first request" (source vllm-bench
// says so). Per request i:
//
//	queued_at      = start_times[i] − min(start_times)
//	first_token_at = queued_at + ttfts[i]
//	last_token_at  = released_at = queued_at + latencies[i]
//
// so that our ttft is vLLM's TTFT, t_total its E2EL, and our tpot
// (t_stream / (output_tokens − 1)) its TPOT, (latency − ttft) /
// (output_len − 1). A request with a non-empty errors[i] failed: status
// error, no token times, error = the last line of errors[i] (the
// exception), cut to 120 bytes. Files without start_times (older vLLM, or no
// --save-detailed) have no per-request placement and give no spans: the
// document is one skipped record. Without latencies the latency is
// ttfts[i] + Σ itls[i] (the last token's arrival). generated_texts is
// never read. Each request is one record; a document without spans is one.

// SourceVLLMBench is the source column of spans read from vllm bench results.
const SourceVLLMBench = "vllm-bench"

type vllmBenchReader struct{ docReader }

var _ Reader = (*vllmBenchReader)(nil)

func newVLLMBenchReader(in Input) Reader {
	r := &vllmBenchReader{}
	r.docReader = newDocReader(in, maxDocument, r.doc)
	return r
}

// vllmBenchDoc holds the keys of a result this format reads. Summary keys
// (mean_ttft_ms, output_throughput, request_goodput:, request_inthroughput,
// ...) are not needed to build spans; the tests compare them with the spans.
type vllmBenchDoc struct {
	Date       string      `json:"date"`
	Label      *string     `json:"label"`
	ModelID    string      `json:"model_id"`
	InputLens  []int64     `json:"input_lens"`
	OutputLens []int64     `json:"output_lens"`
	TTFTs      []float64   `json:"ttfts"`
	ITLs       [][]float64 `json:"itls"`
	Latencies  []float64   `json:"latencies"`
	StartTimes []float64   `json:"start_times"`
	Errors     []*string   `json:"errors"`
}

// doc turns one result document into records.
func (r *vllmBenchReader) doc(raw []byte, line int64, k int, recs []Record) []Record {
	reject := func(err error) []Record {
		return append(recs, Record{Kind: KindReject, Line: line, Raw: vllmBenchRedact(raw), Err: parseErrorAt(r.name, line, err)})
	}
	var d vllmBenchDoc
	if err := decodeBenchResult(raw, &d); err != nil {
		return reject(err)
	}
	n := len(d.TTFTs)
	if n == 0 || len(d.StartTimes) == 0 {
		return append(recs, Record{Kind: KindSkip, Skip: SkipSummaryOnly, Line: line})
	}
	for _, l := range []struct {
		key string
		n   int
	}{{"start_times", len(d.StartTimes)}, {"input_lens", len(d.InputLens)}, {"output_lens", len(d.OutputLens)},
		{"latencies", len(d.Latencies)}, {"itls", len(d.ITLs)}, {"errors", len(d.Errors)}} {
		if l.n != n && (l.n != 0 || l.key == "start_times") {
			return reject(scan.Errorf(ErrBadValue, -1, "benchmark result: %s has %d entries, ttfts %d", l.key, l.n, n))
		}
	}
	if len(d.Latencies) == 0 && len(d.ITLs) == 0 {
		return reject(scan.Errorf(ErrMissingField, -1, "benchmark result: per-request data without latencies or itls"))
	}
	t0 := math.Inf(1)
	for _, s := range d.StartTimes {
		t0 = math.Min(t0, s)
	}
	prefix := d.Date
	if d.Label != nil && *d.Label != "" {
		prefix = *d.Label + "/" + prefix
	}
	if prefix == "" {
		prefix = fmt.Sprintf("result-%d", k+1)
	}
	var model *string
	if d.ModelID != "" {
		model = &d.ModelID
	}
	for i := range n {
		id := fmt.Sprintf("%s#%d", prefix, i)
		sp := schemas.Span{Source: SourceVLLMBench, SpanID: id, RequestID: id, Model: model, Status: schemas.StatusOK,
			TimeOrigin: &benchOrigin}
		bad := func(what string, v float64) []Record {
			return append(recs, Record{Kind: KindReject, Line: line, Err: parseErrorAt(r.name, line,
				scan.Errorf(ErrBadValue, -1, "benchmark result: request %d: %s %v is not a duration", i, what, v))})
		}
		q, ok := vllmSecondsToNanos(d.StartTimes[i] - t0)
		if !ok {
			recs = bad("start_times", d.StartTimes[i])
			continue
		}
		queued := vllmNsToMicros(q)
		sp.QueuedAt = &queued
		if len(d.InputLens) > 0 && d.InputLens[i] >= 0 {
			sp.InputTokens = &d.InputLens[i]
		}
		failed := len(d.Errors) > 0 && d.Errors[i] != nil && *d.Errors[i] != ""
		if failed {
			sp.Status = schemas.StatusError
			e := strings.TrimSpace(*d.Errors[i])
			if j := strings.LastIndexByte(e, '\n'); j >= 0 {
				e = strings.TrimSpace(e[j+1:]) // a traceback's last line names the exception
			}
			e = cutUTF8(e, 120)
			sp.Error = &e
			recs = append(recs, Record{Kind: KindSpan, Line: line, Span: sp})
			continue
		}
		if len(d.OutputLens) > 0 && d.OutputLens[i] >= 0 {
			sp.OutputTokens = &d.OutputLens[i]
		}
		lat := 0.0
		if len(d.Latencies) > 0 {
			lat = d.Latencies[i]
		} else {
			lat = d.TTFTs[i]
			for _, v := range d.ITLs[i] {
				lat += v
			}
		}
		ttft, ok1 := vllmSecondsToNanos(d.TTFTs[i])
		e2e, ok2 := vllmSecondsToNanos(lat)
		switch {
		case !ok1 || ttft < 0:
			recs = bad("ttft", d.TTFTs[i])
			continue
		case !ok2 || e2e < ttft:
			recs = bad("latency", lat)
			continue
		}
		first := queued + vllmNsToMicros(ttft)
		released := queued + vllmNsToMicros(e2e)
		sp.FirstTokenAt, sp.LastTokenAt, sp.ReleasedAt = &first, &released, &released
		recs = append(recs, Record{Kind: KindSpan, Line: line, Span: sp})
	}
	return recs
}

// vllmBenchRedact keeps a rejected result's raw bytes without its
// generated_texts (completion text).
func vllmBenchRedact(raw []byte) []byte {
	if i := bytes.Index(raw, []byte(`"generated_texts"`)); i >= 0 {
		return append(raw[:i:i], `"generated_texts": "[removed]"`...)
	}
	return raw[:min(len(raw), scan.TooLongKeep)]
}

// sniffVLLMBench scores vLLM benchmark results: 95 for a JSON object with
// vLLM's result keys, 0 for SGLang's (sglang-bench), which share most.
func sniffVLLMBench(head []byte) int {
	s := string(head)
	t := strings.TrimSpace(s)
	if !strings.HasPrefix(t, "{") || strings.Contains(s, `"total_output_tokens_retokenized"`) || strings.Contains(s, `"mean_e2e_latency_ms"`) {
		return 0 // sglang.bench_serving's results (sglang-bench)
	}
	n := 0
	for _, k := range []string{`"mean_ttft_ms"`, `"median_ttft_ms"`, `"output_throughput"`, `"ttfts"`,
		`"request_throughput"`, `"request_inthroughput"`, `"total_output_tokens"`, `"mean_tpot_ms"`, `"completed"`} {
		if strings.Contains(s, k) {
			n++
		}
	}
	switch {
	case n >= 3:
		return 95
	case n == 2:
		return 50
	}
	return 0
}

// benchOrigin is the time_origin of every vllm-bench span.
var benchOrigin = schemas.TimeOriginBenchmark

// decodeBenchResult decodes one benchmark result document (vllm bench's,
// sglang.bench_serving's) into d, or says what is wrong with it as a
// record error.
func decodeBenchResult(raw []byte, d any) error {
	err := json.Unmarshal(raw, d)
	if err == nil {
		return nil
	}
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		return scan.Errorf(ErrBadType, -1, "benchmark result: %s", scan.TypeErrorText(te))
	}
	return scan.Errorf(ErrBadJSON, -1, "benchmark result: %v", err)
}
