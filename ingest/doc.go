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
// What they are built on:
//
//	reader.go       the Reader interface, Record, its kinds and skip reasons,
//	                and Input, the one argument of every constructor
//	formats.go      the formats table (name → constructor and sniffer),
//	                --format auto's detection, and what the sniffers share
//	lines.go        lineReader: the Reader of a line-oriented format
//	jsonrecords.go  jsonRecordReader: the Reader of a format whose records
//	                are JSON values (NDJSON, arrays, pretty-printed documents)
//	parlines.go     NDJSON lines decoded on every core, for the formats whose
//	                one-pass scanners can run side by side (lineDecoders)
//	jsondocs.go     jsonDocs: a stream of JSON documents read one at a time
//	                (prometheus, vllm-bench, inference-perf), in bounded memory
//	docreader.go    docReader: the Reader of a format whose records come a
//	                document at a time (vllm-bench, inference-perf)
//	jsonvalues.go   a JSON record's values by path, with the gateways' rules
//	json.go         jsonScanner: one-pass JSON validation and decoding
//	litvalue.go     litValue and litDecoder: a scanned record's values into
//	                a span's fields (litellm, sglang-metrics, sglang-log)
//	timestamp.go    every timestamp form, rounded alike to microseconds
//	httpstatus.go   an HTTP status as a span status
//	vllm.go         what the vLLM formats share
//	arena.go        the decoders' allocation helpers
//	errors.go       ParseError, RecordError and the sentinel reject kinds
//	redact.go       prompt text removed from rejects
//	plausible.go    implausible instants (outside 2000..2100) rejected
//	derived.go      ids for OTLP spans without one; a reader's notices
//
// and the run around them: ingest.go (Run, the read and write pipeline),
// inputs.go (expanding, opening, decompressing and hashing inputs),
// writer.go (the dataset's writers and the manifest's counts), codec.go
// (spans.parquet's zstd codecs), spanwriter.go (spans.parquet, row groups
// encoded in parallel) and dataset.go (temporary outputs, committed by
// renaming).
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
//     into records; see format_kong.go. Use a jsonScanner for a hot path
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
// parseTimestampText or parseEpoch so that every format rounds alike.
package ingest
