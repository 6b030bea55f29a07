package ingest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"github.com/schollz/progressbar/v3"

	"github.com/tpsreport/tpsreport/ingest/internal/scan"
	"github.com/tpsreport/tpsreport/internal/dataset"
	"github.com/tpsreport/tpsreport/schemas"
)

// Options configure Run.
type Options struct {
	RunID        string       // --run; written into every span and sample (overrides any run_id in the input)
	Format       string       // a name from Formats() or "auto" ("" means "auto")
	OutDir       string       // the run dataset directory (created if missing)
	Inputs       []string     // files, directories (recursive), globs, "-" for stdin; plain, .gz or .zst; FORMAT:INPUT overrides Format for one input
	Strict       bool         // the first malformed record is fatal
	MaxLineBytes int          // 0 = DefaultMaxLineBytes (1 MiB); longer lines are rejected with kind "too_long"
	Stdin        io.Reader    // read for the input "-"
	Progress     io.Writer    // nil: no progress bar; cmd passes stderr only when it is a terminal
	Log          *slog.Logger // nil: discard
	Version      string       // tool version for the manifest

	// Source-specific settings.
	TZ      *time.Location // zone of timestamps that carry none (vLLM's log stamps, LiteLLM's naive times); nil: UTC
	Year    int            // year of vLLM log stamps that carry none and have no outer stamp; 0: the current year
	Date    time.Time      // day a log of time-of-day stamps starts on (old SGLang logs); zero: none given
	Mapping string         // mapping file (YAML) of the mapping format
	// Benchmark picks one benchmark (from 0) of a load tool's report that
	// holds several (a GuideLLM sweep); nil: a report of several is an
	// error that lists them.
	Benchmark *int

	// allowEmpty commits a dataset of which no input gave a span or a
	// sample, for the tests that read the rejects of bad inputs.
	allowEmpty bool
}

// Run reads the inputs and writes the run dataset into opt.OutDir:
// spans.parquet, samples.parquet, rejects.jsonl and manifest.json (schemas/README.md).
// It returns the manifest it wrote.
//
// A malformed record goes to rejects.jsonl and the ingest goes on, unless
// opt.Strict is set: then Run returns the record's *ParseError. Every error
// Run returns is a usage or input error of one line, and on any error
// (ctx cancelled included) nothing in OutDir is created or replaced: the
// outputs are written to temporary files and renamed into place at the end.
// A successful ingest into a directory that held a dataset replaces it: it
// logs a warning naming the old run (Manifest.Replaced) and removes every
// output analyze derived from the old data (schemas.DerivedFiles).
//
// With --format auto, a file found in a directory input that no format
// recognises (a README, the simulator's truth.json) is left out with a
// warning and listed in Manifest.Ignored; a directory of which no file is
// read, and a file named or matched by a glob that no format recognises, are
// errors. Manifest.Inputs says which formats were detected.
//
// An ingest of which no input gives a span or a sample is an input error
// (ErrNothingWritten) that names each input's reason (InputFile.Unused):
// there would be nothing to analyse.
//
// Counting (manifest counts): read counts every record a reader delivers,
// which for the line formats is every line, blank ones included; each record
// is then exactly one of written (a span, a sample or a cap fact), rejected
// or skipped (blank lines, lines a format does not use). So
// read = written + rejected + skipped always holds, and the skipped records
// are counted by reason in Manifest.SkippedBy (see SkipReason).
func Run(ctx context.Context, opt Options) (*schemas.Manifest, error) {
	if opt.Log == nil {
		opt.Log = slog.New(slog.DiscardHandler)
	}
	switch {
	case opt.RunID == "":
		return nil, errors.New("missing run name (--run)")
	case opt.OutDir == "":
		return nil, errors.New("missing output directory (--out)")
	case opt.MaxLineBytes < 0:
		return nil, fmt.Errorf("invalid line limit %d (want bytes > 0, or 0 for the default)", opt.MaxLineBytes)
	case opt.MaxLineBytes == 0:
		opt.MaxLineBytes = DefaultMaxLineBytes
	}
	if opt.Format == "" {
		opt.Format = FormatAuto
	}
	if opt.Format != FormatAuto {
		if _, err := lookupFormat(opt.Format); err != nil {
			return nil, err
		}
	}
	var mapping *Mapping
	if opt.Mapping != "" {
		var err error
		if mapping, err = LoadMapping(opt.Mapping); err != nil {
			return nil, err
		}
	} else if opt.Format == SourceMapping {
		return nil, errors.New("format mapping needs a mapping file. Try --mapping FILE.yaml")
	}
	if err := ctx.Err(); err != nil {
		return nil, interrupted(ctx)
	}
	srcs, err := expandInputs(opt.Inputs, opt.OutDir)
	if err != nil {
		return nil, err
	}

	ds, err := openDataset(opt.OutDir)
	if err != nil {
		return nil, err
	}
	defer ds.abort()
	w, err := newDatasetWriter(ds, opt)
	if err != nil {
		return nil, err
	}
	defer w.abort()
	w.mapping = mapping
	bar := newProgress(opt.Progress, srcs)

	inputs := make([]schemas.InputFile, 0, len(srcs))
	var ignored []schemas.IgnoredFile
	read := map[string]bool{} // directories that gave an input that was read
	for _, src := range srcs {
		in, err := w.ingest(ctx, src, bar)
		var nf *noFormatError
		if errors.As(err, &nf) && src.dir != "" {
			// A folder of logs holds other files too (a README, the
			// simulator's truth.json): leave them out, and say so.
			opt.Log.Warn("ignoring " + src.path + ": no format recognises it")
			ignored = append(ignored, schemas.IgnoredFile{Path: src.path, Reason: "no format recognises it"})
			continue
		}
		if err != nil {
			if bar != nil {
				_ = bar.Clear()
			}
			return nil, err
		}
		inputs = append(inputs, in)
		read[src.dir] = true
	}
	if bar != nil {
		_ = bar.Finish()
	}
	if err := noneRead(srcs, read); err != nil {
		return nil, err
	}
	if w.useful == 0 && !opt.allowEmpty {
		return nil, nothingWritten(inputs)
	}
	for _, in := range inputs {
		if in.Unused != "" && in.Format != FormatEmpty {
			opt.Log.Warn(fmt.Sprintf("%s (%s) gave nothing: %s", in.Path, in.Format, in.Unused))
		}
	}
	if w.spansWritten == 0 && w.stagesWritten > 0 {
		opt.Log.Warn(fmt.Sprintf("no request span: the run holds stages only (%d), whose budget and roles analyze measures over their own time, but no request metric. Try: ingest the requests' log (a gateway's log, the engine's request log or OTel spans) with them into one run", w.stagesWritten))
	} else if w.spansWritten == 0 {
		opt.Log.Warn("no request span: the run holds engine samples only, which analyze measures alone only over --from/--to. Try: ingest the requests' log (the engine's request log or OTel spans, a gateway's log, a load tool's results) with them into one run")
	}
	if err := w.close(); err != nil {
		return nil, err
	}
	m := w.manifest(inputs)
	m.Ignored = ignored
	m.Replaced = ds.replaced
	if m.Files, err = ds.describe(); err != nil {
		return nil, err
	}
	if err := writeManifest(ds, m); err != nil {
		return nil, err
	}
	if ctx.Err() != nil {
		return nil, interrupted(ctx)
	}
	switch {
	case ds.replaced != "":
		opt.Log.Warn(opt.OutDir + " held run " + ds.replaced + "; replacing it")
	case ds.replacedUnnamed:
		opt.Log.Warn(opt.OutDir + " held a dataset whose manifest names no run; replacing it")
	}
	if err := ds.commit(); err != nil {
		return nil, err
	}
	opt.Log.Info("ingest done", "run", opt.RunID, "out", opt.OutDir,
		"read", m.Counts.Read, "written", m.Counts.Written,
		"rejected", m.Counts.Rejected, "skipped", m.Counts.Skipped, "ignored", len(m.Ignored))
	return m, nil
}

// noFormatError is the error for an input that --format auto finds no
// format for.
type noFormatError struct{ path string }

func (e *noFormatError) Error() string {
	return fmt.Sprintf("cannot detect the format of %q. Try --format with one of: %s", e.path, strings.Join(Formats(), ", "))
}

// noneRead returns an error naming the first directory input of which no file
// was read: every one was ignored, so the directory was likely not meant.
func noneRead(srcs []source, read map[string]bool) error {
	var dir string
	var names []string
	for _, s := range srcs {
		if s.dir == "" || read[s.dir] || (dir != "" && s.dir != dir) {
			continue
		}
		dir = s.dir
		names = append(names, filepath.Base(s.path))
	}
	if dir == "" {
		return nil
	}
	list := strings.Join(names[:min(len(names), 5)], ", ")
	if len(names) > 5 {
		list += ", ..."
	}
	return fmt.Errorf("no input in directory %q: no format recognises its files (%s). Try --format with one of: %s",
		dir, list, strings.Join(Formats(), ", "))
}

func interrupted(ctx context.Context) error {
	return fmt.Errorf("ingest interrupted: %w", context.Cause(ctx))
}

func newProgress(w io.Writer, srcs []source) *progressbar.ProgressBar {
	if w == nil {
		return nil
	}
	var total int64
	for _, s := range srcs {
		if s.size < 0 {
			total = -1 // stdin: unknown length, a spinner
			break
		}
		total += s.size
	}
	return progressbar.NewOptions64(total,
		progressbar.OptionSetWriter(w),
		progressbar.OptionSetDescription("ingest"),
		progressbar.OptionShowBytes(true),
		progressbar.OptionSetWidth(30),
		progressbar.OptionThrottle(100*time.Millisecond),
		progressbar.OptionClearOnFinish(),
		progressbar.OptionSetRenderBlankState(true),
	)
}

func writeManifest(ds *runDataset, m *schemas.Manifest) error {
	f, err := ds.create(schemas.ManifestFile)
	if err != nil {
		return err
	}
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return fmt.Errorf("write %q: %w", f.final, err)
	}
	if _, err := f.Write(append(b, '\n')); err != nil {
		return fmt.Errorf("write %q: %w", f.final, dataset.Unwrap(err))
	}
	return nil
}

// ingest reads one input into the dataset and returns its manifest entry.
// With --format auto, an input that no format recognises is a
// *noFormatError; nothing of it has been counted then.
func (w *datasetWriter) ingest(ctx context.Context, src source, bar *progressbar.ProgressBar) (schemas.InputFile, error) {
	in, err := open(src, w.opt.Stdin, bar)
	if err != nil {
		return schemas.InputFile{}, err
	}
	defer in.close()
	if bar != nil {
		bar.Describe(src.path)
	}

	name := w.opt.Format
	if src.format != "" {
		name = src.format
	}
	detected := name == FormatAuto
	var others []string // other formats that claim the input
	if detected {
		head, err := in.head()
		if err != nil {
			return schemas.InputFile{}, err
		}
		name = detectFormat(head)
		others = rivals(head, name)
		switch {
		case name == "" && isBlankInput(head):
			// An empty rotated log is routine: counted (its blank lines
			// are skips), not a format to guess.
			name = FormatEmpty
			w.opt.Log.Info("empty input", "file", src.path)
		case name == "":
			if bar != nil && src.size > in.stored.n {
				_ = bar.Add64(src.size - in.stored.n) // not to be read
			}
			return schemas.InputFile{}, &noFormatError{src.path}
		default:
			w.opt.Log.Info("detected input format", "file", src.path, "format", name)
		}
	}
	newReader := newEmptyReader
	if name != FormatEmpty {
		newReader = formats[name].New
	}
	r := newReader(Input{Name: src.path, R: in.data, MaxLineBytes: w.opt.MaxLineBytes,
		Zone: w.opt.TZ, Year: w.opt.Year, Date: w.opt.Date, Mapping: w.mapping, Benchmark: w.opt.Benchmark})
	before := w.counts
	w.input = inputTally{}
	var stats inputStats
	if err := w.consume(ctx, r, name, in, &stats); err != nil {
		return schemas.InputFile{}, err
	}
	warned := stats.implausible > 0 // a warning of this input names its first reject
	if n, ok := r.(noticer); ok {
		for _, s := range n.notices() {
			w.opt.Log.Warn(s)
			warned = true
		}
	}
	if stats.implausible > 0 {
		w.opt.Log.Warn(fmt.Sprintf("%v; %d record(s) of %s rejected as implausible_time", stats.firstImplausible, stats.implausible, src.path))
	}
	f, err := in.finish(name)
	if err != nil {
		return schemas.InputFile{}, err
	}
	if in.gz != nil && in.gz.garbage {
		w.opt.Log.Warn(src.path + ": decompression OK, trailing garbage ignored (bytes after the gzip data)")
	}
	f.Detected = detected
	f.Counts = schemas.Counts{Read: w.counts.Read - before.Read, Written: w.counts.Written - before.Written,
		Rejected: w.counts.Rejected - before.Rejected, Skipped: w.counts.Skipped - before.Skipped}
	if w.input.useful == 0 {
		f.Unused = unusedReason(name, &w.input, f.Counts)
		if len(others) > 0 && f.Counts.Read > 0 {
			// Damage can hide what tells two formats apart (OTLP traces
			// of vLLM and of any GenAI instrumentation): say what else
			// the input may be, and how to read it as that.
			f.Unused += fmt.Sprintf("; it was detected as %s, and may be %s. Try: %s:%s",
				name, strings.Join(others, " or "), others[0], src.path)
		}
	} else if pe := w.input.firstReject; pe != nil && !warned {
		w.opt.Log.Warn(fmt.Sprintf("%s: %d of %d records rejected (rejects.jsonl lists them), %s",
			src.path, f.Counts.Rejected, f.Counts.Read, firstRejectText(pe)))
	}
	if f.Inconsistent = w.input.mismatches.list(); len(f.Inconsistent) > 0 {
		for _, c := range f.Inconsistent {
			what := "1 record read although its own fields disagree"
			if c.Count > 1 {
				what = fmt.Sprintf("%d records read although their own fields disagree", c.Count)
			}
			w.opt.Log.Warn(fmt.Sprintf("%s: %s (%s), the first: %s", src.path, what, c.Reason, c.First))
		}
	}
	if s, ok := r.(sampler); ok {
		f.Sampled = s.sampled()
		for _, p := range f.Sampled {
			w.opt.Log.Warn(src.path + ": " + p.String())
		}
	}
	if name != FormatEmpty {
		w.formats[name] = true
	}
	w.opt.Log.Debug("read input", "file", src.path, "format", name, "compression", in.compression,
		"bytes", f.Size, "read", w.counts.Read-before.Read, "rejected", w.counts.Rejected-before.Rejected)
	return f, nil
}

// batch carries the records of a run of input from the reading goroutine
// to the writing one.
type batch struct {
	spans   []schemas.Span
	samples []schemas.Sample
	stages  []schemas.Stage
	caps    []Cap
	rejects []rejected
	odd     []mismatch            // of the spans whose fields disagree
	read    int64                 // records read, of every kind
	skipped [numSkipReasons]int64 // by reason
	err     error                 // the reader's fatal error; set on the last batch only

	// refs counts the holders of the batch once the reader has handed it
	// over: the writing loop, and each row group still to encode some of its
	// spans (spanWriter). The last to let go recycles it.
	refs atomic.Int32
}

type rejected struct {
	err    *ParseError
	offset int64
	raw    string // prompt text removed, cut to 1 KiB
}

// batchRecords is how many records a batch holds at most.
const batchRecords = 4096

func (b *batch) reset() {
	// Drop the references to decoded values (arena chunks, strings).
	clear(b.spans)
	clear(b.samples)
	clear(b.stages)
	clear(b.rejects)
	b.spans = b.spans[:0]
	b.samples = b.samples[:0]
	b.stages = b.stages[:0]
	b.caps = b.caps[:0]
	b.rejects = b.rejects[:0]
	b.odd = b.odd[:0]
	b.read, b.skipped, b.err = 0, [numSkipReasons]int64{}, nil
}

// consume runs one input through the pipeline: a goroutine reads and decodes
// records into batches, this one writes them, handing the spans on to the
// row groups being encoded (spanWriter), which release each batch when done
// with it. On error or cancellation the reader is stopped and waited for
// before consume returns, so that the input can be closed; Run stops the
// row groups.
func (w *datasetWriter) consume(ctx context.Context, r Reader, format string, in *openInput, stats *inputStats) error {
	batches := make(chan *batch, 2)
	stop := make(chan struct{})
	go w.produce(r, format, in.name, batches, stop, stats)

	var err error
	stopped := false
	halt := func(e error) {
		if err == nil {
			err = e
		}
		if !stopped {
			close(stop)
			stopped = true
		}
	}
	done := ctx.Done()
	for {
		select {
		case b, ok := <-batches:
			if !ok {
				return err
			}
			b.refs.Store(1)
			if err == nil {
				if e := w.write(b, in); e != nil {
					halt(e)
				}
			}
			w.release(b)
		case <-done:
			done = nil
			halt(interrupted(ctx))
		}
	}
}

// produce reads records from r into batches until the input ends or stop is
// closed; it closes out when it returns. It turns a span or sample with an
// implausible instant into a reject, and counts those in stats, which the
// caller reads once out is closed.
func (w *datasetWriter) produce(r Reader, format, file string, out chan<- *batch, stop <-chan struct{}, stats *inputStats) {
	defer close(out)
	if s, ok := r.(stopper); ok {
		defer s.stop()
	}
	known := w.mapping.knownKeys() // in rejects, keep what the mapping reads
	b := w.newBatch()
	for r.Next() {
		rec := r.Record()
		b.read++
		if err := implausibleRecord(rec, file); err != nil {
			stats.implausible++
			if stats.firstImplausible == nil {
				stats.firstImplausible = err
			}
		}
		switch rec.Kind {
		case KindSpan:
			b.spans = append(b.spans, rec.Span)
			sp := &b.spans[len(b.spans)-1]
			sp.RunID = w.opt.RunID
			if sp.Source == "" {
				sp.Source = format
			}
			if rec.Mismatch != "" {
				b.odd = append(b.odd, mismatch{rec.Mismatch, rec.MismatchText})
			}
		case KindSample:
			b.samples = append(b.samples, rec.Sample)
			sm := &b.samples[len(b.samples)-1]
			sm.RunID = w.opt.RunID
			if sm.Source == "" {
				sm.Source = format
			}
		case KindStage:
			b.stages = append(b.stages, rec.Stage)
			sg := &b.stages[len(b.stages)-1]
			sg.RunID = w.opt.RunID
			if sg.Source == "" {
				sg.Source = format
			}
		case KindCap:
			b.caps = append(b.caps, rec.Cap)
		case KindReject:
			pe := rec.Err
			if pe == nil {
				pe = &ParseError{File: file, Line: rec.Line, Err: scan.Errorf(ErrBadValue, -1, "malformed record")}
			}
			b.rejects = append(b.rejects, rejected{err: pe, offset: rec.Offset, raw: redactRawKnown(rec.Raw, known)})
		default:
			why := rec.Skip
			if why >= numSkipReasons {
				why = SkipOther
			}
			b.skipped[why]++
		}
		if b.read >= batchRecords {
			select {
			case out <- b:
			case <-stop:
				return
			}
			b = w.newBatch()
		}
	}
	b.err = r.Err()
	select {
	case out <- b:
	case <-stop:
	}
}

func (w *datasetWriter) newBatch() *batch {
	select {
	case b := <-w.free:
		return b
	default:
		return &batch{spans: make([]schemas.Span, 0, batchRecords)}
	}
}

// manifest returns the manifest of what was written.
func (w *datasetWriter) manifest(inputs []schemas.InputFile) *schemas.Manifest {
	m := &schemas.Manifest{
		RunID:          w.opt.RunID,
		Tool:           "tpsreport",
		Version:        w.opt.Version,
		Inputs:         inputs,
		Counts:         w.counts,
		RejectedBy:     w.rejectedBy,
		SkippedBy:      map[string]int64{},
		SamplesWritten: w.samplesWritten,
		StagesWritten:  w.stagesWritten,
	}
	for why, n := range w.skippedBy {
		if n > 0 {
			m.SkippedBy[SkipReason(why).String()] = n
		}
	}
	if w.hasTime {
		m.TimeRange = &schemas.TimeRange{Start: schemas.Time(w.minTime), End: schemas.Time(w.maxTime)}
	}
	if w.hasCap {
		m.MaxNumSeqs = schemas.Ptr(w.maxCap)
	}
	if len(w.capBy) > 0 {
		m.MaxNumSeqsBy = w.capBy
	}
	for f := range w.formats {
		m.FormatsDetected = append(m.FormatsDetected, f)
	}
	slices.Sort(m.FormatsDetected)
	return m
}
