package analyze

import (
	"encoding/json"
	"maps"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tpsreport/tpsreport/schemas"
)

// jsonTags are the JSON names of t's fields.
func jsonTags(t reflect.Type) []string {
	var out []string
	for f := range t.Fields() {
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name != "" && name != "-" {
			out = append(out, name)
		}
	}
	slices.Sort(out)
	return out
}

// TestMetricColumnsMatchStruct ties the SQL to Go by name: the columns of the
// metrics table (metrics_json's keys) are exactly the JSON names of
// schemas.Metrics, and windows.parquet's columns are the same names, so a
// misspelt column fails here instead of reaching summary.json as a silent
// null. requests.parquet's columns are spans.parquet's and the per-span
// metrics of docs/metrics.md.
func TestMetricColumnsMatchStruct(t *testing.T) {
	t0 := schemas.Micros(time.Date(2026, 11, 20, 10, 0, 0, 0, time.UTC))
	at := func(s int64) *int64 { v := t0 + s*1_000_000; return &v }
	n := func(v int64) *int64 { return &v }
	spans := []schemas.Span{{SpanID: "a", RequestID: "a", Status: "ok", QueuedAt: at(0), AdmittedAt: at(1),
		FirstTokenAt: at(2), LastTokenAt: at(5), ReleasedAt: at(5), InputTokens: n(10), OutputTokens: n(30)}}
	dir := writeDataset(t, spans, nil, nil)
	if _, err := Run(t.Context(), Options{Dir: dir}); err != nil {
		t.Fatal(err)
	}
	want := jsonTags(reflect.TypeFor[schemas.Metrics]())

	// The SQL's own column names, as windows.parquet stores them: the run's
	// row comes from the same statement (metrics.sql).
	db := testDB(t)
	var row string
	if err := db.QueryRowContext(t.Context(), "SELECT to_json(x)::VARCHAR FROM read_parquet(?) x LIMIT 1", dir+"/"+schemas.WindowsFile).Scan(&row); err != nil {
		t.Fatal(err)
	}
	var cols map[string]any
	if err := json.Unmarshal([]byte(row), &cols); err != nil {
		t.Fatal(err)
	}
	got := slices.Sorted(maps.Keys(cols))
	if !slices.Equal(got, want) {
		t.Errorf("windows.parquet columns and schemas.Metrics differ:\n only in SQL: %v\n only in Go:  %v", minus(got, want), minus(want, got))
	}

	var req string
	if err := db.QueryRowContext(t.Context(), "SELECT to_json(x)::VARCHAR FROM read_parquet(?) x LIMIT 1", dir+"/"+schemas.RequestsFile).Scan(&req); err != nil {
		t.Fatal(err)
	}
	var rcols map[string]any
	if err := json.Unmarshal([]byte(req), &rcols); err != nil {
		t.Fatal(err)
	}
	spanCols := []string{}
	for f := range reflect.TypeFor[schemas.Span]().Fields() {
		name, _, _ := strings.Cut(f.Tag.Get("parquet"), ",")
		if name != "" {
			spanCols = append(spanCols, name)
		}
	}
	perSpan := []string{"delivered", "t_queue", "t_first_token", "ttft", "t_stream", "t_in_flight", "t_total",
		"stream_tps", "end_to_end_tps", "tpot", "gateway_overhead"}
	wantReq := slices.Sorted(slices.Values(append(spanCols, perSpan...)))
	gotReq := slices.Sorted(maps.Keys(rcols))
	if !slices.Equal(gotReq, wantReq) {
		t.Errorf("requests.parquet columns:\n only in SQL: %v\n only expected: %v", minus(gotReq, wantReq), minus(wantReq, gotReq))
	}
}

func minus(a, b []string) []string {
	var out []string
	for _, x := range a {
		if !slices.Contains(b, x) {
			out = append(out, x)
		}
	}
	return out
}
