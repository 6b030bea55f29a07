package ingest

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"os"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go"
	pqformat "github.com/parquet-go/parquet-go/format"

	"github.com/tpsreport/tpsreport/ingest/internal/scan"
	"github.com/tpsreport/tpsreport/schemas"
)

// canonicalLine writes sp as a line of the spans format: timestamps as
// RFC 3339 with microseconds, the other columns as they are.
func canonicalLine(sp *schemas.Span) []byte {
	type line struct {
		SpanID       string  `json:"span_id"`
		RequestID    string  `json:"request_id"`
		Attempt      *int32  `json:"attempt,omitempty"`
		RetryCause   *string `json:"retry_cause,omitempty"`
		Model        *string `json:"model,omitempty"`
		Replica      *string `json:"replica,omitempty"`
		QueuedAt     *string `json:"queued_at,omitempty"`
		AdmittedAt   *string `json:"admitted_at,omitempty"`
		FirstTokenAt *string `json:"first_token_at,omitempty"`
		LastTokenAt  *string `json:"last_token_at,omitempty"`
		ReleasedAt   *string `json:"released_at,omitempty"`
		InputTokens  *int64  `json:"input_tokens,omitempty"`
		OutputTokens *int64  `json:"output_tokens,omitempty"`
		CachedTokens *int64  `json:"cached_tokens,omitempty"`
		Status       string  `json:"status"`
		Error        *string `json:"error,omitempty"`
		HTTPStatus   *int32  `json:"http_status,omitempty"`
	}
	ts := func(us *int64) *string {
		if us == nil {
			return nil
		}
		s := schemas.Time(*us).Format("2006-01-02T15:04:05.000000Z07:00")
		return &s
	}
	b, err := json.Marshal(line{
		sp.SpanID, sp.RequestID, sp.Attempt, sp.RetryCause, sp.Model, sp.Replica,
		ts(sp.QueuedAt), ts(sp.AdmittedAt), ts(sp.FirstTokenAt), ts(sp.LastTokenAt), ts(sp.ReleasedAt),
		sp.InputTokens, sp.OutputTokens, sp.CachedTokens, sp.Status, sp.Error, sp.HTTPStatus,
	})
	if err != nil {
		panic(err)
	}
	return b
}

// randomSpans returns n spans with every optional column sometimes NULL.
func randomSpans(n int, seed uint64) []schemas.Span {
	rng := rand.New(rand.NewPCG(seed, 1))
	maybe := func() bool { return rng.IntN(4) != 0 }
	suffix := func() string {
		return strconv.Itoa(rng.IntN(5)) + []string{"", "é", `"q"`, "\\", "\u2028", "🚀", "\x00"}[rng.IntN(7)]
	}
	ts := func() *int64 {
		if !maybe() {
			return nil
		}
		v := rng.Int64N(scan.MaxMicros-scan.MinMicros) + scan.MinMicros
		if rng.IntN(2) == 0 {
			v = t0 + rng.Int64N(86400_000000)
		}
		return &v
	}
	str := func(prefix string) *string {
		if !maybe() {
			return nil
		}
		s := prefix + suffix()
		return &s
	}
	count := func() *int64 {
		if !maybe() {
			return nil
		}
		v := rng.Int64N(1 << 40)
		return &v
	}
	spans := make([]schemas.Span, n)
	for i := range spans {
		sp := &spans[i]
		sp.Source = "spans"
		sp.SpanID = "span-" + strconv.Itoa(i) + suffix()
		sp.RequestID = "req-" + strconv.Itoa(i/3)
		if maybe() {
			sp.Attempt = schemas.Ptr(int32(rng.IntN(5)))
		}
		sp.RetryCause, sp.Model, sp.Replica, sp.Error = str("cause"), str("model"), str("replica"), str("err")
		sp.QueuedAt, sp.AdmittedAt, sp.FirstTokenAt, sp.LastTokenAt, sp.ReleasedAt = ts(), ts(), ts(), ts(), ts()
		sp.InputTokens, sp.OutputTokens, sp.CachedTokens = count(), count(), count()
		sp.Status = schemas.Statuses[rng.IntN(len(schemas.Statuses))]
		if maybe() {
			sp.HTTPStatus = schemas.Ptr(int32(100 + rng.IntN(500)))
		}
	}
	return spans
}

// TestRoundTrip: JSON → Span → Parquet → read back gives the same spans.
func TestRoundTrip(t *testing.T) {
	want := randomSpans(3000, 7)
	var jsonl bytes.Buffer
	for i := range want {
		jsonl.Write(canonicalLine(&want[i]))
		jsonl.WriteByte('\n')
	}
	got := spansOf(readRecords(t, "rt.jsonl", &jsonl, 0))
	diffSpans(t, got, want)

	var pq bytes.Buffer
	w := parquet.NewGenericWriter[schemas.Span](&pq, append(spanOptions(), parquet.MaxRowsPerRowGroup(1000))...)
	if _, err := w.Write(got); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	back, err := parquet.Read[schemas.Span](bytes.NewReader(pq.Bytes()), int64(pq.Len()))
	if err != nil {
		t.Fatal(err)
	}
	diffSpans(t, back, want)

	// Three row groups of at most 1000 rows, timestamps typed as UTC µs.
	f, err := parquet.OpenFile(bytes.NewReader(pq.Bytes()), int64(pq.Len()))
	if err != nil {
		t.Fatal(err)
	}
	if n := len(f.RowGroups()); n != 3 {
		t.Errorf("%d row groups, want 3", n)
	}
	schema := f.Schema().String()
	for _, col := range []string{"queued_at", "admitted_at", "first_token_at", "last_token_at", "released_at"} {
		want := "optional int64 " + col + " (TIMESTAMP(isAdjustedToUTC=true,unit=MICROS));"
		if !strings.Contains(schema, want) {
			t.Errorf("schema has no %q:\n%s", want, schema)
		}
	}
	// The printed schema has one golden, schemas/'s (TestParquetSchemaGolden
	// writes it from the Span struct): spans.parquet as written prints the same.
	wantSchema, err := os.ReadFile("../schemas/testdata/span.parquet-schema.golden")
	if err != nil {
		t.Fatal(err)
	}
	if got := schema + "\n"; got != string(wantSchema) {
		t.Errorf("spans.parquet's schema is not schemas/testdata/span.parquet-schema.golden:\n%s", lineDiff(string(wantSchema), got))
	}

	// The integer columns are DELTA_BINARY_PACKED, the others as the struct's
	// tags say, and every column is zstd (codec.go); the schema is still the
	// struct's, so that parquet-go writes Spans without going through rows.
	delta := []string{"attempt", "queued_at", "engine_arrived_at", "admitted_at", "first_token_at", "last_token_at", "released_at",
		"input_tokens", "output_tokens", "cached_tokens", "http_status"}
	for _, rg := range f.Metadata().RowGroups {
		for _, c := range rg.Columns {
			name := strings.Join(c.MetaData.PathInSchema, ".")
			got := slices.Contains(c.MetaData.Encoding, pqformat.DeltaBinaryPacked)
			if want := slices.Contains(delta, name); got != want {
				t.Errorf("column %s: encodings %v, DELTA_BINARY_PACKED %v, want %v", name, c.MetaData.Encoding, got, want)
			}
			if c.MetaData.Codec != pqformat.Zstd {
				t.Errorf("column %s: codec %v, want ZSTD", name, c.MetaData.Codec)
			}
		}
	}
	if !parquet.EqualNodes(spansSchema, parquet.SchemaOf(schemas.Span{})) {
		t.Errorf("spans.parquet's schema is not the Span struct's:\n%s", spansSchema)
	}
}

// TestRoundTripNulls: a span with only the required columns keeps its
// NULLs through Parquet (NULL is never 0).
func TestRoundTripNulls(t *testing.T) {
	want := []schemas.Span{{RunID: "r", Source: "spans", SpanID: "a", RequestID: "a", Status: "ok"}}
	var pq bytes.Buffer
	w := parquet.NewGenericWriter[schemas.Span](&pq, spanOptions()...)
	w.Write(want)
	w.Close()
	back, err := parquet.Read[schemas.Span](bytes.NewReader(pq.Bytes()), int64(pq.Len()))
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(back, want) {
		t.Errorf("got %+v, want %+v", back, want)
	}
}
