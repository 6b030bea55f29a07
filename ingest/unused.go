package ingest

import (
	"errors"
	"fmt"
	"strings"

	"github.com/tpsreport/tpsreport/schemas"
)

// inputTally is what the writer counts of the input being read, for its
// manifest entry.
type inputTally struct {
	useful      int64 // spans and samples written
	firstReject *ParseError
	skippedBy   [numSkipReasons]int64
	mismatches  inconsistencies
}

// sampler is implemented by a Reader of a load tool's report that knows how
// many requests the report's own totals count: when they exceed the request
// records it holds, the spans are a sample and the user must be told.
type sampler interface {
	sampled() []schemas.SampledInput
}

// ErrNothingWritten is the error of an ingest of which no input gave a span
// or a sample: there is nothing to analyse.
var ErrNothingWritten = errors.New("nothing to analyse")

// skipHints say, per skip reason, what an input all of whose records were
// skipped for that reason holds, and what would have worked.
var skipHints = map[SkipReason]string{
	SkipBlank:          "the file is empty (blank lines only): check the path, and that the server logs to it",
	SkipComment:        "it holds only comments",
	SkipEmptyDocument:  "its document holds no request and no benchmark",
	SkipNotARequest:    "none of its records is an LLM request (no model, no token usage)",
	SkipUnusedMetric:   "none of its series is a scheduler gauge this format reads",
	SkipEmptyResult:    "its query results hold no point",
	SkipQueryError:     "its query answers are errors",
	SkipOtherBenchmark: "every request belongs to another benchmark than --benchmark picks",
	SkipWarmup:         "every request is of the warm-up phase",
	SkipDuplicate:      "every record repeats one read before",
	SkipRequestStart:   "it holds request starts only, no request's end",
}

// formatHints say, per format, what would have worked when the input gave
// nothing for the reason given; the key is "format/reason".
var formatHints = map[string]string{
	SourceVLLMBench + "/" + SkipSummaryOnly.String(): "it is a `vllm bench serve` result without per-request data. Try: re-run `vllm bench serve` with --save-detailed (the result then holds ttfts, itls, latencies and start_times)",
	SourceVLLMLog + "/" + SkipUnusedLine.String():    "none of its lines is a vLLM stats or request line. Try: the server's log with its periodic stats lines (vLLM logs them unless --disable-log-stats)",
	SourceSGLangLog + "/" + SkipUnusedLine.String():  "none of its lines is an SGLang Prefill batch or Decode batch line",
	SourceKong + "/" + SkipNotARequest.String():      "none of its records carries the AI plugins' block (ai.proxy: model, usage): they are other routes' requests, or the AI plugin logs no statistics. Try: logging.log_statistics on the ai-proxy plugin",
	SourceEnvoyAI + "/" + SkipNotARequest.String():   "none of its records names a model or token usage: they are MCP calls or other routes' requests, or the access-log format leaves the AI fields out. Try: add the AI Gateway's gen_ai.* (or llmRequestCosts) fields to the access-log format",
}

// unusedReason says why an input gave no span and no sample: its first
// reject, else what its skipped records were; with what would have worked
// where that is known.
func unusedReason(format string, t *inputTally, c schemas.Counts) string {
	if c.Read == 0 {
		return "the file is empty: check the path, and that the server logs to it"
	}
	if pe := t.firstReject; pe != nil {
		return fmt.Sprintf("%d of %d records rejected, %s", c.Rejected, c.Read, firstRejectText(pe))
	}
	if c.Written > 0 {
		return "it gives only the cap (max_num_seqs), no request and no engine sample"
	}
	// The reason of most skips, blank lines aside when there is another.
	top := SkipReason(numSkipReasons)
	for why, n := range t.skippedBy {
		r := SkipReason(why)
		switch {
		case n == 0:
		case top == numSkipReasons, r != SkipBlank && (top == SkipBlank || n > t.skippedBy[top]):
			top = r
		}
	}
	if top == numSkipReasons {
		return "it holds no record"
	}
	if h, ok := formatHints[format+"/"+top.String()]; ok {
		return h
	}
	if h, ok := skipHints[top]; ok {
		return h
	}
	return fmt.Sprintf("its %d records were skipped (%s)", c.Skipped, top)
}

// firstRejectText says which record was rejected first and why, for a
// sentence that has named the input already: "the first (line 3): …".
func firstRejectText(pe *ParseError) string {
	if pe.Line > 0 {
		return fmt.Sprintf("the first (line %d): %v", pe.Line, pe.Err)
	}
	return fmt.Sprintf("the first: %v", pe.Err)
}

// nothingWritten is the error of an ingest of which no input gave a span or
// a sample: it names each input's reason, the first three of them.
func nothingWritten(inputs []schemas.InputFile) error {
	var parts []string
	for _, in := range inputs {
		if in.Unused == "" {
			continue
		}
		if len(parts) == 3 {
			parts = append(parts, fmt.Sprintf("and %d more", len(inputs)-3))
			break
		}
		parts = append(parts, fmt.Sprintf("%s (%s): %s", in.Path, in.Format, in.Unused))
	}
	if len(parts) == 0 {
		return fmt.Errorf("%w: no input given", ErrNothingWritten)
	}
	return fmt.Errorf("%w: no input gave a request or an engine sample; %s", ErrNothingWritten, strings.Join(parts, "; "))
}
