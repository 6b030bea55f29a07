// Package scan is the format-free layer under ingest's formats: a one-pass
// validating JSON scanner (JSON) and the values a record decoder takes from
// it (Value, Decoder, Obj, FirstErr), a stream of JSON documents read in
// bounded memory (Docs), a line splitter that bounds over-long and endless
// lines (Lines), every timestamp form rounded alike to microseconds
// (ParseTimestamp, ParseEpoch, ParseRFC3339), HTTP statuses as span
// statuses, the decoders' allocation arena, spans.parquet's zstd codecs,
// and what the formats' sniffers share.
//
// Its errors carry the sentinel reject kinds (ErrBadJSON, ErrBadType, ...)
// in a *RecordError with the byte offset of the problem; ingest places them
// at a file and line. It knows no format and imports nothing of ingest, so
// that a format can use all of it and it can be fuzzed alone.
package scan
