package schemas

import "slices"

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
