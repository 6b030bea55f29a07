package ingest

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/tpsreport/tpsreport/ingest/internal/scan"
	"github.com/tpsreport/tpsreport/schemas"
)

// The guidellm format is GuideLLM's benchmarks report (`guidellm benchmark
// --output-path benchmarks.json|.yaml`): one JSON or YAML document whose
// "benchmarks" array holds one benchmark per load level (a sweep writes
// several). schemas/formats/loadtools.md has the mapping.
//
// Two schemas are read:
//
//   - before 0.4 (GenerativeBenchmark of guidellm/benchmark/benchmark.py):
//     each request record carries start_time, end_time, first_token_time,
//     last_token_time, prompt_tokens, output_tokens and, when errored, error;
//   - 0.4 and later (GenerativeBenchmarksReport, GenerativeRequestStats):
//     the times are in info.timings (request_start, first_token_iteration,
//     last_token_iteration, request_end, resolve_start, resolve_end), the
//     error in info.error, and the token counts in the computed fields
//     prompt_tokens and output_tokens (else input_metrics/output_metrics).
//
// Every benchmark's requests.successful, requests.incomplete and
// requests.errored become spans with status ok, cancelled and error. All
// times are the client's time.time(): wall clock, seconds since the epoch,
// read exactly from their decimal digits. Span ids are "b<N>/<request_id>",
// N the benchmark's index in the report from 0 (GuideLLM's run_index), so
// that every benchmark of a sweep can be told apart. Prompt and output text
// are never read. Each request is one record; a report without benchmarks
// is one skipped record; a benchmark that lists no request at all although
// its totals count some is one reject (the report holds aggregates only).

// SourceGuideLLM is the source column of spans read from GuideLLM reports.
const SourceGuideLLM = "guidellm"

// guidellmMaxInput bounds a report held in memory: its requests sit deep in
// one document, so it is read whole (a sweep of ten benchmarks of 10,000
// requests each is about 100 MB).
const guidellmMaxInput = 256 << 20

type guidellmReader struct {
	name      string
	benchmark *int // Input.Benchmark
	in        io.Reader
	recs      []Record
	i         int
	read      bool
	rec       Record
	err       error
	samples   []schemas.SampledInput // benchmarks whose totals count more requests than they list
}

// sampled implements sampler: GuideLLM keeps a sample of each benchmark's
// requests when run with --sample-requests N (its test assets keep one),
// while request_totals counts them all.
func (r *guidellmReader) sampled() []schemas.SampledInput { return r.samples }

var _ Reader = (*guidellmReader)(nil)

func newGuideLLMReader(in Input) Reader {
	return &guidellmReader{name: in.Name, in: in.R, benchmark: in.Benchmark}
}

// Record implements Reader.
func (r *guidellmReader) Record() *Record { return &r.rec }

// Err implements Reader.
func (r *guidellmReader) Err() error { return r.err }

// Next implements Reader.
func (r *guidellmReader) Next() bool {
	if !r.read {
		r.read = true
		data, err := readWhole(r.name, r.in, guidellmMaxInput, "GuideLLM report larger than 256 MiB")
		if err != nil {
			r.err = err
			return false
		}
		r.recs = r.readAll(data)
		if r.err != nil {
			return false
		}
	}
	if r.i >= len(r.recs) {
		return false
	}
	r.rec = r.recs[r.i]
	r.recs[r.i] = Record{}
	r.i++
	return true
}

// guidellmReport holds the keys of a report this format reads. Keys that
// only name the model or count the requests are read leniently (lenient*):
// a value of another shape there does not cost the report its spans.
type guidellmReport struct {
	Benchmarks []guidellmBenchmark `json:"benchmarks"`
	Args       json.RawMessage     `json:"args"`   // 0.4: model
	Config     json.RawMessage     `json:"config"` // later: model, backend.model
}

// benchmarksText is "1 benchmark", "3 benchmarks".
func benchmarksText(n int) string {
	if n == 1 {
		return "1 benchmark"
	}
	return strconv.Itoa(n) + " benchmarks"
}

// describe lists the report's benchmarks with their request records:
// "0: 120 requests, 1: 240 requests".
func (rep *guidellmReport) describe() string {
	parts := make([]string, len(rep.Benchmarks))
	for n := range rep.Benchmarks {
		parts[n] = fmt.Sprintf("%d: %d requests", n, rep.Benchmarks[n].requestCount())
	}
	return strings.Join(parts, ", ")
}

// requestCount is the number of request records the benchmark lists.
func (b *guidellmBenchmark) requestCount() int {
	if b.Requests == nil {
		return 0
	}
	return len(b.Requests.Successful) + len(b.Requests.Incomplete) + len(b.Requests.Errored)
}

type guidellmBenchmark struct {
	Worker           json.RawMessage `json:"worker"`            // before 0.4: backend_model
	Config           json.RawMessage `json:"config"`            // 0.4 and later: backend.model
	RequestTotals    json.RawMessage `json:"request_totals"`    // before 0.4: total
	SchedulerMetrics json.RawMessage `json:"scheduler_metrics"` // 0.4 and later: requests_made.total
	Requests         *struct {
		Successful []json.RawMessage `json:"successful"`
		Incomplete []json.RawMessage `json:"incomplete"`
		Errored    []json.RawMessage `json:"errored"`
	} `json:"requests"`
}

// lenientString returns the string at path in the JSON object raw, or nil.
func lenientString(raw json.RawMessage, path ...string) *string {
	v := lenientValue(raw, path...)
	if s, ok := v.(string); ok && s != "" {
		return &s
	}
	return nil
}

// lenientValue returns the value at path in the JSON object raw, or nil.
func lenientValue(raw json.RawMessage, path ...string) any {
	var m map[string]any
	if len(raw) == 0 || json.Unmarshal(raw, &m) != nil {
		return nil
	}
	return scan.Obj(m).Get(path...)
}

// guidellmRequest holds both schemas' request keys.
type guidellmRequest struct {
	RequestID *string `json:"request_id"`
	// Before 0.4.
	StartTime      json.RawMessage `json:"start_time"`
	EndTime        json.RawMessage `json:"end_time"`
	FirstTokenTime json.RawMessage `json:"first_token_time"`
	LastTokenTime  json.RawMessage `json:"last_token_time"`
	Error          *string         `json:"error"`
	// Both (computed fields from 0.4 on).
	PromptTokens json.RawMessage `json:"prompt_tokens"`
	OutputTokens json.RawMessage `json:"output_tokens"`
	CachedTokens json.RawMessage `json:"cached_tokens"`
	// 0.4 and later.
	Info *struct {
		Error   *string `json:"error"`
		Timings *struct {
			RequestStart        json.RawMessage `json:"request_start"`
			ResolveStart        json.RawMessage `json:"resolve_start"`
			FirstTokenIteration json.RawMessage `json:"first_token_iteration"`
			LastTokenIteration  json.RawMessage `json:"last_token_iteration"`
			RequestEnd          json.RawMessage `json:"request_end"`
			ResolveEnd          json.RawMessage `json:"resolve_end"`
		} `json:"timings"`
	} `json:"info"`
	InputMetrics  *guidellmUsage `json:"input_metrics"`
	OutputMetrics *guidellmUsage `json:"output_metrics"`
}

type guidellmUsage struct {
	TotalTokens json.RawMessage `json:"total_tokens"`
	TextTokens  json.RawMessage `json:"text_tokens"`
}

func (r *guidellmReader) readAll(data []byte) []Record {
	start := 0
	for start < len(data) && strings.ContainsRune(" \t\r\n", rune(data[start])) {
		start++
	}
	if start == len(data) {
		return []Record{{Kind: KindSkip, Skip: SkipEmptyDocument, Line: 1}}
	}
	line := int64(bytes.Count(data[:start], []byte("\n"))) + 1
	reject := func(err error) []Record {
		return []Record{{Kind: KindReject, Line: line, Raw: data[start:min(len(data), start+scan.TooLongKeep)],
			Err: parseErrorAt(r.name, line, err)}}
	}
	doc := data[start:]
	if doc[0] != '{' {
		// YAML (yaml.dump of the same dictionary): convert it to JSON with
		// every number kept as written.
		j, err := guidellmYAMLToJSON(doc)
		if err != nil {
			return reject(scan.Errorf(ErrBadJSON, -1, "GuideLLM report: invalid YAML: %v", err))
		}
		doc = j
	}
	var rep guidellmReport
	dec := json.NewDecoder(bytes.NewReader(doc))
	dec.UseNumber()
	if err := dec.Decode(&rep); err != nil {
		var te *json.UnmarshalTypeError
		var se *json.SyntaxError
		switch {
		case errors.As(err, &te):
			return reject(scan.Errorf(ErrBadType, -1, "GuideLLM report: %s", scan.TypeErrorText(te)))
		case errors.As(err, &se):
			return reject(scan.Errorf(ErrBadJSON, -1, "invalid JSON: %v", err))
		}
		return reject(scan.Errorf(ErrBadJSON, -1, "GuideLLM report: %v", err))
	}
	if len(rep.Benchmarks) == 0 {
		return []Record{{Kind: KindSkip, Skip: SkipEmptyDocument, Line: line}}
	}
	// A sweep's benchmarks ran at different loads: each is a run of its
	// own, so one is read and the others' requests are skipped.
	pick := 0
	switch {
	case r.benchmark == nil && len(rep.Benchmarks) > 1:
		r.err = fmt.Errorf("a GuideLLM sweep of %d benchmarks (%s), each at its own load: ingest each as a run of its own (Try: --benchmark N)",
			len(rep.Benchmarks), rep.describe())
		return nil
	case r.benchmark != nil && (*r.benchmark < 0 || *r.benchmark >= len(rep.Benchmarks)):
		r.err = fmt.Errorf("--benchmark %d: the report holds %s (%s)", *r.benchmark, benchmarksText(len(rep.Benchmarks)), rep.describe())
		return nil
	case r.benchmark != nil:
		pick = *r.benchmark
	}
	var recs []Record
	for n, b := range rep.Benchmarks {
		if n != pick {
			for range b.requestCount() {
				recs = append(recs, Record{Kind: KindSkip, Skip: SkipOtherBenchmark, Line: line})
			}
			continue
		}
		var groups = []struct {
			status string
			reqs   []json.RawMessage
		}{{schemas.StatusOK, nil}, {schemas.StatusCancelled, nil}, {schemas.StatusError, nil}}
		if b.Requests != nil {
			groups[0].reqs, groups[1].reqs, groups[2].reqs = b.Requests.Successful, b.Requests.Incomplete, b.Requests.Errored
		}
		if len(groups[0].reqs)+len(groups[1].reqs)+len(groups[2].reqs) == 0 {
			if b.counted() {
				recs = append(recs, Record{Kind: KindReject, Line: line, Err: parseErrorAt(r.name, line, scan.Errorf(ErrMissingField, -1,
					"GuideLLM benchmark %d holds aggregates only, no request records. Try the report GuideLLM writes with --output-path (benchmarks.json) without --sample-requests 0", n))})
			} else {
				recs = append(recs, Record{Kind: KindSkip, Skip: SkipEmptyDocument, Line: line})
			}
			continue
		}
		if listed := b.listed(); listed > int64(b.requestCount()) {
			r.samples = append(r.samples, schemas.SampledInput{Scope: fmt.Sprintf("GuideLLM benchmark %d", n),
				Listed: listed, Held: int64(b.requestCount())})
		}
		model := rep.model(&b)
		for _, g := range groups {
			for i, raw := range g.reqs {
				sp, err := guidellmSpan(n, g.status, i, raw)
				if err != nil {
					recs = append(recs, Record{Kind: KindReject, Line: line, Raw: raw[:min(len(raw), scan.TooLongKeep)], Err: parseErrorAt(r.name, line, err)})
					continue
				}
				sp.Model = model
				recs = append(recs, Record{Kind: KindSpan, Line: line, Span: sp})
			}
		}
	}
	return recs
}

// model returns the model that benchmark b ran against, or nil.
func (rep *guidellmReport) model(b *guidellmBenchmark) *string {
	for _, m := range []*string{
		lenientString(b.Worker, "backend_model"), lenientString(b.Config, "backend", "model"),
		lenientString(rep.Config, "model"), lenientString(rep.Config, "backend", "model"), lenientString(rep.Args, "model"),
	} {
		if m != nil {
			return m
		}
	}
	return nil
}

// counted reports whether the benchmark's totals count any request.
func (b *guidellmBenchmark) counted() bool { return b.listed() > 0 }

// listed is the number of requests the benchmark's totals count
// (request_totals.total before 0.4, scheduler_metrics.requests_made.total
// later), the larger when both are there; 0 when neither is.
func (b *guidellmBenchmark) listed() int64 {
	var n int64
	for _, v := range []any{lenientValue(b.RequestTotals, "total"), lenientValue(b.SchedulerMetrics, "requests_made", "total")} {
		if f, ok := v.(float64); ok && f > 0 && f < 1e15 {
			n = max(n, int64(f))
		}
	}
	return n
}

// guidellmSpan builds the span of request i of status in benchmark n.
func guidellmSpan(n int, status string, i int, raw []byte) (schemas.Span, error) {
	var q guidellmRequest
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if err := dec.Decode(&q); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			return schemas.Span{}, scan.Errorf(ErrBadType, -1, "benchmark %d: request: %s", n, scan.TypeErrorText(te))
		}
		return schemas.Span{}, scan.Errorf(ErrBadJSON, -1, "benchmark %d: request: %v", n, err)
	}
	id := ""
	if q.RequestID != nil {
		id = *q.RequestID
	}
	if id == "" {
		id = fmt.Sprintf("%s#%d", status, i)
	}
	id = fmt.Sprintf("b%d/%s", n, id)
	sp := schemas.Span{Source: SourceGuideLLM, SpanID: id, RequestID: id, Status: status}
	where := func(err error) error {
		var re *RecordError
		if errors.As(err, &re) {
			re.Msg = fmt.Sprintf("benchmark %d: request %q: %s", n, id, re.Msg)
		}
		return err
	}

	// Times: the 0.4 schema's info.timings, else the flat keys of before.
	start, first, last, end := q.StartTime, q.FirstTokenTime, q.LastTokenTime, q.EndTime
	errText := q.Error
	if q.Info != nil {
		if q.Info.Error != nil {
			errText = q.Info.Error
		}
		if t := q.Info.Timings; t != nil {
			start, first, last, end = t.RequestStart, t.FirstTokenIteration, t.LastTokenIteration, t.RequestEnd
			if isNull(start) {
				start = t.ResolveStart
			}
			if isNull(end) {
				end = t.ResolveEnd
			}
		}
	}
	for _, f := range []struct {
		key string
		v   json.RawMessage
		dst **int64
	}{{"start", start, &sp.QueuedAt}, {"first token", first, &sp.FirstTokenAt}, {"last token", last, &sp.LastTokenAt}, {"end", end, &sp.ReleasedAt}} {
		us, ok, err := guidellmTime(f.key, f.v)
		if err != nil {
			return sp, where(err)
		}
		if ok {
			*f.dst = &us
		}
	}
	if sp.QueuedAt == nil {
		return sp, where(scan.Errorf(ErrMissingField, -1, "no start time"))
	}
	if sp.ReleasedAt != nil && *sp.ReleasedAt < *sp.QueuedAt {
		return sp, where(scan.Errorf(ErrBadValue, -1, "ends before it starts"))
	}

	// Token counts.
	prompt, output := q.PromptTokens, q.OutputTokens
	if isNull(prompt) && q.InputMetrics != nil {
		prompt = cmpOr(q.InputMetrics.TotalTokens, q.InputMetrics.TextTokens)
	}
	if isNull(output) && q.OutputMetrics != nil {
		output = cmpOr(q.OutputMetrics.TotalTokens, q.OutputMetrics.TextTokens)
	}
	for _, f := range []struct {
		key string
		v   json.RawMessage
		dst **int64
	}{{"prompt_tokens", prompt, &sp.InputTokens}, {"output_tokens", output, &sp.OutputTokens}, {"cached_tokens", q.CachedTokens, &sp.CachedTokens}} {
		if isNull(f.v) {
			continue
		}
		if !scan.IsNumber(f.v) {
			return sp, where(scan.Errorf(ErrBadType, -1, "%s %s is not a number", f.key, cutUTF8(string(f.v), 40)))
		}
		v, err := strconv.ParseFloat(string(f.v), 64)
		if err != nil || v < 0 || v != math.Trunc(v) || v > 1e15 {
			return sp, where(scan.Errorf(ErrBadValue, -1, "%s %s is not a token count", f.key, string(f.v)))
		}
		c := int64(v)
		*f.dst = &c
	}
	if status != schemas.StatusOK && errText != nil && *errText != "" {
		e := strings.TrimSpace(*errText)
		if j := strings.LastIndexByte(e, '\n'); j >= 0 {
			e = strings.TrimSpace(e[j+1:])
		}
		e = cutUTF8(e, 120)
		sp.Error = &e
	}
	return sp, nil
}

// cmpOr returns the first of a, b that is not null.
func cmpOr(a, b json.RawMessage) json.RawMessage {
	if !isNull(a) {
		return a
	}
	return b
}

// isNull reports whether a JSON value is absent or null.
func isNull(v json.RawMessage) bool {
	return len(v) == 0 || string(v) == "null"
}

// guidellmTime reads a timestamp: a number of seconds since the epoch (or
// any timestamp form of the spans format, as a string). ok is false for an
// absent or null value.
func guidellmTime(key string, v json.RawMessage) (us int64, ok bool, err error) {
	switch {
	case isNull(v):
		return 0, false, nil
	case v[0] == '"':
		var s string
		if json.Unmarshal(v, &s) != nil {
			return 0, false, scan.Errorf(ErrBadType, -1, "%s time: invalid string %s", key, cutUTF8(string(v), 40))
		}
		us, err = scan.ParseTimestamp([]byte(s))
	case scan.IsNumber(v):
		us, err = scan.ParseEpoch(v)
	default:
		return 0, false, scan.Errorf(ErrBadType, -1, "%s time: %s is not a timestamp", key, cutUTF8(string(v), 40))
	}
	if err != nil {
		return 0, false, scan.Errorf(ErrBadTimestamp, -1, "%s time: invalid timestamp %s: %v", key, cutUTF8(string(v), 40), err)
	}
	return us, true, nil
}

// guidellmYAMLToJSON converts a YAML document to JSON, keeping the text of
// integers and floats, so that timestamps are read from their digits.
func guidellmYAMLToJSON(doc []byte) ([]byte, error) {
	var root yaml.Node
	if err := yaml.Unmarshal(doc, &root); err != nil {
		return nil, err
	}
	var b bytes.Buffer
	if err := yamlNodeJSON(&b, &root, 0); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

func yamlNodeJSON(b *bytes.Buffer, n *yaml.Node, depth int) error {
	if depth > scan.MaxDepth {
		return errors.New("nested too deeply")
	}
	switch n.Kind {
	case yaml.DocumentNode:
		if len(n.Content) == 0 {
			b.WriteString("null")
			return nil
		}
		return yamlNodeJSON(b, n.Content[0], depth+1)
	case yaml.AliasNode:
		return errors.New("aliases are not read")
	case yaml.SequenceNode:
		b.WriteByte('[')
		for i, c := range n.Content {
			if i > 0 {
				b.WriteByte(',')
			}
			if err := yamlNodeJSON(b, c, depth+1); err != nil {
				return err
			}
		}
		b.WriteByte(']')
	case yaml.MappingNode:
		b.WriteByte('{')
		for i := 0; i+1 < len(n.Content); i += 2 {
			if i > 0 {
				b.WriteByte(',')
			}
			k, _ := json.Marshal(n.Content[i].Value)
			b.Write(k)
			b.WriteByte(':')
			if err := yamlNodeJSON(b, n.Content[i+1], depth+1); err != nil {
				return err
			}
		}
		b.WriteByte('}')
	case yaml.ScalarNode:
		switch n.ShortTag() {
		case "!!null":
			b.WriteString("null")
		case "!!bool":
			v := false
			if err := n.Decode(&v); err != nil {
				return err
			}
			b.WriteString(strconv.FormatBool(v))
		case "!!int", "!!float":
			if scan.IsNumber([]byte(n.Value)) {
				b.WriteString(n.Value)
				return nil
			}
			var f float64
			if err := n.Decode(&f); err != nil {
				return err
			}
			s, err := json.Marshal(f)
			if err != nil { // NaN, ±Inf
				b.WriteString("null")
				return nil
			}
			b.Write(s)
		default:
			s, _ := json.Marshal(n.Value)
			b.Write(s)
		}
	default:
		b.WriteString("null")
	}
	return nil
}

// sniffGuideLLM scores GuideLLM reports: 95 for JSON or YAML with the
// "benchmarks" key and a GuideLLM benchmark's markers.
func sniffGuideLLM(head []byte) int {
	t := bytes.TrimSpace(head)
	if len(t) == 0 {
		return 0
	}
	s := string(t)
	if t[0] == '{' {
		if !strings.Contains(s, `"benchmarks"`) {
			return 0
		}
		if strings.Contains(s, `"generative_benchmark"`) || strings.Contains(s, `"guidellm_version"`) ||
			strings.Contains(s, `"time_to_first_token_ms"`) && strings.Contains(s, `"inter_token_latency_ms"`) {
			return 95
		}
		return 0
	}
	// yaml.dump sorts keys: "benchmarks:" is the first line of every report.
	if !strings.HasPrefix(s, "benchmarks:") {
		return 0
	}
	if strings.Contains(s, "generative_benchmark") || strings.Contains(s, "time_to_first_token_ms:") {
		return 95
	}
	return 0
}
