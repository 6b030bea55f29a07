package ingest

import (
	"errors"
	"strings"
)

// errNotARequest is what a gateway record's decoder returns for a record
// that is not an LLM request (an MCP tool call, a health check, a plain
// route): the record is skipped as not_a_request, not counted as a request
// with no token.
var errNotARequest = errors.New("not an LLM request")

// llmAPIPaths are the path parts of the LLM APIs gateways proxy: OpenAI's
// and its compatibles', Anthropic's, Gemini's and Bedrock's.
var llmAPIPaths = []string{
	"/chat/completions", "/completions", "/embeddings", "/responses", "/messages",
	":generatecontent", ":streamgeneratecontent", "/converse", "/invoke", "/generate",
}

// llmAPIPath reports whether a request path (query string and all) is one of
// an LLM API.
func llmAPIPath(p string) bool {
	if i := strings.IndexByte(p, '?'); i >= 0 {
		p = p[:i]
	}
	p = strings.ToLower(p)
	for _, s := range llmAPIPaths {
		if strings.Contains(p, s) {
			return true
		}
	}
	return false
}

// gatewayNotARequest decides for a gateway record that names no model and
// counts no token whether it is an LLM request at all. A successful one is
// not: an LLM call answers with a model and usage. A failed one is when its
// path is an LLM API's (the gateway refused it before the model was known),
// and is not when its path is another (a 404 of a plain route); with no
// path it is kept, as the request it may have been.
func gatewayNotARequest(ok bool, path *string) bool {
	if ok {
		return true
	}
	return path != nil && !llmAPIPath(*path)
}
