package schemas

import (
	"bytes"
	"slices"
)

// Role is what a source's spans see of a request: a gateway's log records
// what the client saw (receipt, outcome, retries), an engine's what the
// scheduler did (admission, tokens). analyze joins a run's gateway spans
// with its engine spans per attempt; spans of other roles never join.
type Role string

// Join roles.
const (
	RoleNone    Role = ""
	RoleGateway Role = "gateway"
	RoleEngine  Role = "engine"
)

// roles are the join roles of the sources whose spans join, by source
// (spans.parquet's source column: the name of the input format that read
// them, ingest.Formats). A source not here joins nothing: canonical spans,
// samples, the load tools' results, Prometheus scrapes.
var roles = map[string]Role{
	"vllm-log":       RoleEngine,
	"vllm-otel":      RoleEngine,
	"sglang-metrics": RoleEngine,
	"sglang-log":     RoleEngine,
	"llamacpp":       RoleEngine,
	"llamacpp-log":   RoleEngine,
	"trtllm-perf":    RoleEngine,
	"dynamo-trace":   RoleEngine,
	"dynamo-nvext":   RoleEngine,

	"litellm":    RoleGateway,
	"kong":       RoleGateway,
	"envoy-ai":   RoleGateway,
	"otel-genai": RoleGateway,
	"mapping":    RoleGateway,
}

// RoleOf is the join role of source's spans.
func RoleOf(source string) Role { return roles[source] }

// SourcesOf returns the sources whose spans play role (not RoleNone),
// sorted.
func SourcesOf(role Role) []string {
	var out []string
	for name, r := range roles {
		if r == role {
			out = append(out, name)
		}
	}
	slices.Sort(out)
	return out
}

// JoinKey is the key a span's id offers the gateway-engine join
// (analyze's join_raw.sql holds the same rule in SQL): the id without the
// OpenAI prefix (chatcmpl-, cmpl-) and our attempt suffix (#retryN, #N).
func JoinKey(b []byte) []byte {
	if bytes.HasPrefix(b, []byte("chatcmpl-")) {
		b = b[len("chatcmpl-"):]
	} else if bytes.HasPrefix(b, []byte("cmpl-")) {
		b = b[len("cmpl-"):]
	}
	// The suffix '#(retry)?[0-9]+$' can only start at the last '#'.
	if i := bytes.LastIndexByte(b, '#'); i >= 0 {
		s := bytes.TrimPrefix(b[i+1:], []byte("retry"))
		if len(s) > 0 && !slices.ContainsFunc(s, func(c byte) bool { return c < '0' || c > '9' }) {
			b = b[:i]
		}
	}
	return b
}

// TrimV1Suffix cuts vLLM V1's internal suffix, '-' and 8 lowercase hex
// digits, off an engine's request id (the join's second engine key,
// join_match.sql); false when k has none.
func TrimV1Suffix(k []byte) ([]byte, bool) {
	n := len(k)
	if n < 9 || k[n-9] != '-' {
		return nil, false
	}
	for _, c := range k[n-8:] {
		if (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return nil, false
		}
	}
	return k[:n-9], true
}
