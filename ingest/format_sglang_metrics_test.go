package ingest

import (
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"testing"
)

// TestSGLangMetricsScanMatchesParsed is a differential test of the
// sglang-metrics reader's two paths: scanLine, which reads an NDJSON record
// in one pass, and the parsed path (scan.ParseValue, then decode), which
// takes every other line and was the reader's only path before. Randomized
// records (sglangMetricsGen) and the shipped fixtures go through both: each
// line must give the same record, span field for field or reject for
// reject.
func TestSGLangMetricsScanMatchesParsed(t *testing.T) {
	trials := 20000
	if testing.Short() {
		trials = 2000
	}
	r := rand.New(rand.NewPCG(5, 6))
	var lines []string
	for _, file := range []string{"testdata/sglang/metrics/export.good.jsonl", "testdata/sglang/metrics/corrupt.bad.jsonl"} {
		b, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		for line := range strings.SplitSeq(strings.TrimSpace(string(b)), "\n") {
			if strings.TrimSpace(line) != "" {
				lines = append(lines, line)
			}
		}
	}
	for range trials {
		lines = append(lines, sglangMetricsGen(r))
	}
	input := strings.Join(lines, "\n")

	scanned, parsed, scannedLines := readBothPaths(t, input, func(in Input) (Reader, *jsonRecordReader) {
		rd := newSGLangMetricsReader(in).(*sglangMetricsReader)
		return rd, rd.jsonRecordReader
	})
	if len(scanned) != len(lines) || len(parsed) != len(lines) {
		t.Fatalf("%d lines gave %d records scanned and %d parsed", len(lines), len(scanned), len(parsed))
	}
	kinds := map[string]int{}
	for i := range lines {
		if msg := liteLLMRecordDiff(&scanned[i], &parsed[i]); msg != "" {
			t.Fatalf("line %d: scanned %s\n%s", i+1, msg, lines[i])
		}
		switch rec := &parsed[i]; rec.Kind {
		case KindSpan:
			kinds["span "+rec.Span.Status]++
		case KindReject:
			kinds["reject "+rec.Err.Kind()]++
		}
	}
	for _, k := range []string{"span ok", "span error", "span aborted", "reject bad_json", "reject bad_type", "reject bad_value", "reject bad_timestamp", "reject missing_field"} {
		if kinds[k] == 0 {
			t.Errorf("no line gave %q: %v", k, kinds)
		}
	}
	// Lines that are not objects or not JSON go the parsed way; the
	// generator writes about 5 % of those.
	if scannedLines < len(lines)*3/4 {
		t.Errorf("scanLine read %d of %d lines: the test compares too little of it", scannedLines, len(lines))
	}
	t.Logf("lines by outcome: %v; %d of %d scanned", kinds, scannedLines, len(lines))
}

// sglangMetricsGen writes one random line of SGLang's request metrics
// export: mostly what FileRequestMetricsExporter writes, with the values
// logs hold otherwise (numbers as strings, null, a missing key, string
// finish reasons, escapes, repeated keys) and lines cut off or not objects.
func sglangMetricsGen(r *rand.Rand) string {
	chance := func(p float64) bool { return r.Float64() < p }
	pick := func(vs ...string) string { return vs[r.IntN(len(vs))] }
	epoch := 1773136800 + float64(r.IntN(86_400_000_000))/1e6
	num := func(v float64) string {
		switch {
		case chance(0.03):
			return strconv.Quote(strconv.FormatFloat(v, 'f', -1, 64))
		case chance(0.02):
			return "null"
		case chance(0.01):
			return pick(`"soon"`, `true`, `[]`, `{}`, `-1`, `1e400`)
		}
		return strconv.FormatFloat(v, 'f', -1, 64)
	}
	tokens := func() string {
		switch {
		case chance(0.02):
			return pick(`"12"`, `null`, `-3`, `1.5`, `"x"`, `{}`)
		}
		return strconv.Itoa(r.IntN(5000))
	}
	var kv []string
	add := func(k, v string) {
		if chance(0.02) {
			return // the key is missing
		}
		kv = append(kv, strconv.Quote(k)+": "+v)
	}
	add("request_parameters", strconv.Quote(`{"text": "a \"quoted\" prompt\n`+pick("", "é", `\u00e9`)+`", "sampling_params": {"max_new_tokens": 64}}`))
	id := "rid-" + strconv.Itoa(r.IntN(1000))
	if chance(0.1) {
		id = pick(`q\"x`, `\u0041b`, "", "-")
	}
	if chance(0.02) {
		add("id", pick("17", "null", "{}"))
	} else {
		add("id", `"`+id+`"`)
	}
	finish := pick(
		`{"type": "stop", "matched": 128009}`, `{"type": "length", "length": 64}`,
		`{"type": "abort", "message": "client gone"}`, `{"type": "abort", "status_code": 400, "message": "too long"}`,
		`{"type": "abort", "status_code": 503}`, `{"type": "abort", "status_code": 499}`,
		`{"type": "abort", "status_code": "x"}`, `{"type": "abort", "status_code": 1200}`,
		`{"type": "weird"}`, `{"type": 3}`, `{}`, `null`, `"FINISH_ABORT(...)"`, `"FINISH_MATCHED_TOKEN"`, `7`,
		`{"status_code": 500, "type": "abort"}`)
	add("finish_reason", finish)
	add("prompt_tokens", tokens())
	add("weight_version", `"default"`)
	add("queue_time", num(float64(r.IntN(100_000))/1e6))
	add("completion_tokens", tokens())
	add("cached_tokens", tokens())
	add("e2e_latency", num(float64(r.IntN(5_000_000))/1e6))
	if !chance(0.05) { // SGLang without --enable-metrics has no time stamps
		add("request_received_ts", num(epoch))
		add("request_sent_to_scheduler_ts", num(epoch+0.003))
		add("prefill_finished_ts", num(epoch+0.09))
		add("decode_finished_ts", num(epoch+0.9))
		add("response_sent_to_client_ts", num(epoch+0.91))
	}
	if chance(0.05) {
		add("finish_reason", pick(`{"type": "stop"}`, `{"type": "abort", "status_code": 429}`, `"abort"`))
	}
	if chance(0.05) {
		add("id", `"again-`+id+`"`)
	}
	if chance(0.05) {
		r.Shuffle(len(kv), func(i, j int) { kv[i], kv[j] = kv[j], kv[i] })
	}
	line := "{" + strings.Join(kv, ", ") + "}"
	switch {
	case chance(0.02):
		line = line[:r.IntN(len(line))]
	case chance(0.01):
		line = "[" + line + "]"
	case chance(0.01):
		line = line + " trailing"
	}
	return line
}

// FuzzSGLangMetricsScan holds scanLine to the parsed path on any line: when
// it takes a line, it must give the record the parsed path gives.
func FuzzSGLangMetricsScan(f *testing.F) {
	r := rand.New(rand.NewPCG(7, 8))
	for range 50 {
		f.Add(sglangMetricsGen(r))
	}
	f.Fuzz(func(t *testing.T, line string) {
		rd := newSGLangMetricsReader(Input{Name: "fuzz", R: strings.NewReader(""), MaxLineBytes: DefaultMaxLineBytes}).(*sglangMetricsReader)
		scanMatchesParsed(t, line, rd.scanLine, rd.decode, sglangMetricsKeys)
	})
}
