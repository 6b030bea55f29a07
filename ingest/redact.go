package ingest

import (
	"bytes"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/tpsreport/tpsreport/ingest/internal/scan"
)

// A rejected record is kept in rejects.jsonl so that a user can see what was
// wrong with it, but prompt and completion text must never reach any output
// (schemas/README.md). redactRaw removes it and cuts the record to 1 KiB.
//
// The rule is an allow list: a string survives only as the value of a
// known field (knownKeys: the fields the formats read, such as span_id,
// model, status, and the keys of a --mapping file), and only when short.
// Prompt text goes whatever its key: under a text key (prompt, messages,
// system_prompt, query, error_str, ...), or in an OTLP attribute
// {"key": "gen_ai.input.messages", "value": {...}} or a GenAI content event,
// the whole value becomes "[removed]"; any other string, "[removed N
// bytes]". A record that is not valid JSON keeps no text at all: only its
// structure, its keys and its numbers.
const (
	// rawLimit is the most bytes of a record kept in rejects.jsonl.
	rawLimit = 1024
	// longString is the longest string kept, even under a known field: a
	// longer one may be text, and is removed.
	longString = 64
)

// textKeys are keys whose values hold prompt or completion text, matched
// case-insensitively at any depth; so is a key that ends in "_" or "."
// and one of them (system_prompt, gen_ai.input.messages, error_str).
var textKeys = map[string]bool{
	"prompt": true, "prompts": true, "prompt_text": true,
	"messages": true, "message": true,
	"completion": true, "completions": true, "choices": true, "delta": true,
	"content": true, "text": true,
	"input": true, "inputs": true, "input_text": true,
	"output": true, "outputs": true, "output_text": true,
	"response": true, "request_body": true, "response_body": true, "body": true,
	"instructions": true, "system": true, "system_instructions": true,
	"query": true, "queries": true, "question": true, "answer": true, "context": true,
	"error_str": true, "str": true, "traceback": true, "error_message": true, "exception": true,
	"arguments": true, "tool_calls": true, "function_call": true, "documents": true,
	"generated_text": true, "generated_texts": true,
}

// textKeySuffixes end keys whose values are text (system_prompt,
// prompt_tokens_text, gen_ai.input.messages).
var textKeySuffixes = []string{
	"prompt", "prompts", "text", "texts", "messages", "message", "content", "instructions",
	"query", "completion", "completions", "input", "output", "body", "str", "traceback",
}

// isTextKey reports whether key (a JSON key or an OTLP attribute name)
// holds text.
func isTextKey(key []byte) bool {
	if len(key) > 128 {
		return false
	}
	low := strings.ToLower(string(key))
	if textKeys[low] {
		return true
	}
	for _, s := range textKeySuffixes {
		if len(low) > len(s) && strings.HasSuffix(low, s) {
			if c := low[len(low)-len(s)-1]; c == '_' || c == '.' || c == '-' {
				return true
			}
		}
	}
	// OpenLLMetry's indexed attributes: gen_ai.prompt.0.content.
	return strings.HasPrefix(low, "gen_ai.prompt.") || strings.HasPrefix(low, "gen_ai.completion.") ||
		strings.HasPrefix(low, "llm.prompts") || strings.HasPrefix(low, "llm.completions")
}

// knownKeys are the fields whose short string values are kept: what the
// formats read (a span's columns, the gateways' and OTLP's fields), in
// lower case. An OTLP attribute's value is kept when its key is known.
var knownKeys = func() map[string]bool {
	m := map[string]bool{}
	for _, k := range strings.Fields(`
		run_id source span_id request_id attempt retry_cause model replica queued_at engine_arrived_at admitted_at
		first_token_at last_token_at released_at input_tokens output_tokens cached_tokens status
		error http_status time_resolution_us time_origin ts in_flight queue_depth cap kv_cache_usage
		preemptions prefix_cache_queries prefix_cache_hits spec_draft_tokens spec_accepted_tokens prefix_cache_hit_rate
		id trace_id call_type stream custom_llm_provider starttime endtime completionstarttime
		model_id model_group api_base cache_hit error_class error_code llm_provider
		user_api_key_alias attempted_retries max_retries requester_ip_address end_user
		request_tags spend total_tokens prompt_tokens completion_tokens response_time
		started_at latencies proxy kong tries balancer_start ip port state code uri url method host
		x-request-id x-kong-request-id meta request_model response_model provider_name request_mode
		start_time timestamp duration response_code status_code response_flags response_code_details
		x_request_id req_x_request_id upstream_host upstream_addr upstream_status
		traceid spanid parentspanid trace_id span_id parent_span_id name kind key flags
		starttimeunixnano endtimeunixnano start_time_unix_nano end_time_unix_nano
		gen_ai.request.model gen_ai.response.model gen_ai.request.id gen_ai.response.id
		gen_ai.operation.name gen_ai.provider.name gen_ai.response.finish_reasons
		server.address server.port error.type http.request.header.x-request-id
		http.response.status_code http.request.resend_count service.name service.instance.id
		host.name k8s.pod.name telemetry.sdk.language telemetry.sdk.name telemetry.sdk.version
		date label model_id backend endpoint_type`) {
		m[k] = true
	}
	return m
}()

// transparentKeys hold a value on behalf of the key above them (OTLP's
// AnyValue and its arrays): whether its strings are kept is the
// enclosing field's call.
var transparentKeys = map[string]bool{
	"value": true, "values": true, "stringvalue": true, "string_value": true, "intvalue": true,
	"int_value": true, "doublevalue": true, "double_value": true, "boolvalue": true, "bool_value": true,
	"arrayvalue": true, "array_value": true, "kvlistvalue": true, "kvlist_value": true,
	"bytesvalue": true, "bytes_value": true,
}

// isContentEvent reports whether an OTLP event's name says it carries
// prompt or completion text (gen_ai.content.prompt, gen_ai.user.message,
// gen_ai.choice, ...).
func isContentEvent(name string) bool {
	name = strings.ToLower(name)
	return strings.HasPrefix(name, "gen_ai.content.") || name == "gen_ai.choice" ||
		strings.HasPrefix(name, "gen_ai.") && (strings.HasSuffix(name, ".message") || strings.HasSuffix(name, ".messages"))
}

// redactRaw returns raw as rejects.jsonl keeps it (see the top of this
// file), valid UTF-8, cut to at most 1 KiB on a character boundary.
func redactRaw(raw []byte) string { return redactRawKnown(raw, nil) }

// redactRawKnown is redactRaw with more known fields (lower case): a
// mapping file's keys.
func redactRawKnown(raw []byte, known map[string]bool) string {
	out, ok := redactJSON(raw, known)
	if !ok {
		out = redactText(raw, known)
	}
	return cutUTF8(strings.ToValidUTF8(string(out), "\uFFFD"), rawLimit)
}

// cutUTF8 cuts s to at most n bytes without splitting a character.
func cutUTF8(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

func appendRemoved(out []byte, n int) []byte {
	out = append(out, `"[removed `...)
	out = strconv.AppendInt(out, int64(n), 10)
	return append(out, ` bytes]"`...)
}

const removedText = `"[removed]"`

// redactJSON rewrites a valid JSON record compactly with text removed. It
// reports false when raw is not valid JSON.
func redactJSON(raw []byte, known map[string]bool) ([]byte, bool) {
	r := redactor{out: make([]byte, 0, min(len(raw), 2*rawLimit)), known: known}
	r.s.Reset(raw)
	if r.value(false) != nil || r.s.Finish() != nil {
		return nil, false
	}
	return r.out, true
}

type redactor struct {
	s     scan.JSON
	out   []byte
	known map[string]bool // more known keys
}

func (r *redactor) isKnown(key []byte) bool {
	low := strings.ToLower(string(key))
	return knownKeys[low] || r.known[low]
}

// value copies the value at the scanner, removing text; keep says whether
// a short string there is kept (its key is a known field).
func (r *redactor) value(keep bool) error {
	s := &r.s
	switch s.Class() {
	case scan.String:
		start := s.Pos
		b, err := s.ReadString()
		if err != nil {
			return err
		}
		// A number in a string (OTLP's intValue, a bad_type token count)
		// is no text, whatever its key.
		if !(keep || isJSONLiteral(b)) || len(b) > longString {
			r.out = appendRemoved(r.out, len(b))
		} else {
			r.out = append(r.out, s.Data[start:s.Pos]...)
		}
		return nil
	case scan.Object:
		return r.object(keep)
	case scan.Array:
		r.out = append(r.out, '[')
		first := true
		err := s.Elements(func() error {
			if !first {
				r.out = append(r.out, ',')
			}
			first = false
			return r.value(keep)
		})
		r.out = append(r.out, ']')
		return err
	default:
		start := s.Pos
		if err := s.SkipValue(); err != nil {
			return err
		}
		r.out = append(r.out, s.Data[start:s.Pos]...)
		return nil
	}
}

// object copies an object. An OTLP attribute ({"key": K, "value": V}) keeps
// V as K's field would be kept; a GenAI content event ({"name":
// "gen_ai.content.prompt", "attributes": [...]}) loses its attributes and
// body.
func (r *redactor) object(keep bool) error {
	s := &r.s
	attr, event := r.peekNames()
	if err := s.BeginObject(); err != nil {
		return err
	}
	r.out = append(r.out, '{')
	for first := true; ; first = false {
		key, ok, err := s.NextKey(first)
		if err != nil {
			return err
		}
		if !ok {
			r.out = append(r.out, '}')
			return nil
		}
		if !first {
			r.out = append(r.out, ',')
		}
		r.out = strconv.AppendQuote(r.out, string(key))
		r.out = append(r.out, ':')
		low := strings.ToLower(string(key))
		remove := isTextKey(key)
		keepValue := r.isKnown(key) || transparentKeys[low] && keep
		switch {
		case attr != nil && low == "value":
			remove, keepValue = isTextKey(attr), r.isKnown(attr)
		case event && (low == "attributes" || low == "body"):
			remove = true
		}
		if remove {
			if err := s.SkipValue(); err != nil {
				return err
			}
			r.out = append(r.out, removedText...)
			continue
		}
		if err := r.value(keepValue); err != nil {
			return err
		}
	}
}

// peekNames looks ahead into the object at the scanner for its "key"
// (an OTLP attribute's name; nil if none) and whether its "name" is a
// GenAI content event's, without moving the scanner. It looks only at the
// members before the first object or array (OTLP writes "key" before
// "value", an event's "name" before its "attributes"), so that the
// redaction of nested objects stays linear.
func (r *redactor) peekNames() (attr []byte, event bool) {
	p := r.s
	p.Scratch = nil // leave the real scanner's buffer alone
	if p.BeginObject() != nil {
		return nil, false
	}
	for first := true; ; first = false {
		key, ok, err := p.NextKey(first)
		if err != nil || !ok {
			return attr, event
		}
		k := strings.ToLower(string(key))
		if (k == "key" || k == "name") && p.Class() == scan.String {
			v, err := p.ReadString()
			if err != nil {
				return attr, event
			}
			if k == "key" {
				attr = bytes.Clone(v)
			} else {
				event = isContentEvent(string(v))
			}
			continue
		}
		if c := p.Class(); c == scan.Object || c == scan.Array || p.SkipValue() != nil {
			return attr, event
		}
	}
}

// redactText removes the text of a record that is not valid JSON (cut
// short, or damaged) by looking only at its tokens: it keeps the structure
// ({}[],: and whitespace), numbers, true, false and null, the short quoted
// keys (a string followed by ':') and the short values of known fields; the
// value of a text key becomes "[removed]", and every other string, and
// every other run of bytes, "[removed N bytes]". A line that does not start
// like JSON keeps nothing but its length.
func redactText(raw []byte, known map[string]bool) []byte {
	out := make([]byte, 0, min(len(raw), 2*rawLimit))
	t := bytes.TrimLeft(raw, " \t\r\n")
	if len(t) == 0 {
		return append(out, raw...)
	}
	if t[0] != '{' && t[0] != '[' {
		return appendRemoved(out, len(raw))
	}
	const structure = "{}[],: \t\r\n"
	var key []byte // the key of the value that may follow
	afterColon := false
	for i := 0; i < len(raw); {
		c := raw[i]
		switch {
		case c == '"':
			j := i + 1
			for j < len(raw) && raw[j] != '"' {
				if raw[j] == '\\' {
					j++
				}
				j++
			}
			end := min(j, len(raw))
			content := raw[i+1 : end]
			whole := raw[i:min(j+1, len(raw))]
			k := min(j+1, len(raw))
			for k < len(raw) && (raw[k] == ' ' || raw[k] == '\t') {
				k++
			}
			isKey := !afterColon && k < len(raw) && raw[k] == ':' && j < len(raw)
			low := strings.ToLower(string(key))
			switch {
			case isKey && len(content) <= longString:
				out = append(out, whole...)
			case isKey:
				out = appendRemoved(out, len(content))
			case afterColon && isTextKey(key):
				out = append(out, removedText...)
			case j < len(raw) && len(content) <= longString &&
				(afterColon && (knownKeys[low] || known[low]) || isJSONLiteral(content)):
				out = append(out, whole...)
			default:
				out = appendRemoved(out, len(content))
			}
			if isKey {
				key = content
			}
			afterColon = false
			i = j + 1
		case strings.IndexByte(structure, c) >= 0:
			switch c {
			case ':':
				afterColon = true
			case ',', '{', '[', '}', ']':
				afterColon = false
			}
			out = append(out, c)
			i++
		default:
			j := i
			for j < len(raw) && raw[j] != '"' && strings.IndexByte(structure, raw[j]) < 0 {
				j++
			}
			if word := raw[i:j]; isJSONLiteral(word) {
				out = append(out, word...)
			} else {
				out = appendRemoved(out, len(word))
			}
			afterColon = false
			i = j
		}
	}
	return out
}

// isJSONLiteral reports whether word is a JSON number, true, false or null.
func isJSONLiteral(word []byte) bool {
	switch string(word) {
	case "true", "false", "null":
		return true
	}
	if len(word) == 0 {
		return false
	}
	for _, c := range word {
		if !('0' <= c && c <= '9' || c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E') {
			return false
		}
	}
	return true
}
