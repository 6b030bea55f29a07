package ingest

import (
	"github.com/tpsreport/tpsreport/ingest/internal/scan"
	"github.com/tpsreport/tpsreport/schemas"
)

// Engine timings inside a gateway's log (docs/metrics.md "Engine timings in a
// gateway's log", schemas/formats/gateways.md). Some engines put their own
// account of a request into the response body, and a gateway that logs the
// response carries it; the gateway span then also holds the engine's
// admission and token times, as a joined span does, without the engine's log.
// Three objects are read, by their place in the response:
//
//   - metrics (vLLM with --enable-per-request-metrics, PR #46768): the
//     durations queue_time_ms (scheduled_ts − queued_ts, the engine core's
//     queue), time_to_first_token_ms (first_token_ts − scheduled_ts: the
//     prefill, not a TTFT from arrival) and generation_time_ms (last_token_ts
//     − first_token_ts), from the engine's monotonic clock: no instant;
//   - metrics in vLLM V0's RequestMetrics shape (vllm/sequence.py; what a
//     custom server returns when it serializes RequestOutput.metrics):
//     arrival_time, first_scheduled_time, first_token_time, last_token_time,
//     time_in_queue, finished_time, epoch seconds of the engine host's clock
//     (time.time());
//   - nvext.timing (NVIDIA Dynamo's frontend, requested with
//     nvext.extra_fields ["timing"]; lib/llm/src/protocols/common/timing.rs):
//     request_received_ms (epoch ms of the frontend host), and the durations
//     from it prefill_wait_time_ms, ttft_ms, total_time_ms (ms);
//   - timings (llama.cpp server): prompt_ms and predicted_ms, durations.
//
// Instants an object gives (V0, Dynamo) are taken as they are, on the engine
// host's clock: skew against the gateway's clock shows as out-of-order spans
// in data quality and is never clamped. Durations alone (vLLM metrics,
// llama.cpp) are anchored on the gateway's first token (the client saw it
// when the engine emitted it, up to transit), else on the gateway's end (the
// last token).

// engineTimings is what an engine's timing object says, in µs: instants on
// the engine host's clock, or durations to anchor on the gateway's times.
type engineTimings struct {
	// Instants (epoch µs).
	arrived, admitted, first, last *int64
	// Durations: engine queue (arrival → admission), prefill (admission →
	// first token), decode (first → last token).
	queue, prefill, decode *int64
	// resolutionUS: the resolution of the instants (ms for Dynamo), 0 for µs.
	resolutionUS int32
}

// engineTimingsOf reads the engine timing object of a logged response (a
// response body or the final chunk of a stream), ok false when it holds
// none. Its keys are read only: never choices or any text.
func engineTimingsOf(resp scan.Obj) (et engineTimings, ok bool, err error) {
	var fe scan.FirstErr
	if m := resp.Child("metrics"); m != nil {
		switch {
		case m["arrival_time"] != nil || m["first_scheduled_time"] != nil:
			// vLLM V0 RequestMetrics, epoch seconds.
			et.arrived = fe.Duration(m["arrival_time"], "response.metrics.arrival_time", 6)
			et.admitted = fe.Duration(m["first_scheduled_time"], "response.metrics.first_scheduled_time", 6)
			et.first = fe.Duration(m["first_token_time"], "response.metrics.first_token_time", 6)
			et.last = fe.Duration(m["last_token_time"], "response.metrics.last_token_time", 6)
			if q := fe.Duration(m["time_in_queue"], "response.metrics.time_in_queue", 6); et.admitted == nil {
				et.admitted = scan.AddMicros(et.arrived, q)
			}
			ok = true
		case m["queue_time_ms"] != nil || m["time_to_first_token_ms"] != nil || m["generation_time_ms"] != nil:
			// vLLM PerRequestTimingMetrics (PR #46768), ms.
			et.queue = fe.Duration(m["queue_time_ms"], "response.metrics.queue_time_ms", 3)
			et.prefill = fe.Duration(m["time_to_first_token_ms"], "response.metrics.time_to_first_token_ms", 3)
			et.decode = fe.Duration(m["generation_time_ms"], "response.metrics.generation_time_ms", 3)
			ok = true
		}
	}
	if t := resp.Child("nvext", "timing"); !ok && t != nil && t["request_received_ms"] != nil {
		recv := fe.Duration(t["request_received_ms"], "response.nvext.timing.request_received_ms", 3)
		et.arrived = recv
		et.admitted = scan.AddMicros(recv, fe.Duration(t["prefill_wait_time_ms"], "response.nvext.timing.prefill_wait_time_ms", 3))
		et.first = scan.AddMicros(recv, fe.Duration(t["ttft_ms"], "response.nvext.timing.ttft_ms", 3))
		et.last = scan.AddMicros(recv, fe.Duration(t["total_time_ms"], "response.nvext.timing.total_time_ms", 3))
		et.resolutionUS = 1000
		ok = true
	}
	if t := resp.Child("timings"); !ok && t != nil && (t["prompt_ms"] != nil || t["predicted_ms"] != nil) {
		et.prefill = fe.Duration(t["prompt_ms"], "response.timings.prompt_ms", 3)
		et.decode = fe.Duration(t["predicted_ms"], "response.timings.predicted_ms", 3)
		ok = true
	}
	if fe.Err != nil {
		return engineTimings{}, false, fe.Err
	}
	return et, ok, nil
}

// apply puts the engine's times into the gateway span sp, whose queued_at,
// released_at and (when the gateway saw it) first_token_at are the
// gateway's. sp keeps the gateway's queued_at, released_at, status and
// tokens; engine_arrived_at, admitted_at, first_token_at and last_token_at
// become the engine's, where the object tells them.
func (et *engineTimings) apply(sp *schemas.Span) {
	if et.arrived != nil || et.first != nil || et.admitted != nil || et.last != nil {
		// Instants of the engine host's clock.
		sp.EngineArrivedAt, sp.AdmittedAt = et.arrived, et.admitted
		if et.first != nil {
			sp.FirstTokenAt = et.first
		}
		if et.last != nil {
			sp.LastTokenAt = et.last
		}
		if et.resolutionUS > 0 {
			r := et.resolutionUS
			sp.TimeResolutionUS = &r
		}
		return
	}
	// Durations: anchored on the gateway's first token, else its end.
	first := sp.FirstTokenAt
	last := sp.LastTokenAt
	switch {
	case first != nil && et.decode != nil:
		last = scan.AddMicros(first, et.decode)
	case first == nil && et.decode != nil && sp.ReleasedAt != nil:
		last = sp.ReleasedAt
		v := *last - *et.decode
		first = &v
	}
	sp.FirstTokenAt, sp.LastTokenAt = first, last
	if first != nil && et.prefill != nil {
		adm := *first - *et.prefill
		sp.AdmittedAt = &adm
		sp.EngineArrivedAt = scan.AddMicros(sp.AdmittedAt, negate(et.queue))
	}
}

// negate returns −*d, or nil.
func negate(d *int64) *int64 {
	if d == nil {
		return nil
	}
	v := -*d
	return &v
}

// responseBody is the response object of a logged response body (Kong's
// ai.<plugin>.payload.response): the body itself when it is one JSON
// object, else, for a stream's server-sent events, the last "data: {...}"
// event that holds an engine timing object (the final chunk). nil when
// neither.
func responseBody(body string) scan.Obj {
	b := []byte(body)
	i := 0
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\r' || b[i] == '\n') {
		i++
	}
	if i < len(b) && b[i] == '{' {
		if v, err := scan.ParseValue(b[i:], nil, nil); err == nil {
			m, _ := v.(map[string]any)
			return m
		}
		return nil
	}
	lines := splitLines(b)
	for k := len(lines) - 1; k >= 0; k-- {
		line := lines[k]
		if len(line) < 6 || string(line[:5]) != "data:" {
			continue
		}
		j := 5
		for j < len(line) && line[j] == ' ' {
			j++
		}
		if j >= len(line) || line[j] != '{' {
			continue
		}
		v, err := scan.ParseValue(line[j:], nil, nil)
		if err != nil {
			continue
		}
		m, _ := v.(map[string]any)
		if m != nil && (m["metrics"] != nil || m["nvext"] != nil || m["timings"] != nil) {
			return m
		}
	}
	return nil
}

// splitLines splits b at "\n", dropping a trailing "\r" of each line.
func splitLines(b []byte) [][]byte {
	var out [][]byte
	for len(b) > 0 {
		n := 0
		for n < len(b) && b[n] != '\n' {
			n++
		}
		line := b[:n]
		if len(line) > 0 && line[len(line)-1] == '\r' {
			line = line[:len(line)-1]
		}
		out = append(out, line)
		if n == len(b) {
			break
		}
		b = b[n+1:]
	}
	return out
}
