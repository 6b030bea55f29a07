package ingest

import (
	"encoding/json"
	"math"

	"github.com/tpsreport/tpsreport/ingest/internal/scan"
	"github.com/tpsreport/tpsreport/schemas"
)

// The samples format is the canonical JSONL input of scheduler samples
// (schemas/README.md, samples.parquet): one JSON object per line with the keys replica, ts,
// in_flight, queue_depth, cap and kv_cache_usage. ts is required and takes the
// timestamp forms of the spans format; the others may be absent or null.
// `tpsreport simulate` writes it (samples.jsonl). Sample volumes are small (one
// line per replica every few seconds), so it decodes with encoding/json.

// SourceSamples is the source column of samples read in the canonical format.
const SourceSamples = "samples"

type samplesReader struct {
	*lineReader
}

var _ Reader = (*samplesReader)(nil)

func newSamplesReader(in Input) Reader {
	r := &samplesReader{}
	r.lineReader = newLineReader(in, r.decodeLine)
	return r
}

// sampleLine is one canonical sample line; numbers stay raw so that their type
// is checked here and timestamps keep every digit.
type sampleLine struct {
	Replica      *string         `json:"replica"`
	TS           json.RawMessage `json:"ts"`
	InFlight     json.RawMessage `json:"in_flight"`
	QueueDepth   json.RawMessage `json:"queue_depth"`
	Cap          json.RawMessage `json:"cap"`
	KVCacheUsage json.RawMessage `json:"kv_cache_usage"`

	Preemptions        json.RawMessage `json:"preemptions"`
	PrefixCacheQueries json.RawMessage `json:"prefix_cache_queries"`
	PrefixCacheHits    json.RawMessage `json:"prefix_cache_hits"`
	SpecDraftTokens    json.RawMessage `json:"spec_draft_tokens"`
	SpecAcceptedTokens json.RawMessage `json:"spec_accepted_tokens"`
	PrefixCacheHitRate json.RawMessage `json:"prefix_cache_hit_rate"`
}

func (r *samplesReader) decodeLine(line []byte, rec *Record) error {
	var l sampleLine
	if err := json.Unmarshal(line, &l); err != nil {
		if _, ok := err.(*json.UnmarshalTypeError); ok {
			return scan.Errorf(ErrBadType, -1, "%v", err)
		}
		return scan.Errorf(ErrBadJSON, -1, "%v", err)
	}
	s := &rec.Sample
	*s = schemas.Sample{Source: SourceSamples}
	if l.Replica != nil && *l.Replica != "" {
		s.Replica = l.Replica
	}
	ts, err := sampleTime(l.TS)
	if err != nil {
		return err
	}
	s.TS = ts
	for _, f := range []struct {
		name string
		raw  json.RawMessage
		dst  **int32
	}{{"in_flight", l.InFlight, &s.InFlight}, {"queue_depth", l.QueueDepth, &s.QueueDepth}, {"cap", l.Cap, &s.Cap}} {
		v, err := sampleCount(f.name, f.raw)
		if err != nil {
			return err
		}
		*f.dst = v
	}
	for _, f := range []struct {
		name string
		raw  json.RawMessage
		dst  **float64
	}{{"kv_cache_usage", l.KVCacheUsage, &s.KVCacheUsage}, {"prefix_cache_hit_rate", l.PrefixCacheHitRate, &s.PrefixCacheHitRate}} {
		if len(f.raw) == 0 || string(f.raw) == "null" {
			continue
		}
		var u float64
		if err := json.Unmarshal(f.raw, &u); err != nil {
			return scan.Errorf(ErrBadType, -1, "%s: want a number, got %s", f.name, f.raw)
		}
		if u < 0 || u > 1 || math.IsNaN(u) {
			return scan.Errorf(ErrBadValue, -1, "%s %v: want 0..1", f.name, u)
		}
		*f.dst = &u
	}
	for _, f := range []struct {
		name string
		raw  json.RawMessage
		dst  **int64
	}{{"preemptions", l.Preemptions, &s.Preemptions}, {"prefix_cache_queries", l.PrefixCacheQueries, &s.PrefixCacheQueries},
		{"prefix_cache_hits", l.PrefixCacheHits, &s.PrefixCacheHits}, {"spec_draft_tokens", l.SpecDraftTokens, &s.SpecDraftTokens},
		{"spec_accepted_tokens", l.SpecAcceptedTokens, &s.SpecAcceptedTokens}} {
		if len(f.raw) == 0 || string(f.raw) == "null" {
			continue
		}
		var n int64
		if err := json.Unmarshal(f.raw, &n); err != nil {
			return scan.Errorf(ErrBadType, -1, "%s: want a whole number, got %s", f.name, f.raw)
		}
		if n < 0 {
			return scan.Errorf(ErrBadValue, -1, "%s %d: a counter is never negative", f.name, n)
		}
		*f.dst = &n
	}
	rec.Kind = KindSample
	return nil
}

func sampleTime(raw json.RawMessage) (int64, error) { return jsonTime("ts", raw) }

// jsonTime reads the required timestamp name of a samples line, in the
// forms of the spans format.
func jsonTime(name string, raw json.RawMessage) (int64, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return 0, scan.Errorf(ErrMissingField, -1, "missing %s", name)
	}
	if raw[0] == '"' {
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return 0, scan.Errorf(ErrBadJSON, -1, "%s: %v", name, err)
		}
		v, err := scan.ParseTimestamp([]byte(s))
		if err != nil {
			return 0, scan.Errorf(ErrBadTimestamp, -1, "%s %q: %v", name, s, err)
		}
		return v, nil
	}
	if !scan.IsNumber(raw) {
		return 0, scan.Errorf(ErrBadType, -1, "%s: want a string or a number, got %s", name, raw)
	}
	v, err := scan.ParseEpoch(raw)
	if err != nil {
		return 0, scan.Errorf(ErrBadTimestamp, -1, "%s %s: %v", name, raw, err)
	}
	return v, nil
}

func sampleCount(name string, raw json.RawMessage) (*int32, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	var v int64
	if err := json.Unmarshal(raw, &v); err != nil {
		return nil, scan.Errorf(ErrBadType, -1, "%s: want a whole number, got %s", name, raw)
	}
	if v < 0 || v > math.MaxInt32 {
		return nil, scan.Errorf(ErrBadValue, -1, "%s %d: out of range", name, v)
	}
	c := int32(v)
	return &c, nil
}

// sniffSamples: 100 when the first non-blank line is an object with ts and
// in_flight or queue_depth at the top level and no span_id.
func sniffSamples(head []byte) int {
	if keys := scan.TopLevelKeys(scan.FirstLine(head)); keys["ts"] && (keys["in_flight"] || keys["queue_depth"]) && !keys["span_id"] {
		return 100
	}
	return 0
}
