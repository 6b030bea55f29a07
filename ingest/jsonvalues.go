package ingest

import (
	"encoding/json"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// The values of a JSON record decoded by parseJSONValue, read by path with
// the gateway formats' rules: a missing key, null, "" and "-" are unknown
// (nil); a value of the wrong type is a *RecordError naming its path.

// obj is a decoded JSON object with typed accessors. Every accessor takes a
// dotted path for its error message; a missing key, a null and "" (or "-",
// Envoy's empty value) all mean unknown.
type obj map[string]any

// get follows keys through nested objects.
func (o obj) get(keys ...string) any {
	var v any = map[string]any(o)
	for _, k := range keys {
		m, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		v = m[k]
	}
	return v
}

// child returns the object at keys, or nil.
func (o obj) child(keys ...string) obj {
	m, _ := o.get(keys...).(map[string]any)
	return m
}

// isUnknown reports whether a value means unknown.
func isUnknown(v any) bool {
	switch x := v.(type) {
	case nil:
		return true
	case string:
		return x == "" || x == "-"
	}
	return false
}

// valString returns a string value, or nil when unknown.
func valString(v any, field string) (*string, error) {
	if isUnknown(v) {
		return nil, nil
	}
	switch x := v.(type) {
	case string:
		return &x, nil
	case json.Number:
		s := x.String()
		return &s, nil
	}
	return nil, recordErrorf(ErrBadType, -1, "%s: want a string, found %s", field, jsonKind(v))
}

// jsonKind names the JSON type of a decoded value.
func jsonKind(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case string:
		return "string"
	case json.Number:
		return "number"
	case bool:
		return "boolean"
	case map[string]any:
		return "object"
	case []any:
		return "array"
	}
	return "value"
}

// numberText returns the text of a number, or of a string holding one
// (Envoy and OTLP write numbers as strings).
func numberText(v any, field string) ([]byte, bool, error) {
	if isUnknown(v) {
		return nil, false, nil
	}
	switch x := v.(type) {
	case json.Number:
		return []byte(x), true, nil
	case string:
		b := []byte(strings.TrimSpace(x))
		if isJSONNumber(b) {
			return b, true, nil
		}
		return nil, false, recordErrorf(ErrBadType, -1, "%s: want a number, found string %q", field, x)
	}
	return nil, false, recordErrorf(ErrBadType, -1, "%s: want a number, found %s", field, jsonKind(v))
}

// valInt returns a whole number in [lo, hi], or nil when unknown.
func valInt(v any, field string, lo, hi int64) (*int64, error) {
	num, ok, err := numberText(v, field)
	if err != nil || !ok {
		return nil, err
	}
	n, exact, fits := scaleDecimal(num, 0)
	switch {
	case fits && !exact:
		return nil, recordErrorf(ErrBadValue, -1, "%s: %q is not a whole number", field, num)
	case !fits || n < lo || n > hi:
		if lo == 0 && (n < 0 || num[0] == '-') {
			return nil, recordErrorf(ErrBadValue, -1, "%s: %q is negative", field, num)
		}
		return nil, recordErrorf(ErrBadValue, -1, "%s: %q is out of range [%d, %d]", field, num, lo, hi)
	}
	return &n, nil
}

// valTokens reads a token count (≥ 0).
func valTokens(v any, field string) (*int64, error) { return valInt(v, field, 0, 1<<62) }

// valDuration reads a duration of the given unit (scale: 3 for ms, 6 for s,
// 0 for µs, -3 for ns) as microseconds, rounded half away from zero.
func valDuration(v any, field string, scale int) (*int64, error) {
	num, ok, err := numberText(v, field)
	if err != nil || !ok {
		return nil, err
	}
	us, _, fits := scaleDecimal(num, scale)
	if !fits || us > maxMicros-minMicros {
		return nil, recordErrorf(ErrBadValue, -1, "%s: %q is out of range", field, num)
	}
	if us < 0 {
		return nil, recordErrorf(ErrBadValue, -1, "%s: %q is negative", field, num)
	}
	return &us, nil
}

// valTime reads a timestamp: an epoch number (or its text), RFC 3339 with an
// offset, or a naive "YYYY-MM-DD[ T]HH:MM:SS[.f]" in zone (nil: UTC). A
// "+hh" offset (PostgreSQL's text output) is read as "+hh:00".
func valTime(v any, field string, zone *time.Location) (*int64, error) {
	if isUnknown(v) {
		return nil, nil
	}
	var us int64
	var err error
	var text string
	switch x := v.(type) {
	case json.Number:
		text = x.String()
		us, err = parseEpoch([]byte(x))
	case string:
		text = x
		us, err = parseTimestampZone([]byte(x), zone)
	default:
		return nil, recordErrorf(ErrBadType, -1, "%s: want a timestamp (string or number), found %s", field, jsonKind(v))
	}
	if err != nil {
		return nil, recordErrorf(ErrBadTimestamp, -1, "%s: invalid timestamp %q: %v", field, text, err)
	}
	return &us, nil
}

// addMicros returns a pointer to base + d, or nil when either is unknown.
func addMicros(base, d *int64) *int64 {
	if base == nil || d == nil {
		return nil
	}
	v := *base + *d
	return &v
}

// hostOf returns the host[:port] of a URL or of a bare host:port, or nil.
func hostOf(s *string) *string {
	if s == nil {
		return nil
	}
	raw := strings.TrimSpace(*s)
	if !strings.Contains(raw, "://") {
		if raw == "" {
			return nil
		}
		return &raw
	}
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return &raw
	}
	h := u.Host
	return &h
}

// firstErr keeps the first non-nil error.
type firstErr struct{ err error }

func (f *firstErr) keep(err error) {
	if f.err == nil && err != nil {
		f.err = err
	}
}

func (f *firstErr) str(v any, field string) *string {
	s, err := valString(v, field)
	f.keep(err)
	return s
}

func (f *firstErr) tokens(v any, field string) *int64 {
	n, err := valTokens(v, field)
	f.keep(err)
	return n
}

func (f *firstErr) integer(v any, field string, lo, hi int64) *int64 {
	n, err := valInt(v, field, lo, hi)
	f.keep(err)
	return n
}

func (f *firstErr) duration(v any, field string, scale int) *int64 {
	d, err := valDuration(v, field, scale)
	f.keep(err)
	return d
}

func (f *firstErr) time(v any, field string, zone *time.Location) *int64 {
	t, err := valTime(v, field, zone)
	f.keep(err)
	return t
}

// itoa formats an int64.
func itoa(n int64) string { return strconv.FormatInt(n, 10) }
