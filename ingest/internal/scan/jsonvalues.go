package scan

import (
	"encoding/json"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// The values of a JSON record decoded by ParseValue, read by path with
// the gateway formats' rules: a missing key, null, "" and "-" are unknown
// (nil); a value of the wrong type is a *RecordError naming its path.

// Obj is a decoded JSON object with typed accessors. Every accessor takes a
// dotted path for its error message; a missing key, a null and "" (or "-",
// Envoy's empty value) all mean unknown.
type Obj map[string]any

// Get follows keys through nested objects.
func (o Obj) Get(keys ...string) any {
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

// Child returns the object at keys, or nil.
func (o Obj) Child(keys ...string) Obj {
	m, _ := o.Get(keys...).(map[string]any)
	return m
}

// IsUnknown reports whether a value means unknown.
func IsUnknown(v any) bool {
	switch x := v.(type) {
	case nil:
		return true
	case string:
		return x == "" || x == "-"
	}
	return false
}

// ValString returns a string value, or nil when unknown.
func ValString(v any, field string) (*string, error) {
	if IsUnknown(v) {
		return nil, nil
	}
	switch x := v.(type) {
	case string:
		return &x, nil
	case json.Number:
		s := x.String()
		return &s, nil
	}
	return nil, Errorf(ErrBadType, -1, "%s: want a string, found %s", field, KindName(v))
}

// KindName names the JSON type of a decoded value.
func KindName(v any) string {
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

// NumberText returns the text of a number, or of a string holding one
// (Envoy and OTLP write numbers as strings).
func NumberText(v any, field string) ([]byte, bool, error) {
	if IsUnknown(v) {
		return nil, false, nil
	}
	switch x := v.(type) {
	case json.Number:
		return []byte(x), true, nil
	case string:
		b := []byte(strings.TrimSpace(x))
		if IsNumber(b) {
			return b, true, nil
		}
		return nil, false, Errorf(ErrBadType, -1, "%s: want a number, found string %q", field, x)
	}
	return nil, false, Errorf(ErrBadType, -1, "%s: want a number, found %s", field, KindName(v))
}

// ValInt returns a whole number in [lo, hi], or nil when unknown.
func ValInt(v any, field string, lo, hi int64) (*int64, error) {
	num, ok, err := NumberText(v, field)
	if err != nil || !ok {
		return nil, err
	}
	n, exact, fits := ScaleDecimal(num, 0)
	switch {
	case fits && !exact:
		return nil, Errorf(ErrBadValue, -1, "%s: %q is not a whole number", field, num)
	case !fits || n < lo || n > hi:
		if lo == 0 && (n < 0 || num[0] == '-') {
			return nil, Errorf(ErrBadValue, -1, "%s: %q is negative", field, num)
		}
		return nil, Errorf(ErrBadValue, -1, "%s: %q is out of range [%d, %d]", field, num, lo, hi)
	}
	return &n, nil
}

// ValTokens reads a token count (≥ 0).
func ValTokens(v any, field string) (*int64, error) { return ValInt(v, field, 0, 1<<62) }

// ValDuration reads a duration of the given unit (scale: 3 for ms, 6 for s,
// 0 for µs, -3 for ns) as microseconds, rounded half away from zero.
func ValDuration(v any, field string, scale int) (*int64, error) {
	num, ok, err := NumberText(v, field)
	if err != nil || !ok {
		return nil, err
	}
	us, _, fits := ScaleDecimal(num, scale)
	if !fits || us > MaxMicros-MinMicros {
		return nil, Errorf(ErrBadValue, -1, "%s: %q is out of range", field, num)
	}
	if us < 0 {
		return nil, Errorf(ErrBadValue, -1, "%s: %q is negative", field, num)
	}
	return &us, nil
}

// ValTime reads a timestamp: an epoch number (or its text), RFC 3339 with an
// offset, or a naive "YYYY-MM-DD[ T]HH:MM:SS[.f]" in zone (nil: UTC). A
// "+hh" offset (PostgreSQL's text output) is read as "+hh:00".
func ValTime(v any, field string, zone *time.Location) (*int64, error) {
	if IsUnknown(v) {
		return nil, nil
	}
	var us int64
	var err error
	var text string
	switch x := v.(type) {
	case json.Number:
		text = x.String()
		us, err = ParseEpoch([]byte(x))
	case string:
		text = x
		us, err = parseTimestampZone([]byte(x), zone)
	default:
		return nil, Errorf(ErrBadType, -1, "%s: want a timestamp (string or number), found %s", field, KindName(v))
	}
	if err != nil {
		return nil, Errorf(ErrBadTimestamp, -1, "%s: invalid timestamp %q: %v", field, text, err)
	}
	return &us, nil
}

// AddMicros returns a pointer to base + d, or nil when either is unknown.
func AddMicros(base, d *int64) *int64 {
	if base == nil || d == nil {
		return nil
	}
	v := *base + *d
	return &v
}

// HostOf returns the host[:port] of a URL or of a bare host:port, or nil.
func HostOf(s *string) *string {
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

// FirstErr keeps the first non-nil error.
type FirstErr struct{ Err error }

func (f *FirstErr) Keep(err error) {
	if f.Err == nil && err != nil {
		f.Err = err
	}
}

func (f *FirstErr) Str(v any, field string) *string {
	s, err := ValString(v, field)
	f.Keep(err)
	return s
}

func (f *FirstErr) Tokens(v any, field string) *int64 {
	n, err := ValTokens(v, field)
	f.Keep(err)
	return n
}

func (f *FirstErr) Integer(v any, field string, lo, hi int64) *int64 {
	n, err := ValInt(v, field, lo, hi)
	f.Keep(err)
	return n
}

func (f *FirstErr) Duration(v any, field string, scale int) *int64 {
	d, err := ValDuration(v, field, scale)
	f.Keep(err)
	return d
}

func (f *FirstErr) Time(v any, field string, zone *time.Location) *int64 {
	t, err := ValTime(v, field, zone)
	f.Keep(err)
	return t
}

// Itoa formats an int64.
func Itoa(n int64) string { return strconv.FormatInt(n, 10) }
