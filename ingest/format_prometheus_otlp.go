package ingest

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/tpsreport/tpsreport/ingest/internal/scan"
)

// The prometheus format also reads OTLP/JSON metrics
// (ExportMetricsServiceRequest: resourceMetrics[].scopeMetrics[].metrics[]),
// as the OpenTelemetry Collector's file exporter writes them (one export
// per line) when its Prometheus receiver scrapes the engines: the same
// families (promFamilies) under the same names, each data point a value of
// the metric at timeUnixNano (schemas/formats/otlp-metrics.md).
//
//   - gauge data points, and sum data points (cumulative: a counter, or an
//     up-down counter standing for a gauge); a delta sum is rejected, since
//     a counter's increase per window needs the running total;
//   - the value: asDouble or asInt (int64 as a JSON string, or a number);
//     a point flagged as holding no recorded value (flags bit 1) is skipped;
//   - the replica: the point's attributes as a scrape's labels (instance,
//     pod, engine, dp_rank…), else the resource's service.instance.id (the
//     receiver's instance) or k8s.pod.name;
//   - histograms, summaries and every other metric (the GenAI client
//     metrics gen_ai.client.*, an engine's latency histograms): skipped,
//     as aggregates.

// otlpMetricsRequest is an OTLP/JSON ExportMetricsServiceRequest, read as
// far as samples need.
type otlpMetricsRequest struct {
	ResourceMetrics []struct {
		Resource struct {
			Attributes []otlpKV `json:"attributes"`
		} `json:"resource"`
		ScopeMetrics []struct {
			Metrics []otlpMetric `json:"metrics"`
		} `json:"scopeMetrics"`
		// instrumentationLibraryMetrics: OTLP before 0.15.
		LibraryMetrics []struct {
			Metrics []otlpMetric `json:"metrics"`
		} `json:"instrumentationLibraryMetrics"`
	} `json:"resourceMetrics"`
}

type otlpKV struct {
	Key   string `json:"key"`
	Value struct {
		StringValue *string         `json:"stringValue"`
		IntValue    json.RawMessage `json:"intValue"`
	} `json:"value"`
}

type otlpPoints struct {
	DataPoints []otlpPoint `json:"dataPoints"`
	// AggregationTemporality of a sum: 1 delta, 2 cumulative.
	AggregationTemporality int `json:"aggregationTemporality"`
}

type otlpMetric struct {
	Name  string      `json:"name"`
	Gauge *otlpPoints `json:"gauge"`
	Sum   *otlpPoints `json:"sum"`
}

type otlpPoint struct {
	Attributes   []otlpKV        `json:"attributes"`
	TimeUnixNano json.RawMessage `json:"timeUnixNano"`
	AsDouble     json.RawMessage `json:"asDouble"`
	AsInt        json.RawMessage `json:"asInt"`
	Flags        int64           `json:"flags"`
}

// otlpNoRecordedValue is the data point flag of a point that holds no
// value (a target that went away).
const otlpNoRecordedValue = 1

// otlpLabels turns OTLP attributes into labels: string values, and
// integers as their digits.
func otlpLabels(kvs []otlpKV, into map[string]string) {
	for _, kv := range kvs {
		switch {
		case kv.Value.StringValue != nil:
			into[kv.Key] = *kv.Value.StringValue
		case len(kv.Value.IntValue) > 0:
			into[kv.Key] = strings.Trim(string(kv.Value.IntValue), `"`)
		}
	}
}

// otlpDoc reads one OTLP/JSON metrics export into join, as jsonDoc reads an
// API answer: it appends its rejects, or a skip when it feeds no sample.
func (r *promReader) otlpDoc(doc []byte, line int64, recs []Record, join *promJoin, last map[promKey]int64) []Record {
	rejectAt := func(err error) Record {
		return Record{Kind: KindReject, Line: line, Err: parseErrorAt(r.name, line, err)}
	}
	var req otlpMetricsRequest
	if err := json.Unmarshal(doc, &req); err != nil {
		why := err.Error()
		var ute *json.UnmarshalTypeError
		if errors.As(err, &ute) {
			why = fmt.Sprintf("%s is a JSON %s", ute.Field, ute.Value)
		}
		rec := rejectAt(scan.Errorf(ErrBadType, -1, "not an OTLP/JSON metrics export: %s", why))
		rec.Raw = doc[:min(len(doc), scan.TooLongKeep)]
		return append(recs, rec)
	}
	var bad []Record
	fed, unused := false, false
	for _, rm := range req.ResourceMetrics {
		res := map[string]string{}
		otlpLabels(rm.Resource.Attributes, res)
		var metrics []otlpMetric
		for _, sm := range rm.ScopeMetrics {
			metrics = append(metrics, sm.Metrics...)
		}
		for _, lm := range rm.LibraryMetrics {
			metrics = append(metrics, lm.Metrics...)
		}
		for _, m := range metrics {
			g := promGaugeOf(m.Name)
			pts := m.Gauge
			if pts == nil {
				pts = m.Sum
			}
			if g == promNone || pts == nil {
				unused = true // another metric, or a histogram or summary
				continue
			}
			if m.Gauge == nil && m.Sum.AggregationTemporality == 1 {
				bad = append(bad, rejectAt(scan.Errorf(ErrBadValue, -1,
					"%s: a delta sum (aggregationTemporality 1): want the cumulative value (export without the collector's cumulativetodelta processor)", m.Name)))
				continue
			}
			join.vllm = join.vllm || strings.HasPrefix(promUnsanitize(m.Name), "vllm:")
			for _, p := range pts.DataPoints {
				if p.Flags&otlpNoRecordedValue != 0 {
					continue
				}
				ns := bytes.Trim(p.TimeUnixNano, `"`)
				v, _, ok := scan.ScaleDecimal(ns, -3)
				if !ok || !scan.IsNumber(ns) || bytes.ContainsAny(ns, ".eE-") || v < scan.MinMicros || v > scan.MaxMicros || v == 0 {
					bad = append(bad, rejectAt(scan.Errorf(ErrBadTimestamp, -1, "%s: invalid timeUnixNano %s", m.Name, p.TimeUnixNano)))
					continue
				}
				text := string(bytes.Trim(p.AsDouble, `"`))
				if len(p.AsDouble) == 0 {
					text = string(bytes.Trim(p.AsInt, `"`))
				}
				if text == "" {
					bad = append(bad, rejectAt(scan.Errorf(ErrMissingField, -1, "%s: a data point with neither asDouble nor asInt", m.Name)))
					continue
				}
				val, known, err := promValue(g, text)
				if err != nil {
					bad = append(bad, rejectAt(scan.Errorf(ErrBadValue, -1, "%s: %v", m.Name, err)))
					continue
				}
				labels := map[string]string{}
				otlpLabels(p.Attributes, labels)
				if labels["instance"] == "" && labels["pod"] == "" {
					if id := res["service.instance.id"]; id != "" {
						labels["instance"] = id
					} else if pod := res["k8s.pod.name"]; pod != "" {
						labels["pod"] = pod
					}
				}
				k := promKey{promReplica(labels), v}
				join.add(k, g, val, known)
				last[k] = line
				fed = true
			}
		}
	}
	return promDocEnd(recs, bad, fed, unused, line)
}
