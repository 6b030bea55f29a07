package scan

import (
	"encoding/json"
	"time"
)

// Value is a JSON value as a record decoder needs it: its class (0 when
// the key is absent) and, for a string its unescaped contents, for a number
// its text. Objects and arrays keep only their class.
type Value struct {
	Class byte
	Text  []byte
}

// Any returns v as ParseValue gives it (objects and arrays empty: only
// their kind is read from them), for the value helpers' error messages.
func (v Value) Any() any {
	switch v.Class {
	case String:
		return string(v.Text)
	case Number:
		return json.Number(v.Text)
	case True:
		return true
	case False:
		return false
	case Object:
		return map[string]any{}
	case Array:
		return []any{}
	}
	return nil
}

// ValueOf is the Value of a value of ParseValue.
func ValueOf(v any) Value {
	switch x := v.(type) {
	case string:
		return Value{String, []byte(x)}
	case json.Number:
		return Value{Number, []byte(x)}
	case bool:
		if x {
			return Value{Class: True}
		}
		return Value{Class: False}
	case map[string]any:
		return Value{Class: Object}
	case []any:
		return Value{Class: Array}
	case nil:
		return Value{Class: Null}
	}
	return Value{}
}

// ScanValue reads the value at s into v. An escaped string's contents
// are copied out of the scanner's scratch into *buf, where they stay until
// the caller empties it (once a line).
func ScanValue(s *JSON, buf *[]byte, v *Value) error {
	c := s.Class()
	*v = Value{Class: c}
	switch c {
	case String:
		start := s.Pos + 1
		b, err := s.ReadString()
		if err != nil {
			return err
		}
		if len(b) > 0 && (&b[0] != &s.Data[start]) {
			n := len(*buf)
			*buf = append(*buf, b...)
			b = (*buf)[n:len(*buf):len(*buf)]
		}
		v.Text = b
		return nil
	case Number:
		b, err := s.ReadNumber()
		v.Text = b
		return err
	}
	return s.SkipValue()
}

// Decoder reads litValues into a span's fields (decodeLiteLLM,
// sglangMeta). Each helper takes the common values the short way, the
// pointers from its arena, and hands anything else to the general helper
// (ValString, ValTime, ValInt, ValDuration), whose value and error it
// returns. zone is where naive timestamps are read (nil: UTC).
type Decoder struct {
	Arena Arena
	Zone  *time.Location
}

// IsUnknownText reports whether a string means unknown ("" or "-").
func IsUnknownText(b []byte) bool { return len(b) == 0 || len(b) == 1 && b[0] == '-' }

// Text returns a string value as a string of its own, nil when unknown.
func (r *Decoder) Text(fe *FirstErr, v Value, field string) *string {
	switch v.Class {
	case 0, Null:
		return nil
	case String, Number:
		if IsUnknownText(v.Text) {
			return nil
		}
		return r.Arena.Str(r.Arena.Text(v.Text))
	}
	return fe.Str(v.Any(), field)
}

func (r *Decoder) Time(fe *FirstErr, v Value, field string) *int64 {
	switch v.Class {
	case 0, Null:
		return nil
	case Number:
		if us, err := ParseEpoch(v.Text); err == nil {
			return r.Arena.Int64(us)
		}
	case String:
		if IsUnknownText(v.Text) {
			return nil
		}
		if us, err := parseTimestampZone(v.Text, r.Zone); err == nil {
			return r.Arena.Int64(us)
		}
	}
	return fe.Time(v.Any(), field, r.Zone)
}

func (r *Decoder) Integer(fe *FirstErr, v Value, field string, lo, hi int64) *int64 {
	switch v.Class {
	case 0, Null:
		return nil
	case Number:
		if n, k, ok := PlainInteger(v.Text); ok && k == len(v.Text) && lo <= n && n <= hi {
			return r.Arena.Int64(n)
		}
	}
	return fe.Integer(v.Any(), field, lo, hi)
}

// Duration reads a duration of the given unit as microseconds (ValDuration).
func (r *Decoder) Duration(fe *FirstErr, v Value, field string, scale int) *int64 {
	switch v.Class {
	case 0, Null:
		return nil
	case Number:
		if us, _, fits := ScaleDecimal(v.Text, scale); fits && 0 <= us && us <= MaxMicros-MinMicros {
			return r.Arena.Int64(us)
		}
	}
	return fe.Duration(v.Any(), field, scale)
}

// Add is AddMicros with the sum's pointer from the arena.
func (r *Decoder) Add(base, d *int64) *int64 {
	if base == nil || d == nil {
		return nil
	}
	return r.Arena.Int64(*base + *d)
}
