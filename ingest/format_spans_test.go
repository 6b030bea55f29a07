package ingest

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/tpsreport/tpsreport/schemas"
)

// TestSpansGood reads every testdata/spans/*.good.jsonl and compares the
// spans with NAME.golden (one JSON object per span, with its line number).
// A good file must produce no reject.
func TestSpansGood(t *testing.T) {
	files, _ := filepath.Glob("testdata/spans/*.good.jsonl")
	if len(files) == 0 {
		t.Fatal("no testdata/spans/*.good.jsonl")
	}
	for _, file := range files {
		t.Run(filepath.Base(file), func(t *testing.T) {
			f, err := os.Open(file)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			var out bytes.Buffer
			for _, rec := range readRecords(t, file, f, 0) {
				switch rec.Kind {
				case KindReject:
					t.Errorf("unexpected reject: %v", rec.Err)
				case KindSpan:
					b, err := json.Marshal(struct {
						Line int64        `json:"line"`
						Span schemas.Span `json:"span"`
					}{rec.Line, rec.Span})
					if err != nil {
						t.Fatal(err)
					}
					out.Write(b)
					out.WriteByte('\n')
				}
			}
			golden(t, strings.TrimSuffix(file, ".jsonl")+".golden", out.Bytes())
		})
	}
}

// TestSpansBad reads every testdata/spans/*.bad.jsonl: each of its
// non-blank lines must be rejected, with the kind and reason listed in
// NAME.want as "line:col: kind: reason".
func TestSpansBad(t *testing.T) {
	files, _ := filepath.Glob("testdata/spans/*.bad.jsonl")
	if len(files) == 0 {
		t.Fatal("no testdata/spans/*.bad.jsonl")
	}
	for _, file := range files {
		t.Run(filepath.Base(file), func(t *testing.T) {
			f, err := os.Open(file)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			var out bytes.Buffer
			for _, rec := range readRecords(t, file, f, 0) {
				switch rec.Kind {
				case KindSpan:
					t.Errorf("line %d: accepted, want a reject", rec.Line)
				case KindReject:
					pe := rec.Err
					if pe.File != file || pe.Line != rec.Line {
						t.Errorf("line %d: error at %s:%d", rec.Line, pe.File, pe.Line)
					}
					pos := fmt.Sprint(pe.Line)
					if pe.Column > 0 {
						pos += fmt.Sprintf(":%d", pe.Column)
					}
					fmt.Fprintf(&out, "%s: %s: %s\n", pos, pe.Kind(), pe.Err)
				}
			}
			golden(t, strings.TrimSuffix(file, ".jsonl")+".want", out.Bytes())
		})
	}
}

// TestSpansDecode pins every column of a few records by hand.
func TestSpansDecode(t *testing.T) {
	p := schemas.Ptr[int64]
	p32 := schemas.Ptr[int32]
	ps := schemas.Ptr[string]
	tests := []struct {
		line string
		want schemas.Span
	}{
		{
			`{"run_id":"x","source":"y","span_id":"s1","request_id":"r1","attempt":2,"retry_cause":"429","model":"m","replica":"vllm-0",` +
				`"queued_at":"2026-11-20T10:00:00Z","admitted_at":"2026-11-20T10:00:00.000001Z","first_token_at":1795168800.5,` +
				`"last_token_at":1795168801000,"released_at":"1795168802","input_tokens":10,"output_tokens":20,"cached_tokens":0,` +
				`"status":"Timeout","error":"deadline","http_status":504,"prompt":"secret"}`,
			schemas.Span{
				Source: "spans", SpanID: "s1", RequestID: "r1", Attempt: p32(2), RetryCause: ps("429"),
				Model: ps("m"), Replica: ps("vllm-0"),
				QueuedAt: p(t0), AdmittedAt: p(t0 + 1), FirstTokenAt: p(t0 + 500000),
				LastTokenAt: p(t0 + 1_000000), ReleasedAt: p(t0 + 2_000000),
				InputTokens: p(10), OutputTokens: p(20), CachedTokens: p(0),
				Status: "timeout", Error: ps("deadline"), HTTPStatus: p32(504),
			},
		},
		{
			`{"span_id":"s2","status":"success"}`,
			schemas.Span{Source: "spans", SpanID: "s2", RequestID: "s2", Status: "ok"},
		},
		{
			`{"span_id":"s3","status":"FAILURE","model":"","replica":null,"request_id":null,"output_tokens":null}`,
			schemas.Span{Source: "spans", SpanID: "s3", RequestID: "s3", Status: "error"},
		},
		{
			`  {"status":"canceled","span_id":"s\u00e9\n4","output_tokens":3e2}  `,
			schemas.Span{Source: "spans", SpanID: "sé\n4", RequestID: "sé\n4", Status: "cancelled", OutputTokens: p(300)},
		},
		{
			// Invalid UTF-8 and lone surrogates become U+FFFD, as in encoding/json.
			"{\"span_id\":\"a\xffb\\ud800c\",\"status\":\"aborted\"}",
			schemas.Span{Source: "spans", SpanID: "a\uFFFDb\uFFFDc", RequestID: "a\uFFFDb\uFFFDc", Status: "aborted"},
		},
	}
	for _, tt := range tests {
		var d spansDecoder
		var got schemas.Span
		if err := d.decode([]byte(tt.line), &got); err != nil {
			t.Errorf("%s: %v", tt.line, err)
			continue
		}
		if !reflect.DeepEqual(got, tt.want) {
			gb, _ := json.Marshal(got)
			wb, _ := json.Marshal(tt.want)
			t.Errorf("%s:\n got  %s\n want %s", tt.line, gb, wb)
		}
	}
}

// TestSpansErrorKinds checks the error chain: a *ParseError that wraps a
// sentinel, printed compiler-style.
func TestSpansErrorKinds(t *testing.T) {
	in := "{\"span_id\":\"a\",\"status\":\"ok\"}\n" +
		"{\"span_id\":\"a\",\"status\":\"ok\",\"input_tokens\":\"512\"}\n" +
		"{\"span_id\":\"a\",\"status\":\"ok\",\"queued_at\":\"yesterday\"}\n" +
		"nope\n" +
		"{\"status\":\"ok\"}\n" +
		"{\"span_id\":\"a\",\"status\":\"ok\",\"input_tokens\":-1}\n"
	recs := readRecords(t, "logs/x.jsonl", strings.NewReader(in), 0)
	want := []struct {
		kind error
		msg  string
	}{
		{ErrBadType, `logs/x.jsonl:2:45: input_tokens: want a number, found string`},
		{ErrBadTimestamp, `logs/x.jsonl:3:42: queued_at: invalid timestamp "yesterday": want RFC 3339 (2026-11-20T10:00:00.123Z) or epoch seconds, ms, µs or ns`},
		{ErrBadJSON, `logs/x.jsonl:4:1: invalid JSON: invalid character 'n' looking for beginning of object`},
		{ErrMissingField, `logs/x.jsonl:5: missing span_id`},
		{ErrBadValue, `logs/x.jsonl:6:45: input_tokens: "-1" is negative`},
	}
	var rejects []Record
	for _, r := range recs {
		if r.Kind == KindReject {
			rejects = append(rejects, r)
		}
	}
	if len(rejects) != len(want) {
		t.Fatalf("got %d rejects, want %d", len(rejects), len(want))
	}
	for i, w := range want {
		var err error = rejects[i].Err
		var pe *ParseError
		if !errors.As(err, &pe) {
			t.Errorf("reject %d: %T is not a *ParseError", i, err)
		}
		if !errors.Is(err, w.kind) {
			t.Errorf("reject %d: %v is not %v", i, err, w.kind)
		}
		for _, other := range []error{ErrBadJSON, ErrBadType, ErrBadTimestamp, ErrMissingField, ErrBadValue, ErrTooLong} {
			if other != w.kind && errors.Is(err, other) {
				t.Errorf("reject %d: %v is also %v", i, err, other)
			}
		}
		if err.Error() != w.msg {
			t.Errorf("reject %d:\n got  %s\n want %s", i, err, w.msg)
		}
	}
}

func TestParseErrorFormat(t *testing.T) {
	tests := []struct {
		err  ParseError
		want string
	}{
		{ParseError{File: "a.jsonl", Line: 3, Column: 7, Err: ErrBadJSON}, "a.jsonl:3:7: invalid JSON"},
		{ParseError{File: "a.jsonl", Line: 3, Err: ErrMissingField}, "a.jsonl:3: missing field"},
		{ParseError{File: "-", Err: ErrTooLong}, "-: line too long"},
	}
	for _, tt := range tests {
		if got := tt.err.Error(); got != tt.want {
			t.Errorf("got %q, want %q", got, tt.want)
		}
		if !errors.Is(&tt.err, tt.err.Err) {
			t.Errorf("%q does not unwrap to its kind", tt.want)
		}
	}
}

func TestSniffSpans(t *testing.T) {
	tests := []struct {
		head string
		want int
	}{
		{`{"span_id":"a","status":"ok"}` + "\n", 100},
		{"\n  \n" + `{"status":"ok","x":{"span_id":1},"span_id":"a"}`, 100},
		{`{"span_id":"a","status":"ok","prompt":"cut off in the mid`, 100},
		{`{"span_id":"a"}`, 0},
		{`{"x":{"span_id":"a","status":"ok"}}`, 0},
		{`[{"span_id":"a","status":"ok"}]`, 0},
		{`INFO 11-20 10:00:00 engine.py:267] Avg prompt throughput`, 0},
		{"", 0},
	}
	for _, tt := range tests {
		if got := sniffSpans([]byte(tt.head)); got != tt.want {
			t.Errorf("sniffSpans(%q) = %d, want %d", tt.head, got, tt.want)
		}
	}
}

func TestFormats(t *testing.T) {
	names := Formats()
	if !slices.IsSorted(names) || !slices.Contains(names, "spans") || slices.Contains(names, FormatAuto) {
		t.Errorf("Formats() = %q, want sorted names including spans", names)
	}
	_, err := lookupFormat("litelm")
	if want := `unknown format "litelm" (did you mean "litellm"?); valid formats: ` + strings.Join(names, ", ") + `, auto`; err == nil || err.Error() != want {
		t.Errorf("lookupFormat: got %v, want %s", err, want)
	}
	if got := detectFormat([]byte(`{"span_id":"a","status":"ok"}`)); got != "spans" {
		t.Errorf("detectFormat = %q, want spans", got)
	}
	if got := detectFormat([]byte(`hello`)); got != "" {
		t.Errorf("detectFormat = %q, want none", got)
	}
}

// FuzzSpansDecoderMemory: what a decoder remembers from earlier lines (key
// positions, recent strings, the day of the last timestamp) never changes a
// result. Each line decoded after the others must give the span or the
// error a fresh decoder gives.
func FuzzSpansDecoderMemory(f *testing.F) {
	f.Add([]byte(`{"span_id":"a","status":"ok","model":"m","queued_at":"2026-11-20T10:00:00.123456Z","input_tokens":5}
{"span_id":"b","status":"ok","model":"n","queued_at":"2026-11-20T10:00:01.123456Z","input_tokens":6}
{"span_id":"c", "status":"ok","modelx":"n","queued_at":"2026-11-21T10:00:01.123456Z","input_tokens":07}
{"span\u005fid":"d","status":"ok","model":"m","queued_at":"2026-02-30T10:00:01.123456Z","input_tokens":-1}
{"status":"ok","span_id":"e","model" : "m","queued_at":1795168800,"input_tokens":1e2}
{"span_id":"f","status":"ok","model":"m","queued_at":"2026-11-20T10:00:00.123456Z","input_tokens":5,}
{"span_id":"g","status":"ok","model":"m","queued_at":"2026-11-20T10:00:00.123456Z","input_tokens":5}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		var shared spansDecoder
		for line := range bytes.SplitSeq(data, []byte("\n")) {
			var got, want schemas.Span
			gotErr := shared.decode(line, &got)
			var fresh spansDecoder
			wantErr := fresh.decode(line, &want)
			if !reflect.DeepEqual(gotErr, wantErr) {
				t.Fatalf("%q: error %v after earlier lines, %v alone", line, gotErr, wantErr)
			}
			if wantErr == nil && !reflect.DeepEqual(got, want) {
				t.Fatalf("%q: %+v after earlier lines, %+v alone", line, got, want)
			}
		}
	})
}
