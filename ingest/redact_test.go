package ingest

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/tpsreport/tpsreport/schemas"
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
			`{"span_id":"` + long + `","model":"` + long[:64] + `"}`,
			`{"span_id":"[removed 65 bytes]","model":"` + long[:64] + `"}`,
		},
		{
			"json keeps escapes of short strings",
			`{"model":"x\"y\u00e9","b":[1,true,null,-2.5e3]}`,
			`{"model":"x\"y\u00e9","b":[1,true,null,-2.5e3]}`,
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
			`{"[removed 3 bytes]":"[removed 68 bytes]"}`, // 'a'; x, \", 65 L
		},
		{
			"plain text keeps nothing",
			`yesterday was a good day`,
			`"[removed 24 bytes]"`,
		},
		{
			"invalid utf-8",
			"{\"model\":\"\xff\"",
			"{\"model\":\"\uFFFD\"",
		},
	}
	for _, tt := range tests {
		if got := redactRaw([]byte(tt.in)); got != tt.want {
			t.Errorf("%s:\n got  %s\n want %s", tt.name, got, tt.want)
		}
	}
}

func TestRedactRawCut(t *testing.T) {
	// Known values of 3-byte characters: the cut at 1024 bytes must not
	// split one.
	v := `"` + strings.Repeat("€", 20) + `"` // 62 bytes
	in := `{"model":[` + strings.Repeat(v+",", 30) + v + `]}`
	got := redactRaw([]byte(in))
	if len(got) > 1024 || len(got) < 1022 || !utf8.ValidString(got) || !strings.HasPrefix(in, got) {
		t.Errorf("got %d bytes, valid %v, a prefix of the input %v; want 1022 to 1024 valid bytes of it",
			len(got), utf8.ValidString(got), strings.HasPrefix(in, got))
	}
}

// TestRedactRawHostile: prompt text is removed where review F9 found it
// kept: in OTLP attributes (by attribute key), GenAI content events, keys
// such as system_prompt, query, error_str, and any short string of a field
// that is not a known one; a line that is not JSON keeps no text.
func TestRedactRawHostile(t *testing.T) {
	attr := func(k, v string) string { return `{"key":"` + k + `","value":{"stringValue":"` + v + `"}}` }
	tests := []struct{ name, in, want string }{
		{
			"OTLP text attributes by key; known ones kept; numbers kept",
			`{"spanId":"aa01","name":"chat m","attributes":[` + attr("gen_ai.request.model", "m") + `,` +
				attr("gen_ai.input.messages", `[{\"role\":\"user\",\"content\":\"S1\"}]`) + `,` + attr("gen_ai.prompt", "S2") + `,` +
				attr("gen_ai.output.messages", "S3") + `,` + attr("gen_ai.system_instructions", "S4") + `,` +
				attr("gen_ai.prompt.0.content", "S5") + `,` + attr("custom.note", "S6") + `,` +
				`{"key":"gen_ai.usage.output_tokens","value":{"intValue":"-5"}}]}`,
			`{"spanId":"aa01","name":"chat m","attributes":[` + attr("gen_ai.request.model", "m") + `,` +
				`{"key":"gen_ai.input.messages","value":"[removed]"},{"key":"gen_ai.prompt","value":"[removed]"},` +
				`{"key":"gen_ai.output.messages","value":"[removed]"},{"key":"gen_ai.system_instructions","value":"[removed]"},` +
				`{"key":"gen_ai.prompt.0.content","value":"[removed]"},{"key":"custom.note","value":{"stringValue":"[removed 2 bytes]"}},` +
				`{"key":"gen_ai.usage.output_tokens","value":{"intValue":"-5"}}]}`,
		},
		{
			"OTLP attribute with its value first",
			`{"value":{"stringValue":"S1"},"key":"gen_ai.prompt"}`,
			`{"value":{"stringValue":"[removed 2 bytes]"},"key":"gen_ai.prompt"}`,
		},
		{
			"content events lose their attributes and body",
			`{"events":[{"timeUnixNano":"1","name":"gen_ai.content.prompt","attributes":[` + attr("gen_ai.prompt", "S1") + `]},` +
				`{"name":"gen_ai.user.message","body":{"content":"S2"},"attributes":[` + attr("gen_ai.system", "openai") + `]}]}`,
			`{"events":[{"timeUnixNano":"1","name":"gen_ai.content.prompt","attributes":"[removed]"},` +
				`{"name":"gen_ai.user.message","body":"[removed]","attributes":"[removed]"}]}`,
		},
		{
			"text under other keys",
			`{"span_id":"a","system_prompt":"S1","query":"S2","error_str":"S3","prompt_tokens_text":"S4","note":"S5 s","status":"ok"}`,
			`{"span_id":"a","system_prompt":"[removed]","query":"[removed]","error_str":"[removed]","prompt_tokens_text":"[removed]","note":"[removed 4 bytes]","status":"ok"}`,
		},
		{
			"not JSON: no text but known fields' values",
			`{"span_id":"a","note":"S1","query":"S2","n":1, S3 "x`,
			`{"span_id":"a","note":"[removed 2 bytes]","query":"[removed]","n":1, "[removed 2 bytes]" "[removed 1 bytes]"`,
		},
		{
			"not JSON at all",
			`S1 is what the user said`,
			`"[removed 24 bytes]"`,
		},
	}
	for _, tt := range tests {
		if got := redactRaw([]byte(tt.in)); got != tt.want {
			t.Errorf("%s:\n got  %s\n want %s", tt.name, got, tt.want)
		}
	}
	// A mapping's keys are known fields.
	if got := redactRawKnown([]byte(`{"upstream":"10.0.0.1","x":"S1"}`), map[string]bool{"upstream": true}); got != `{"upstream":"10.0.0.1","x":"[removed 2 bytes]"}` {
		t.Errorf("mapping keys: %s", got)
	}
}

// TestRunRedactsOTLPAttributes is review F9's command: no prompt text of an
// OTLP GenAI span reaches rejects.jsonl.
func TestRunRedactsOTLPAttributes(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "otel_min.jsonl")
	writeFile(t, in, []byte(`{"resourceSpans":[{"scopeSpans":[{"spans":[{"spanId":"aa01","name":"chat m","startTimeUnixNano":"soon","attributes":[{"key":"gen_ai.request.model","value":{"stringValue":"m"}},{"key":"gen_ai.input.messages","value":{"stringValue":"[{\"role\":\"user\",\"content\":\"SECRET_PROMPT_42\"}]"}}]}]}]}]}`+"\n"))
	out := filepath.Join(dir, "out")
	if _, err := Run(context.Background(), Options{RunID: "x", Format: "otel-genai", OutDir: out, Inputs: []string{in}, allowEmpty: true}); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(out, schemas.RejectsFile))
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Count(b, []byte("\n")) != 1 || bytes.Contains(b, []byte("SECRET")) {
		t.Errorf("rejects.jsonl:\n%s", b)
	}
}
