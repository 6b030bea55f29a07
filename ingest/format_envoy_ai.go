package ingest

import (
	"errors"
	"strings"

	"github.com/tpsreport/tpsreport/ingest/internal/scan"
	"github.com/tpsreport/tpsreport/schemas"
)

// The envoy-ai format reads Envoy AI Gateway access logs in JSON, one object
// per line, as an EnvoyProxy telemetry.accessLog JSON format writes them.
// The key names are the user's, so each column is looked up under the names
// the Envoy Gateway default format, the AI Gateway docs and its examples
// use; keys are compared case-insensitively with "-", "." and ":" read as
// "_" (so "x-request-id", "X_REQUEST_ID" and "gen_ai.usage.input_tokens" vs
// "gen_ai_usage_input_tokens" all match). A field Envoy could not fill is
// null or "-": unknown.
//
//   - span_id = request_id = the x-request-id header (required);
//   - queued_at = start_time (%START_TIME%, ISO with ms); released_at =
//     start_time + duration (%DURATION%, ms);
//   - first_token_at = start_time + token_latency_ttft (ms, dynamic metadata
//     io.envoy.ai_gateway:token_latency_ttft, streaming only);
//   - status from response_code (0 = the client went away before a
//     response: cancelled) and response_flags (DC cancelled, UT and SI
//     timeout); http_status = response_code when it is an HTTP status;
//   - replica = upstream_host; model = the response model metadata, else
//     the request model (x-ai-eg-model header);
//   - tokens from the llmRequestCosts metadata (llm_input_token, ...) or
//     their gen_ai.usage.* names;
//   - attempt = UPSTREAM_REQUEST_ATTEMPT_COUNT − 1 when configured: one line
//     covers all of Envoy's upstream attempts, and this span is the last.

// SourceEnvoyAI is the source column of spans read from Envoy AI Gateway logs.
const SourceEnvoyAI = "envoy-ai"

type envoyAIReader struct{ *jsonRecordReader }

var _ Reader = (*envoyAIReader)(nil)

func newEnvoyAIReader(in Input) Reader {
	r := &envoyAIReader{}
	r.jsonRecordReader = newJSONRecordReader(in, decodeEnvoyAI)
	return r
}

// envoyKeys lists, per column, the normalised access-log keys that feed it,
// in order of preference.
var envoyKeys = map[string][]string{
	"start":     {"start_time", "timestamp"},
	"duration":  {"duration"},
	"code":      {"response_code", "status_code"},
	"flags":     {"response_flags"},
	"details":   {"response_code_details"},
	"id":        {"x_request_id", "request_id", "req_x_request_id"},
	"upstream":  {"upstream_host"},
	"respModel": {"gen_ai_response_model", "genai_model_name_override", "model_name_override", "response_model"},
	"reqModel":  {"gen_ai_request_model", "genai_model_name", "x_ai_eg_model", "model"},
	"in":        {"gen_ai_usage_input_tokens", "genai_tokens_input", "llm_input_token", "input_tokens"},
	"out":       {"gen_ai_usage_output_tokens", "genai_tokens_output", "llm_output_token", "output_tokens"},
	"cached":    {"gen_ai_usage_cache_read_input_tokens", "llm_cached_input_token", "cached_input_tokens"},
	"ttft":      {"token_latency_ttft", "genai_token_latency_ttft", "ttft"},
	"attempts":  {"upstream_request_attempt_count", "attempt_count"},
	"mcp":       {"mcp_method_name", "jsonrpc_request_id", "mcp_session_id"},
	"path":      {"x_envoy_origin_path", "path", "request_path"},
}

// normKey lowercases k and maps "-", ".", ":" to "_", dropping a leading one.
func normKey(k string) string {
	b := []byte(strings.ToLower(k))
	for i, c := range b {
		if c == '-' || c == '.' || c == ':' {
			b[i] = '_'
		}
	}
	return strings.TrimLeft(string(b), "_")
}

func decodeEnvoyAI(v any, _ []byte, out []Record) []Record {
	m, ok := v.(map[string]any)
	if !ok {
		return decodeReject(out, scan.Errorf(ErrBadType, -1, "want a JSON object, found %s", scan.KindName(v)))
	}
	norm := make(map[string]any, len(m))
	names := make(map[string]string, len(m))
	for k, x := range m {
		n := normKey(k)
		if _, dup := norm[n]; !dup || !scan.IsUnknown(x) {
			norm[n], names[n] = x, k
		}
	}
	look := func(col string) (any, string) {
		for _, k := range envoyKeys[col] {
			if x, ok := norm[k]; ok && !scan.IsUnknown(x) {
				return x, names[k]
			}
		}
		return nil, envoyKeys[col][0]
	}
	var sp schemas.Span
	err := fillEnvoyAI(look, &sp)
	if errors.Is(err, errNotARequest) {
		return append(out, Record{Kind: KindSkip, Skip: SkipNotARequest})
	}
	if err != nil {
		return decodeReject(out, err)
	}
	return append(out, Record{Kind: KindSpan, Span: sp})
}

func fillEnvoyAI(look func(string) (any, string), sp *schemas.Span) error {
	*sp = schemas.Span{Source: SourceEnvoyAI}
	var fe scan.FirstErr
	get := func(col string) (any, string) { return look(col) }
	v, n := get("start")
	start := fe.Time(v, n, nil)
	v, n = get("duration")
	dur := fe.Duration(v, n, 3)
	v, n = get("code")
	code := fe.Integer(v, n, 0, 999)
	v, n = get("flags")
	flags := fe.Str(v, n)
	v, n = get("details")
	details := fe.Str(v, n)
	v, n = get("id")
	id := fe.Str(v, n)
	v, n = get("upstream")
	sp.Replica = fe.Str(v, n)
	v, n = get("respModel")
	sp.Model = fe.Str(v, n)
	if sp.Model == nil {
		v, n = get("reqModel")
		sp.Model = fe.Str(v, n)
	}
	v, n = get("in")
	sp.InputTokens = fe.Tokens(v, n)
	v, n = get("out")
	sp.OutputTokens = fe.Tokens(v, n)
	v, n = get("cached")
	sp.CachedTokens = fe.Tokens(v, n)
	v, n = get("ttft")
	ttft := fe.Duration(v, n, 3)
	v, n = get("attempts")
	attempts := fe.Integer(v, n, 0, 1<<31-1)
	if fe.Err != nil {
		return fe.Err
	}
	switch {
	case id == nil:
		return scan.Errorf(ErrMissingField, -1, "missing x-request-id. Try adding \"x-request-id\": \"%%REQ(X-REQUEST-ID)%%\" to the access log format")
	case start == nil:
		return scan.Errorf(ErrMissingField, -1, "missing start_time")
	case code == nil:
		return scan.Errorf(ErrMissingField, -1, "missing response_code")
	}
	if v, _ := get("mcp"); v != nil {
		return errNotARequest // an MCP call the gateway routed
	}
	if sp.Model == nil && sp.InputTokens == nil && sp.OutputTokens == nil {
		v, n = get("path")
		if gatewayNotARequest(*code >= 200 && *code < 400, fe.Str(v, n)) {
			return errNotARequest
		}
	}
	sp.SpanID, sp.RequestID = *id, *id
	sp.QueuedAt = start
	sp.ReleasedAt = scan.AddMicros(start, dur)
	if ttft != nil && *ttft > 0 {
		sp.FirstTokenAt = scan.AddMicros(start, ttft)
	}
	if attempts != nil && *attempts > 1 {
		a := int32(*attempts - 1)
		sp.Attempt = &a
		sp.RetryCause = schemas.Ptr("upstream_retry")
	}
	sp.HTTPStatus = scan.HTTPStatus32(code)

	f := ""
	if flags != nil {
		f = *flags
	}
	hasFlag := func(x string) bool {
		for _, part := range strings.Split(f, ",") {
			if part == x {
				return true
			}
		}
		return false
	}
	switch {
	case *code == 0 || hasFlag("DC"):
		sp.Status = schemas.StatusCancelled // the client went away
	case hasFlag("UT") || hasFlag("SI"):
		sp.Status = schemas.StatusTimeout
	default:
		sp.Status = scan.StatusFromHTTP(*code)
	}
	if sp.Status != schemas.StatusOK {
		switch {
		case f != "":
			sp.Error = flags
		case details != nil && *details != "via_upstream":
			sp.Error = details
		default:
			sp.Error = schemas.Ptr("http_" + scan.Itoa(*code))
		}
	} else if sp.FirstTokenAt != nil {
		sp.LastTokenAt = sp.ReleasedAt
	}
	return nil
}

// sniffEnvoyAI claims JSON access logs with Envoy's start_time,
// response_code and duration keys; 90 when AI Gateway fields show up.
func sniffEnvoyAI(head []byte) int {
	keys := scan.FirstObjectKeys(head)
	norm := map[string]bool{}
	for k := range keys {
		norm[normKey(k)] = true
	}
	if !norm["start_time"] || !norm["response_code"] || !norm["duration"] {
		return 0
	}
	for _, col := range []string{"in", "out", "ttft", "reqModel", "respModel"} {
		for _, k := range envoyKeys[col] {
			if norm[k] && k != "model" {
				return 90
			}
		}
	}
	return 60
}
