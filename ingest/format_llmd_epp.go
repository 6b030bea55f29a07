package ingest

import (
	"bytes"
	"encoding/json"
	"strings"

	"github.com/tpsreport/tpsreport/ingest/internal/scan"
	"github.com/tpsreport/tpsreport/schemas"
)

// The llm-d-epp format (schemas/formats/llm-d.md) reads the log of llm-d's
// endpoint picker (EPP, the router of the Gateway API Inference Extension):
// JSON lines of its zap logger, each with "ts", "msg" and the logger's
// values. Two messages of a request, both carrying its x-request-id, give
// its router stage (stages.parquet):
//
//   - "EPP received request" (verbosity 2, the default): the request reached
//     the router; its ts starts the stage;
//   - "Request handled" (verbosity 3, -v=3): the router picked the endpoint
//     (its "endpoint", ip:port, several comma-separated when a profile picks
//     more than one); its ts ends the stage, and the first endpoint is the
//     stage's replica: the worker the router sent the request to (the decode
//     worker under prefill/decode disaggregation, whose prefill worker the
//     EPP passes on in a header and does not log).
//
// The stage is everything the router did to the request: flow control's
// queue, the scheduler's scoring and the pick. Every other line is skipped
// (unused_line). The stage needs sub-second times: the EPP's default
// encoder writes ts as epoch seconds with their fraction; a line whose ts
// is to the whole second (an older EPP's RFC 3339 encoder) is rejected,
// saying which flag gives finer times.

// SourceLLMDEPP is the source column of stages read from the EPP's log.
const SourceLLMDEPP = "llm-d-epp"

// The EPP's messages read (pkg/epp/handlers/server.go and
// pkg/epp/requestcontrol/director.go of llm-d-inference-scheduler).
const (
	eppMsgReceived = "EPP received request"
	eppMsgHandled  = "Request handled"
)

// eppMaxOpen bounds the requests received and not yet handled that the
// reader remembers: a log of requests the router never handles (rejected by
// flow control) cannot grow it without end.
const eppMaxOpen = 1 << 20

type eppReader struct {
	*jsonRecordReader
	open map[string]int64 // x-request-id → its receipt, µs
}

var _ Reader = (*eppReader)(nil)

func newEPPReader(in Input) Reader {
	r := &eppReader{open: map[string]int64{}}
	r.jsonRecordReader = newJSONRecordReader(in, r.decode)
	r.only = map[string]bool{"ts": true, "msg": true, "x-request-id": true, "endpoint": true}
	return r
}

func (r *eppReader) decode(v any, _ []byte, out []Record) []Record {
	m, ok := v.(map[string]any)
	if !ok {
		return decodeReject(out, scan.Errorf(ErrBadType, -1, "want a JSON object, found %s", scan.KindName(v)))
	}
	o := scan.Obj(m)
	var fe scan.FirstErr
	msg := fe.Str(o["msg"], "msg")
	if fe.Err != nil {
		return decodeReject(out, fe.Err)
	}
	if msg == nil {
		return decodeReject(out, scan.Errorf(ErrMissingField, -1, "missing msg (not a line of the EPP's zap logger)"))
	}
	if *msg != eppMsgReceived && *msg != eppMsgHandled {
		return append(out, Record{Kind: KindSkip, Skip: SkipUnusedLine})
	}
	id := fe.Str(o["x-request-id"], "x-request-id")
	ts, whole, err := eppTime(o["ts"])
	fe.Keep(err)
	if fe.Err != nil {
		return decodeReject(out, fe.Err)
	}
	switch {
	case id == nil || *id == "":
		return decodeReject(out, scan.Errorf(ErrMissingField, -1, "%s: missing x-request-id", *msg))
	case ts == nil:
		return decodeReject(out, scan.Errorf(ErrMissingField, -1, "%s: missing ts", *msg))
	case whole:
		return decodeReject(out, scan.Errorf(ErrBadTimestamp, -1,
			"ts %s is to the whole second: the router's stage would read 0 or 1 s (Try: run the EPP with --zap-time-encoding=epoch or rfc3339nano)",
			eppTSText(o["ts"])))
	}
	if *msg == eppMsgReceived {
		if len(r.open) < eppMaxOpen {
			r.open[*id] = *ts
		}
		return append(out, Record{Kind: KindSkip, Skip: SkipRequestStart}) // the stage is written when the router picks
	}
	ep := fe.Str(o["endpoint"], "endpoint")
	if fe.Err != nil {
		return decodeReject(out, fe.Err)
	}
	if ep == nil {
		return decodeReject(out, scan.Errorf(ErrMissingField, -1, "Request handled: missing endpoint (the pod the router picked)"))
	}
	picked, ok := eppEndpoint(*ep)
	if !ok {
		return decodeReject(out, scan.Errorf(ErrBadValue, -1, "endpoint %q: names no ip:port", eppClip(*ep, 80)))
	}
	start, ok := r.open[*id]
	if !ok {
		return decodeReject(out, scan.Errorf(ErrMissingField, -1,
			"Request handled: no \"EPP received request\" line of x-request-id %q before it, so its router stage has no start (the log starts mid-request?)", eppClip(*id, 80)))
	}
	delete(r.open, *id)
	if *ts < start {
		return decodeReject(out, scan.Errorf(ErrBadValue, -1, "Request handled: ts is %d µs before the request's \"EPP received request\"", start-*ts))
	}
	return append(out, Record{Kind: KindStage, Stage: schemas.Stage{Source: SourceLLMDEPP, RequestID: *id,
		Stage: schemas.StageRouter, Replica: &picked, StartedAt: start, EndedAt: *ts}})
}

// eppTime reads the zap encoder's ts: epoch seconds with a fraction (the
// production encoder's), epoch milliseconds with one ("millis"), integer
// nanoseconds ("nanos"), or RFC 3339 / ISO 8601 text. whole reports a time
// to the whole second: integer seconds, or text without a fraction.
func eppTime(v any) (ts *int64, whole bool, err error) {
	if n, ok := v.(json.Number); ok {
		s := string(n)
		intPart, _, hasFrac := strings.Cut(s, ".")
		if hasFrac && !strings.ContainsAny(s, "eE") && len(strings.TrimLeft(intPart, "-")) >= 12 {
			// Epoch milliseconds with their fraction (zap's EpochMillisTimeEncoder).
			us, _, ok := scan.ScaleDecimal([]byte(s), 3)
			if !ok || us < scan.MinMicros || us > scan.MaxMicros {
				return nil, false, scan.Errorf(ErrBadTimestamp, -1, "ts: invalid timestamp %q: %v", s, scan.ErrTSOutOfRange)
			}
			return &us, false, nil
		}
		t, err := scan.ValTime(v, "ts", nil)
		if err != nil {
			return nil, false, err
		}
		return t, !hasFrac && !strings.ContainsAny(s, "eE") && len(strings.TrimLeft(intPart, "-")) <= 10, nil
	}
	t, err := scan.ValTime(v, "ts", nil)
	if err != nil || t == nil {
		return t, false, err
	}
	s, _ := v.(string)
	return t, !strings.Contains(s, "."), nil
}

// eppTSText is the ts value as the line gave it, for a message.
func eppTSText(v any) string {
	switch x := v.(type) {
	case json.Number:
		return x.String()
	case string:
		return eppClip(x, 40)
	}
	return "?"
}

// eppEndpoint is the first endpoint of a "Request handled" line: "ip:port"
// (of a comma-separated list), or the Address of an older EPP's pod dump
// ("{NamespacedName:ns/pod Address:10.244.1.234 Labels:map[…]}").
func eppEndpoint(s string) (string, bool) {
	s = strings.TrimSpace(s)
	if strings.HasPrefix(s, "{") {
		_, after, ok := strings.Cut(s, "Address:")
		if !ok {
			return "", false
		}
		end := strings.IndexAny(after, " }")
		if end < 0 {
			end = len(after)
		}
		addr := after[:end]
		return addr, addr != "" && len(addr) <= 256
	}
	first, _, _ := strings.Cut(s, ",")
	first = strings.TrimSpace(first)
	i := strings.LastIndexByte(first, ':') // the last: an IPv6 host ("[fd00::1]:8000") holds colons
	if i <= 0 || i == len(first)-1 || len(first) > 256 || strings.ContainsAny(first, " \t\"") {
		return "", false
	}
	port := first[i+1:]
	for _, c := range port {
		if c < '0' || c > '9' {
			return "", false
		}
	}
	return first, true
}

// sniffLLMDEPP scores 92 when the first object is a zap line (ts, msg) and
// the head holds one of the two request messages the reader reads.
func sniffLLMDEPP(head []byte) int {
	keys := scan.FirstObjectKeys(head)
	if !keys["ts"] || !keys["msg"] {
		return 0
	}
	if bytes.Contains(head, []byte(`"msg":"`+eppMsgReceived+`"`)) || bytes.Contains(head, []byte(`"msg":"`+eppMsgHandled+`"`)) {
		return 92
	}
	return 0
}

// eppClip is s cut to n bytes, for a message.
func eppClip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
