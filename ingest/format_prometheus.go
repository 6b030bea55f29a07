package ingest

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/tpsreport/tpsreport/ingest/internal/scan"
	"github.com/tpsreport/tpsreport/schemas"
)

// The prometheus format is an engine's scheduler gauges over time, as
// samples.parquet rows (schemas/formats/vllm.md; sglang.md and llamacpp.md
// for SGLang's and llama.cpp's families, promFamilies):
//
//   - the Prometheus HTTP API's query_range answer (resultType "matrix", or
//     "vector"), one JSON document per file or per line;
//   - text-format scrapes with timestamps ("name{labels} value ms"), such as
//     a concatenation of /metrics scrapes or `promtool tsdb dump` output.
//
// vllm:num_requests_running is in_flight, vllm:num_requests_waiting is
// queue_depth, vllm:kv_cache_usage_perc (V0 and early V1:
// vllm:gpu_cache_usage_perc) is kv_cache_usage (already 0..1); SGLang's
// sglang:num_running_reqs, sglang:num_queue_reqs, sglang:token_usage and
// llama.cpp's llamacpp:requests_processing, llamacpp:requests_deferred,
// llamacpp:kv_cache_usage_ratio, TensorRT-LLM's trtllm_num_requests_running,
// trtllm_num_requests_waiting, trtllm_kv_cache_utilization (and
// trtllm_max_num_active_requests as cap; trtllm.md), Dynamo's frontend
// gauges (dynamo_frontend_inflight_requests less
// dynamo_frontend_queued_requests, and the latter; dynamo.md) and NVIDIA
// NIM's num_requests_running, num_requests_waiting, gpu_cache_usage_perc
// and num_request_max (nim.md) fill the same columns. Series of one
// replica at one instant are joined into one sample; the replica is the
// instance (or pod, or model_name) label, with "/engine-NNN" when an engine
// label is present (SGLang: "/dpN" for a dp_rank label). Other metrics are
// skipped. NaN (a stale marker) is an unknown value.
//
// Records: in a text file every line is one record, and a joined sample is
// written on the last line that contributes to it (the others are skipped);
// in a JSON file each joined sample is one record on its document's line.

// SourcePrometheus is the source column of samples read from Prometheus.
const SourcePrometheus = "prometheus"

// prometheusMaxDocument bounds one API answer held in memory (a day of
// 15 s points of the three gauges is a few MB). The input is read one line,
// or one answer, at a time; what stays in memory is the joined samples.
const prometheusMaxDocument = 256 << 20

type promReader struct {
	name string
	in   io.Reader
	max  int

	started bool
	lines   *scan.Lines // a text file
	docs    *scan.Docs  // a JSON file
	join    promJoin
	held    map[promKey]int64 // text: the line whose record becomes the key's sample
	last    map[promKey]int64 // JSON: the line of the last answer feeding a sample
	ended   bool              // the input is read; recs holds the last records

	recs []Record // records to deliver before reading on
	i    int
	rec  Record
	err  error
}

var _ Reader = (*promReader)(nil)

func newPrometheusReader(in Input) Reader {
	return &promReader{name: in.Name, in: in.R, max: in.MaxLineBytes}
}

// Record implements Reader.
func (r *promReader) Record() *Record { return &r.rec }

// Err implements Reader.
func (r *promReader) Err() error { return r.err }

// Next implements Reader.
func (r *promReader) Next() bool {
	if !r.started {
		r.started = true
		r.start()
	}
	for r.i >= len(r.recs) {
		clear(r.recs)
		r.recs, r.i = r.recs[:0], 0
		if r.ended || r.err != nil {
			return false
		}
		if r.docs != nil {
			r.nextJSON()
		} else {
			r.nextText()
		}
	}
	r.rec = r.recs[r.i]
	r.recs[r.i] = Record{}
	r.i++
	return true
}

// start tells a JSON input from a text one by its first byte that is not
// whitespace, within the first scan.SniffBytes (an input that starts with more
// whitespace than that is read as text).
func (r *promReader) start() {
	head := make([]byte, scan.SniffBytes)
	n, err := io.ReadFull(r.in, head)
	head = head[:n]
	if err != nil && err != io.EOF && err != io.ErrUnexpectedEOF {
		r.err = err
		return
	}
	t := bytes.TrimLeft(bytes.TrimPrefix(head, scan.BOM), " \t\r\n")
	rest := r.in
	if err != nil {
		rest = eofReader{}
	}
	if len(t) > 0 && t[0] == '{' {
		r.docs = scan.NewDocs(r.name, head, rest, prometheusMaxDocument)
		r.last = map[promKey]int64{}
		return
	}
	r.lines = scan.NewLines(io.MultiReader(bytes.NewReader(head), rest), r.max)
	r.held = map[promKey]int64{}
}

// eofReader is an input that has ended.
type eofReader struct{}

func (eofReader) Read([]byte) (int, error) { return 0, io.EOF }

// promGauge is the sample column a metric fills.
type promGauge uint8

const (
	promNone promGauge = iota
	promRunning
	promWaiting
	promKV
	promGPUKV // V0's name; kv_cache_usage_perc wins when both exist
	promCap   // the engine's configured limit of running requests
	// promInFlightAll counts every request between receipt and response,
	// queued ones included (Dynamo's frontend): in_flight is it minus the
	// sample's queue_depth when both are known.
	promInFlightAll
	// Counters, cumulative.
	promPreemptions
	promPrefixQueries
	promPrefixHits
	promSpecDraft
	promSpecAccepted
	promPrefixRate // a hit-rate gauge, where an engine gives no counters; the last
)

// promGaugeOf is the sample column the metric name fills. Counters are
// looked up without the "_total" the text format adds (vLLM's counters
// gained it between releases: vllm:num_preemptions_total is the same family
// as vllm:num_preemptions).
func promGaugeOf(name string) promGauge {
	name = promUnsanitize(name)
	if g, ok := promFamilies[name]; ok {
		return g
	}
	if base, ok := strings.CutSuffix(name, "_total"); ok && promCounter(promFamilies[base]) {
		return promFamilies[base]
	}
	return promNone
}

// promCounter reports whether g is a cumulative counter.
func promCounter(g promGauge) bool { return g >= promPreemptions && g <= promSpecAccepted }

// promFamilies maps each engine's scheduler gauges onto the sample column
// they fill (schemas/formats/*.md): vLLM's, SGLang's (--enable-metrics,
// python/sglang/srt/metrics/collector.py) and llama.cpp's (llama-server
// --metrics).
var promFamilies = map[string]promGauge{
	"vllm:num_requests_running": promRunning,
	"vllm:num_requests_waiting": promWaiting,
	"vllm:kv_cache_usage_perc":  promKV,
	"vllm:gpu_cache_usage_perc": promGPUKV,

	"sglang:num_running_reqs": promRunning,
	"sglang:num_queue_reqs":   promWaiting,
	"sglang:token_usage":      promKV,

	"llamacpp:requests_processing":  promRunning,
	"llamacpp:requests_deferred":    promWaiting,
	"llamacpp:kv_cache_usage_ratio": promKV,

	// vLLM's engine counters (vllm/v1/metrics/loggers.py; V0's
	// vllm/engine/metrics.py), names without "_total": preemptions (V0 and
	// V1), prefix-cache queries and hits (V1: gpu_prefix_cache_* until 0.9.1,
	// prefix_cache_* since), speculative decoding's draft and accepted tokens.
	"vllm:num_preemptions":                 promPreemptions,
	"vllm:prefix_cache_queries":            promPrefixQueries,
	"vllm:prefix_cache_hits":               promPrefixHits,
	"vllm:gpu_prefix_cache_queries":        promPrefixQueries,
	"vllm:gpu_prefix_cache_hits":           promPrefixHits,
	"vllm:spec_decode_num_draft_tokens":    promSpecDraft,
	"vllm:spec_decode_num_accepted_tokens": promSpecAccepted,
	// Hit-rate gauges: V0's and SGLang's.
	"vllm:gpu_prefix_cache_hit_rate": promPrefixRate,
	"sglang:cache_hit_rate":          promPrefixRate,

	// TensorRT-LLM's trtllm-serve (tensorrt_llm/metrics/collector.py, from
	// its iteration stats; exported as trtllm_*).
	"trtllm:num_requests_running":    promRunning,
	"trtllm:num_requests_waiting":    promWaiting,
	"trtllm:kv_cache_utilization":    promKV,
	"trtllm:max_num_active_requests": promCap,
	"trtllm:kv_cache_hit_rate":       promPrefixRate,

	// NVIDIA Dynamo's HTTP frontend (lib/llm/src/http/service/metrics.rs).
	"dynamo_frontend_inflight_requests": promInFlightAll,
	"dynamo_frontend_queued_requests":   promWaiting,

	// NVIDIA NIM for LLMs' /v1/metrics (schemas/formats/nim.md): vLLM's
	// gauges without a prefix, and its cap.
	"num_requests_running": promRunning,
	"num_requests_waiting": promWaiting,
	"gpu_cache_usage_perc": promKV,
	"num_request_max":      promCap,
}

// promNeeds lists, for each sample column a report needs, the families
// that fill it: a scrape that yields samples but none of a column's
// families says so (notices), naming what it looked for, instead of leaving
// the column silently empty. Preemptions are needed of vLLM only, which
// exports them in every release.
var promNeeds = []struct {
	column string
	fills  []promGauge
	of     string // "" every engine; else only a scrape with this prefix's families
}{
	{"in_flight", []promGauge{promRunning, promInFlightAll}, ""},
	{"queue_depth", []promGauge{promWaiting}, ""},
	{"kv_cache_usage", []promGauge{promKV, promGPUKV}, ""},
	{"preemptions", []promGauge{promPreemptions}, "vllm:"},
}

// promUnsanitize restores the colon of an engine's metric name that an
// exporter sanitized ("vllm_num_requests_running").
func promUnsanitize(name string) string {
	for _, ns := range []string{"vllm", "sglang", "llamacpp", "trtllm"} {
		if len(name) > len(ns) && name[:len(ns)] == ns && name[len(ns)] == '_' {
			return ns + ":" + name[len(ns)+1:]
		}
	}
	return name
}

// notices implements noticer: the columns a report needs that no family of
// the scrape filled, with the families looked for.
func (r *promReader) notices() []string {
	j := &r.join
	if len(j.samples) == 0 {
		return nil
	}
	var out []string
	for _, n := range promNeeds {
		if n.of == "vllm:" && !j.vllm {
			continue
		}
		found := false
		var names []string
		for _, g := range n.fills {
			found = found || j.seen[g]
			for name, fg := range promFamilies {
				if fg == g {
					names = append(names, name)
				}
			}
		}
		if !found {
			slices.Sort(names)
			out = append(out, r.name+": no metric for "+n.column+" (looked for "+strings.Join(names, ", ")+"): it stays empty; a newer or older engine release may name it otherwise")
		}
	}
	return out
}

// promHasFamily reports whether s mentions one of the gauges read, by its
// name or its sanitized name ("trtllm_num_requests_running").
func promHasFamily(s string) bool {
	for name := range promFamilies {
		if strings.Contains(s, name) || strings.Contains(s, strings.Replace(name, ":", "_", 1)) {
			return true
		}
	}
	return false
}

func promReplica(labels map[string]string) string {
	outer := ""
	for _, k := range []string{"instance", "pod", "kubernetes_pod_name", "model_name"} {
		if v := labels[k]; v != "" {
			outer = v
			break
		}
	}
	engine := labels["engine"]
	if engine == "" && labels["dp_rank"] != "" {
		// SGLang's data-parallel schedulers, one series each.
		if outer == "" {
			return "dp" + labels["dp_rank"]
		}
		return outer + "/dp" + labels["dp_rank"]
	}
	return vllmEngineReplica(outer, engine)
}

// promKey identifies one joined sample.
type promKey struct {
	replica string
	ts      int64
}

// promJoin collects gauge values into samples.
type promJoin struct {
	samples map[promKey]*schemas.Sample
	gpuKV   map[promKey]bool    // kv came from gpu_cache_usage_perc
	all     map[promKey]float64 // promInFlightAll's value, queued included
	order   []promKey
	seen    [promPrefixRate + 1]bool // the columns some family filled
	vllm    bool                     // a vllm: family was read
}

func (j *promJoin) add(k promKey, g promGauge, v float64, known bool) {
	if j.samples == nil {
		j.samples, j.gpuKV, j.all = map[promKey]*schemas.Sample{}, map[promKey]bool{}, map[promKey]float64{}
	}
	j.seen[g] = true
	s := j.samples[k]
	if s == nil {
		s = &schemas.Sample{Source: SourcePrometheus, TS: k.ts}
		if k.replica != "" {
			rep := k.replica
			s.Replica = &rep
		}
		j.samples[k] = s
		j.order = append(j.order, k)
	}
	if !known {
		return
	}
	switch g {
	case promRunning:
		n := int32(v)
		s.InFlight = &n
	case promWaiting:
		n := int32(v)
		s.QueueDepth = &n
		if all, ok := j.all[k]; ok {
			j.inFlightAll(s, all)
		}
	case promInFlightAll:
		j.all[k] = v
		j.inFlightAll(s, v)
	case promCap:
		n := int32(v)
		s.Cap = &n
	case promKV:
		s.KVCacheUsage = &v
		j.gpuKV[k] = false
	case promGPUKV:
		if s.KVCacheUsage == nil || j.gpuKV[k] {
			s.KVCacheUsage = &v
			j.gpuKV[k] = true
		}
	case promPrefixRate:
		s.PrefixCacheHitRate = &v
	case promPreemptions, promPrefixQueries, promPrefixHits, promSpecDraft, promSpecAccepted:
		n := int64(v)
		dst := map[promGauge]**int64{promPreemptions: &s.Preemptions, promPrefixQueries: &s.PrefixCacheQueries,
			promPrefixHits: &s.PrefixCacheHits, promSpecDraft: &s.SpecDraftTokens, promSpecAccepted: &s.SpecAcceptedTokens}[g]
		if *dst != nil {
			// Several series of one family (per-engine, per-label) at one
			// instant of one replica add up.
			n += **dst
		}
		*dst = &n
	}
}

// inFlightAll sets s.InFlight from a count that includes the queued
// requests: all − queue_depth (never below 0), or all while the queue is
// unknown.
func (j *promJoin) inFlightAll(s *schemas.Sample, all float64) {
	n := int32(all)
	if s.QueueDepth != nil {
		n = max(0, n-*s.QueueDepth)
	}
	s.InFlight = &n
}

// promValue checks a gauge value: a count for running/waiting, a fraction for
// the cache. known is false for NaN.
func promValue(g promGauge, text string) (v float64, known bool, err error) {
	v, perr := strconv.ParseFloat(text, 64)
	switch {
	case perr != nil:
		return 0, false, errors.New("value " + strconv.Quote(text) + " is not a number")
	case math.IsNaN(v):
		return 0, false, nil
	case (g == promRunning || g == promWaiting || g == promCap || g == promInFlightAll) && (v < 0 || v != math.Trunc(v) || v > math.MaxInt32):
		return 0, false, errors.New("value " + strconv.Quote(text) + " is not a request count")
	case (g == promKV || g == promGPUKV || g == promPrefixRate) && (v < 0 || v > 1 || math.IsInf(v, 0)):
		return 0, false, errors.New("value " + strconv.Quote(text) + " is not a fraction in [0, 1]")
	case promCounter(g) && (v < 0 || v != math.Trunc(v) || v >= math.MaxInt64/2):
		return 0, false, errors.New("value " + strconv.Quote(text) + " is not a counter (a whole number ≥ 0)")
	}
	return v, true, nil
}

// nextText reads the next line of a text-format scrape into recs. A line
// that feeds a joined sample is held until a later line feeds the same
// sample (then it is a skip) or the input ends: the sample is written on
// the last line that feeds it, after every other record.
func (r *promReader) nextText() {
	if !r.lines.Next() {
		if r.err = r.lines.Err(); r.err != nil {
			return
		}
		r.ended = true
		keys := make([]promKey, 0, len(r.held))
		for k := range r.held {
			keys = append(keys, k)
		}
		slices.SortFunc(keys, func(x, y promKey) int { return cmpInt64(r.held[x], r.held[y]) })
		for _, k := range keys {
			r.recs = append(r.recs, Record{Kind: KindSample, Line: r.held[k], Sample: *r.join.samples[k]})
		}
		return
	}
	n, line := r.lines.Line(), r.lines.Bytes()
	t := bytes.TrimSpace(line)
	switch {
	case r.lines.Long():
		r.recs = append(r.recs, Record{Kind: KindReject, Line: n, Raw: line,
			Err: parseErrorAt(r.name, n, scan.Errorf(ErrTooLong, -1, "line is %d bytes, longer than the limit of %d bytes", r.lines.Len(), r.max))})
	case len(t) == 0:
		r.recs = append(r.recs, Record{Kind: KindSkip, Skip: SkipBlank, Line: n})
	case t[0] == '#':
		r.recs = append(r.recs, Record{Kind: KindSkip, Skip: SkipComment, Line: n})
	default:
		k, ok, err := r.textLine(string(line), &r.join)
		switch {
		case err != nil:
			r.recs = append(r.recs, Record{Kind: KindReject, Line: n, Raw: line, Err: parseErrorAt(r.name, n, err)})
		case !ok:
			r.recs = append(r.recs, Record{Kind: KindSkip, Skip: SkipUnusedMetric, Line: n})
		default:
			// Joined into a sample, which lands on the key's last line.
			if prev, held := r.held[k]; held {
				r.recs = append(r.recs, Record{Kind: KindSkip, Skip: SkipJoined, Line: prev})
			}
			r.held[k] = n
		}
	}
}

// textLine parses one sample line; ok reports that it fed a joined sample.
func (r *promReader) textLine(line string, join *promJoin) (promKey, bool, error) {
	name := line
	i := strings.IndexAny(line, "{ \t")
	if i < 0 {
		return promKey{}, false, scan.Errorf(ErrBadValue, -1, "sample line without a value")
	}
	name = line[:i]
	g := promGaugeOf(name)
	if g == promNone {
		return promKey{}, false, nil
	}
	join.vllm = join.vllm || strings.HasPrefix(promUnsanitize(name), "vllm:")
	labels := map[string]string{}
	rest := line[i:]
	if rest[0] == '{' {
		end, err := promLabels(rest, labels)
		if err != nil {
			return promKey{}, false, scan.Errorf(ErrBadValue, i+end, "%s: %v", name, err)
		}
		rest = rest[end:]
	}
	fields := strings.Fields(rest)
	if len(fields) < 1 || len(fields) > 2 {
		return promKey{}, false, scan.Errorf(ErrBadValue, -1, "%s: want \"value timestamp\" after the labels", name)
	}
	if len(fields) == 1 {
		return promKey{}, false, scan.Errorf(ErrMissingField, -1, "%s: sample without a timestamp (scrape with timestamps, or use query_range JSON)", name)
	}
	v, known, err := promValue(g, fields[0])
	if err != nil {
		return promKey{}, false, scan.Errorf(ErrBadValue, -1, "%s: %v", name, err)
	}
	ms, err := strconv.ParseInt(fields[1], 10, 64)
	if err != nil || ms < scan.MinMicros/1000 || ms > scan.MaxMicros/1000 {
		return promKey{}, false, scan.Errorf(ErrBadTimestamp, -1, "%s: invalid timestamp %q (want milliseconds since the epoch)", name, fields[1])
	}
	k := promKey{promReplica(labels), ms * 1000}
	join.add(k, g, v, known)
	return k, true, nil
}

// promLabels parses {k="v",...} at the start of s into labels and returns
// the length of the label set.
func promLabels(s string, labels map[string]string) (int, error) {
	i := 1
	for {
		for i < len(s) && (s[i] == ' ' || s[i] == ',') {
			i++
		}
		if i < len(s) && s[i] == '}' {
			return i + 1, nil
		}
		j := i
		for j < len(s) && s[j] != '=' && s[j] != '}' {
			j++
		}
		if j+1 >= len(s) || s[j] != '=' || s[j+1] != '"' {
			return i, errors.New("malformed label set")
		}
		key := strings.TrimSpace(s[i:j])
		var b strings.Builder
		k := j + 2
		for ; k < len(s) && s[k] != '"'; k++ {
			if s[k] == '\\' && k+1 < len(s) {
				k++
				switch s[k] {
				case 'n':
					b.WriteByte('\n')
				default:
					b.WriteByte(s[k])
				}
				continue
			}
			b.WriteByte(s[k])
		}
		if k >= len(s) {
			return j, errors.New("unterminated label value")
		}
		labels[key] = b.String()
		i = k + 1
	}
}

// promAPI is a Prometheus HTTP API answer.
type promAPI struct {
	Status string `json:"status"`
	Data   *struct {
		ResultType string `json:"resultType"`
		Result     []struct {
			Metric map[string]string    `json:"metric"`
			Values [][2]json.RawMessage `json:"values"`
			Value  *[2]json.RawMessage  `json:"value"`
		} `json:"result"`
	} `json:"data"`
}

// nextJSON reads the next query answer (of a file or JSON lines) into recs.
// The joined samples come after every answer is read.
func (r *promReader) nextJSON() {
	d, ok := r.docs.Next()
	switch {
	case !ok && r.docs.Err() != nil:
		r.err = r.docs.Err()
	case !ok:
		r.ended = true
		r.recs = r.jsonSamples(r.recs, &r.join, r.last)
	case d.Bad != nil:
		// Where the next answer would start is unknown: the input ends here.
		r.ended = true
		r.recs = append(r.recs, Record{Kind: KindReject, Line: d.Line, Raw: d.Raw, Err: parseErrorAt(r.name, d.Line, d.Bad)})
		r.recs = r.jsonSamples(r.recs, &r.join, r.last)
	default:
		r.recs = r.jsonDoc(d.Data, d.Line, r.recs, &r.join, r.last)
	}
}

// jsonSamples appends the joined samples, in time order, each on the line
// of the last document that fed it.
func (r *promReader) jsonSamples(recs []Record, join *promJoin, last map[promKey]int64) []Record {
	keys := slices.Clone(join.order)
	slices.SortFunc(keys, func(x, y promKey) int {
		if x.ts != y.ts {
			return cmpInt64(x.ts, y.ts)
		}
		return strings.Compare(x.replica, y.replica)
	})
	for _, k := range keys {
		recs = append(recs, Record{Kind: KindSample, Line: last[k], Sample: *join.samples[k]})
	}
	return recs
}

// jsonDoc reads one API answer into join; it appends its rejects, or a skip
// when the document feeds no sample.
func (r *promReader) jsonDoc(doc []byte, line int64, recs []Record, join *promJoin, last map[promKey]int64) []Record {
	reject := func(err error) []Record {
		return append(recs, Record{Kind: KindReject, Line: line, Raw: doc[:min(len(doc), scan.TooLongKeep)], Err: parseErrorAt(r.name, line, err)})
	}
	if scan.TopLevelKeys(doc)["resourceMetrics"] {
		return r.otlpDoc(doc, line, recs, join, last)
	}
	var a promAPI
	if err := json.Unmarshal(doc, &a); err != nil {
		return reject(scan.Errorf(ErrBadType, -1, "not a Prometheus API answer: %v", err))
	}
	if a.Data == nil {
		if a.Status == "error" {
			return append(recs, Record{Kind: KindSkip, Skip: SkipQueryError, Line: line}) // a failed query holds nothing
		}
		return reject(scan.Errorf(ErrMissingField, -1, "Prometheus API answer without data"))
	}
	var bad []Record
	fed, unused := false, false
	for _, res := range a.Data.Result {
		g := promGaugeOf(res.Metric["__name__"])
		if g == promNone {
			unused = true
			continue
		}
		r.join.vllm = r.join.vllm || strings.HasPrefix(promUnsanitize(res.Metric["__name__"]), "vllm:")
		points := res.Values
		if res.Value != nil {
			points = append(points, *res.Value)
		}
		rep := promReplica(res.Metric)
		for _, p := range points {
			ts := string(p[0])
			us, err := scan.ParseEpoch(p[0])
			if err != nil || !scan.IsNumber(p[0]) || strings.ContainsAny(ts, "eE") {
				bad = append(bad, Record{Kind: KindReject, Line: line, Err: parseErrorAt(r.name, line,
					scan.Errorf(ErrBadTimestamp, -1, "%s: invalid timestamp %s", res.Metric["__name__"], ts))})
				continue
			}
			if !strings.Contains(ts, ".") {
				us = mustSeconds(ts, us)
			}
			var text string
			if json.Unmarshal(p[1], &text) != nil {
				bad = append(bad, Record{Kind: KindReject, Line: line, Err: parseErrorAt(r.name, line,
					scan.Errorf(ErrBadType, -1, "%s at %s: value %s is not a string", res.Metric["__name__"], ts, p[1]))})
				continue
			}
			v, known, err := promValue(g, text)
			if err != nil {
				bad = append(bad, Record{Kind: KindReject, Line: line, Err: parseErrorAt(r.name, line,
					scan.Errorf(ErrBadValue, -1, "%s at %s: %v", res.Metric["__name__"], ts, err))})
				continue
			}
			k := promKey{rep, us}
			join.add(k, g, v, known)
			last[k] = line
			fed = true
		}
	}
	return promDocEnd(recs, bad, fed, unused, line)
}

// promDocEnd appends a JSON document's rejects (bad) to recs, or, when it
// fed no sample and has none, a skip saying why: its metrics were all
// others (unused), or it held no point.
func promDocEnd(recs, bad []Record, fed, unused bool, line int64) []Record {
	recs = append(recs, bad...)
	if !fed && len(bad) == 0 {
		why := SkipEmptyResult
		if unused {
			why = SkipUnusedMetric
		}
		recs = append(recs, Record{Kind: KindSkip, Skip: why, Line: line})
	}
	return recs
}

// mustSeconds reads an integer Prometheus timestamp: the API always writes
// seconds, whatever scan.ParseEpoch would guess from the magnitude.
func mustSeconds(s string, guess int64) int64 {
	v, err := strconv.ParseInt(s, 10, 64)
	if err != nil || v > scan.MaxMicros/1_000_000 || v < scan.MinMicros/1_000_000 {
		return guess
	}
	return v * 1_000_000
}

func cmpInt64(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// sniffPrometheus scores Prometheus data holding an engine's scheduler
// gauges (vLLM, SGLang, llama.cpp, TensorRT-LLM, Dynamo): 95 for an API
// answer, an OTLP/JSON metrics export or a text scrape with one of them, 40
// for other Prometheus data.
func sniffPrometheus(head []byte) int {
	s := string(head)
	t := strings.TrimSpace(s)
	has := promHasFamily(s)
	switch {
	case strings.HasPrefix(t, "{"):
		if strings.Contains(s, `"resultType"`) && strings.Contains(s, `"data"`) || scan.FirstObjectKeys(head)["resourceMetrics"] {
			if has {
				return 95
			}
			return 40
		}
	case strings.HasPrefix(t, "# HELP ") || strings.HasPrefix(t, "# TYPE ") || strings.HasPrefix(t, "vllm:") ||
		strings.HasPrefix(t, "sglang:") || strings.HasPrefix(t, "llamacpp:") || strings.HasPrefix(t, "trtllm_") ||
		strings.HasPrefix(t, "dynamo_"):
		if has {
			return 95
		}
		return 40
	}
	return 0
}
