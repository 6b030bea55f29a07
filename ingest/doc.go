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
// # Adding a format
//
// A format is one file and one row in the formats table (formats.go):
//
//   - a Reader over one decompressed input. Line-oriented formats embed a
//     *lineReader, which counts lines, handles "\r\n", skips blank lines and
//     turns over-long lines into too_long rejects, and supply only a
//     function that decodes one line into a Record; see spans.go. Use a
//     jsonScanner for JSON lines rather than encoding/json: it validates and
//     decodes in one pass without reflection.
//   - a Sniff function scoring the first bytes of an input for --format auto.
//   - a compile-time check: var _ Reader = (*fooReader)(nil).
//   - fixtures under testdata/<format>/: *.good.* with a golden file, and
//     *.bad.* with the rejects they must produce; a section in
//     schemas/README.md.
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
