package ingest

import (
	"regexp"
	"strconv"
	"strings"

	"github.com/tpsreport/tpsreport/ingest/internal/scan"
	"github.com/tpsreport/tpsreport/schemas"
)

// The llamacpp format reads responses of llama.cpp's server (llama-server,
// tools/server) as a client or proxy logged them, one JSON object per line
// (schemas/formats/llamacpp.md): the OpenAI-compatible /v1/chat/completions
// and /v1/completions answers, and the final chunk of a stream, each with
// llama.cpp's "timings" object. A response is one span:
//
//   - released_at = last_token_at = created (epoch seconds: the server's
//     clock when it wrote the response, so instants are to the second);
//   - first_token_at = released_at − timings.predicted_ms (llama.cpp times
//     generation from the first sampled token);
//   - admitted_at = first_token_at − timings.prompt_ms (prompt processing
//     starts when a slot takes the task);
//   - queued_at and engine_arrived_at are unknown: llama.cpp does not report
//     how long a task was deferred waiting for a slot;
//   - input_tokens = usage.prompt_tokens (else prompt_n + cache_n),
//     output_tokens = usage.completion_tokens (else predicted_n),
//     cached_tokens = usage.prompt_tokens_details.cached_tokens (else cache_n);
//   - span_id = request_id = id; model = model; status ok (a response with
//     timings finished).
//
// A chunk without timings, or whose finish_reason is still null (a
// streamed chunk with timings_per_token), is skipped. The native /completion
// answer has timings but no time of its own: it is rejected with a hint.

// SourceLlamaCpp is the source column of spans read from llama.cpp
// responses.
const SourceLlamaCpp = "llamacpp"

type llamaCppReader struct{ *jsonRecordReader }

var _ Reader = (*llamaCppReader)(nil)

func newLlamaCppReader(in Input) Reader {
	r := &llamaCppReader{newJSONRecordReader(in, decodeLlamaCpp)}
	r.deriveIDs = true // a native answer has no id
	r.only = map[string]bool{"id": true, "object": true, "created": true, "model": true, "choices": true,
		"usage": true, "timings": true, "stop_type": true, "tokens_predicted": true, "tokens_evaluated": true}
	return r
}

func decodeLlamaCpp(v any, _ []byte, out []Record) []Record {
	m, ok := v.(map[string]any)
	if !ok {
		return decodeReject(out, scan.Errorf(ErrBadType, -1, "want a JSON object, found %s", scan.KindName(v)))
	}
	o := scan.Obj(m)
	timings := o.Child("timings")
	finished := llamaFinished(o)
	if timings == nil || !finished {
		object, _ := o["object"].(string)
		if strings.HasSuffix(object, ".chunk") {
			return append(out, Record{Kind: KindSkip, Skip: SkipUnusedLine}) // a stream's chunk before its end
		}
		if timings == nil {
			return decodeReject(out, scan.Errorf(ErrMissingField, -1, "missing timings (not a llama.cpp server response)"))
		}
	}
	var fe scan.FirstErr
	sp := schemas.Span{Source: SourceLlamaCpp, Status: schemas.StatusOK}
	id := fe.Str(o["id"], "id")
	sp.Model = fe.Str(o["model"], "model")
	created := fe.Integer(o["created"], "created", 0, 1<<40)
	promptMs := fe.Duration(timings["prompt_ms"], "timings.prompt_ms", 3)
	predMs := fe.Duration(timings["predicted_ms"], "timings.predicted_ms", 3)
	promptN := fe.Tokens(timings["prompt_n"], "timings.prompt_n")
	predN := fe.Tokens(timings["predicted_n"], "timings.predicted_n")
	cacheN := fe.Tokens(timings["cache_n"], "timings.cache_n")
	sp.InputTokens = fe.Tokens(o.Get("usage", "prompt_tokens"), "usage.prompt_tokens")
	sp.OutputTokens = fe.Tokens(o.Get("usage", "completion_tokens"), "usage.completion_tokens")
	sp.CachedTokens = fe.Tokens(o.Get("usage", "prompt_tokens_details", "cached_tokens"), "usage.prompt_tokens_details.cached_tokens")
	if fe.Err != nil {
		return decodeReject(out, fe.Err)
	}
	if created == nil {
		return decodeReject(out, scan.Errorf(ErrMissingField, -1, "missing created (the native /completion answer has no time; Try: log the OpenAI-compatible /v1 endpoints' responses)"))
	}
	if id != nil {
		sp.SpanID, sp.RequestID = *id, *id
	}
	if sp.InputTokens == nil && promptN != nil && cacheN != nil {
		n := *promptN + *cacheN
		sp.InputTokens = &n
	}
	if sp.OutputTokens == nil {
		sp.OutputTokens = predN
	}
	if sp.CachedTokens == nil {
		sp.CachedTokens = cacheN
	}
	end := *created * 1_000_000
	res := int32(1_000_000)
	sp.ReleasedAt, sp.LastTokenAt, sp.TimeResolutionUS = &end, &end, &res
	if predMs != nil {
		first := end - *predMs
		sp.FirstTokenAt = &first
		if promptMs != nil {
			adm := first - *promptMs
			sp.AdmittedAt = &adm
		}
	}
	return append(out, Record{Kind: KindSpan, Span: sp})
}

// llamaFinished reports whether a response is the end of its request: its
// first choice has a finish_reason (a native answer always is).
func llamaFinished(o scan.Obj) bool {
	if choices, ok := o["choices"].([]any); ok && len(choices) > 0 {
		c, _ := choices[0].(map[string]any)
		fr, _ := c["finish_reason"].(string)
		return fr != ""
	}
	return true
}

// sniffLlamaCpp scores 90 when the first object is a response with
// llama.cpp's timings (prompt_ms and predicted_ms), or a stream chunk of
// its chat.completion.chunk shape with system_fingerprint "bNNNN-...".
func sniffLlamaCpp(head []byte) int {
	keys := scan.FirstObjectKeys(head)
	if keys["timings"] && (keys["choices"] || keys["content"]) {
		return 90
	}
	return 0
}

// The llamacpp-log format reads llama-server's own log for its slot count:
// "srv  load_model: initializing slots, n_slots = N" (older: "srv  init:
// ..."), which is --parallel (n_parallel), the requests it serves at once.
// It becomes a cap record. llama-server stamps its lines with no wall-clock
// time (--log-timestamps counts from start-up), so its per-request
// print_timing blocks are skipped; read the responses (llamacpp) or
// /metrics (prometheus) for requests and state.

// SourceLlamaCppLog is the source column of what llama-server's log gives.
const SourceLlamaCppLog = "llamacpp-log"

var llamaSlots = regexp.MustCompile(`^(?:\d+\.\d\d\.\d\d\d\.\d\d\d [IWEDN] )?srv +\w+: initializing slots, n_slots = (-?\d+)\s*$`)

func newLlamaCppLogReader(in Input) Reader {
	return newLineReader(in, func(line []byte, rec *Record) error {
		s := strings.TrimSpace(string(vllmStripANSI(nil, line)))
		m := llamaSlots.FindStringSubmatchIndex(s)
		if m == nil {
			rec.Kind, rec.Skip = KindSkip, SkipUnusedLine
			return nil
		}
		n, err := strconv.ParseInt(s[m[2]:m[3]], 10, 64)
		if err != nil || n < 1 || n > 1<<31-1 {
			return scan.Errorf(ErrBadValue, m[2], "n_slots: %q is not a positive count", s[m[2]:m[3]])
		}
		rec.Kind, rec.Cap = KindCap, Cap{MaxNumSeqs: n}
		return nil
	})
}

// sniffLlamaCppLog scores 90 when the first lines hold llama-server's slot
// set-up or its srv/slot log prefixes, 0 otherwise.
func sniffLlamaCppLog(head []byte) int {
	best := 0
	for _, line := range vllmFirstLines(head, 400) {
		switch {
		case llamaSlots.MatchString(strings.TrimSpace(line)):
			return 90
		case strings.HasPrefix(line, "main: server is listening on http"),
			strings.HasPrefix(line, "srv  update_slots: all slots are idle"),
			strings.HasPrefix(line, "llama_model_loader: "):
			best = 80
		}
	}
	return best
}
