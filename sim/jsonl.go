package sim

import (
	"fmt"
	"io"
	"strconv"
	"unicode/utf8"

	"github.com/tpsreport/tpsreport/schemas"
)

// Writer writes a run in one file format. Each format is one implementation
// (the canonical JSONL here; vLLM OTLP JSON, vLLM server logs and LiteLLM
// payloads beside it), fed by Run through Generate. A format without a place
// for engine stats ignores WriteSample.
type Writer interface {
	WriteSpan(schemas.Span) error
	WriteSample(schemas.Sample) error
	// Flush writes out what is buffered; call it once the run is over.
	Flush() error
}

// Generate runs sc with seed into w and flushes it.
func Generate(sc Scenario, seed uint64, w Writer) (Truth, error) {
	tr, err := Run(sc, seed, w.WriteSpan, WithSamples(w.WriteSample))
	if err != nil {
		return Truth{}, err
	}
	if err := w.Flush(); err != nil {
		return Truth{}, err
	}
	return tr, nil
}

// WriteJSONL runs sc with seed and writes its spans to spans and its samples to
// samples (nil: no samples) as canonical JSONL.
func WriteJSONL(spans, samples io.Writer, sc Scenario, seed uint64) (Truth, error) {
	return Generate(sc, seed, NewJSONL(spans, samples))
}

// JSONL writes the canonical JSONL input of ingest: one span per line of the
// spans file (the column names of schemas/README.md in that order, NULL fields omitted,
// timestamps RFC 3339 UTC with six fraction digits) and one sample per line of
// the samples file (schemas.Sample json names, ts likewise). Lines are built by
// appending, without reflection, into a buffer written out in large blocks.
type JSONL struct {
	spans, samples lineWriter
}

var _ Writer = (*JSONL)(nil)

// NewJSONL returns a JSONL writer of spans to spans and samples to samples;
// a nil samples drops them.
func NewJSONL(spans, samples io.Writer) *JSONL {
	return &JSONL{spans: lineWriter{w: spans}, samples: lineWriter{w: samples}}
}

// WriteSpan appends one span line.
func (j *JSONL) WriteSpan(s schemas.Span) error {
	if j.spans.err != nil {
		return j.spans.err
	}
	j.spans.buf = append(AppendSpanJSON(j.spans.buf, &s), '\n')
	return j.spans.maybeFlush()
}

// WriteSample appends one sample line.
func (j *JSONL) WriteSample(s schemas.Sample) error {
	if j.samples.w == nil {
		return nil
	}
	if j.samples.err != nil {
		return j.samples.err
	}
	j.samples.buf = append(AppendSampleJSON(j.samples.buf, &s), '\n')
	return j.samples.maybeFlush()
}

// Flush writes out both buffers.
func (j *JSONL) Flush() error {
	err := j.spans.flush()
	if j.samples.w != nil {
		if err2 := j.samples.flush(); err == nil {
			err = err2
		}
	}
	return err
}

// lineWriter buffers lines for one file.
type lineWriter struct {
	w   io.Writer
	buf []byte
	err error
}

const flushAt = 256 << 10

func (l *lineWriter) maybeFlush() error {
	if len(l.buf) < flushAt {
		return nil
	}
	return l.flush()
}

func (l *lineWriter) flush() error {
	if l.err != nil {
		return l.err
	}
	if len(l.buf) > 0 {
		if _, err := l.w.Write(l.buf); err != nil {
			l.err = fmt.Errorf("write jsonl: %w", err)
			return l.err
		}
		l.buf = l.buf[:0]
	}
	return nil
}

// AppendSpanJSON appends s as one JSON object (no newline) in the canonical
// form: the columns of schemas/README.md in order, NULL (nil) fields omitted, timestamps as
// RFC 3339 UTC strings with six fraction digits.
func AppendSpanJSON(b []byte, s *schemas.Span) []byte {
	b = append(b, `{"run_id":`...)
	b = appendString(b, s.RunID)
	b = append(b, `,"source":`...)
	b = appendString(b, s.Source)
	b = append(b, `,"span_id":`...)
	b = appendString(b, s.SpanID)
	b = append(b, `,"request_id":`...)
	b = appendString(b, s.RequestID)
	if s.Attempt != nil {
		b = append(b, `,"attempt":`...)
		b = strconv.AppendInt(b, int64(*s.Attempt), 10)
	}
	b = appendOptString(b, `,"retry_cause":`, s.RetryCause)
	b = appendOptString(b, `,"model":`, s.Model)
	b = appendOptString(b, `,"replica":`, s.Replica)
	b = appendOptTime(b, `,"queued_at":`, s.QueuedAt)
	b = appendOptTime(b, `,"engine_arrived_at":`, s.EngineArrivedAt)
	b = appendOptTime(b, `,"admitted_at":`, s.AdmittedAt)
	b = appendOptTime(b, `,"first_token_at":`, s.FirstTokenAt)
	b = appendOptTime(b, `,"last_token_at":`, s.LastTokenAt)
	b = appendOptTime(b, `,"released_at":`, s.ReleasedAt)
	b = appendOptInt(b, `,"input_tokens":`, s.InputTokens)
	b = appendOptInt(b, `,"output_tokens":`, s.OutputTokens)
	b = appendOptInt(b, `,"cached_tokens":`, s.CachedTokens)
	b = append(b, `,"status":`...)
	b = appendString(b, s.Status)
	b = appendOptString(b, `,"error":`, s.Error)
	if s.HTTPStatus != nil {
		b = append(b, `,"http_status":`...)
		b = strconv.AppendInt(b, int64(*s.HTTPStatus), 10)
	}
	return append(b, '}')
}

// AppendSampleJSON appends s as one JSON object (no newline) with the
// schemas.Sample json names, NULL fields omitted, ts as in AppendSpanJSON.
func AppendSampleJSON(b []byte, s *schemas.Sample) []byte {
	b = append(b, `{"run_id":`...)
	b = appendString(b, s.RunID)
	b = append(b, `,"source":`...)
	b = appendString(b, s.Source)
	b = appendOptString(b, `,"replica":`, s.Replica)
	b = append(b, `,"ts":"`...)
	b = AppendTimestamp(b, s.TS)
	b = append(b, '"')
	if s.InFlight != nil {
		b = append(b, `,"in_flight":`...)
		b = strconv.AppendInt(b, int64(*s.InFlight), 10)
	}
	if s.QueueDepth != nil {
		b = append(b, `,"queue_depth":`...)
		b = strconv.AppendInt(b, int64(*s.QueueDepth), 10)
	}
	if s.Cap != nil {
		b = append(b, `,"cap":`...)
		b = strconv.AppendInt(b, int64(*s.Cap), 10)
	}
	if s.KVCacheUsage != nil {
		b = append(b, `,"kv_cache_usage":`...)
		b = strconv.AppendFloat(b, *s.KVCacheUsage, 'g', -1, 64)
	}
	return append(b, '}')
}

func appendOptString(b []byte, key string, v *string) []byte {
	if v == nil {
		return b
	}
	return appendString(append(b, key...), *v)
}

func appendOptInt(b []byte, key string, v *int64) []byte {
	if v == nil {
		return b
	}
	return strconv.AppendInt(append(b, key...), *v, 10)
}

func appendOptTime(b []byte, key string, v *int64) []byte {
	if v == nil {
		return b
	}
	b = append(append(b, key...), '"')
	return append(AppendTimestamp(b, *v), '"')
}

// AppendTimestamp appends the instant us (µs since the Unix epoch) as RFC 3339
// in UTC with six fraction digits: 2026-11-20T10:00:00.123456Z. Years outside
// 0000–9999, which RFC 3339 cannot write, are written as Go's time package does.
func AppendTimestamp(b []byte, us int64) []byte {
	secs := floorDiv(us, 1e6)
	frac := us - secs*1e6
	days := floorDiv(secs, 86400)
	sod := secs - days*86400
	// Civil date from days since 1970-01-01 (H. Hinnant's algorithm).
	z := days + 719468
	era := floorDiv(z, 146097)
	doe := z - era*146097
	yoe := (doe - doe/1460 + doe/36524 - doe/146096) / 365
	y := yoe + era*400
	doy := doe - (365*yoe + yoe/4 - yoe/100)
	mp := (5*doy + 2) / 153
	d := doy - (153*mp+2)/5 + 1
	m := mp + 3
	if m > 12 {
		m -= 12
	}
	if m <= 2 {
		y++
	}
	if y < 0 || y > 9999 {
		return schemas.Time(us).AppendFormat(b, "2006-01-02T15:04:05.000000Z07:00")
	}
	b = append4(b, y)
	b = append(b, '-')
	b = append2(b, m)
	b = append(b, '-')
	b = append2(b, d)
	b = append(b, 'T')
	b = append2(b, sod/3600)
	b = append(b, ':')
	b = append2(b, sod/60%60)
	b = append(b, ':')
	b = append2(b, sod%60)
	b = append(b, '.')
	b = append2(b, frac/10000)
	b = append2(b, frac/100%100)
	b = append2(b, frac%100)
	return append(b, 'Z')
}

func append2(b []byte, v int64) []byte { return append(b, byte('0'+v/10), byte('0'+v%10)) }

func append4(b []byte, v int64) []byte { return append2(append2(b, v/100), v%100) }

const hexDigits = "0123456789abcdef"

// appendString appends s as a JSON string. Like encoding/json it escapes
// quotes, backslashes, control characters, U+2028 and U+2029, and replaces
// invalid UTF-8 with U+FFFD; it leaves <, > and & as they are.
func appendString(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, "\ufffd"...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hexDigits[r&0xf])
			i += size
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}
