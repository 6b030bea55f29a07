package ingest

import (
	"fmt"
	"strings"

	"github.com/tpsreport/tpsreport/ingest/internal/scan"
	"github.com/tpsreport/tpsreport/schemas"
)

// The sglang-bench format reads the JSONL results of `python -m
// sglang.bench_serving` (python/sglang/bench_serving.py; mapping in
// schemas/formats/loadtools.md): one JSON object per line, appended per
// run, holding the summary (backend, duration, completed, mean_ttft_ms,
// mean_e2e_latency_ms, total_output_tokens_retokenized, …) and, with
// --output-details, per-request arrays:
//
//	input_lens, output_lens, ttfts, itls, generated_texts, errors
//
// No array holds an instant or the request's latency: the spans carry
// durations only (time_origin request). Per request i, each from epoch 0:
//
//	queued_at      = 0
//	first_token_at = ttfts[i]                       (when ttfts[i] > 0)
//	last_token_at  = released_at = ttfts[i] + Σ itls[i]
//
// the client's reading at the last token: bench_serving's own latency is
// that reading for the trt backend and the last chunk's (the [DONE] line,
// a few µs later) for the OpenAI ones, and is not written. A request with a
// non-empty errors[i] failed: status error, error = the last line of
// errors[i] (a traceback's exception) cut to 120 bytes. generated_texts is
// never read. A line without the arrays (no --output-details) is one reject
// naming the flag.

// SourceSGLangBench is the source column of spans read from sglang.bench_serving.
const SourceSGLangBench = "sglang-bench"

type sglangBenchReader struct{ docReader }

var _ Reader = (*sglangBenchReader)(nil)

func newSGLangBenchReader(in Input) Reader {
	r := &sglangBenchReader{}
	r.docReader = newDocReader(in, maxDocument, r.doc)
	return r
}

// sglangBenchDoc holds the keys of a result line this format reads.
type sglangBenchDoc struct {
	Backend    string      `json:"backend"`
	InputLens  []int64     `json:"input_lens"`
	OutputLens []int64     `json:"output_lens"`
	TTFTs      []float64   `json:"ttfts"`
	ITLs       [][]float64 `json:"itls"`
	Errors     []*string   `json:"errors"`
}

// doc turns one result line into records.
func (r *sglangBenchReader) doc(raw []byte, line int64, k int, recs []Record) []Record {
	reject := func(err error) []Record {
		return append(recs, Record{Kind: KindReject, Line: line, Raw: vllmBenchRedact(raw), Err: parseErrorAt(r.name, line, err)})
	}
	var d sglangBenchDoc
	if err := decodeBenchResult(raw, &d); err != nil {
		return reject(err)
	}
	n := len(d.TTFTs)
	if n == 0 {
		return reject(scan.Errorf(ErrMissingField, -1,
			"aggregates only, no per-request records. Try: run sglang.bench_serving with --output-details, which writes the per-request arrays (ttfts, itls, ...) into the same line"))
	}
	for _, l := range []struct {
		key string
		n   int
	}{{"input_lens", len(d.InputLens)}, {"output_lens", len(d.OutputLens)}, {"itls", len(d.ITLs)}, {"errors", len(d.Errors)}} {
		if l.n != n && (l.n != 0 || l.key == "itls") {
			return reject(scan.Errorf(ErrBadValue, -1, "benchmark result: %s has %d entries, ttfts %d", l.key, l.n, n))
		}
	}
	for i := range n {
		id := fmt.Sprintf("result-%d#%d", k+1, i)
		zero := int64(0)
		sp := schemas.Span{Source: SourceSGLangBench, SpanID: id, RequestID: id, Status: schemas.StatusOK,
			TimeOrigin: &requestOrigin, QueuedAt: &zero}
		bad := func(what string, v float64) []Record {
			return append(recs, Record{Kind: KindReject, Line: line, Err: parseErrorAt(r.name, line,
				scan.Errorf(ErrBadValue, -1, "benchmark result: request %d: %s %v is not a duration", i, what, v))})
		}
		if len(d.InputLens) > 0 && d.InputLens[i] >= 0 {
			sp.InputTokens = &d.InputLens[i]
		}
		ttft, ok := vllmSecondsToNanos(d.TTFTs[i])
		if !ok || ttft < 0 {
			recs = bad("ttft", d.TTFTs[i])
			continue
		}
		last := ttft
		okITL := true
		for _, v := range d.ITLs[i] {
			ns, ok := vllmSecondsToNanos(v)
			if !ok || ns < 0 {
				recs, okITL = bad("itl", v), false
				break
			}
			last += ns
		}
		if !okITL {
			continue
		}
		released := vllmNsToMicros(last)
		sp.ReleasedAt = &released
		if len(d.Errors) > 0 && d.Errors[i] != nil && *d.Errors[i] != "" {
			sp.Status = schemas.StatusError
			e := strings.TrimSpace(*d.Errors[i])
			if j := strings.LastIndexByte(e, '\n'); j >= 0 {
				e = strings.TrimSpace(e[j+1:])
			}
			e = cutUTF8(e, 120)
			sp.Error = &e
			recs = append(recs, Record{Kind: KindSpan, Line: line, Span: sp})
			continue
		}
		if len(d.OutputLens) > 0 && d.OutputLens[i] >= 0 {
			sp.OutputTokens = &d.OutputLens[i]
		}
		if ttft > 0 {
			first := vllmNsToMicros(ttft)
			sp.FirstTokenAt, sp.LastTokenAt = &first, &released
		}
		recs = append(recs, Record{Kind: KindSpan, Line: line, Span: sp})
	}
	return recs
}

// sniffSGLangBench scores sglang.bench_serving results: 95 for a JSON
// object with its keys (total_output_tokens_retokenized and
// mean_e2e_latency_ms are its own; vLLM's results name them otherwise).
func sniffSGLangBench(head []byte) int {
	s := string(head)
	if !strings.HasPrefix(strings.TrimSpace(s), "{") {
		return 0
	}
	if !strings.Contains(s, `"total_output_tokens_retokenized"`) && !strings.Contains(s, `"mean_e2e_latency_ms"`) {
		return 0
	}
	n := 0
	for _, k := range []string{`"backend"`, `"mean_ttft_ms"`, `"output_throughput"`, `"completed"`, `"ttfts"`, `"duration"`} {
		if strings.Contains(s, k) {
			n++
		}
	}
	if n >= 2 {
		return 95
	}
	return 0
}
