package ingest

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestRedactRaw(t *testing.T) {
	long := strings.Repeat("L", 65)
	tests := []struct {
		name, in, want string
	}{
		{
			"json text keys at any depth",
			`{"span_id":"a", "prompt":"secret","messages":[{"role":"user","content":"hi"}],"x":{"Completion":{"text":"t"}},"input_tokens":"7"}`,
			`{"span_id":"a","prompt":"[removed]","messages":"[removed]","x":{"Completion":"[removed]"},"input_tokens":"7"}`,
		},
		{
			"json nested text key",
			`{"span_id":"a","meta":{"request":{"text":"secret","n":1}},"status":1}`,
			`{"span_id":"a","meta":{"request":{"text":"[removed]","n":1}},"status":1}`,
		},
		{
			"json long strings",
			`{"span_id":"` + long + `","ok":"` + long[:64] + `"}`,
			`{"span_id":"[removed 65 bytes]","ok":"` + long[:64] + `"}`,
		},
		{
			"json keeps escapes of short strings",
			`{"a":"x\"y\u00e9","b":[1,true,null,-2.5e3]}`,
			`{"a":"x\"y\u00e9","b":[1,true,null,-2.5e3]}`,
		},
		{
			"json arrays: empty, nested, with text keys inside",
			`{"a":[], "b":[[],[1, {"text":"secret"}]],"c":[ ]}`,
			`{"a":[],"b":[[],[1,{"text":"[removed]"}]],"c":[]}`,
		},
		{
			"not json: long strings",
			`{"span_id":"a","status":"ok","input_tokens":"512", "note":"` + long + `"`,
			`{"span_id":"a","status":"ok","input_tokens":"512", "note":"[removed 65 bytes]"`,
		},
		{
			"not json: text keys",
			`{"span_id":"a", "prompt" : "short secret", "n":1, "response":{"text":"t"},`,
			`{"span_id":"a", "prompt" : "[removed]", "n":1, "response":{"text":"[removed]"},`,
		},
		{
			"not json: unterminated long string",
			`{"span_id":"a","x":"` + long,
			`{"span_id":"a","x":"[removed 65 bytes]"`,
		},
		{
			"not json: escaped quotes",
			`{'a':"x\"` + long + `"}`,
			`{'a':"[removed 68 bytes]"}`, // x, \", 65 L
		},
		{
			"plain text",
			`yesterday was a good day`,
			`yesterday was a good day`,
		},
		{
			"invalid utf-8",
			"{\"a\":\"\xff\"",
			"{\"a\":\"\uFFFD\"",
		},
	}
	for _, tt := range tests {
		if got := redactRaw([]byte(tt.in)); got != tt.want {
			t.Errorf("%s:\n got  %s\n want %s", tt.name, got, tt.want)
		}
	}
}

func TestRedactRawCut(t *testing.T) {
	// 1023 ASCII bytes then a 3-byte character: the cut must not split it.
	in := strings.Repeat("a", 1023) + "€€€"
	got := redactRaw([]byte(in))
	if got != strings.Repeat("a", 1023) {
		t.Errorf("got %d bytes ending %q, want the 1023 ASCII bytes", len(got), got[max(0, len(got)-4):])
	}
	in = strings.Repeat("é", 2000)
	got = redactRaw([]byte(in))
	if len(got) != 1024 || !utf8.ValidString(got) {
		t.Errorf("got %d bytes, valid %v; want 1024 valid bytes", len(got), utf8.ValidString(got))
	}
}
