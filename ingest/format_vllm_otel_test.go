package ingest

import (
	"bytes"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"math/rand/v2"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/tpsreport/tpsreport/ingest/internal/scan"
	"github.com/tpsreport/tpsreport/schemas"
)

// TestVLLMOTelMatchesReference is a differential test of the vllm-otel
// decoder against the encoding/json reader it replaced (refOTelReader,
// format_vllm_otel_ref_test.go): both read the same randomized OTLP/JSON
// lines and must give the same records in the same order — every span field for
// field, every skip, and every reject of the same kind, with the same reason
// when a span is rejected for its values. (Documents rejected as a whole say
// why in the words of their own JSON readers.)
//
// The documents vary what real exporters vary and what goes wrong in them:
// camelCase and snake_case keys, keys in any order, the resource before or
// after its spans, hex ids in either case and base64 ids, numbers as JSON
// numbers or strings, NaN and Infinity, escaped strings, nulls, other
// spans, spans exported twice, spans with bad ids, times or values, unknown
// keys with nested values, wrong types and cut-off documents. They have no
// repeated key in one object, where encoding/json merges two objects into
// one and the decoder takes the last, and no object with both the camelCase
// and the snake_case key of one array.
func TestVLLMOTelMatchesReference(t *testing.T) {
	trials := 3000
	if testing.Short() {
		trials = 300
	}
	kinds := map[string]int{}
	for seed := range uint64(trials) {
		g := &otlpGen{r: rand.New(rand.NewPCG(seed, 7))}
		var lines [][]byte
		for range 1 + g.r.IntN(4) {
			lines = append(lines, g.doc())
		}
		// The first line must not look like the start of a pretty-printed
		// document, which the reader would read whole.
		if b := bytes.TrimSpace(lines[0]); len(b) < 100 {
			lines[0] = []byte(`{"resourceSpans":[]}`)
		}
		input := bytes.Join(lines, []byte("\n"))

		want := refReadAll(lines)
		var got []Record
		rd := newVLLMOTelReader(Input{Name: "diff", R: bytes.NewReader(input), MaxLineBytes: DefaultMaxLineBytes})
		for rd.Next() {
			got = append(got, *rd.Record())
		}
		if err := rd.Err(); err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		if len(got) != len(want) {
			t.Fatalf("seed %d: %d records, reference %d\ninput:\n%s\ngot:  %s\nwant: %s", seed, len(got), len(want), input, recordKinds(got), recordKinds(want))
		}
		for i := range got {
			if msg := diffRecord(&got[i], &want[i]); msg != "" {
				t.Fatalf("seed %d, record %d: %s\ninput:\n%s", seed, i, msg, input)
			}
			kind := got[i].Kind.String()
			if got[i].Kind == KindReject {
				kind += " " + got[i].Err.Kind()
			}
			kinds[kind]++
		}
	}
	// The generator must reach every outcome, or the test proves less than it says.
	for _, k := range []string{"span", "skip", "reject bad_json", "reject bad_type", "reject bad_value", "reject missing_field"} {
		if kinds[k] == 0 {
			t.Errorf("no record of kind %q in %d trials: %v", k, trials, kinds)
		}
	}
	t.Logf("records by kind: %v", kinds)
}

// refReadAll reads lines with the reference, as the reader's Next does: a
// blank line or a document without spans is one skip.
func refReadAll(lines [][]byte) []Record {
	ref := &refOTelReader{name: "diff", seen: map[string]bool{}}
	var out []Record
	for i, line := range lines {
		n := int64(i + 1)
		if scan.IsBlank(line) {
			out = append(out, Record{Kind: KindSkip, Skip: SkipBlank, Line: n})
			continue
		}
		recs := ref.decodeDoc(line, n, nil)
		if len(recs) == 0 {
			recs = []Record{{Kind: KindSkip, Skip: SkipEmptyDocument, Line: n}}
		}
		out = append(out, recs...)
	}
	return out
}

func recordKinds(recs []Record) string {
	var b strings.Builder
	for _, r := range recs {
		b.WriteString(r.Kind.String())
		b.WriteByte(' ')
	}
	return b.String()
}

// diffRecord says how got differs from the reference's want, "" if not.
func diffRecord(got, want *Record) string {
	if got.Kind != want.Kind || got.Line != want.Line {
		w := ""
		if want.Kind == KindReject {
			w = want.Err.Error()
		}
		g := ""
		if got.Kind == KindReject {
			g = got.Err.Error()
		}
		return fmt.Sprintf("got %s at line %d (%s), reference %s at line %d (%s)", got.Kind, got.Line, g, want.Kind, want.Line, w)
	}
	switch got.Kind {
	case KindSkip:
		if got.Skip != want.Skip {
			return fmt.Sprintf("line %d: skip reason %s, reference %s", got.Line, got.Skip, want.Skip)
		}
	case KindSpan:
		if !reflect.DeepEqual(got.Span, want.Span) {
			return fmt.Sprintf("span\n got  %s\n want %s", spanText(&got.Span), spanText(&want.Span))
		}
	case KindReject:
		if got.Err.Kind() != want.Err.Kind() {
			return fmt.Sprintf("reject %s (%v), reference %s (%v)", got.Err.Kind(), got.Err, want.Err.Kind(), want.Err)
		}
		// A span rejected for its values says why in the same words.
		if strings.HasPrefix(want.Err.Err.Error(), "llm_request span") && got.Err.Error() != want.Err.Error() {
			return fmt.Sprintf("reject reason %q, reference %q", got.Err, want.Err)
		}
		if !strings.HasPrefix(want.Err.Err.Error(), "llm_request span") && strings.HasPrefix(got.Err.Err.Error(), "llm_request span") {
			return fmt.Sprintf("span reject %q where the reference rejects the document: %q", got.Err, want.Err)
		}
	}
	return ""
}

func spanText(s *schemas.Span) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s req=%s src=%s st=%s", s.SpanID, s.RequestID, s.Source, s.Status)
	for _, f := range []struct {
		n string
		p *int64
	}{{"q", s.QueuedAt}, {"a", s.AdmittedAt}, {"f", s.FirstTokenAt}, {"l", s.LastTokenAt}, {"r", s.ReleasedAt}, {"in", s.InputTokens}, {"out", s.OutputTokens}} {
		if f.p != nil {
			fmt.Fprintf(&b, " %s=%d", f.n, *f.p)
		}
	}
	for _, f := range []struct {
		n string
		p *string
	}{{"model", s.Model}, {"replica", s.Replica}, {"err", s.Error}} {
		if f.p != nil {
			fmt.Fprintf(&b, " %s=%q", f.n, *f.p)
		}
	}
	return b.String()
}

// otlpGen writes random OTLP/JSON documents. Spans it has written may be
// written again (an exporter's retry).
type otlpGen struct {
	r     *rand.Rand
	ids   [][2][]byte // trace and span ids written so far
	snake bool        // the document's keys are protobuf's field names
}

func (g *otlpGen) chance(p float64) bool { return g.r.Float64() < p }

// key writes an object key in the document's style.
func (g *otlpGen) key(b []byte, camel, snake string) []byte {
	k := camel
	if g.snake {
		k = snake
	}
	return append(strconv.AppendQuote(b, k), ':')
}

func (g *otlpGen) doc() []byte {
	g.snake = g.chance(0.25)
	var b []byte
	switch {
	case g.chance(0.02):
		return []byte(`null`)
	case g.chance(0.02):
		return []byte(`[1,2]`)
	case g.chance(0.02):
		return []byte(`   `)
	}
	b = append(b, '{')
	if g.chance(0.1) {
		b = append(b, `"unknown":{"a":[1,{"b":null}]},`...)
	}
	b = g.key(b, "resourceSpans", "resource_spans")
	switch {
	case g.chance(0.02):
		b = append(b, `{"not":"an array"}`...)
	case g.chance(0.02):
		b = append(b, `null`...)
	default:
		b = append(b, '[')
		for i := range 1 + g.r.IntN(3) {
			if i > 0 {
				b = append(b, ',')
			}
			b = g.resourceSpans(b)
		}
		b = append(b, ']')
	}
	b = append(b, '}')
	if g.chance(0.04) {
		b = b[:1+g.r.IntN(len(b)-1)] // cut off
	}
	return b
}

func (g *otlpGen) resourceSpans(b []byte) []byte {
	if g.chance(0.03) {
		return append(b, `null`...)
	}
	b = append(b, '{')
	resource := func(b []byte) []byte {
		b = append(b, `"resource":{"attributes":[`...)
		keys := []string{"service.name", "service.instance.id", "host.name", "k8s.pod.name", "telemetry.sdk.name"}
		g.r.Shuffle(len(keys), func(i, j int) { keys[i], keys[j] = keys[j], keys[i] })
		n := 0
		for _, k := range keys {
			if g.chance(0.5) {
				continue
			}
			if n > 0 {
				b = append(b, ',')
			}
			n++
			b = g.kv(b, k, g.anyString())
		}
		return append(b, `]}`...)
	}
	before := g.chance(0.5)
	if before && g.chance(0.8) {
		b = append(resource(b), ',')
	}
	b = g.key(b, "scopeSpans", "scope_spans")
	b = append(b, `[{"scope":{"name":"vllm.llm_engine"},"spans":[`...)
	for i := range g.r.IntN(5) {
		if i > 0 {
			b = append(b, ',')
		}
		b = g.span(b)
	}
	b = append(b, `]}]`...)
	if !before && g.chance(0.8) {
		b = resource(append(b, ','))
	}
	return append(b, '}')
}

// anyString is an AnyValue whose string the replica or a model may be.
func (g *otlpGen) anyString() string {
	switch g.r.IntN(8) {
	case 0:
		return `{"intValue":"7"}`
	case 1:
		return `{"stringValue":""}`
	case 2:
		return `{"stringValue":"vllm-\u0031"}`
	case 3:
		return `null`
	case 4:
		return `{"string_value":"node-` + strconv.Itoa(g.r.IntN(3)) + `"}`
	case 5:
		return `{"stringValue":null,"string_value":"snake"}`
	}
	return `{"stringValue":"vllm-` + strconv.Itoa(g.r.IntN(3)) + `"}`
}

// kv writes one attribute, its key and value in either order.
func (g *otlpGen) kv(b []byte, key, value string) []byte {
	if g.chance(0.15) {
		return fmt.Appendf(b, `{"value":%s,"key":%q}`, value, key)
	}
	return fmt.Appendf(b, `{"key":%q,"value":%s}`, key, value)
}

// id writes a new or repeated trace and span id pair.
func (g *otlpGen) id() (trace, span []byte) {
	if len(g.ids) > 0 && g.chance(0.15) {
		p := g.ids[g.r.IntN(len(g.ids))]
		return p[0], p[1]
	}
	trace, span = make([]byte, 16), make([]byte, 8)
	for i := range trace {
		trace[i] = byte(g.r.IntN(4)) // small, so that ids repeat in other encodings
	}
	for i := range span {
		span[i] = byte(g.r.IntN(256))
	}
	g.ids = append(g.ids, [2][]byte{trace, span})
	return trace, span
}

// idText encodes an id as hex (either case) or base64, or spoils it.
func (g *otlpGen) idText(id []byte) string {
	switch g.r.IntN(10) {
	case 0:
		return base64.StdEncoding.EncodeToString(id)
	case 1:
		return strings.ToUpper(hex.EncodeToString(id))
	case 2:
		if g.chance(0.3) {
			return "zz" + hex.EncodeToString(id)[2:]
		}
	}
	return hex.EncodeToString(id)
}

// number writes a value as OTLP writes numbers, or as something else.
func (g *otlpGen) number(field string, v string) string {
	if g.chance(0.6) {
		return `{"` + field + `":"` + v + `"}`
	}
	switch g.r.IntN(14) {
	case 0:
		return `{"` + field + `":"NaN"}`
	case 1:
		return `{"` + field + `":"x1"}`
	case 2:
		return `{"` + field + `":null}`
	case 3:
		return `{"` + field + `":true}`
	case 4:
		return `{"` + field + `":"Infinity"}`
	case 5:
		return `{"` + field + `":-1.5}`
	case 6:
		return `{"` + field + `":"\u0031` + v + `"}`
	case 7:
		return `{"stringValue":"` + v + `"}`
	case 8:
		return `{"` + field + `":` + v + `}`
	}
	return `{"` + field + `":"` + v + `"}`
}

func (g *otlpGen) span(b []byte) []byte {
	if g.chance(0.03) {
		return append(b, `null`...)
	}
	var fields []string
	add := func(s string) { fields = append(fields, s) }
	name := `"llm_request"`
	switch {
	case g.chance(0.1):
		name = `"http.request"`
	case g.chance(0.05):
		name = `"llm_\u0072equest"`
	case g.chance(0.02):
		name = `5` // wrong type
	case g.chance(0.02):
		name = `null`
	}
	add(`"name":` + name)
	trace, span := g.id()
	k := func(camel, snake string) string {
		if g.snake {
			return strconv.Quote(snake)
		}
		return strconv.Quote(camel)
	}
	if !g.chance(0.02) {
		add(k("traceId", "trace_id") + ":" + strconv.Quote(g.idText(trace)))
	}
	if !g.chance(0.02) {
		add(k("spanId", "span_id") + ":" + strconv.Quote(g.idText(span)))
	}
	start := int64(1795168800_000000000) + g.r.Int64N(1e12)
	switch g.r.IntN(12) {
	case 0:
	case 1:
		add(k("startTimeUnixNano", "start_time_unix_nano") + `:"0"`)
	case 2:
		add(k("startTimeUnixNano", "start_time_unix_nano") + `:null`)
	case 3:
		add(k("startTimeUnixNano", "start_time_unix_nano") + ":" + strconv.FormatInt(start, 10))
	case 4:
		add(k("startTimeUnixNano", "start_time_unix_nano") + `:"+` + strconv.FormatInt(start, 10) + `"`)
	default:
		add(k("startTimeUnixNano", "start_time_unix_nano") + `:"` + strconv.FormatInt(start, 10) + `"`)
	}
	if g.chance(0.8) {
		end := start + g.r.Int64N(3e10) - 1e9
		add(k("endTimeUnixNano", "end_time_unix_nano") + `:"` + strconv.FormatInt(end, 10) + `"`)
	}
	if g.chance(0.1) {
		add(`"events":[{"name":"prompt","attributes":[{"key":"text","value":{"stringValue":"secret"}}]}]`)
	}
	if g.chance(0.03) {
		add(`"attributes":{}`) // wrong type
	} else {
		add(`"attributes":[` + g.attrs() + `]`)
	}
	switch g.r.IntN(6) {
	case 0:
		add(`"status":{"code":2}`)
	case 1:
		add(`"status":{"code":"STATUS_CODE_ERROR"}`)
	case 2:
		add(`"status":null`)
	case 3:
		add(`"status":{"code":1,"message":"x"}`)
	}
	g.r.Shuffle(len(fields), func(i, j int) { fields[i], fields[j] = fields[j], fields[i] })
	sep := ","
	if g.chance(0.2) {
		sep = " ,\r\t "
	}
	return append(b, "{"+strings.Join(fields, sep)+"}"...)
}

func (g *otlpGen) attrs() string {
	sec := func() string {
		return strconv.FormatFloat(float64(g.r.IntN(3_000_000))/1e6, 'f', -1, 64)
	}
	num := func(double bool) string {
		if double {
			if g.snake {
				return "double_value"
			}
			return "doubleValue"
		}
		if g.snake {
			return "int_value"
		}
		return "intValue"
	}
	var kvs []string
	add := func(key, value string) {
		if !g.chance(0.25) {
			kvs = append(kvs, string(g.kv(nil, key, value)))
		}
	}
	add("gen_ai.request.id", `{"stringValue":"chatcmpl-`+strconv.Itoa(g.r.IntN(50))+`"}`)
	add("gen_ai.request.top_p", `{"doubleValue":0.95}`)
	add("gen_ai.response.model", g.anyString())
	add("gen_ai.request.model", `{"stringValue":"meta-llama/Llama-3.1-8B"}`)
	add("gen_ai.latency.time_to_first_token", g.number(num(true), sec()))
	add("gen_ai.latency.e2e", g.number(num(true), sec()))
	add("gen_ai.latency.time_in_queue", g.number(num(true), sec()))
	add("gen_ai.latency.time_in_model_prefill", g.number(num(true), sec()))
	add("gen_ai.latency.time_in_model_decode", g.number(num(true), sec()))
	tokens := func() string {
		if g.chance(0.1) {
			return "2.5"
		}
		return strconv.Itoa(g.r.IntN(5000))
	}
	if g.chance(0.5) {
		add("gen_ai.usage.prompt_tokens", g.number(num(false), tokens()))
		add("gen_ai.usage.completion_tokens", g.number(num(false), tokens()))
	} else {
		add("gen_ai.usage.input_tokens", g.number(num(false), tokens()))
		add("gen_ai.usage.output_tokens", g.number(num(false), tokens()))
	}
	reasons := []string{
		`{"arrayValue":{"values":[{"stringValue":"stop"}]}}`,
		`{"arrayValue":{"values":[{"stringValue":"ABORT"},null,{"intValue":"1"},{"stringValue":"length"}]}}`,
		`{"array_value":{"values":[{"string_value":"error"}]}}`,
		`{"stringValue":"abort"}`,
		`{"arrayValue":null,"array_value":{"values":[{"stringValue":"error"}]}}`,
		`{"arrayValue":{"values":null}}`,
		`{"arrayValue":{"values":[{"stringValue":5}]}}`, // wrong type
		`{"intValue":"3"}`,
	}
	r := reasons[g.r.IntN(len(reasons))]
	if r == reasons[6] && !g.chance(0.1) {
		r = reasons[0]
	}
	add("gen_ai.response.finish_reasons", r)
	if g.chance(0.05) {
		kvs = append(kvs, `null`)
	}
	if g.chance(0.02) {
		kvs = append(kvs, `{"key":5,"value":null}`) // wrong type
	}
	g.r.Shuffle(len(kvs), func(i, j int) { kvs[i], kvs[j] = kvs[j], kvs[i] })
	return strings.Join(kvs, ",")
}

// TestRecentKeys: the set holds the last n keys added, and forgets each
// older one.
func TestRecentKeys(t *testing.T) {
	key := func(i int) otlpKey { return otlpKey{byte(i), byte(i >> 8)} }
	k := newRecentKeys(3)
	for i := range 10 {
		k.add(key(i))
		for j := range 10 {
			want := j <= i && j > i-3
			if got := k.has(key(j)); got != want {
				t.Fatalf("after adding 0..%d: has(%d) = %v, want %v", i, j, got, want)
			}
		}
		if len(k.set) > 3 || len(k.ring) > 3 {
			t.Fatalf("after adding 0..%d: %d keys in the set, %d in the ring", i, len(k.set), len(k.ring))
		}
	}
}
