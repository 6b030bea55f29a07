package ingest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tpsreport/tpsreport/schemas"
)

// TestRunCountsEmptyInputs: with --format auto, an empty or
// whitespace-only input (an empty rotated log) is listed with format
// "empty", its lines counted as blank skips, and the ingest goes on, in a
// directory or named on its own.
func TestRunCountsEmptyInputs(t *testing.T) {
	dir := t.TempDir()
	logs := filepath.Join(dir, "logs")
	good, _ := validInput(0, 2)
	writeFile(t, filepath.Join(logs, "a.jsonl"), []byte(good))
	writeFile(t, filepath.Join(logs, "b.jsonl"), nil)
	writeFile(t, filepath.Join(logs, "c.jsonl"), []byte(" \n\t\r\n\n"))
	writeFile(t, filepath.Join(logs, "d.jsonl.gz"), gzipped(t, "\ufeff\n"))

	var log bytes.Buffer
	m, err := Run(context.Background(), Options{RunID: "r", OutDir: filepath.Join(dir, "out"), Inputs: []string{logs}, Log: newTestLogger(&log)})
	if err != nil {
		t.Fatal(err)
	}
	// a: 2 spans; b: no line; c: 3 blank lines; d: 1 (a BOM and a newline).
	if want := (schemas.Counts{Read: 6, Written: 2, Skipped: 4}); m.Counts != want {
		t.Errorf("counts %+v, want %+v", m.Counts, want)
	}
	if fmt.Sprint(m.SkippedBy) != "map[blank:4]" || len(m.Ignored) != 0 || fmt.Sprint(m.FormatsDetected) != "[spans]" {
		t.Errorf("skipped_by %v, ignored %v, formats %v", m.SkippedBy, m.Ignored, m.FormatsDetected)
	}
	var got []string
	for _, in := range m.Inputs {
		got = append(got, fmt.Sprintf("%s %s %v", filepath.Base(in.Path), in.Format, in.Detected))
	}
	if want := "a.jsonl spans true|b.jsonl empty true|c.jsonl empty true|d.jsonl.gz empty true"; strings.Join(got, "|") != want {
		t.Errorf("inputs %v, want %s", got, want)
	}
	if want := "level=INFO msg=\"empty input\" file=" + filepath.Join(logs, "b.jsonl"); !strings.Contains(log.String(), want) {
		t.Errorf("log\n%s\nlacks %s", log.String(), want)
	}

	// Named on its own, an empty file leaves nothing to analyse: an input
	// error that says so, and no dataset.
	_, err = Run(context.Background(), Options{RunID: "r", OutDir: filepath.Join(dir, "out2"), Inputs: []string{filepath.Join(logs, "c.jsonl")}})
	if want := "nothing to analyse: no input gave a request or an engine sample; " + filepath.Join(logs, "c.jsonl") + " (empty): the file is empty (blank lines only): check the path, and that the server logs to it"; err == nil || err.Error() != want || !errors.Is(err, ErrNothingWritten) {
		t.Errorf("error %v, want %s", err, want)
	}
	if _, err := os.Stat(filepath.Join(dir, "out2", schemas.ManifestFile)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("manifest of an ingest that wrote nothing: %v", err)
	}
}

// TestRunNamesFirstReject: an input that gave spans and also rejects some
// records names its first reject on the console (with its line, the path
// said once) and what it wrote counts in its own manifest entry.
func TestRunNamesFirstReject(t *testing.T) {
	dir := t.TempDir()
	good, _ := validInput(0, 2)
	in := filepath.Join(dir, "a.jsonl")
	writeFile(t, in, []byte(good+`{"span_id":"x"}`+"\n"))
	var log bytes.Buffer
	m, err := Run(context.Background(), Options{RunID: "r", Format: "spans", OutDir: filepath.Join(dir, "out"), Inputs: []string{in}, Log: newTestLogger(&log)})
	if err != nil {
		t.Fatal(err)
	}
	if want := (schemas.Counts{Read: 3, Written: 2, Rejected: 1}); m.Inputs[0].Counts != want || m.Inputs[0].Unused != "" {
		t.Errorf("input counts %+v unused %q, want %+v", m.Inputs[0].Counts, m.Inputs[0].Unused, want)
	}
	if want := in + ": 1 of 3 records rejected (rejects.jsonl lists them), the first (line 3): missing status"; !strings.Contains(log.String(), want) {
		t.Errorf("log\n%s\nlacks %q", log.String(), want)
	}
}

// TestDamagedOTLPIsToldApart (hostile-input review N12): a collector file
// of GenAI spans whose first line is damaged (invalid UTF-8 in its first
// key) is still detected as otel-genai, and its other records are read;
// OTLP traces whose values are all of the wrong type, which both OTLP
// formats claim and neither can read, say what else they may be and how to
// read them as that.
func TestDamagedOTLPIsToldApart(t *testing.T) {
	dir := t.TempDir()
	good, err := os.ReadFile(filepath.Join("testdata", "otel-genai", "collector_file.good.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	damaged := filepath.Join(dir, "genai.jsonl")
	writeFile(t, damaged, bytes.Replace(good, []byte(`"`), []byte("\"\xff\xfe\xc0"), 3))
	m, err := Run(context.Background(), Options{RunID: "r", OutDir: filepath.Join(dir, "out"), Inputs: []string{damaged}, Log: newTestLogger(io.Discard)})
	if err != nil {
		t.Fatal(err)
	}
	if f := m.Inputs[0]; f.Format != SourceOTelGenAI || f.Counts.Rejected != 1 || f.Counts.Written != 3 {
		t.Errorf("damaged first line: format %s, counts %+v; want otel-genai, 3 written, 1 rejected", f.Format, f.Counts)
	}

	swapped := filepath.Join(dir, "swapped.jsonl")
	writeFile(t, swapped, []byte(`{"resourceSpans":[{"resource":{"attributes":[{"key":12345,"value":{"stringValue":12345}}]},"scopeSpans":[{"scope":{"name":12345},"spans":[{"traceId":12345,"spanId":12345,"name":12345,"startTimeUnixNano":"1x","endTimeUnixNano":"2x","attributes":[{"key":12345,"value":{"intValue":"7x"}}]}]}]}]}`+"\n"))
	_, err = Run(context.Background(), Options{RunID: "r", OutDir: filepath.Join(dir, "out2"), Inputs: []string{swapped}, Log: newTestLogger(io.Discard)})
	if want := "it was detected as otel-genai, and may be vllm-otel. Try: vllm-otel:" + swapped; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("err %v, want it to say %q", err, want)
	}
}
