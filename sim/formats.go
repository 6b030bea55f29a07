package sim

import (
	"bufio"
	"fmt"
	"hash/fnv"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/tpsreport/tpsreport/schemas"
)

// Formats WriteFormats writes, by ingest format name. Each is one file in the
// output directory.
const (
	FormatSpans    = "spans"     // spans.jsonl: canonical spans (schemas/README.md)
	FormatSamples  = "samples"   // samples.jsonl: canonical samples (schemas/README.md)
	FormatVLLMOTel = "vllm-otel" // vllm-otel.jsonl: vLLM llm_request spans, OTLP/JSON (engine side)
	FormatLiteLLM  = "litellm"   // litellm.jsonl: LiteLLM StandardLoggingPayload NDJSON (gateway side)
	FormatVLLMLog  = "vllm-log"  // vllm.log: vLLM server log lines (startup args, periodic stats)
	// litellm-metrics.jsonl: LiteLLM payloads whose responses carry vLLM's
	// per-request metrics (gateway side with the engine's times; ingest
	// format litellm)
	FormatLiteLLMMetrics = "litellm-metrics"
	// sglang-request-metrics.log: SGLang's request metrics export (engine
	// side; ingest format sglang-metrics)
	FormatSGLangMetrics = "sglang-metrics"
)

// TruthFile is the name of the truth WriteFormats writes beside the logs.
const TruthFile = "truth.json"

var formatFiles = map[string]string{
	FormatSpans:    "spans.jsonl",
	FormatSamples:  "samples.jsonl",
	FormatVLLMOTel: "vllm-otel.jsonl",
	FormatLiteLLM:  "litellm.jsonl",
	FormatVLLMLog:  "vllm.log",

	FormatLiteLLMMetrics: "litellm-metrics.jsonl",
	FormatSGLangMetrics:  "sglang-request-metrics.log",
}

// IngestFormat returns the ingest format that reads a simulator format's
// file: the same name, except litellm-metrics (read as litellm).
func IngestFormat(format string) string {
	if format == FormatLiteLLMMetrics {
		return FormatLiteLLM
	}
	return format
}

// Formats returns the format names WriteFormats knows, sorted.
func Formats() []string {
	names := make([]string, 0, len(formatFiles))
	for n := range formatFiles {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// FormatFile returns the file name WriteFormats gives format, or "" for an
// unknown format.
func FormatFile(format string) string { return formatFiles[format] }

// WriteFormats runs sc with seed once and writes the run in each of formats
// (all of Formats() when none is given) into dir, one file per format (see
// FormatFile), plus truth.json. Every file is written under a temporary name
// and renamed into place when the run is complete, so a failed run leaves
// nothing half-written. The same (sc, seed) gives byte-identical files.
func WriteFormats(dir string, sc Scenario, seed uint64, formats ...string) (Truth, error) {
	if len(formats) == 0 {
		formats = Formats()
	}
	for i, f := range formats {
		if formatFiles[f] == "" {
			return Truth{}, fmt.Errorf("unknown simulator output format %q (want %s)", f, strings.Join(Formats(), ", "))
		}
		if slices.Contains(formats[:i], f) {
			return Truth{}, fmt.Errorf("output format %q given twice", f)
		}
	}
	if err := sc.Validate(); err != nil {
		return Truth{}, err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return Truth{}, fmt.Errorf("create %s: %w", dir, err)
	}
	outs := &outFiles{dir: dir}
	defer outs.abort()
	create := outs.create
	var ws []Writer
	var spans, samples io.Writer
	for _, f := range formats {
		w, err := create(formatFiles[f])
		if err != nil {
			return Truth{}, err
		}
		switch f {
		case FormatSpans:
			spans = w
		case FormatSamples:
			samples = w
		case FormatVLLMOTel:
			ws = append(ws, NewVLLMOTel(w, sc, seed))
		case FormatLiteLLM:
			ws = append(ws, NewLiteLLM(w, sc, seed))
		case FormatVLLMLog:
			ws = append(ws, NewVLLMLog(w, sc, seed))
		case FormatLiteLLMMetrics:
			ws = append(ws, NewLiteLLMMetrics(w, sc, seed))
		case FormatSGLangMetrics:
			ws = append(ws, NewSGLangMetrics(w, sc, seed))
		}
	}
	if spans != nil || samples != nil {
		if spans == nil {
			spans = io.Discard
		}
		ws = append([]Writer{NewJSONL(spans, samples)}, ws...)
	}
	tw, err := create(TruthFile)
	if err != nil {
		return Truth{}, err
	}
	truth, err := Generate(sc, seed, Tee(ws...))
	if err != nil {
		return truth, err
	}
	if err := WriteTruth(tw, truth); err != nil {
		return truth, err
	}
	if err := outs.commit(); err != nil {
		return truth, err
	}
	return truth, nil
}

// outFiles are a simulation's output files, each written under a
// temporary name in dir and renamed into place by commit, so that a reader
// never sees a file half written; abort removes those not committed.
type outFiles struct {
	dir   string
	files []*outFile
}

type outFile struct {
	name string
	f    *os.File
	bw   *bufio.Writer
}

// create opens the output name.
func (o *outFiles) create(name string) (*bufio.Writer, error) {
	f, err := os.CreateTemp(o.dir, "."+name+".tmp-")
	if err != nil {
		return nil, err
	}
	of := &outFile{name: name, f: f, bw: bufio.NewWriterSize(f, 1<<20)}
	o.files = append(o.files, of)
	if err := f.Chmod(0o644); err != nil {
		return nil, err
	}
	return of.bw, nil
}

// commit flushes and closes every output, then renames each into place.
func (o *outFiles) commit() error {
	for _, of := range o.files {
		if err := of.bw.Flush(); err != nil {
			return fmt.Errorf("write %s: %w", of.name, err)
		}
		if err := of.f.Close(); err != nil {
			return fmt.Errorf("write %s: %w", of.name, err)
		}
	}
	for _, of := range o.files {
		if err := os.Rename(of.f.Name(), filepath.Join(o.dir, of.name)); err != nil {
			return err
		}
		of.f = nil
	}
	return nil
}

// abort removes the outputs not committed.
func (o *outFiles) abort() {
	for _, of := range o.files {
		if of.f != nil {
			of.f.Close()
			os.Remove(of.f.Name())
		}
	}
}

// Tee returns a Writer that writes every span and sample to each of ws in
// order, stopping at the first error.
func Tee(ws ...Writer) Writer { return tee(slices.Clone(ws)) }

type tee []Writer

func (t tee) WriteSpan(s schemas.Span) error {
	for _, w := range t {
		if err := w.WriteSpan(s); err != nil {
			return err
		}
	}
	return nil
}

func (t tee) WriteSample(s schemas.Sample) error {
	for _, w := range t {
		if err := w.WriteSample(s); err != nil {
			return err
		}
	}
	return nil
}

func (t tee) Flush() error {
	var first error
	for _, w := range t {
		if err := w.Flush(); err != nil && first == nil {
			first = err
		}
	}
	return first
}

// idBits derives 64 pseudo-random bits from (seed, salt, key), for the ids
// real systems draw at random (trace and span ids, payload ids): a pure
// function of the run, so the same seed writes the same ids.
func idBits(seed uint64, salt, key string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(salt))
	h.Write([]byte{0})
	h.Write([]byte(key))
	return splitmix64(splitmix64(seed) ^ h.Sum64())
}

// appendHexID appends n bytes (8 or 16) of id bits as lower-case hex.
func appendHexID(b []byte, seed uint64, salt, key string, n int) []byte {
	for i := 0; i < n; i += 8 {
		v := idBits(seed, salt+strconv.Itoa(i), key)
		if i == 0 && v == 0 {
			v = 1 // all-zero ids are invalid in OTLP
		}
		for j := 60; j >= 0; j -= 4 {
			b = append(b, hexDigits[v>>uint(j)&0xf])
		}
	}
	return b
}

// appendSeconds appends the µs duration or instant us as decimal seconds with
// at most six fraction digits and no trailing zeros ("12.3405", "3"): the
// shortest text that gives the float64 nearest us/1e6, as Python's repr of
// that float prints it, so a reader that rounds to the µs gets us back.
func appendSeconds(b []byte, us int64) []byte {
	return strconv.AppendFloat(b, float64(us)/1e6, 'f', -1, 64)
}
