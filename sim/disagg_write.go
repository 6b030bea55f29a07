package sim

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"

	"github.com/tpsreport/tpsreport/schemas"
)

// StagesFile is the file of a disaggregated run's stages in the canonical
// JSONL (ingest's stages format).
const StagesFile = "stages.jsonl"

// WriteDisagg runs sc with seed and writes into dir its spans (spans.jsonl,
// as the gateway saw each request), its stages (stages.jsonl), every
// worker's samples (samples.jsonl) and truth.json, each through a temporary
// name.
func WriteDisagg(dir string, sc Disagg, seed uint64) (DisaggTruth, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return DisaggTruth{}, fmt.Errorf("create %s: %w", dir, err)
	}
	type out struct {
		name string
		f    *os.File
		bw   *bufio.Writer
	}
	var outs []*out
	defer func() {
		for _, o := range outs {
			if o.f != nil {
				o.f.Close()
				os.Remove(o.f.Name())
			}
		}
	}()
	create := func(name string) (*bufio.Writer, error) {
		f, err := os.CreateTemp(dir, "."+name+".tmp-")
		if err != nil {
			return nil, err
		}
		o := &out{name: name, f: f, bw: bufio.NewWriterSize(f, 1<<20)}
		outs = append(outs, o)
		return o.bw, f.Chmod(0o644)
	}
	var ws [4]*bufio.Writer
	for i, name := range []string{formatFiles[FormatSpans], formatFiles[FormatSamples], StagesFile, TruthFile} {
		w, err := create(name)
		if err != nil {
			return DisaggTruth{}, err
		}
		ws[i] = w
	}
	runID := sc.RunID
	if runID == "" {
		runID = sc.Name
	}
	var buf []byte
	line := func(w *bufio.Writer, b []byte) error {
		_, err := w.Write(append(b, '\n'))
		return err
	}
	tr, err := RunDisagg(sc, seed, DisaggWriter{
		Span: func(s schemas.Span) error {
			s.RunID, s.Source = runID, "spans"
			buf = AppendSpanJSON(buf[:0], &s)
			return line(ws[0], buf)
		},
		Sample: func(s schemas.Sample) error {
			s.RunID, s.Source = runID, "samples"
			buf = AppendSampleJSON(buf[:0], &s)
			return line(ws[1], buf)
		},
		Stage: func(s schemas.Stage) error {
			buf = AppendStageJSON(buf[:0], &s)
			return line(ws[2], buf)
		},
	})
	if err != nil {
		return tr, err
	}
	b, err := json.MarshalIndent(tr, "", "  ")
	if err != nil {
		return tr, fmt.Errorf("encode truth: %w", err)
	}
	if _, err := ws[3].Write(append(b, '\n')); err != nil {
		return tr, err
	}
	for _, o := range outs {
		if err := o.bw.Flush(); err != nil {
			return tr, fmt.Errorf("write %s: %w", o.name, err)
		}
		if err := o.f.Close(); err != nil {
			return tr, fmt.Errorf("write %s: %w", o.name, err)
		}
	}
	for _, o := range outs {
		if err := os.Rename(o.f.Name(), filepath.Join(dir, o.name)); err != nil {
			return tr, err
		}
		o.f = nil
	}
	return tr, nil
}

// AppendStageJSON appends s as one line of the canonical stages format (no
// newline): its keys in the order of schemas.Stage, nil fields omitted,
// timestamps as RFC 3339 UTC strings with six fraction digits. run_id and
// source are left to ingest.
func AppendStageJSON(b []byte, s *schemas.Stage) []byte {
	b = append(b, `{"request_id":`...)
	b = appendString(b, s.RequestID)
	if s.Attempt != nil {
		b = append(b, `,"attempt":`...)
		b = strconv.AppendInt(b, int64(*s.Attempt), 10)
	}
	b = append(b, `,"stage":`...)
	b = appendString(b, s.Stage)
	b = appendOptString(b, `,"role":`, s.Role)
	b = appendOptString(b, `,"replica":`, s.Replica)
	b = appendOptTime(b, `,"started_at":`, &s.StartedAt)
	b = appendOptTime(b, `,"ended_at":`, &s.EndedAt)
	if s.Bytes != nil {
		b = append(b, `,"bytes":`...)
		b = strconv.AppendInt(b, *s.Bytes, 10)
	}
	return append(b, '}')
}
