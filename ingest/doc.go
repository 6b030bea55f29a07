// Package ingest is the first stage of the pipeline: it reads the logs that
// serving systems write, one Reader per source format, and writes a run
// dataset (spans.parquet, samples.parquet, manifest.json, rejects.jsonl) that
// analyze reads. It is pure Go: no cgo, no DuckDB.
//
// Run is the entry point. It expands the inputs (files, directories, globs,
// "-" for stdin), recognises gzip and zstd by their magic bytes, picks each
// input's format (given, or sniffed with --format auto), and moves the
// records through a pipeline that keeps both cores of a small machine busy:
// one goroutine reads and decodes records into batches while another hashes
// the input (storedReader); the calling goroutine writes the batches, and
// spans.parquet is encoded and compressed a row group at a time on
// goroutines of its own (spanWriter), then assembled in order. Every output
// goes to a temporary file that is renamed into place only when the whole
// ingest succeeded.
//
// # Files
//
// Each source format is one file named format_<name>.go, the name spelled
// as --format spells it with "_" for "-", so the formats sort together:
//
//	format_spans.go        canonical spans (JSONL)
//	format_samples.go      canonical scheduler samples (JSONL)
//	format_vllm_log.go     vLLM's server log, text or JSON lines
//	format_vllm_otel.go    vLLM's OTLP/JSON request traces
//	format_prometheus.go   vLLM's scheduler gauges from Prometheus
//	format_vllm_bench.go   vllm bench serve result files
//	format_guidellm.go     GuideLLM benchmarks reports (JSON or YAML)
//	format_aiperf.go       AIPerf and GenAI-Perf per-request exports
//	format_inference_perf.go  inference-perf per-request lifecycle reports
//	format_litellm.go      LiteLLM payloads and SpendLogs rows
//	format_kong.go         Kong log plugins with the AI Proxy block
//	format_envoy_ai.go     Envoy AI Gateway JSON access logs
//	format_otel_genai.go   OTLP/JSON spans of the GenAI conventions
//	format_mapping.go      any JSON log through a YAML mapping file
//
// The formats table sits above them: nothing a format or its reader uses
// lives in formats.go. What they are built on, in this package:
//
//	reader.go       the Reader interface, Record, its kinds and skip reasons,
//	                and Input, the one argument of every constructor
//	formats.go      the formats table (name → constructor and sniffer) and
//	                --format auto's detection
//	linereader.go   lineReader: the Reader of a line-oriented format
//	jsonrecords.go  jsonRecordReader: the Reader of a format whose records
//	                are JSON values (NDJSON, arrays, pretty-printed documents)
//	parlines.go     NDJSON lines decoded on every core, for the formats whose
//	                one-pass scanners can run side by side (lineDecoders)
//	docreader.go    docReader: the Reader of a format whose records come a
//	                document at a time (vllm-bench, inference-perf)
//	vllm.go         what the vLLM formats share
//	errors.go       ParseError, and the sentinel reject kinds under the
//	                names callers use
//	redact.go       prompt text removed from rejects
//	plausible.go    implausible instants (outside 2000..2100) rejected
//	derived.go      ids for OTLP spans without one; a reader's notices
//
// and below them, in internal/scan, the scanning that knows no format: the
// one-pass JSON scanner and its values (json.go, jsonvalues.go,
// litvalue.go), JSON documents in bounded memory (jsondocs.go), lines
// (lines.go), timestamps (timestamp.go), HTTP statuses, the decoders'
// arena, spans.parquet's codecs, the sentinel reject kinds with
// RecordError, and what the sniffers share (sniff.go). It imports nothing
// of ingest.
//
// Then the run around them: ingest.go (Run, the read and write pipeline),
// inputs.go (expanding, opening, decompressing and hashing inputs),
// writer.go (the dataset's writers and the manifest's counts),
// spanwriter.go (spans.parquet, row groups encoded in parallel) and
// dataset.go (temporary outputs, committed by renaming).
//
// # Adding a format
//
// A format is one new file, format_<name>.go, and one row in the formats
// table (formats.go):
//
//   - a Reader over one decompressed input, built by func(in Input) Reader.
//     Line-oriented formats embed a *lineReader, which counts lines, handles
//     "\r\n", skips blank lines and turns over-long lines into too_long
//     rejects, and supply only a function that decodes one line into a
//     Record; see format_spans.go. Formats of JSON records embed a
//     *jsonRecordReader and supply a function that turns one parsed value
//     into records; see format_kong.go. Use scan.JSON for a hot path
//     rather than encoding/json: it validates and decodes in one pass
//     without reflection.
//   - a Sniff function scoring the first bytes of an input for --format auto.
//   - a compile-time check: var _ Reader = (*fooReader)(nil).
//   - a Source constant, the source column of the format's spans.
//   - fixtures under testdata/<format>/: *.good.* with a golden file, and
//     *.bad.* with the rejects they must produce; a section in
//     schemas/README.md or schemas/formats/.
//
// A setting the format needs (a zone, a year, a mapping file) is a field of
// Input, filled by Run from Options, not a constructor of another shape.
//
// A record with nothing to write is a Record of kind KindSkip whose Skip says
// why (blank, unused_line, duplicate, ...): the manifest counts skips by
// reason. Add a SkipReason when no existing one fits.
//
// A malformed record is a Record of kind KindReject whose error is a
// *ParseError wrapping one of the sentinel kinds (ErrBadJSON, ErrBadType,
// ErrBadTimestamp, ErrMissingField, ErrBadValue, ErrTooLong); decoders
// return a *RecordError to give the column. Timestamps go through
// scan.ParseTimestamp or scan.ParseEpoch so that every format rounds alike.
package ingest
