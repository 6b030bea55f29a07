package ingest

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tpsreport/tpsreport/ingest/internal/scan"
	"github.com/tpsreport/tpsreport/schemas"
)

// TestLiteLLMMatchesReference is a differential test of the litellm
// reader's two paths — scanLine, which reads an NDJSON line in one pass,
// and the parsed path (scan.ParseValue, then decode) that takes every other
// line — against refLiteLLM (format_litellm_ref_test.go), a decoder written
// from the format's documentation. Randomized payloads and SpendLogs rows go
// through all three: where the reference makes a span, each path must make
// the same span, field for field; where it finds problems, each path must
// reject the line, naming one of them (its kind and its field).
//
// The payloads vary the types and spellings that logs hold (numbers as
// strings, epoch and ISO and naive times, "" and "-" for unknown), nest
// metadata, usage_object and error_information or give them other types,
// hold metadata as JSON text (SpendLogs), repeat keys (the last wins, in
// every path), escape strings and cut lines off.
func TestLiteLLMMatchesReference(t *testing.T) {
	berlin, err := time.LoadLocation("Europe/Berlin")
	if err != nil {
		t.Skip("no zoneinfo:", err)
	}
	trials := 20000
	if testing.Short() {
		trials = 2000
	}
	r := rand.New(rand.NewPCG(1, 2))
	var lines []string
	for range trials {
		lines = append(lines, liteLLMGen(r))
	}
	input := strings.Join(lines, "\n")

	scanned, parsed, scannedLines := readBothPaths(t, input, func(in Input) (Reader, *jsonRecordReader) {
		in.Zone = berlin
		rd := newLiteLLMReader(in).(*liteLLMReader)
		return rd, rd.jsonRecordReader
	})
	if len(scanned) != len(lines) || len(parsed) != len(lines) {
		t.Fatalf("%d lines gave %d records scanned and %d parsed", len(lines), len(scanned), len(parsed))
	}
	kinds := map[string]int{}
	for i, line := range lines {
		span, problems := refLiteLLM([]byte(line), berlin)
		for _, got := range []struct {
			path string
			rec  *Record
		}{{"scanned", &scanned[i]}, {"parsed", &parsed[i]}} {
			if msg := liteLLMReferenceDiff(got.rec, &span, problems); msg != "" {
				t.Fatalf("line %d, %s: %s\n%s", i+1, got.path, msg, line)
			}
		}
		if len(problems) == 0 {
			kinds["span"]++
		}
		for _, p := range problems {
			kinds["reject "+scan.KindOf(p.kind)]++
		}
	}
	for _, k := range []string{"span", "reject bad_json", "reject bad_type", "reject bad_value", "reject bad_timestamp", "reject missing_field"} {
		if kinds[k] == 0 {
			t.Errorf("no line gave %q: %v", k, kinds)
		}
	}
	// Lines that are not objects, not JSON, or hold metadata as text go
	// the parsed way; the generator writes about 15 % of those.
	if scannedLines < len(lines)*3/4 {
		t.Errorf("scanLine read %d of %d lines: the test compares too little of it", scannedLines, len(lines))
	}
	t.Logf("lines by outcome: %v; %d of %d scanned", kinds, scannedLines, len(lines))
}

// liteLLMReferenceDiff says how got differs from what refLiteLLM made of
// its line: the span, or a reject naming one of the problems; "" when it
// does not.
func liteLLMReferenceDiff(got *Record, span *schemas.Span, problems []refProblem) string {
	if len(problems) == 0 {
		switch {
		case got.Kind == KindReject:
			return fmt.Sprintf("reject %s %q, reference a span", got.Err.Kind(), got.Err.Err)
		case got.Kind != KindSpan:
			return fmt.Sprintf("%s, reference a span", got.Kind)
		case !reflect.DeepEqual(got.Span, *span):
			return fmt.Sprintf("span\n got  %s\n want %s", spanText(&got.Span), spanText(span))
		}
		return ""
	}
	var want []string
	for _, p := range problems {
		want = append(want, scan.KindOf(p.kind)+" "+p.key)
	}
	if got.Kind != KindReject {
		return fmt.Sprintf("%s, reference problems %q", got.Kind, want)
	}
	for _, p := range problems {
		if got.Err.Kind() == scan.KindOf(p.kind) && strings.Contains(got.Err.Err.Error(), p.key) {
			return ""
		}
	}
	return fmt.Sprintf("reject %s %q names none of the reference's problems %q", got.Err.Kind(), got.Err.Err, want)
}

func liteLLMRecordDiff(got, want *Record) string {
	if got.Kind != want.Kind {
		var g, w string
		if got.Kind == KindReject {
			g = got.Err.Err.Error()
		}
		if want.Kind == KindReject {
			w = want.Err.Err.Error()
		}
		return fmt.Sprintf("%s (%s), reference %s (%s)", got.Kind, g, want.Kind, w)
	}
	switch got.Kind {
	case KindSpan:
		if !reflect.DeepEqual(got.Span, want.Span) {
			return fmt.Sprintf("span\n got  %s\n want %s", spanText(&got.Span), spanText(&want.Span))
		}
	case KindReject:
		if got.Err.Err.Error() != want.Err.Err.Error() || got.Err.Kind() != want.Err.Kind() {
			return fmt.Sprintf("reject %s %q, reference %s %q", got.Err.Kind(), got.Err.Err, want.Err.Kind(), want.Err.Err)
		}
	}
	return ""
}

// liteLLMGen writes one random LiteLLM log line.
func liteLLMGen(r *rand.Rand) string {
	chance := func(p float64) bool { return r.Float64() < p }
	pick := func(vs ...string) string { return vs[r.IntN(len(vs))] }
	epoch := func() float64 { return 1795168800 + float64(r.IntN(86_400_000_000))/1e6 }
	timeVal := func(base float64) string {
		if chance(0.75) {
			return strconv.FormatFloat(base, 'f', -1, 64)
		}
		t := time.Unix(int64(base), int64((base-float64(int64(base)))*1e9)).UTC()
		return pick(
			`"`+t.Format("2006-01-02T15:04:05.000000Z")+`"`,
			`"`+t.Format("2006-01-02 15:04:05.000000")+`"`, // naive: the zone's
			`"`+t.Format("2006-01-02T15:04:05.000000+01")+`"`,
			strconv.FormatInt(int64(base*1000), 10), // ms
			`"`+strconv.FormatFloat(base, 'f', 3, 64)+`"`,
			`null`, `""`, `"-"`, `"yesterday"`, `true`, `{}`,
		)
	}
	str := func(vs ...string) string {
		if chance(0.1) {
			return pick(`null`, `""`, `"-"`, `42`, `{"a":1}`, `[1]`, `"caf\u00e9"`, `"a\"b"`)
		}
		return strconv.Quote(pick(vs...))
	}
	tokens := func() string {
		if chance(0.85) {
			return strconv.Itoa(r.IntN(4000))
		}
		return pick(`0`, `"12"`, `" 7 "`, `-3`, `1.5`, `2.0`, `"many"`, `null`, `1e3`, `99999999999999999999`, `true`)
	}
	errInfo := func() string {
		return `{"error_code":` + pick(`""`, `"429"`, `429`, `"503"`, `"abc"`, `null`, `600`, `"408"`, `"499"`) +
			`,"error_class":` + str("RateLimitError", "Timeout", "APIConnectionError", "ContextWindowExceededError", "Cancelled") +
			pick(``, `,"traceback":"x"`) + `}`
	}
	start := epoch()
	end := start + float64(r.IntN(30_000_000))/1e6
	first := start + (end-start)*r.Float64()
	var kv []string
	add := func(k, v string) { kv = append(kv, strconv.Quote(k)+":"+v) }

	spendLogs := chance(0.2)
	id := fmt.Sprintf("chatcmpl-r%06d", r.IntN(1000))
	if spendLogs {
		add("request_id", str(id))
	} else {
		add("id", str(id))
		if chance(0.9) {
			add("trace_id", str(fmt.Sprintf("trace-%d", r.IntN(500))))
		}
		add("call_type", `"acompletion"`)
	}
	meta := []string{}
	madd := func(k, v string) { meta = append(meta, strconv.Quote(k)+":"+v) }
	if chance(0.7) {
		madd("attempted_retries", pick(`0`, `1`, `2`, `"1"`, `1.0`, `-1`, `null`, `3000000000`))
	}
	if chance(0.2) {
		madd("trace_id", str("meta-trace"))
	}
	if chance(0.6) {
		madd("usage_object", pick(
			`{"prompt_tokens":10,"prompt_tokens_details":{"cached_tokens":`+tokens()+`}}`,
			`{"prompt_tokens_details":null}`, `{"prompt_tokens_details":{"cached_tokens":5},"prompt_tokens_details":{}}`,
			`null`, `7`))
	}
	if chance(0.2) {
		madd("status", str("success", "failure"))
	}
	if chance(0.2) {
		madd("error_information", errInfo())
	}
	metaObj := "{" + strings.Join(meta, ",") + "}"
	switch {
	case spendLogs && chance(0.5):
		add("metadata", strconv.Quote(metaObj)) // SpendLogs: as JSON text
	case chance(0.05):
		add("metadata", pick(`"not json"`, `null`, `12`))
	case chance(0.9):
		add("metadata", metaObj)
	}
	add("model", str("meta-llama/Llama-3.1-8B-Instruct", "gpt-4o"))
	if chance(0.3) {
		add("model_group", str("llama"))
	}
	if chance(0.5) {
		add("model_id", str("dep-1", "dep-2"))
	}
	switch {
	case chance(0.6):
		add("api_base", str("http://vllm-1:8000/v1", "https://vllm-2.svc:8443/v1", "vllm-3:8000", "http://[::1", " "))
	case chance(0.5):
		add("hidden_params", pick(`{"api_base":"http://vllm-4:8000/v1"}`, `{"api_base":null}`, `"x"`, `{}`))
	}
	add("startTime", timeVal(start))
	add("endTime", timeVal(end))
	if chance(0.7) {
		add("completionStartTime", timeVal(first))
	} else if chance(0.3) {
		add("completionStartTime", timeVal(end))
	}
	add("prompt_tokens", tokens())
	add("completion_tokens", tokens())
	status := pick(`"success"`, `"success"`, `"failure"`, `"Failure"`, `"pending"`, `null`)
	if chance(0.95) {
		add("status", status)
	}
	if chance(0.3) {
		add("error_information", pick(errInfo(), `null`, `"boom"`, `{}`))
	}
	if chance(0.3) {
		add("messages", `[{"role":"user","content":"secret prompt \u00e9 \"quoted\""}]`)
		add("response", `{"choices":[{"message":{"content":"secret answer"}}],"usage":{"prompt_tokens":1}}`)
	}
	if chance(0.1) {
		add("model", str("repeated-model")) // a repeated key: the last wins
	}
	if chance(0.05) {
		add("metadata", `{"attempted_retries":4}`)
	}
	if chance(0.05) {
		add("hidden_params", `{"other":1}`)
	}
	r.Shuffle(len(kv), func(i, j int) { kv[i], kv[j] = kv[j], kv[i] })
	line := "{" + strings.Join(kv, ",") + "}"
	switch {
	case chance(0.02):
		line = line[:1+r.IntN(len(line)-1)] // cut off
	case chance(0.01):
		line = `["not","an","object"]`
	case chance(0.01):
		line = `{"id":"x"} trailing`
	}
	return line
}

// FuzzLiteLLMScan holds scanLine to the parsed path on any line: when it
// takes a line, it must give the record the parsed path gives.
func FuzzLiteLLMScan(f *testing.F) {
	r := rand.New(rand.NewPCG(3, 4))
	for range 50 {
		f.Add(liteLLMGen(r))
	}
	f.Add(`{"id":"a","startTime":1,"endTime":2,"metadata":{"usage_object":{"prompt_tokens_details":{"cached_tokens":3}}}}`)
	// Engine timing objects in the response (engine_timings.go).
	f.Add(`{"id":"a","startTime":1,"endTime":3,"completionStartTime":2,"response":{"choices":[{"message":{"content":"x"}}],"metrics":{"queue_time_ms":1.5,"time_to_first_token_ms":20,"generation_time_ms":500}}}`)
	f.Add(`{"id":"a","startTime":1,"endTime":3,"response":{"metrics":{"arrival_time":1.01,"first_scheduled_time":1.02,"first_token_time":1.5,"last_token_time":2.9,"time_in_queue":0.01}}}`)
	f.Add(`{"id":"a","startTime":1,"endTime":3,"response":{"nvext":{"timing":{"request_received_ms":1001,"prefill_wait_time_ms":2,"ttft_ms":30,"total_time_ms":1900}}}}`)
	f.Add(`{"id":"a","startTime":1,"endTime":3,"response":{"timings":{"prompt_ms":12.5,"predicted_ms":800}},"response":{"metrics":{"queue_time_ms":-1}}}`)
	f.Add(`{"request_id":"a","startTime":1,"endTime":3,"response":"{\"metrics\":{\"queue_time_ms\":1}}"}`)
	f.Fuzz(func(t *testing.T, line string) {
		rd := newLiteLLMReader(Input{Name: "fuzz", R: strings.NewReader(""), MaxLineBytes: DefaultMaxLineBytes}).(*liteLLMReader)
		scanMatchesParsed(t, line, rd.scanLine, rd.decode, liteLLMKeys)
	})
}

// BenchmarkParseJSONValue decodes a LiteLLM StandardLoggingPayload line, the
// way the gateway formats read every record.
func BenchmarkParseJSONValue(b *testing.B) {
	line := []byte(`{"id":"chatcmpl-r1","trace_id":"t","stream":true,"status":"success","startTime":1795168800.214972,` +
		`"prompt_tokens":612,"metadata":{"attempted_retries":0,"usage_object":{"total_tokens":658}},"request_tags":[],"error_str":null}`)
	keys := map[string]string{}
	b.ReportAllocs()
	b.SetBytes(int64(len(line)))
	for b.Loop() {
		if _, err := scan.ParseValue(line, keys, liteLLMKeys); err != nil {
			b.Fatal(err)
		}
	}
}
