package ingest

import (
	"encoding/json"
	"time"
)

// litValue is a JSON value as a record decoder needs it: its class (0 when
// the key is absent) and, for a string its unescaped contents, for a number
// its text. Objects and arrays keep only their class.
type litValue struct {
	class byte
	text  []byte
}

// any returns v as parseJSONValue gives it (objects and arrays empty: only
// their kind is read from them), for the value helpers' error messages.
func (v litValue) any() any {
	switch v.class {
	case jsonString:
		return string(v.text)
	case jsonNumber:
		return json.Number(v.text)
	case jsonTrue:
		return true
	case jsonFalse:
		return false
	case jsonObject:
		return map[string]any{}
	case jsonArray:
		return []any{}
	}
	return nil
}

// litValueOf is the litValue of a value of parseJSONValue.
func litValueOf(v any) litValue {
	switch x := v.(type) {
	case string:
		return litValue{jsonString, []byte(x)}
	case json.Number:
		return litValue{jsonNumber, []byte(x)}
	case bool:
		if x {
			return litValue{class: jsonTrue}
		}
		return litValue{class: jsonFalse}
	case map[string]any:
		return litValue{class: jsonObject}
	case []any:
		return litValue{class: jsonArray}
	case nil:
		return litValue{class: jsonNull}
	}
	return litValue{}
}

// scanLitValue reads the value at s into v. An escaped string's contents
// are copied out of the scanner's scratch into *buf, where they stay until
// the caller empties it (once a line).
func scanLitValue(s *jsonScanner, buf *[]byte, v *litValue) error {
	c := s.class()
	*v = litValue{class: c}
	switch c {
	case jsonString:
		start := s.pos + 1
		b, err := s.readString()
		if err != nil {
			return err
		}
		if len(b) > 0 && (&b[0] != &s.data[start]) {
			n := len(*buf)
			*buf = append(*buf, b...)
			b = (*buf)[n:len(*buf):len(*buf)]
		}
		v.text = b
		return nil
	case jsonNumber:
		b, err := s.readNumber()
		v.text = b
		return err
	}
	return s.skipValue()
}

// litDecoder reads litValues into a span's fields (decodeLiteLLM,
// sglangMeta). Each helper takes the common values the short way, the
// pointers from its arena, and hands anything else to the general helper
// (valString, valTime, valInt, valDuration), whose value and error it
// returns. zone is where naive timestamps are read (nil: UTC).
type litDecoder struct {
	arena arena
	zone  *time.Location
}

// isUnknownText reports whether a string means unknown ("" or "-").
func isUnknownText(b []byte) bool { return len(b) == 0 || len(b) == 1 && b[0] == '-' }

// text returns a string value as a string of its own, nil when unknown.
func (r *litDecoder) text(fe *firstErr, v litValue, field string) *string {
	switch v.class {
	case 0, jsonNull:
		return nil
	case jsonString, jsonNumber:
		if isUnknownText(v.text) {
			return nil
		}
		return r.arena.string(r.arena.text(v.text))
	}
	return fe.str(v.any(), field)
}

func (r *litDecoder) time(fe *firstErr, v litValue, field string) *int64 {
	switch v.class {
	case 0, jsonNull:
		return nil
	case jsonNumber:
		if us, err := parseEpoch(v.text); err == nil {
			return r.arena.int64(us)
		}
	case jsonString:
		if isUnknownText(v.text) {
			return nil
		}
		if us, err := parseTimestampZone(v.text, r.zone); err == nil {
			return r.arena.int64(us)
		}
	}
	return fe.time(v.any(), field, r.zone)
}

func (r *litDecoder) integer(fe *firstErr, v litValue, field string, lo, hi int64) *int64 {
	switch v.class {
	case 0, jsonNull:
		return nil
	case jsonNumber:
		if n, k, ok := plainInteger(v.text); ok && k == len(v.text) && lo <= n && n <= hi {
			return r.arena.int64(n)
		}
	}
	return fe.integer(v.any(), field, lo, hi)
}

// duration reads a duration of the given unit as microseconds (valDuration).
func (r *litDecoder) duration(fe *firstErr, v litValue, field string, scale int) *int64 {
	switch v.class {
	case 0, jsonNull:
		return nil
	case jsonNumber:
		if us, _, fits := scaleDecimal(v.text, scale); fits && 0 <= us && us <= maxMicros-minMicros {
			return r.arena.int64(us)
		}
	}
	return fe.duration(v.any(), field, scale)
}

// add is addMicros with the sum's pointer from the arena.
func (r *litDecoder) add(base, d *int64) *int64 {
	if base == nil || d == nil {
		return nil
	}
	return r.arena.int64(*base + *d)
}
