package ingest

import (
	"bufio"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"

	"github.com/parquet-go/parquet-go"

	"github.com/tpsreport/tpsreport/ingest/internal/scan"
	"github.com/tpsreport/tpsreport/internal/dataset"
	"github.com/tpsreport/tpsreport/schemas"
)

// rowGroupRows caps the rows of a Parquet row group. The writer holds one
// row group in memory (about 30 MB of spans at this size) and flushes it
// when full, which bounds memory whatever the input size. It is DuckDB's
// own row group size (60 vectors of 2,048 rows): analyze's DuckDB writes
// requests.parquet's added columns in row groups of that size, and can then
// splice in spans.parquet's other columns row group by row group.
const rowGroupRows = 122880

// parquetOptions are the writer options of every Parquet output: zstd (the
// struct tags say so per column too) and bounded row groups.
func parquetOptions() []parquet.WriterOption {
	return []parquet.WriterOption{
		parquet.Compression(&parquet.Zstd),
		parquet.MaxRowsPerRowGroup(rowGroupRows),
		parquet.WriteBufferSize(1 << 20),
	}
}

// spanOptions are the writer options of spans.parquet: parquetOptions with
// spansSchema.
func spanOptions() []parquet.WriterOption {
	return append(parquetOptions(), spansSchema)
}

// deltaColumns are the integer columns of spans.parquet written
// DELTA_BINARY_PACKED instead of PLAIN: the six instants, which change by
// little from one span to the next, the token counts, attempt and
// http_status. The Span struct's tags cannot say so (parquet-go takes delta
// only on a non-pointer field). Delta pages are well under half the size
// to compress, so ingest is faster and the file smaller, and analyze reads
// it as fast (BENCHMARKS.md, "The figures behind the code").
var deltaColumns = []string{
	"attempt", "queued_at", "engine_arrived_at", "admitted_at", "first_token_at", "last_token_at", "released_at",
	"input_tokens", "output_tokens", "cached_tokens", "http_status",
}

// spansSchema is the Parquet schema of spans.parquet: the Span struct's, with
// deltaColumns encoded DELTA_BINARY_PACKED and compressed by scan.FastZstd, the
// others by scan.TextZstd (codec.go). Its columns, types and order are the
// struct's, so parquet-go still writes Spans without going through rows.
var spansSchema = func() *parquet.Schema {
	s := parquet.SchemaOf(schemas.Span{})
	fields := s.Fields()
	for i, f := range fields {
		node := parquet.Compressed(f, scan.TextZstd)
		if slices.Contains(deltaColumns, f.Name()) {
			node = parquet.Compressed(parquet.Encoded(f, &parquet.DeltaBinaryPacked), scan.FastZstd)
		}
		fields[i] = encodedField{Node: node, field: f}
	}
	return parquet.NewSchema(s.Name(), fieldGroup{Node: s, fields: fields})
}()

// encodedField is a struct field whose node is given another encoding or
// codec.
type encodedField struct {
	parquet.Node // the field's node with its encoding
	field        parquet.Field
}

func (f encodedField) Name() string                           { return f.field.Name() }
func (f encodedField) Value(base reflect.Value) reflect.Value { return f.field.Value(base) }

// fieldGroup is a group node with the given fields, in their order
// (parquet.Group would sort them by name).
type fieldGroup struct {
	parquet.Node
	fields []parquet.Field
}

func (g fieldGroup) Fields() []parquet.Field { return g.fields }

// datasetWriter writes the records of every input of an ingest into the
// dataset's temporary files and keeps what the manifest needs.
type datasetWriter struct {
	opt     Options
	mapping *Mapping // the loaded mapping file, for the mapping format

	ds                                  *runDataset // for stages.parquet, made with the first stage
	spansFile, samplesFile, rejectsFile *outFile
	stagesFile                          *outFile

	spans   *spanWriter
	samples *parquet.GenericWriter[schemas.Sample]
	stages  *parquet.GenericWriter[schemas.Stage] // nil until the first stage
	rejects *bufio.Writer
	rejEnc  *json.Encoder

	counts         schemas.Counts
	rejectedBy     map[string]int64
	skippedBy      [numSkipReasons]int64
	samplesWritten int64
	stagesWritten  int64
	hasTime        bool
	minTime        int64
	maxTime        int64
	hasCap         bool
	maxCap         int64
	capBy          map[string]int64
	formats        map[string]bool
	input          inputTally // of the input being read
	useful         int64      // spans and samples written, of every input
	spansWritten   int64

	free chan *batch // batches to reuse
}

// freeBatches is how many batches are kept for reuse: as many as can be in
// flight (queued for the row groups being encoded, and in the channel
// between reader and writer), so that a steady ingest allocates none.
const freeBatches = maxOpenRowGroups*(rowGroupRows/batchRecords+2) + 4

func newDatasetWriter(ds *runDataset, opt Options) (*datasetWriter, error) {
	w := &datasetWriter{
		opt: opt,
		ds:  ds,

		rejectedBy: map[string]int64{},
		capBy:      map[string]int64{},
		formats:    map[string]bool{},
		free:       make(chan *batch, freeBatches),
	}
	var err error
	if w.spansFile, err = ds.create(schemas.SpansFile); err != nil {
		return nil, err
	}
	if w.samplesFile, err = ds.create(schemas.SamplesFile); err != nil {
		return nil, err
	}
	if w.rejectsFile, err = ds.create(schemas.RejectsFile); err != nil {
		return nil, err
	}
	w.spans = newSpanWriter(w.spansFile, w.release)
	w.samples = parquet.NewGenericWriter[schemas.Sample](w.samplesFile, parquetOptions()...)
	w.rejects = bufio.NewWriterSize(w.rejectsFile, 64<<10)
	w.rejEnc = json.NewEncoder(w.rejects)
	w.rejEnc.SetEscapeHTML(false)
	return w, nil
}

// write adds one batch to the outputs. It returns the batch's fatal read
// error, the first reject in strict mode, or a write error.
func (w *datasetWriter) write(b *batch, in *openInput) error {
	if b.err != nil {
		return in.readError(b.err)
	}
	if w.opt.Strict && len(b.rejects) > 0 {
		return b.rejects[0].err
	}
	if len(b.spans) > 0 {
		if err := w.spans.write(b); err != nil {
			return fmt.Errorf("write %q: %w", w.spansFile.final, dataset.Unwrap(err))
		}
		for i := range b.spans {
			w.span(&b.spans[i])
		}
	}
	if len(b.samples) > 0 {
		if _, err := w.samples.Write(b.samples); err != nil {
			return fmt.Errorf("write %q: %w", w.samplesFile.final, dataset.Unwrap(err))
		}
		w.samplesWritten += int64(len(b.samples))
	}
	if len(b.stages) > 0 {
		if err := w.writeStages(b.stages); err != nil {
			return err
		}
	}
	for _, c := range b.caps {
		w.hasCap = true
		w.maxCap = max(w.maxCap, c.MaxNumSeqs)
		if c.Replica != "" {
			w.capBy[c.Replica] = max(w.capBy[c.Replica], c.MaxNumSeqs)
		}
	}
	w.input.useful += int64(len(b.spans) + len(b.samples) + len(b.stages))
	w.useful += int64(len(b.spans) + len(b.samples) + len(b.stages))
	w.spansWritten += int64(len(b.spans))
	if w.input.firstReject == nil && len(b.rejects) > 0 {
		w.input.firstReject = b.rejects[0].err
	}
	for why, n := range b.skipped {
		w.input.skippedBy[why] += n
	}
	for _, m := range b.odd {
		w.input.mismatches.note(m.reason, m.text)
	}
	for _, r := range b.rejects {
		kind := r.err.Kind()
		rej := schemas.Reject{
			File:   r.err.File,
			Line:   r.err.Line,
			Offset: r.offset,
			Column: r.err.Column,
			Kind:   kind,
			Reason: r.err.Err.Error(),
			Raw:    r.raw,
		}
		if err := w.rejEnc.Encode(&rej); err != nil {
			return fmt.Errorf("write %q: %w", w.rejectsFile.final, dataset.Unwrap(err))
		}
		w.rejectedBy[kind]++
	}
	w.counts.Read += b.read
	w.counts.Written += int64(len(b.spans) + len(b.samples) + len(b.stages) + len(b.caps))
	w.counts.Rejected += int64(len(b.rejects))
	for why, n := range b.skipped {
		w.skippedBy[why] += n
		w.counts.Skipped += n
	}
	return nil
}

// writeStages writes stages to stages.parquet, which the first of them
// creates: a run without stages has no such file.
func (w *datasetWriter) writeStages(stages []schemas.Stage) error {
	if w.stages == nil {
		f, err := w.ds.create(schemas.StagesFile)
		if err != nil {
			return err
		}
		w.stagesFile = f
		w.stages = parquet.NewGenericWriter[schemas.Stage](f, parquetOptions()...)
	}
	if _, err := w.stages.Write(stages); err != nil {
		return fmt.Errorf("write %q: %w", w.stagesFile.final, dataset.Unwrap(err))
	}
	w.stagesWritten += int64(len(stages))
	for i := range stages {
		w.widen(stages[i].StartedAt)
		w.widen(stages[i].EndedAt)
	}
	return nil
}

// widen widens the time range to t.
func (w *datasetWriter) widen(t int64) {
	if !w.hasTime {
		w.minTime, w.maxTime, w.hasTime = t, t, true
		return
	}
	w.minTime = min(w.minTime, t)
	w.maxTime = max(w.maxTime, t)
}

// span widens the time range by the span's timestamps.
func (w *datasetWriter) span(sp *schemas.Span) {
	for _, t := range [...]*int64{sp.QueuedAt, sp.EngineArrivedAt, sp.AdmittedAt, sp.FirstTokenAt, sp.LastTokenAt, sp.ReleasedAt} {
		if t == nil {
			continue
		}
		if !w.hasTime {
			w.minTime, w.maxTime, w.hasTime = *t, *t, true
			continue
		}
		w.minTime = min(w.minTime, *t)
		w.maxTime = max(w.maxTime, *t)
	}
}

// release drops a reference to b (see batch.refs); the last one recycles it.
func (w *datasetWriter) release(b *batch) {
	if b.refs.Add(-1) == 0 {
		b.reset()
		select {
		case w.free <- b:
		default:
		}
	}
}

// abort stops the Parquet encoding goroutines after a failed ingest.
func (w *datasetWriter) abort() {
	w.spans.abort()
}

// close finishes the Parquet files and flushes rejects.jsonl; the dataset's
// commit then syncs and renames them.
func (w *datasetWriter) close() error {
	if err := w.spans.close(); err != nil {
		return fmt.Errorf("write %q: %w", w.spansFile.final, dataset.Unwrap(err))
	}
	if err := w.samples.Close(); err != nil {
		return fmt.Errorf("write %q: %w", w.samplesFile.final, dataset.Unwrap(err))
	}
	if w.stages != nil {
		if err := w.stages.Close(); err != nil {
			return fmt.Errorf("write %q: %w", w.stagesFile.final, dataset.Unwrap(err))
		}
	}
	if err := w.rejects.Flush(); err != nil {
		return fmt.Errorf("write %q: %w", w.rejectsFile.final, dataset.Unwrap(err))
	}
	return nil
}
