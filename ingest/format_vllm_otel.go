package ingest

import (
	"bytes"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"math"
	"strconv"
	"strings"

	"github.com/tpsreport/tpsreport/ingest/internal/scan"
	"github.com/tpsreport/tpsreport/schemas"
)

// The vllm-otel format is vLLM's request traces (--otlp-traces-endpoint) as
// OTLP/JSON: the collector's file exporter writes one {"resourceSpans":[...]}
// object per line; a single (pretty-printed) document is read too. Each span
// named llm_request is one record and becomes one span; every other span is
// a skipped record, and so is a span whose (traceId, spanId) is among those
// of the last otlpDedupWindow spans read (an exporter's retry). A document
// that is not valid JSON, or whose OTLP structure has a value of the wrong
// type, is one rejected record.
//
// Keys are OTLP/JSON's (camelCase, as the collector writes them) or
// protobuf's field names (snake_case, MessageToJson with
// preserving_proto_field_name), matched exactly; when a key repeats in one
// object, the last value wins. Unknown keys are checked as JSON and skipped,
// so prompt text in an event is never read.
//
// Clock domains (schemas/formats/vllm.md). The span starts at the request's
// arrival on the frontend's wall clock; gen_ai.latency.time_to_first_token
// and gen_ai.latency.e2e are wall-clock durations measured by the frontend
// from that arrival. V1's time_in_queue, time_in_model_prefill and
// time_in_model_decode are differences of the engine core's monotonic clock,
// whose origin is unknown on the wall clock. So:
//
//	queued_at         = start
//	first_token_at    = start + ttft
//	released_at       = start + e2e (else the span's end)
//	admitted_at       = first_token_at − prefill (V1), else start + time_in_queue (V0)
//	engine_arrived_at = admitted_at − time_in_queue (V1), else start
//	last_token_at     = first_token_at + decode (V1), else released_at (V0)
//
// The engine intervals are anchored at the wall-clock first token, so
// t_first_token and t_stream are exactly what the engine measured, and the
// request is in the engine core's queue for exactly time_in_queue. The
// frontend's own time (tokenizing, IPC) before that lies between queued_at
// and engine_arrived_at, a wait before the engine's queue (gap attribution
// counts it as admission_gap, not engine_gap); after the last token it
// lies before the release. admitted_at is clamped into [queued_at,
// first_token_at], engine_arrived_at into [queued_at, admitted_at] and
// last_token_at into [first_token_at, released_at]: the clocks differ by
// at most scheduling noise.
//
// The decoder reads a document in one pass with JSON scanner, without
// reflection and without building the document: a span's fields are kept as
// the byte ranges of their values and read once the span's object ends (its
// keys may come in any order), and a resource's replica is given to its
// spans once the resource's object ends.
//
// otel-genai (format_otel_genai.go) reads the same OTLP/JSON envelope, but
// through jsonRecordReader into maps. It is not this decoder for two
// reasons. Speed: on vLLM's traces (BenchmarkOTLPDecoders) the map path is
// more than 3 times slower and allocates 30 times the bytes, and an engine's
// traces are the bulk of a run's input.
// Behaviour, which the fixtures pin: this decoder reads snake_case keys too
// and rejects a whole document when a value of its OTLP structure has the
// wrong type, while otel-genai reads camelCase only, rejects one span at a
// time and skips a scopeSpans or spans value of the wrong type.

// SourceVLLMOTel is the source column of spans read from vLLM's OTLP traces.
const SourceVLLMOTel = "vllm-otel"

type vllmOTelReader struct {
	name    string
	lines   *scan.Lines
	rec     Record
	queue   []Record
	qi      int
	seen    recentKeys // (traceId, spanId) of the spans read last
	dec     otlpDecoder
	decided bool
	done    bool
	err     error
	ids     derivedIDs // of spans without spanId
}

var _ Reader = (*vllmOTelReader)(nil)

func newVLLMOTelReader(in Input) Reader {
	return &vllmOTelReader{name: in.Name, lines: scan.NewLines(in.R, in.MaxLineBytes), seen: newRecentKeys(otlpDedupWindow)}
}

// Record implements Reader.
func (r *vllmOTelReader) Record() *Record { return &r.rec }

// Err implements Reader.
func (r *vllmOTelReader) Err() error {
	if r.err != nil {
		return r.err
	}
	return r.lines.Err()
}

// Next implements Reader.
func (r *vllmOTelReader) Next() bool {
	if r.qi < len(r.queue) {
		r.rec = r.queue[r.qi]
		r.queue[r.qi] = Record{}
		r.qi++
		return true
	}
	r.queue, r.qi = r.queue[:0], 0
	if r.done || !r.lines.Next() {
		return false
	}
	n := r.lines.Line()
	line := r.lines.Bytes()
	switch {
	case r.lines.Long():
		r.rec = Record{Kind: KindReject, Line: n, Raw: line, Err: parseErrorAt(r.name, n,
			scan.Errorf(ErrTooLong, -1, "line is %d bytes, longer than the limit of %d bytes", r.lines.Len(), r.lines.Max))}
		return true
	case scan.IsBlank(line):
		r.rec = Record{Kind: KindSkip, Skip: SkipBlank, Line: n}
		return true
	}
	if !r.decided {
		r.decided = true
		t := bytes.TrimSpace(line)
		if len(t) > 0 && len(t) < 100 && (t[len(t)-1] == '{' || t[len(t)-1] == '[') && !json.Valid(t) {
			// The first line opens a pretty-printed document ("{", or
			// `{"resourceSpans": [`): read it whole, as one. A longer or
			// closed first line is one document per line, and a line that
			// does not parse is a reject.
			doc := append([]byte(nil), line...)
			for r.lines.Next() {
				if r.lines.Long() || len(doc) > maxDocument {
					r.err = errors.New(r.name + ": OTLP document too large to read whole; write one document per line")
					return false
				}
				doc = append(append(doc, '\n'), r.lines.Bytes()...)
			}
			if r.lines.Err() != nil {
				return false
			}
			r.done = true
			line = doc
		}
	}
	r.queue = r.decodeDoc(line, n, r.queue[:0])
	if len(r.queue) == 0 {
		r.rec = Record{Kind: KindSkip, Skip: SkipEmptyDocument, Line: n}
		return true
	}
	r.rec, r.queue[0] = r.queue[0], Record{}
	r.qi = 1
	return true
}

// decodeDoc turns one OTLP document into records appended to out: a span,
// skip or reject for each span of the document, in document order, or one
// reject for a document that does not decode.
func (r *vllmOTelReader) decodeDoc(doc []byte, line int64, out []Record) []Record {
	raw := doc[:min(len(doc), scan.TooLongKeep)]
	d := &r.dec
	if err := d.decode(doc); err != nil {
		return append(out, Record{Kind: KindReject, Line: line, Raw: raw, Err: parseErrorAt(r.name, line, err)})
	}
	n := 0 // the span's place in the document
	for i := range d.spans {
		ds := &d.spans[i]
		if ds.drop {
			continue
		}
		n++
		rec := Record{Kind: ds.kind, Line: line}
		if ds.kind == KindSkip {
			rec.Skip = SkipNotARequest
		}
		if ds.keyed {
			// A span exported twice is read once: the later copies are
			// skipped, whatever else is wrong with them.
			if r.seen.has(ds.key) {
				out = append(out, Record{Kind: KindSkip, Skip: SkipDuplicate, Line: line})
				continue
			}
			if ds.kind == KindSpan {
				r.seen.add(ds.key)
			}
		}
		switch ds.kind {
		case KindSpan:
			rec.Span = ds.span
			if ds.derived {
				r.ids.derive(&rec.Span, r.name, line, 0, n)
			}
		case KindReject:
			rec.Raw = raw
			rec.Err = parseErrorAt(r.name, line, ds.err)
		}
		out = append(out, rec)
	}
	return out
}

// otlpKey is a span's identity: its trace id (16 bytes) and span id (8).
type otlpKey [24]byte

// otlpDedupWindow is how many of the spans read last the reader remembers to
// skip their copies. An exporter sends a batch again when an export failed,
// within minutes (the collector's retry_on_failure gives up after 5 minutes
// by default); a million spans is hours of a busy fleet's traces, and the set
// holds 55-70 MB, whatever the input's size, where keeping every span's key
// more than doubled ingest's peak (BENCHMARKS.md, "The figures behind the
// code"). A copy sent further
// apart is written again, and analyze counts it among the duplicate span_ids.
const otlpDedupWindow = 1 << 20

// recentKeys is the set of the last n keys added: a ring of them and a map.
type recentKeys struct {
	set  map[otlpKey]struct{}
	ring []otlpKey // grows to n
	n    int
	next int // the ring's oldest key, once it is full
}

func newRecentKeys(n int) recentKeys {
	return recentKeys{set: map[otlpKey]struct{}{}, n: n}
}

func (k *recentKeys) has(key otlpKey) bool {
	_, ok := k.set[key]
	return ok
}

// add adds a key that the set does not hold, forgetting the oldest when it
// holds n.
func (k *recentKeys) add(key otlpKey) {
	if len(k.ring) < k.n {
		k.ring = append(k.ring, key)
	} else {
		delete(k.set, k.ring[k.next])
		k.ring[k.next] = key
		k.next = (k.next + 1) % len(k.ring)
	}
	k.set[key] = struct{}{}
}

// otlpDecoder decodes OTLP/JSON documents. It reuses its buffers from one
// document to the next and hands out the spans' optional values from arena
// chunks. Not safe for concurrent use.
type otlpDecoder struct {
	sc     scan.JSON
	vs     scan.JSON // reads a value again from its byte range
	arena  scan.Arena
	intern scan.Interner
	models scan.RecentStrings
	reps   scan.RecentStrings

	spans   []otlpSpanOut  // the spans of the document, in order
	typeErr *RecordError   // the first value of the wrong type in the document
	sv      otlpSpanValues // the span being read
	res     []otlpAttr     // the replica attributes of the resource being read
	reasons []string       // the span's finish reasons
	hexBuf  [16]byte
}

// otlpSpanOut is what became of one span of a document: a span, a skip or a
// reject, and, when its ids are valid, its key (the reader skips a key it
// has read before).
type otlpSpanOut struct {
	kind  Kind
	span  schemas.Span
	err   error
	key   otlpKey
	keyed bool
	drop  bool // in an array a later value of the same key replaced
	// derived: the span has no spanId; decodeDoc gives it FILE:LINE:N.
	derived bool
}

// rng is the byte range [lo, hi) of a value in the document; hi == 0 when
// the key is absent.
type rng struct{ lo, hi int }

func (v rng) present() bool { return v.hi > 0 }

// otlpSpanValues are the fields of a span object, as the byte ranges of
// their values, and its attributes that the span reads, in order.
type otlpSpanValues struct {
	trace, trace2, id, id2, name rng // strings or null
	start, start2, end, end2     rng // any value, read as OTLP fixed64
	code                         rng // status.code, any value
	attrs                        []otlpAttr
}

// otlpAttr is a key-value of an attributes array whose key matters: which
// one, the range of the key's string (for reasons) and that of its value
// (an AnyValue object, or null).
type otlpAttr struct {
	key       otlpAttrKey
	name, val rng
}

type otlpAttrKey uint8

const (
	attrOther otlpAttrKey = iota
	attrRequestID
	attrResponseModel
	attrRequestModel
	attrFinishReasons
	attrPromptTokens
	attrCompletionTokens
	attrTimeInQueue
	attrTTFT
	attrE2E
	attrPrefill
	attrDecode
	// The resource's, in the order a replica is looked for.
	attrInstanceID
	attrHostName
	attrPodName
)

// spanAttrKey classifies the key of a span attribute.
func spanAttrKey(key []byte) otlpAttrKey {
	switch string(key) {
	case "gen_ai.request.id":
		return attrRequestID
	case "gen_ai.response.model":
		return attrResponseModel
	case "gen_ai.request.model":
		return attrRequestModel
	case "gen_ai.response.finish_reasons", "gen_ai.response.finish_reason":
		return attrFinishReasons
	case "gen_ai.usage.prompt_tokens", "gen_ai.usage.input_tokens":
		return attrPromptTokens
	case "gen_ai.usage.completion_tokens", "gen_ai.usage.output_tokens":
		return attrCompletionTokens
	case "gen_ai.latency.time_in_queue":
		return attrTimeInQueue
	case "gen_ai.latency.time_to_first_token":
		return attrTTFT
	case "gen_ai.latency.e2e":
		return attrE2E
	case "gen_ai.latency.time_in_model_prefill":
		return attrPrefill
	case "gen_ai.latency.time_in_model_decode":
		return attrDecode
	}
	return attrOther
}

// resourceAttrKey classifies the key of a resource attribute.
func resourceAttrKey(key []byte) otlpAttrKey {
	switch string(key) {
	case "service.instance.id":
		return attrInstanceID
	case "host.name":
		return attrHostName
	case "k8s.pod.name":
		return attrPodName
	}
	return attrOther
}

// decode reads one document into d.spans. It returns an error, a
// *RecordError, when the document is not valid JSON or a value of its OTLP
// structure has the wrong type; then no span of it counts. A syntax error
// anywhere wins over a wrong type, as in encoding/json.
func (d *otlpDecoder) decode(data []byte) error {
	d.spans = d.spans[:0]
	d.typeErr = nil
	s := &d.sc
	s.Reset(data)
	switch c := s.Class(); c {
	case scan.Object:
	case scan.Null: // an empty document
		if err := s.ReadLiteral("null"); err != nil {
			return err
		}
		return s.Finish()
	case scan.End:
		return s.SyntaxError("looking for beginning of value")
	default:
		pos := s.Pos
		if err := s.SkipValue(); err != nil {
			return err
		}
		if err := s.Finish(); err != nil {
			return err
		}
		return scan.Errorf(ErrBadType, pos, "OTLP: want a JSON object, found %s", scan.ClassName(c))
	}
	var last [2]rng // the spans of resourceSpans and of resource_spans
	err := d.object("", "", func(key []byte) error {
		switch string(key) {
		case "resourceSpans":
			return d.replaced(&last[0], func() error { return d.array("", "resourceSpans", d.resourceSpans) })
		case "resource_spans":
			return d.replaced(&last[1], func() error { return d.array("", "resource_spans", d.resourceSpans) })
		}
		return s.SkipValue()
	})
	if err == nil {
		err = s.Finish()
	}
	if err != nil {
		return err
	}
	if d.typeErr != nil {
		return d.typeErr
	}
	return nil
}

// replaced runs read, which appends spans, for a key of an object; when the
// key came before in the object, the spans its earlier value gave are
// dropped: the last value wins. last holds them.
func (d *otlpDecoder) replaced(last *rng, read func() error) error {
	for i := last.lo; i < last.hi; i++ {
		d.spans[i].drop = true
	}
	lo := len(d.spans)
	err := read()
	*last = rng{lo, len(d.spans)}
	return err
}

// wrongType notes a value of class c at the scanner where want belongs, and
// skips it. The value is at key of the object at path parent (joined only
// here: the happy path builds no string).
func (d *otlpDecoder) wrongType(parent, key, want string, c byte) error {
	s := &d.sc
	if d.typeErr == nil {
		path := key
		if parent != "" {
			path = parent + "." + key
		}
		d.typeErr = scan.Errorf(ErrBadType, s.Pos, "OTLP: %s: want %s, found %s", path, want, scan.ClassName(c))
	}
	return s.SkipValue()
}

// object reads the object or null at key of the object at path parent,
// calling field for each of its keys with the scanner at the key's value;
// field must consume the value. The key is valid until the next string is
// read.
func (d *otlpDecoder) object(parent, key string, field func(key []byte) error) error {
	s := &d.sc
	switch c := s.Class(); c {
	case scan.Null:
		return s.ReadLiteral("null")
	case scan.Object:
	default:
		return d.wrongType(parent, key, "an object", c)
	}
	if err := s.BeginObject(); err != nil {
		return err
	}
	for first := true; ; first = false {
		key, ok, err := s.NextKey(first)
		if err != nil || !ok {
			return err
		}
		if err := field(key); err != nil {
			return err
		}
	}
}

// array reads the array or null at key of the object at path parent,
// calling elem for each element with the scanner at it; elem must consume
// it.
func (d *otlpDecoder) array(parent, key string, elem func() error) error {
	s := &d.sc
	switch c := s.Class(); c {
	case scan.Null:
		return s.ReadLiteral("null")
	case scan.Array:
	default:
		return d.wrongType(parent, key, "an array", c)
	}
	return s.Elements(elem)
}

// str reads the string or null at key of the object at path parent and
// returns its range (null included).
func (d *otlpDecoder) str(parent, key string) (rng, error) {
	s := &d.sc
	switch c := s.Class(); c {
	case scan.String:
		lo := s.Pos
		_, err := s.ReadString()
		return rng{lo, s.Pos}, err
	case scan.Null:
		lo := s.Pos
		err := s.ReadLiteral("null")
		return rng{lo, s.Pos}, err
	default:
		return rng{}, d.wrongType(parent, key, "a string", c)
	}
}

// raw reads any value and returns its range.
func (d *otlpDecoder) raw() (rng, error) {
	s := &d.sc
	s.SkipSpace()
	lo := s.Pos
	err := s.SkipValue()
	return rng{lo, s.Pos}, err
}

// Paths of the OTLP structure, for wrong-type reasons.
const (
	pathResource      = "resourceSpans.resource"
	pathResourceAttrs = "resourceSpans.resource.attributes"
	pathScopeSpans    = "resourceSpans.scopeSpans"
	pathSpans         = "resourceSpans.scopeSpans.spans"
	pathSpanAttrs     = "resourceSpans.scopeSpans.spans.attributes"
)

// resourceSpans reads one element of resourceSpans: its spans, then the
// replica its resource names, given to each of them.
func (d *otlpDecoder) resourceSpans() error {
	first := len(d.spans)
	d.res = d.res[:0]
	var last [3]rng // scopeSpans, scope_spans, instrumentationLibrarySpans
	s := &d.sc
	err := d.object("", "resourceSpans", func(key []byte) error {
		switch string(key) {
		case "resource":
			d.res = d.res[:0]
			return d.object("resourceSpans", "resource", func(key []byte) error {
				if string(key) != "attributes" {
					return s.SkipValue()
				}
				d.res = d.res[:0]
				return d.attributes(pathResource, resourceAttrKey, &d.res)
			})
		case "scopeSpans":
			return d.replaced(&last[0], func() error { return d.array("resourceSpans", "scopeSpans", d.scopeSpans) })
		case "scope_spans":
			return d.replaced(&last[1], func() error { return d.array("resourceSpans", "scope_spans", d.scopeSpans) })
		case "instrumentationLibrarySpans": // OTLP < 0.15
			return d.replaced(&last[2], func() error {
				return d.array("resourceSpans", "instrumentationLibrarySpans", d.scopeSpans)
			})
		}
		return s.SkipValue()
	})
	if err != nil || len(d.spans) == first {
		return err
	}
	if replica := d.replica(); replica != nil {
		for i := first; i < len(d.spans); i++ {
			if d.spans[i].kind == KindSpan {
				d.spans[i].span.Replica = replica
			}
		}
	}
	return nil
}

// replica is the resource's instance: the first service.instance.id that is
// a non-empty string, else host.name, else k8s.pod.name; nil for none.
func (d *otlpDecoder) replica() *string {
	for k := attrInstanceID; k <= attrPodName; k++ {
		for _, a := range d.res {
			if a.key != k {
				continue
			}
			if v, ok := d.anyStr(a.val); ok {
				if b := d.strAt(v); len(b) > 0 {
					return d.arena.Str(d.reps.Get(b, &d.intern))
				}
			}
		}
	}
	return nil
}

// scopeSpans reads one element of scopeSpans: its spans.
func (d *otlpDecoder) scopeSpans() error {
	var last rng
	return d.object("resourceSpans", "scopeSpans", func(key []byte) error {
		if string(key) != "spans" {
			return d.sc.SkipValue()
		}
		return d.replaced(&last, func() error { return d.array(pathScopeSpans, "spans", d.span) })
	})
}

// attributes reads the attributes array of the object at path parent,
// appending to out the key-values whose key classify knows (attrOther is
// left out). Every value is checked against AnyValue's structure.
func (d *otlpDecoder) attributes(parent string, classify func([]byte) otlpAttrKey, out *[]otlpAttr) error {
	s := &d.sc
	path := pathResourceAttrs
	if parent == pathSpans {
		path = pathSpanAttrs
	}
	return d.array(parent, "attributes", func() error {
		var a otlpAttr
		err := d.object(parent, "attributes", func(key []byte) error {
			switch string(key) {
			case "key":
				var err error
				if a.name, err = d.str(path, "key"); err == nil {
					a.key = classify(d.strAt(a.name))
				}
				return err
			case "value":
				var err error
				a.val, err = d.anyValue(path, "value")
				return err
			}
			return s.SkipValue()
		})
		if err == nil && a.key != attrOther {
			*out = append(*out, a)
		}
		return err
	})
}

// anyValue checks the AnyValue object (or null) at key of the object at
// path parent and returns its range: stringValue is a string, arrayValue an
// object whose values are AnyValues; every other member may be any value.
func (d *otlpDecoder) anyValue(parent, key string) (rng, error) {
	s := &d.sc
	s.SkipSpace()
	lo := s.Pos
	err := d.object(parent, key, func(k []byte) error {
		switch string(k) {
		case "stringValue":
			_, err := d.str(parent, "value.stringValue")
			return err
		case "string_value":
			_, err := d.str(parent, "value.string_value")
			return err
		case "arrayValue", "array_value":
			return d.object(parent, "value.arrayValue", func(k []byte) error {
				if string(k) != "values" {
					return s.SkipValue()
				}
				return d.array(parent, "value.arrayValue.values", func() error {
					_, err := d.anyValue(parent, "value.arrayValue.values")
					return err
				})
			})
		}
		return s.SkipValue()
	})
	return rng{lo, s.Pos}, err
}

// span reads one span object into d.sv and appends what it becomes.
func (d *otlpDecoder) span() error {
	sv := &d.sv
	attrs := sv.attrs[:0]
	*sv = otlpSpanValues{}
	s := &d.sc
	err := d.object(pathScopeSpans, "spans", func(key []byte) error {
		var err error
		switch string(key) {
		case "traceId":
			sv.trace, err = d.str(pathSpans, "traceId")
		case "trace_id":
			sv.trace2, err = d.str(pathSpans, "trace_id")
		case "spanId":
			sv.id, err = d.str(pathSpans, "spanId")
		case "span_id":
			sv.id2, err = d.str(pathSpans, "span_id")
		case "name":
			sv.name, err = d.str(pathSpans, "name")
		case "startTimeUnixNano":
			sv.start, err = d.raw()
		case "start_time_unix_nano":
			sv.start2, err = d.raw()
		case "endTimeUnixNano":
			sv.end, err = d.raw()
		case "end_time_unix_nano":
			sv.end2, err = d.raw()
		case "attributes":
			attrs = attrs[:0]
			err = d.attributes(pathSpans, spanAttrKey, &attrs)
		case "status":
			sv.code = rng{}
			err = d.object(pathSpans, "status", func(key []byte) error {
				if string(key) != "code" {
					return s.SkipValue()
				}
				var err error
				sv.code, err = d.raw()
				return err
			})
		default:
			err = s.SkipValue()
		}
		return err
	})
	sv.attrs = attrs
	if err != nil {
		return err
	}
	d.spans = append(d.spans, otlpSpanOut{})
	out := &d.spans[len(d.spans)-1]
	if err := d.finishSpan(out); err != nil {
		out.kind, out.err = KindReject, err
	}
	return nil
}

// strAt returns the string whose range (quotes included) is v, unescaped;
// nil for null or absent. An escaped string is valid until the next one is
// read again; a plain one (the common case) is bytes of the document.
func (d *otlpDecoder) strAt(v rng) []byte {
	if !v.present() {
		return nil
	}
	data := d.sc.Data
	if data[v.lo] != '"' {
		return nil
	}
	if b := data[v.lo+1 : v.hi-1]; bytes.IndexByte(b, '\\') < 0 {
		return b
	}
	d.vs.Reset(data[v.lo:v.hi])
	b, _ := d.vs.ReadString()
	return b
}

// rawAt returns the raw JSON text of v, nil when absent.
func (d *otlpDecoder) rawAt(v rng) []byte {
	if !v.present() {
		return nil
	}
	return d.sc.Data[v.lo:v.hi]
}

// anyFields are the members of an AnyValue that the span reads, as ranges.
type anyFields struct {
	str, str2 rng    // stringValue, string_value; absent when null
	num       [4]rng // doubleValue, double_value, intValue, int_value
	arr, arr2 rng    // arrayValue, array_value; absent when null
}

// anyAt reads the AnyValue object at v (checked by anyValue) into its
// members; the last of a repeated key wins.
func (d *otlpDecoder) anyAt(v rng) anyFields {
	var f anyFields
	if !v.present() {
		return f
	}
	vs := &d.vs
	vs.Reset(d.sc.Data[:v.hi])
	vs.Pos = v.lo
	if vs.Class() != scan.Object || vs.BeginObject() != nil {
		return f // null
	}
	for first := true; ; first = false {
		key, ok, err := vs.NextKey(first)
		if err != nil || !ok {
			return f
		}
		var dst *rng
		isNum := false
		switch string(key) {
		case "stringValue":
			dst = &f.str
		case "string_value":
			dst = &f.str2
		case "doubleValue":
			dst, isNum = &f.num[0], true
		case "double_value":
			dst, isNum = &f.num[1], true
		case "intValue":
			dst, isNum = &f.num[2], true
		case "int_value":
			dst, isNum = &f.num[3], true
		case "arrayValue":
			dst = &f.arr
		case "array_value":
			dst = &f.arr2
		}
		lo := vs.Pos
		null := vs.Class() == scan.Null
		if vs.SkipValue() != nil {
			return f
		}
		if dst != nil {
			*dst = rng{lo, vs.Pos}
			if null && !isNum {
				*dst = rng{} // a null pointer: absent
			}
		}
	}
}

// anyStr is the range of an AnyValue's string: stringValue, else
// string_value; ok is false when it has neither.
func (d *otlpDecoder) anyStr(v rng) (rng, bool) {
	f := d.anyAt(v)
	switch {
	case f.str.present():
		return f.str, true
	case f.str2.present():
		return f.str2, true
	}
	return rng{}, false
}

// anyNumber is an AnyValue's number: the first of doubleValue,
// double_value, intValue and int_value that is present and not null, as a
// JSON number or the text of one. NaN and ±Infinity are unknown (ok false).
func (d *otlpDecoder) anyNumber(v rng) (float64, bool, error) {
	f := d.anyAt(v)
	for _, n := range f.num {
		raw := d.rawAt(n)
		if len(raw) == 0 || string(raw) == "null" {
			continue
		}
		if raw[0] == '"' {
			raw = d.strAt(n)
		}
		switch string(raw) {
		case "NaN", "Infinity", "-Infinity":
			return 0, false, nil // unknown
		}
		x, err := strconv.ParseFloat(string(raw), 64)
		if err != nil {
			return 0, false, err
		}
		return x, true, nil
	}
	return 0, false, nil
}

// anyStrings appends to out an AnyValue's strings: its string, or the
// strings of its array's values. Each is interned: finish reasons are few.
func (d *otlpDecoder) anyStrings(v rng, out []string) []string {
	if sr, ok := d.anyStr(v); ok {
		return append(out, d.intern.Get(d.strAt(sr)))
	}
	f := d.anyAt(v)
	arr := f.arr
	if !arr.present() {
		arr = f.arr2
	}
	if !arr.present() {
		return out
	}
	// The array's values: the last "values" key of the arrayValue object.
	var vals rng
	vs := &d.vs
	vs.Reset(d.sc.Data[:arr.hi])
	vs.Pos = arr.lo
	if vs.BeginObject() != nil {
		return out
	}
	for first := true; ; first = false {
		key, ok, err := vs.NextKey(first)
		if err != nil || !ok {
			break
		}
		lo := vs.Pos
		if vs.SkipValue() != nil {
			return out
		}
		if string(key) == "values" {
			vals = rng{lo, vs.Pos}
		}
	}
	if !vals.present() || d.sc.Data[vals.lo] != '[' {
		return out // null
	}
	// Each element in turn: anyStr reads with the same scanner, so the
	// position of the next element is kept here.
	for pos := vals.lo + 1; ; {
		vs.Reset(d.sc.Data[:vals.hi])
		vs.Pos = pos
		vs.SkipSpace()
		if vs.Pos >= vals.hi || vs.Data[vs.Pos] == ']' {
			return out
		}
		lo := vs.Pos
		if vs.SkipValue() != nil {
			return out
		}
		vs.SkipSpace()
		pos = vs.Pos
		if pos < vals.hi && vs.Data[pos] == ',' {
			pos++
		}
		if sr, ok := d.anyStr(rng{lo, vs.Pos}); ok {
			out = append(out, d.intern.Get(d.strAt(sr)))
		}
	}
}

// otlpIDBytes decodes a trace or span id of len(dst) bytes, written in hex
// (OTLP/JSON) or base64 (protobuf's JSON mapping), into dst.
func otlpIDBytes(s []byte, dst []byte) bool {
	n := len(dst)
	if len(s) == 2*n {
		if _, err := hex.Decode(dst, s); err == nil {
			return true
		}
	}
	var buf [64]byte
	if base64.StdEncoding.DecodedLen(len(s)) <= len(buf) {
		if k, err := base64.StdEncoding.Decode(buf[:], s); err == nil && k == n {
			copy(dst, buf[:k])
			return true
		}
		return false
	}
	b, err := base64.StdEncoding.DecodeString(string(s)) // long, with line breaks
	if err != nil || len(b) != n {
		return false
	}
	copy(dst, b)
	return true
}

// otlpNanos reads a fixed64 nanosecond time, a JSON string or number; ok is
// false unless it is a whole number above 0.
func otlpNanos(raw []byte) (int64, bool) {
	if len(raw) >= 2 && raw[0] == '"' {
		raw = raw[1 : len(raw)-1]
	}
	if n := len(raw); n > 0 && n <= 19 {
		// The common shape: up to 19 digits, which fit a uint64.
		var v uint64
		digits := true
		for _, c := range raw {
			if c < '0' || c > '9' {
				digits = false
				break
			}
			v = v*10 + uint64(c-'0')
		}
		if digits {
			if v == 0 || v > math.MaxInt64 {
				return 0, false
			}
			return int64(v), true
		}
	}
	v, err := strconv.ParseInt(string(raw), 10, 64)
	if err != nil || v <= 0 {
		return 0, false
	}
	return v, true
}

// finishSpan turns the span read into d.sv into out: a skip for a span that
// is not vLLM's llm_request, a span, or the error that rejects it.
func (d *otlpDecoder) finishSpan(out *otlpSpanOut) error {
	sv := &d.sv
	out.kind = KindSkip
	if name := d.rawAt(sv.name); string(name) != `"llm_request"` && string(d.strAt(sv.name)) != "llm_request" {
		return nil
	}
	// An id that is absent (or "") is no error: a span without spanId
	// (pasted, or from a debug exporter) gets one derived from its place
	// (decodeDoc), and is not deduplicated; one without traceId is keyed
	// on its spanId alone.
	traceText, spanText := d.idText(sv.trace, sv.trace2), d.idText(sv.id, sv.id2)
	ok := len(traceText) == 0 || otlpIDBytes(traceText, out.key[:16])
	if !(len(spanText) == 0 || otlpIDBytes(spanText, out.key[16:])) || !ok {
		return scan.Errorf(ErrBadValue, -1, "llm_request span: invalid traceId %q or spanId %q (want hex or base64)", traceText, spanText)
	}
	if len(traceText) == 0 {
		clear(out.key[:16])
	}
	spanID, label := "", "without spanId"
	if len(spanText) == 0 {
		out.derived = true
	} else {
		out.keyed = true
		hex.Encode(d.hexBuf[:], out.key[16:])
		spanID = d.arena.Text(d.hexBuf[:])
		label = spanID
	}
	startRaw := sv.start
	if !startRaw.present() {
		startRaw = sv.start2
	}
	start, ok := otlpNanos(d.rawAt(startRaw))
	if !ok {
		return scan.Errorf(ErrMissingField, -1, "llm_request span %s: missing or invalid startTimeUnixNano %q", label, d.rawAt(startRaw))
	}
	endRaw := sv.end
	if !endRaw.present() {
		endRaw = sv.end2
	}
	sp := &out.span
	*sp = schemas.Span{Source: SourceVLLMOTel, SpanID: spanID, Status: schemas.StatusOK}
	var durs [attrDecode + 1]int64
	var has [attrDecode + 1]bool
	var reqID, model rng // strings' ranges, read once the attributes are
	d.reasons = d.reasons[:0]
	for _, a := range sv.attrs {
		switch a.key {
		case attrRequestID:
			reqID, _ = d.anyStr(a.val)
		case attrResponseModel:
			model, _ = d.anyStr(a.val)
		case attrRequestModel:
			if len(d.strAt(model)) == 0 {
				model, _ = d.anyStr(a.val)
			}
		case attrFinishReasons:
			d.reasons = d.anyStrings(a.val, d.reasons[:0])
		case attrPromptTokens, attrCompletionTokens:
			f, ok, err := d.anyNumber(a.val)
			if err != nil || ok && (f < 0 || f != float64(int64(f))) {
				return scan.Errorf(ErrBadValue, -1, "llm_request span %s: %s: not a token count", label, d.strAt(a.name))
			}
			if !ok {
				continue
			}
			v := d.arena.Int64(int64(f))
			if a.key == attrPromptTokens {
				sp.InputTokens = v
			} else {
				sp.OutputTokens = v
			}
		case attrTimeInQueue, attrTTFT, attrE2E, attrPrefill, attrDecode:
			f, ok, err := d.anyNumber(a.val)
			if err != nil {
				return scan.Errorf(ErrBadType, -1, "llm_request span %s: %s: want a number", label, d.strAt(a.name))
			}
			if !ok {
				continue
			}
			ns, ok := vllmSecondsToNanos(f)
			if !ok || ns < 0 {
				return scan.Errorf(ErrBadValue, -1, "llm_request span %s: %s: %v is not a duration", label, d.strAt(a.name), f)
			}
			durs[a.key], has[a.key] = ns, true
		}
	}
	at := func(ns int64) *int64 { return d.arena.Int64(vllmNsToMicros(ns)) }
	// The span starts at the engine's arrival_time: the request waits in
	// the engine's queue from there (docs/metrics.md "Where the idle time
	// comes from").
	sp.QueuedAt = at(start)
	sp.EngineArrivedAt = sp.QueuedAt
	var first, released int64
	hasFirst, hasReleased := false, false
	if has[attrTTFT] {
		first, hasFirst = start+durs[attrTTFT], true
		sp.FirstTokenAt = at(first)
	}
	if has[attrE2E] {
		released, hasReleased = start+durs[attrE2E], true
	} else if end, ok := otlpNanos(d.rawAt(endRaw)); ok && end >= start {
		released, hasReleased = end, true
	}
	if hasReleased {
		sp.ReleasedAt = at(released)
	}
	if has[attrPrefill] && hasFirst {
		adm := min(max(first-durs[attrPrefill], start), first)
		sp.AdmittedAt = at(adm)
		if has[attrTimeInQueue] {
			// The engine core's queue ends at admission and lasts
			// time_in_queue: before it the request was in the frontend
			// (tokenizing, IPC), not in the queue.
			sp.EngineArrivedAt = at(min(max(adm-durs[attrTimeInQueue], start), adm))
		}
	} else if has[attrTimeInQueue] {
		adm := start + durs[attrTimeInQueue]
		if hasFirst {
			adm = min(adm, first)
		}
		sp.AdmittedAt = at(adm)
	}
	if has[attrDecode] && hasFirst {
		last := first + durs[attrDecode]
		if hasReleased {
			last = min(last, max(released, first))
		}
		sp.LastTokenAt = at(last)
	} else if hasFirst && hasReleased && released >= first {
		sp.LastTokenAt = at(released) // V0: the last token is the finishing step
	}
	if b := d.strAt(reqID); len(b) > 0 {
		sp.RequestID = d.arena.Text(b)
	} else {
		sp.RequestID = spanID
	}
	if b := d.strAt(model); len(b) > 0 {
		sp.Model = d.arena.Str(d.models.Get(b, &d.intern))
	}
	for _, reason := range d.reasons {
		switch strings.ToLower(reason) {
		case "abort":
			sp.Status = schemas.StatusAborted
		case "error":
			sp.Status = schemas.StatusError
		}
	}
	if code := bytes.Trim(d.rawAt(sv.code), `"`); string(code) == "2" || string(code) == "STATUS_CODE_ERROR" {
		sp.Status = schemas.StatusError
	}
	if sp.Status != schemas.StatusOK && len(d.reasons) > 0 {
		e := "finish_reason " + strings.Join(d.reasons, ",")
		sp.Error = &e
	}
	out.kind = KindSpan
	return nil
}

// idText is an id's text: the camelCase key's string followed by the
// snake_case one's (one of them is normally absent).
func (d *otlpDecoder) idText(camel, snake rng) []byte {
	a := d.strAt(camel)
	if !snake.present() {
		return a
	}
	a = bytes.Clone(a)
	return append(a, d.strAt(snake)...)
}

// sniffVLLMOTel scores OTLP/JSON traces: 98 when they hold vLLM's
// llm_request spans or gen_ai.latency attributes, 50 for other OTLP traces.
func sniffVLLMOTel(head []byte) int {
	s := string(head)
	i := strings.IndexAny(s, "{[")
	if i < 0 || strings.TrimSpace(s[:i]) != "" {
		return 0
	}
	if !strings.Contains(s, `"resourceSpans"`) && !strings.Contains(s, `"resource_spans"`) {
		return 0
	}
	if strings.Contains(s, `"llm_request"`) || strings.Contains(s, `"gen_ai.latency.`) {
		return 98
	}
	return 50
}
