package ingest

import (
	"bytes"
	"errors"
	"io"
	"strconv"
	"time"

	"github.com/tpsreport/tpsreport/ingest/internal/scan"
	"github.com/tpsreport/tpsreport/schemas"
)

// Reader reads the records of one input in one source format. It has the
// shape of bufio.Scanner and sql.Rows:
//
//	for r.Next() {
//		rec := r.Record()
//		switch rec.Kind { ... }
//	}
//	if err := r.Err(); err != nil { ... }
//
// Next advances to the next record and reports whether there is one; it
// returns false at the end of the input or on a fatal stream error (a read
// error, a truncated .gz), which Err then returns. A malformed record is not
// a fatal error: it is a record of kind KindReject, and the reader goes on.
//
// Every record the reader consumes is delivered, exactly once, as one Record
// whose Kind says what came of it; this is what makes the manifest counts
// reconcile (read = written + rejected + skipped).
//
// A format plugs in with one file that implements Reader (line-oriented
// formats embed a lineReader and supply only a decode function) and one row
// in the formats table (formats.go).
type Reader interface {
	// Next advances to the next record. It returns false at the end of the
	// input or on a fatal error.
	Next() bool
	// Record returns the current record. The Record and its Raw bytes are
	// valid until the next call to Next; the Span and Sample values it holds
	// (and what their pointers point to) may be kept.
	Record() *Record
	// Err returns the fatal error that stopped Next, or nil at a clean end.
	Err() error
}

// Kind says what a record turned into.
type Kind uint8

// Record kinds. Every record read is exactly one of them.
const (
	// KindSkip: nothing to write and nothing wrong: a blank line, a comment,
	// a log line the format does not use. Record.Skip says which.
	KindSkip Kind = iota
	// KindSpan: Record.Span holds one attempt of one request.
	KindSpan
	// KindSample: Record.Sample holds the scheduler state at an instant.
	KindSample
	// KindCap: Record.Cap holds a configured concurrency cap (max_num_seqs).
	KindCap
	// KindReject: the record is malformed; Record.Err says where and why and
	// Record.Raw holds its bytes.
	KindReject
	// KindStage: Record.Stage holds one stage of one attempt of a request
	// (disaggregated serving).
	KindStage
)

var kindNames = [...]string{"skip", "span", "sample", "cap", "reject", "stage"}

func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return "Kind(" + strconv.Itoa(int(k)) + ")"
}

// SkipReason says why a KindSkip record carries nothing to write. The
// manifest counts skips by reason (skipped_by_reason) under the stable names
// of String; a reader sets one small code per record, and the names are
// looked up once, when the manifest is written.
type SkipReason uint8

// Skip reasons. Every KindSkip record a reader delivers has one other than
// SkipOther, which only marks a reader that forgot to say (the fuzz targets
// and TestSkipReasons check that none does).
const (
	SkipOther SkipReason = iota
	// SkipBlank: an empty line, or one of only whitespace (or, in a vLLM
	// log, ANSI escapes).
	SkipBlank
	// SkipComment: a "#" line of a Prometheus text scrape (HELP, TYPE).
	SkipComment
	// SkipUnusedLine: a log line the format has no use for (a vLLM log line
	// that is not a stats, startup-argument or request line).
	SkipUnusedLine
	// SkipRequestStart: vLLM's "Received request" or "Added request" line;
	// the request's span is written at its Finished or Aborted line.
	SkipRequestStart
	// SkipDefaultCap: vLLM startup arguments that leave max_num_seqs at its
	// default, which vLLM does not print.
	SkipDefaultCap
	// SkipDuplicate: an OTLP span whose traceId and spanId were read before
	// (an exporter that resent a batch).
	SkipDuplicate
	// SkipNotARequest: an OTLP span that is not an LLM request (not vLLM's
	// llm_request; no gen_ai.* attribute).
	SkipNotARequest
	// SkipEmptyDocument: a JSON document that holds no span at all (an OTLP
	// export with no spans).
	SkipEmptyDocument
	// SkipUnusedMetric: a Prometheus series of a metric other than the
	// scheduler gauges read.
	SkipUnusedMetric
	// SkipJoined: a Prometheus text line whose gauge went into a sample that
	// is written on a later line (the sample's last one).
	SkipJoined
	// SkipEmptyResult: a Prometheus API answer whose result holds no point.
	SkipEmptyResult
	// SkipQueryError: a Prometheus API answer with status "error".
	SkipQueryError
	// SkipSummaryOnly: a vllm bench result without per-request data (saved
	// without --save-detailed).
	SkipSummaryOnly
	// SkipOtherBenchmark: a request of a benchmark other than the one
	// --benchmark picks from a load tool's sweep.
	SkipOtherBenchmark
	// SkipWarmup: a load tool's request of its warm-up phase (AIPerf's
	// benchmark_phase "warmup"), which the tool leaves out of its results.
	SkipWarmup

	numSkipReasons
)

var skipReasonNames = [numSkipReasons]string{
	SkipOther:          "other",
	SkipBlank:          "blank",
	SkipComment:        "comment",
	SkipUnusedLine:     "unused_line",
	SkipRequestStart:   "request_start",
	SkipDefaultCap:     "default_cap",
	SkipDuplicate:      "duplicate",
	SkipNotARequest:    "not_a_request",
	SkipEmptyDocument:  "empty_document",
	SkipUnusedMetric:   "unused_metric",
	SkipJoined:         "joined",
	SkipEmptyResult:    "empty_result",
	SkipQueryError:     "query_error",
	SkipSummaryOnly:    "summary_only",
	SkipOtherBenchmark: "other_benchmark",
	SkipWarmup:         "warmup",
}

// String returns the reason's key in the manifest's skipped_by_reason.
func (r SkipReason) String() string {
	if r < numSkipReasons {
		return skipReasonNames[r]
	}
	return "SkipReason(" + strconv.Itoa(int(r)) + ")"
}

// Record is one record of an input and what came of it.
type Record struct {
	Kind Kind
	// Skip says why a KindSkip record was skipped.
	Skip SkipReason

	// Line is the 1-based number of the record's (first) line; 0 for formats
	// without lines, which set Offset instead.
	Line int64
	// Offset is the byte offset of the record in the decompressed input,
	// for formats without lines.
	Offset int64

	Span schemas.Span // KindSpan; RunID is filled in by Run, Source by the reader
	// Mismatch, for a KindSpan record whose own fields disagree, is the
	// reason (InconsistentTiming, ...) and MismatchText what they show: the
	// span is written, and counted in the manifest as inconsistent.
	Mismatch, MismatchText string
	Sample                 schemas.Sample // KindSample; RunID is filled in by Run
	Cap                    Cap            // KindCap
	Stage                  schemas.Stage  // KindStage; RunID is filled in by Run

	// Err and Raw describe a KindReject record. Raw is the record as read
	// (possibly only its first bytes); Run removes prompt text and cuts it to
	// 1 KiB before writing it to rejects.jsonl.
	Err *ParseError
	Raw []byte
}

// Cap is a configured concurrency cap found in the logs, such as vLLM's
// max_num_seqs. It lands in the manifest (max_num_seqs, max_num_seqs_by_replica).
type Cap struct {
	Replica    string // instance it applies to; "" when the log does not say
	MaxNumSeqs int64
}

// Input is one input with every setting a format may need: the one argument
// of each format's constructor (the New column of the formats table). A
// format that needs a new setting gets a field here, so that every row of
// the table keeps one shape. Readers take no logger: what they have to say
// about a record is the record itself (a skip with its reason, a reject),
// which the manifest counts.
type Input struct {
	// Name is the input's display name: the path as given, or "-" for
	// stdin. It goes into every ParseError.
	Name string
	// R yields the decompressed bytes of the input.
	R io.Reader
	// MaxLineBytes is the longest line a line-oriented reader accepts; a
	// longer one becomes a too_long reject. Always > 0.
	MaxLineBytes int

	// Source-specific settings from Options (--tz, --year, --mapping), for
	// the formats that need them; the others ignore them.
	Zone    *time.Location // zone of timestamps that carry none (vllm-log, litellm, mapping); nil: UTC
	Year    int            // year of vLLM stamps that carry none (vllm-log); 0: the current year
	Mapping *Mapping       // the mapping format's parsed mapping file; nil: none given
	// Date is the day a log whose stamps carry a time of day alone starts
	// on (SGLang before 2024-10: "[04:40:55 TP0]"), midnight in Zone; zero:
	// not given, and such lines are rejected with the reason.
	Date time.Time
	// Benchmark is Options.Benchmark: the one benchmark of a sweep to read.
	Benchmark *int
}

// readWhole reads all of a one-document input (a GuideLLM report, a
// GenAI-Perf export: their request records sit deep inside the document) into
// memory, up to max bytes, without a leading UTF-8 byte order mark; a larger
// input is an error saying tooLarge.
func readWhole(name string, r io.Reader, max int64, tooLarge string) ([]byte, error) {
	data, err := io.ReadAll(io.LimitReader(r, max+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > max {
		return nil, errors.New(name + ": " + tooLarge)
	}
	return bytes.TrimPrefix(data, scan.BOM), nil
}
