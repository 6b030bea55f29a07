package ingest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tpsreport/tpsreport/ingest/internal/scan"
	"github.com/tpsreport/tpsreport/schemas"
)

// gatewayFixtureFormats are the formats with fixtures under testdata/<name>/.
var gatewayFixtureFormats = []string{SourceLiteLLM, SourceOTelGenAI, SourceEnvoyAI, SourceKong, SourceMapping}

// fixtureFiles returns the fixtures of a format whose names contain kind
// (".good." or ".bad."), leaving out the mapping files themselves.
func fixtureFiles(t *testing.T, format, kind string) []string {
	t.Helper()
	all, _ := filepath.Glob(filepath.Join("testdata", format, "*"+kind+"*"))
	var files []string
	for _, f := range all {
		if strings.HasSuffix(f, ".want") || strings.HasSuffix(f, ".yaml") {
			continue
		}
		files = append(files, f)
	}
	return files
}

// fixtureMapping returns the mapping file of a fixture: for mapping
// fixtures named GATEWAY.*.good.jsonl the example mapping GATEWAY.yaml, and
// nil for the other formats.
func fixtureMapping(t *testing.T, format, file string) *Mapping {
	t.Helper()
	if format != SourceMapping {
		return nil
	}
	base := filepath.Base(file)
	name := base[:strings.IndexByte(base, '.')]
	m, err := LoadMapping(filepath.Join("testdata", "mapping", name+".yaml"))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// readGateway runs a gateway format's reader over a file.
func readGateway(t *testing.T, format, file string, m *Mapping) []Record {
	t.Helper()
	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rd := formats[format].New(Input{Name: file, R: f, MaxLineBytes: DefaultMaxLineBytes, Mapping: m})
	var recs []Record
	for rd.Next() {
		rec := *rd.Record()
		rec.Raw = bytes.Clone(rec.Raw)
		recs = append(recs, rec)
	}
	if err := rd.Err(); err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	return recs
}

func goldenPath(format, file, ext string) string {
	base := filepath.Base(file)
	base = base[:strings.LastIndexByte(base, '.')]
	return filepath.Join("testdata", format, "golden", base+ext)
}

// TestGatewayGood reads every testdata/<format>/*.good.* fixture and pins
// the spans it yields (golden/NAME.golden, one JSON object per record with
// its line or offset). A good fixture yields no reject.
func TestGatewayGood(t *testing.T) {
	for _, format := range gatewayFixtureFormats {
		files := fixtureFiles(t, format, ".good.")
		if len(files) == 0 {
			t.Errorf("no testdata/%s/*.good.*", format)
		}
		for _, file := range files {
			t.Run(filepath.Base(file), func(t *testing.T) {
				var out bytes.Buffer
				spans := 0
				for _, rec := range readGateway(t, format, file, fixtureMapping(t, format, file)) {
					switch rec.Kind {
					case KindReject:
						t.Errorf("unexpected reject: %v", rec.Err)
					case KindSpan:
						spans++
						if rec.Span.Source != format {
							t.Errorf("source %q, want %q", rec.Span.Source, format)
						}
						if !schemas.ValidStatus(rec.Span.Status) {
							t.Errorf("status %q", rec.Span.Status)
						}
						b, err := json.Marshal(struct {
							Line   int64        `json:"line,omitempty"`
							Offset int64        `json:"offset,omitempty"`
							Span   schemas.Span `json:"span"`
						}{rec.Line, rec.Offset, rec.Span})
						if err != nil {
							t.Fatal(err)
						}
						out.Write(b)
						out.WriteByte('\n')
					}
				}
				if spans == 0 {
					t.Errorf("no spans")
				}
				golden(t, goldenPath(format, file, ".golden"), out.Bytes())
			})
		}
	}
}

// TestGatewayBad reads every *.bad.* fixture: each of its records must be
// rejected with a *ParseError; the rejects are pinned in golden/NAME.want.
func TestGatewayBad(t *testing.T) {
	for _, format := range gatewayFixtureFormats {
		for _, file := range fixtureFiles(t, format, ".bad.") {
			t.Run(filepath.Base(file), func(t *testing.T) {
				var out bytes.Buffer
				m := fixtureMapping(t, format, file)
				for _, rec := range readGateway(t, format, file, m) {
					switch rec.Kind {
					case KindSpan:
						t.Errorf("line %d offset %d: accepted, want a reject", rec.Line, rec.Offset)
					case KindReject:
						pe := rec.Err
						if pe == nil || pe.File != file {
							t.Fatalf("reject error %#v", pe)
						}
						fmt.Fprintf(&out, "%s [%s]\n\traw %s\n", pe, pe.Kind(), redactRawKnown(rec.Raw, m.knownKeys()))
					}
				}
				golden(t, goldenPath(format, file, ".want"), out.Bytes())
			})
		}
	}
}

// TestGatewayNoText checks that no text of a fixture's messages, response
// or payload reaches a span or a reject.
func TestGatewayNoText(t *testing.T) {
	secrets := []string{"capital of Australia", "Canberra", "incident report", "outage began",
		"secret prompt", "Tell me a joke", "knock knock", "haiku", "Why did the"}
	for _, format := range gatewayFixtureFormats {
		for _, kind := range []string{".good.", ".bad."} {
			for _, file := range fixtureFiles(t, format, kind) {
				for _, rec := range readGateway(t, format, file, fixtureMapping(t, format, file)) {
					var got string
					switch rec.Kind {
					case KindSpan:
						b, _ := json.Marshal(rec.Span)
						got = string(b)
					case KindReject:
						got = rec.Err.Error() + redactRaw(rec.Raw)
					}
					for _, s := range secrets {
						if strings.Contains(got, s) {
							t.Errorf("%s: %q reached the output: %s", file, s, got)
						}
					}
				}
			}
		}
	}
}

// allFormats is the formats table.
func allFormats() map[string]format { return formats }

// detectAll is detectFormat, with the winning score.
func detectAll(head []byte) (string, int) {
	all := allFormats()
	names := make([]string, 0, len(all))
	for n := range all {
		names = append(names, n)
	}
	slices.Sort(names)
	best, bestScore := "", 0
	for _, n := range names {
		if s := all[n].Sniff(head); s > bestScore {
			best, bestScore = n, s
		}
	}
	return best, bestScore
}

// TestGatewaySniff checks that --format auto picks each fixture's own
// format. Mapping fixtures are other gateways' logs: no format but an
// explicit --format mapping claims them, so they must not be taken for
// one of ours.
func TestGatewaySniff(t *testing.T) {
	for _, format := range gatewayFixtureFormats {
		for _, file := range fixtureFiles(t, format, ".good.") {
			b, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			head := b[:min(len(b), scan.SniffBytes)]
			got, score := detectAll(head)
			if format == SourceMapping {
				if got != "" && got != "spans" {
					t.Errorf("%s: claimed by %s (%d)", file, got, score)
				}
				continue
			}
			if got != format {
				t.Errorf("%s: detected %q (score %d), want %q", file, got, score, format)
			}
			// Windows tools start files with a byte order mark.
			if got := detectFormat(append(slices.Clone(scan.BOM), head...)); got != format {
				t.Errorf("%s after a UTF-8 BOM: detected %q, want %q", file, got, format)
			}
		}
	}
	// The canonical format's own fixtures stay canonical.
	files, _ := filepath.Glob("testdata/spans/*.good.jsonl")
	for _, file := range files {
		b, _ := os.ReadFile(file)
		if got, _ := detectAll(b); got != "spans" {
			t.Errorf("%s: detected %q, want spans", file, got)
		}
		if got := detectFormat(append(slices.Clone(scan.BOM), b...)); got != "spans" {
			t.Errorf("%s after a UTF-8 BOM: detected %q, want spans", file, got)
		}
	}
}

// TestGatewayTimestampEncodings checks that every encoding of one instant
// lands on the same microsecond: epoch seconds (float, string), epoch ms,
// naive wall time read in several zones, RFC 3339 with offsets, PostgreSQL's
// "+hh" offset.
func TestGatewayTimestampEncodings(t *testing.T) {
	const want = int64(1795168800_123457) // 2026-11-20T10:00:00.123457Z
	type enc struct {
		v    any
		zone string
	}
	cases := []enc{
		{json.Number("1795168800.123457"), ""},
		{json.Number("1795168800.1234565"), ""}, // rounds half up
		{"1795168800.123457", ""},
		{json.Number("1795168800123457"), ""},
		{"2026-11-20T10:00:00.123457Z", ""},
		{"2026-11-20T10:00:00.1234569Z", ""},
		{"2026-11-20T11:00:00.123457+01:00", ""},
		{"2026-11-20T04:30:00.123457-05:30", ""},
		{"2026-11-20 10:00:00.123457+00", ""},
		{"2026-11-20 19:00:00.123457+09", ""},
		{"2026-11-20 10:00:00.123457", ""},
		{"2026-11-20 10:00:00.123457", "UTC"},
		{"2026-11-20 11:00:00.123457", "Europe/Berlin"},
		{"2026-11-20T05:00:00.123457", "America/New_York"},
		{"2026-11-20 19:00:00.123457", "Asia/Tokyo"},
		{"2026-11-20 15:30:00.123457", "Asia/Kolkata"},
		{"2026-11-20 23:00:00.123457", "Pacific/Auckland"}, // NZDT, +13
	}
	for _, c := range cases {
		var zone *time.Location
		if c.zone != "" {
			var err error
			if zone, err = time.LoadLocation(c.zone); err != nil {
				t.Skipf("no tzdata: %v", err)
			}
		}
		got, err := scan.ValTime(c.v, "t", zone)
		if err != nil {
			t.Errorf("%v in %q: %v", c.v, c.zone, err)
			continue
		}
		if *got != want {
			t.Errorf("%v in %q: got %d, want %d", c.v, c.zone, *got, want)
		}
	}
	// Through a whole reader: one LiteLLM record per encoding.
	berlin, err := time.LoadLocation("Europe/Berlin")
	if err != nil {
		t.Skipf("no tzdata: %v", err)
	}
	var in strings.Builder
	for _, st := range []string{`1795168800.123457`, `"2026-11-20T11:00:00.123457+01:00"`, `"2026-11-20 11:00:00.123457"`} {
		fmt.Fprintf(&in, `{"id":"a","status":"success","startTime":%s,"endTime":1795168801}`+"\n", st)
	}
	rd := newLiteLLMReader(Input{Name: "x", R: strings.NewReader(in.String()), MaxLineBytes: 4096, Zone: berlin})
	n := 0
	for rd.Next() {
		rec := rd.Record()
		if rec.Kind != KindSpan {
			t.Fatalf("line %d: %v", rec.Line, rec.Err)
		}
		if *rec.Span.QueuedAt != want {
			t.Errorf("line %d: queued_at %d, want %d", rec.Line, *rec.Span.QueuedAt, want)
		}
		n++
	}
	if n != 3 {
		t.Errorf("%d spans", n)
	}
}

// TestJSONRecordReaderModes checks the three input shapes and their positions.
func TestJSONRecordReaderModes(t *testing.T) {
	rec := `{"id":"a","status":"success","startTime":1795168800,"endTime":1795168801}`
	tests := []struct {
		name, in  string
		positions []string // "L<line>" or "O<offset>" per record, kind first letter
	}{
		{"ndjson", rec + "\n\n" + rec + "\n", []string{"span L1", "skip L2", "span L3"}},
		{"array", "[\n " + rec + ",\n " + rec + "\n]\n", []string{"span O3", "span O" + scan.Itoa(int64(6+len(rec)))}},
		{"document", "{\n \"id\": \"a\", \"status\": \"success\",\n \"startTime\": 1795168800, \"endTime\": 1795168801\n}\n", []string{"span O0"}},
		{"bom+array", "\xEF\xBB\xBF[" + rec + "]", []string{"span O4"}},
		{"truncated array", "[" + rec + ",{\"id\":", []string{"span O1", "reject O" + scan.Itoa(int64(2+len(rec)))}},
		{"empty array", "[]", nil},
		{"after the array", "[]]", []string{"reject O2"}},
		{"bad line", "{nope}\n" + rec, []string{"reject L1", "span L2"}},
	}
	for _, tt := range tests {
		rd := formats[SourceLiteLLM].New(Input{Name: "x", R: strings.NewReader(tt.in), MaxLineBytes: 4096})
		var got []string
		for rd.Next() {
			r := rd.Record()
			pos := "O" + scan.Itoa(r.Offset)
			if r.Line > 0 {
				pos = "L" + scan.Itoa(r.Line)
			}
			got = append(got, r.Kind.String()+" "+pos)
			if r.Kind == KindReject && r.Err == nil {
				t.Errorf("%s: reject without error", tt.name)
			}
		}
		if rd.Err() != nil {
			t.Errorf("%s: %v", tt.name, rd.Err())
		}
		if !slices.Equal(got, tt.positions) {
			t.Errorf("%s: got %q, want %q", tt.name, got, tt.positions)
		}
	}
}

// TestMappingErrors pins the start-up errors of mapping files.
func TestMappingErrors(t *testing.T) {
	tests := []struct{ yaml, want string }{
		{"columns: {span_id: {path: id}, queued_at: {path: t}}", "mapping m.yaml: map status, or give defaults: {status: ok}"},
		{"columns: {spanid: {path: id}}", `mapping m.yaml: unknown column "spanid" (want a spans.parquet column: span_id, request_id, attempt, queued_at, ...)`},
		{"columns: {span_id: {path: id}, status: {path: s, type: enum}, queued_at: {path: t}}", `mapping m.yaml: column status: type "enum" (want word or http)`},
		{"columns: {span_id: {path: id}, status: {path: s, values: {done: finished}}, queued_at: {path: t}}", `mapping m.yaml: column status: values: "done" maps to "finished" (want ok, error, timeout, aborted or cancelled)`},
		{"columns: {span_id: {path: id}, queued_at: {path: t, layout: unix}}\ndefaults: {status: ok}", `mapping m.yaml: column queued_at: layout "unix" (want auto, rfc3339, epoch_s, epoch_ms, epoch_us, epoch_ns or naive)`},
		{"columns: {span_id: {path: id}, queued_at: {path: t}, released_at: {from: queued_at, plus: d, unit: min}}\ndefaults: {status: ok}", `mapping m.yaml: column released_at: unit "min" (want s, ms, us or ns)`},
		{"columns: {span_id: {path: id}, released_at: {from: queued_at, plus: d, unit: ms}}\ndefaults: {status: ok}", `mapping m.yaml: column released_at: from "queued_at" must be a column read from a path`},
		{"columns: {span_id: {path: a..b}, queued_at: {path: t}}\ndefaults: {status: ok}", `mapping m.yaml: column span_id: path: "a..b" has an empty key`},
		{"columns: {span_id: {path: id}, queued_at: {path: t}}\ndefaults: {status: fine}", `mapping m.yaml: defaults: status "fine" (want ok, error, timeout, aborted or cancelled)`},
		{"columns: {span_id: {path: id}, queued_at: {path: t}}\ndefaults: {status: ok}\nextra: 1", "mapping m.yaml: yaml: unmarshal errors:\n  line 3: field extra not found in type ingest.mappingFile"},
	}
	for _, tt := range tests {
		_, err := ParseMapping("m.yaml", []byte(tt.yaml))
		if err == nil || err.Error() != tt.want {
			t.Errorf("%s:\n got  %v\n want %s", tt.yaml, err, tt.want)
		}
	}
}

// TestMappingWrongPath: a record that lacks the path of a column that is
// not optional is rejected with the column and path, wherever it is in the
// input (the first record included), and the reading goes on; an optional
// column's path may be absent.
func TestMappingWrongPath(t *testing.T) {
	m, err := ParseMapping("m.yaml", []byte("columns: {span_id: {path: id}, queued_at: {path: ts}, model: {path: meta.model}}\ndefaults: {status: ok}"))
	if err != nil {
		t.Fatal(err)
	}
	in := `{"id":"a","ts":1795168800,"meta":{"modle":"x"}}` + "\n" + `{"id":"b","ts":1795168800,"meta":{"model":"x"}}` + "\n"
	const want = `x:1: column model: path "meta.model" is not in the record (mapping m.yaml; if records may lack it, mark the column optional: true)`
	recs := readMapped(t, in, m)
	if len(recs) != 2 || recs[0].Kind != KindReject || recs[0].Err.Error() != want || recs[0].Err.Kind() != "missing_field" ||
		recs[1].Kind != KindSpan || recs[1].Span.SpanID != "b" {
		t.Errorf("records %+v", recs)
	}
	m.Columns["model"].Optional = true
	recs = readMapped(t, in, m)
	if len(recs) != 2 || recs[0].Kind != KindSpan || recs[0].Span.Model != nil || recs[1].Kind != KindSpan {
		t.Errorf("optional: records %+v", recs)
	}
	// Without a mapping file the format fails with a hint.
	rd := newMappingReader(Input{Name: "x", R: strings.NewReader(in), MaxLineBytes: 4096})
	if rd.Next() || rd.Err() == nil || !strings.Contains(rd.Err().Error(), "--mapping") {
		t.Errorf("no mapping: %v", rd.Err())
	}
}

// readMapped reads the input x, in, through the mapping m.
func readMapped(t *testing.T, in string, m *Mapping) []Record {
	t.Helper()
	return readAll(t, "x", newMappingReader(Input{Name: "x", R: strings.NewReader(in), MaxLineBytes: 4096, Mapping: m}))
}

// TestRunMappingDecidesPerRecord: the record of the review (F15), without
// nginx's request_time and upstream_addr, is rejected alike whether it
// comes first or last in testdata/mapping/nginx.access.good.jsonl (3
// records), and the others are written.
func TestRunMappingDecidesPerRecord(t *testing.T) {
	good, err := os.ReadFile("testdata/mapping/nginx.access.good.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	const short = `{"msec":"1795168800.123","request_id":"abc","status":200}` + "\n"
	for _, tt := range []struct {
		name, data string
		line       int64
	}{
		{"first", short + string(good), 1},
		{"last", string(good) + short, 4},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			in := filepath.Join(dir, "access.jsonl")
			writeFile(t, in, []byte(tt.data))
			out := filepath.Join(dir, "out")
			m, err := Run(context.Background(), Options{RunID: "r", Format: "mapping", Mapping: "testdata/mapping/nginx.yaml",
				OutDir: out, Inputs: []string{in}})
			if err != nil {
				t.Fatal(err)
			}
			if want := (schemas.Counts{Read: 4, Written: 3, Rejected: 1}); m.Counts != want {
				t.Errorf("counts %+v, want %+v", m.Counts, want)
			}
			rej := readRejects(t, out)
			want := `column queued_at: path "request_time" is not in the record (mapping testdata/mapping/nginx.yaml; if records may lack it, mark the column optional: true)`
			if len(rej) != 1 || rej[0].Line != tt.line || rej[0].Kind != "missing_field" || rej[0].Reason != want {
				t.Errorf("rejects %+v", rej)
			}
		})
	}
}
