package ingest

import (
	"encoding/json"
	"os"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/tpsreport/tpsreport/ingest/internal/scan"
	"github.com/tpsreport/tpsreport/schemas"
)

// spanSchema is the part of schemas/span.schema.json the tests check.
type spanSchema struct {
	Schema     string   `json:"$schema"`
	Required   []string `json:"required"`
	Properties map[string]struct {
		Type    any    `json:"type"`
		Ref     string `json:"$ref"`
		Pattern string `json:"pattern"`
	} `json:"properties"`
	Defs struct {
		Timestamp struct {
			AnyOf []struct {
				Type    string `json:"type"`
				Pattern string `json:"pattern"`
			} `json:"anyOf"`
		} `json:"timestamp"`
	} `json:"$defs"`
}

func loadSpanSchema(t *testing.T) spanSchema {
	t.Helper()
	b, err := os.ReadFile("../schemas/span.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	var s spanSchema
	if err := json.Unmarshal(b, &s); err != nil {
		t.Fatalf("span.schema.json: %v", err)
	}
	return s
}

// parquetColumns returns the parquet column names of a struct, in order.
func parquetColumns(v any) []string {
	typ := reflect.TypeOf(v)
	var cols []string
	for i := range typ.NumField() {
		name, _, _ := strings.Cut(typ.Field(i).Tag.Get("parquet"), ",")
		cols = append(cols, name)
	}
	return cols
}

// TestSpanSchemaColumns: the JSON Schema of the canonical input names
// exactly the columns of spans.parquet, and the decoder knows every one.
func TestSpanSchemaColumns(t *testing.T) {
	s := loadSpanSchema(t)
	if s.Schema != "https://json-schema.org/draft/2020-12/schema" {
		t.Errorf("$schema = %q, want draft 2020-12", s.Schema)
	}
	var props []string
	for name := range s.Properties {
		props = append(props, name)
	}
	slices.Sort(props)
	cols := parquetColumns(schemas.Span{})
	sorted := slices.Sorted(slices.Values(cols))
	if !slices.Equal(props, sorted) {
		t.Errorf("schema properties %q\n!= parquet columns %q", props, sorted)
	}
	for _, c := range cols {
		if spanFieldOf([]byte(c)) == fUnknown {
			t.Errorf("the spans decoder does not read column %q", c)
		}
		if f := spanFieldOf([]byte(c)); f.String() != c {
			t.Errorf("field %d is named %q, want %q", f, f, c)
		}
	}
	if !slices.Equal(s.Required, []string{"span_id", "status"}) {
		t.Errorf("required = %q, want span_id and status", s.Required)
	}
}

// TestSpanSchemaStatus: the schema's status pattern accepts exactly the
// words the decoder accepts.
func TestSpanSchemaStatus(t *testing.T) {
	re := regexp.MustCompile(loadSpanSchema(t).Properties["status"].Pattern)
	words := []string{"ok", "OK", "Ok", "error", "ERROR", "timeout", "TimeOut", "aborted", "cancelled", "canceled",
		"CANCELED", "success", "Success", "failure", "failed", "FAILED",
		"", "done", "okay", "cancel", "cancellled", "abort", "fail", " ok", "ok "}
	for _, w := range words {
		_, dec := spanStatus([]byte(w))
		if sch := re.MatchString(w); sch != dec {
			t.Errorf("status %q: schema accepts %v, decoder accepts %v", w, sch, dec)
		}
	}
}

// TestSpanSchemaTimestamp: the schema's timestamp string patterns agree
// with the parser on the syntax of valid and invalid timestamps.
func TestSpanSchemaTimestamp(t *testing.T) {
	var res []*regexp.Regexp
	for _, alt := range loadSpanSchema(t).Defs.Timestamp.AnyOf {
		if alt.Pattern != "" {
			res = append(res, regexp.MustCompile(alt.Pattern))
		}
	}
	if len(res) != 2 {
		t.Fatalf("want 2 string patterns, got %d", len(res))
	}
	match := func(s string) bool { return res[0].MatchString(s) || res[1].MatchString(s) }
	valid := []string{"2026-11-20T10:00:00Z", "2026-11-20t10:00:00z", "2026-11-20 10:00:00.123456789+02:00",
		"2026-11-20T10:00:00-00:00", "1795168800", "1795168800.123456", "-1.5e3", "0"}
	for _, s := range valid {
		if _, err := scan.ParseTimestamp([]byte(s)); err != nil || !match(s) {
			t.Errorf("%q: parser error %v, schema match %v; want both to accept", s, err, match(s))
		}
	}
	syntax := []string{"yesterday", "", "2026-11-20", "2026-11-20T10:00:00", "2026-11-20T10:00:00+0200",
		"2026-11-20T10:00:00.Z", " 1795168800", "1795168800.", "01", "+1", "0x10"}
	for _, s := range syntax {
		if _, err := scan.ParseTimestamp([]byte(s)); err == nil || match(s) {
			t.Errorf("%q: parser error %v, schema match %v; want both to refuse", s, err, match(s))
		}
	}
}

// TestReadmeExample: the example line in schemas/README.md is a valid span
// with its timestamps in order.
func TestReadmeExample(t *testing.T) {
	b, err := os.ReadFile("../schemas/README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(b), "```json\n")
	if !ok {
		t.Fatal("no ```json example in schemas/README.md")
	}
	line, _, _ := strings.Cut(rest, "\n")
	var d spansDecoder
	var sp schemas.Span
	if err := d.decode([]byte(line), &sp); err != nil {
		t.Fatalf("README example: %v", err)
	}
	ts := []*int64{sp.QueuedAt, sp.AdmittedAt, sp.FirstTokenAt, sp.LastTokenAt, sp.ReleasedAt}
	for i, p := range ts {
		if p == nil || i > 0 && *p < *ts[i-1] {
			t.Fatalf("README example: timestamps missing or out of order: %+v", sp)
		}
	}
}
