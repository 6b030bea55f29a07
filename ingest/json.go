package ingest

import (
	"encoding/binary"
	"encoding/json"
	"math/bits"
	"reflect"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// maxJSONDepth is the deepest nesting of objects and arrays accepted, as in
// encoding/json.
const maxJSONDepth = 10000

// jsonScanner is a small validating JSON tokenizer over one record. Record
// decoders drive it field by field (nextKey, then one of the read or skip
// methods for the value) so that a record is decoded in one pass, without
// reflection and without building a map. It accepts exactly what
// encoding/json.Valid accepts; the fuzz tests hold it to that.
//
// Errors are *RecordError of kind ErrBadJSON at the byte offset where the
// input went wrong.
type jsonScanner struct {
	data    []byte
	pos     int
	depth   int
	scratch []byte // unescaped strings
}

// JSON value classes, from the first byte of a value.
const (
	jsonEnd    = 0
	jsonString = '"'
	jsonNumber = '0'
	jsonTrue   = 't'
	jsonFalse  = 'f'
	jsonNull   = 'n'
	jsonObject = '{'
	jsonArray  = '['
)

// typeErrorText says what an encoding/json type error found, in the terms
// of the input and not of Go: "itls: want an array, found a string";
// "want an object, found an array" for the document itself.
func typeErrorText(te *json.UnmarshalTypeError) string {
	want := "a number"
	switch te.Type.Kind() {
	case reflect.String:
		want = "a string"
	case reflect.Bool:
		want = "a boolean"
	case reflect.Slice, reflect.Array:
		want = "an array"
	case reflect.Struct, reflect.Map:
		want = "an object"
	}
	found := te.Value
	switch {
	case strings.HasPrefix(found, "number"):
		found = "a number"
	case found == "array", found == "object":
		found = "an " + found
	case found != "":
		found = "a " + found
	}
	if te.Field == "" {
		return "want " + want + ", found " + found
	}
	return te.Field + ": want " + want + ", found " + found
}

// jsonTypeName names a value class for bad_type reasons.
func jsonTypeName(class byte) string {
	switch class {
	case jsonString:
		return "string"
	case jsonNumber:
		return "number"
	case jsonTrue, jsonFalse:
		return "boolean"
	case jsonNull:
		return "null"
	case jsonObject:
		return "object"
	case jsonArray:
		return "array"
	}
	return "nothing"
}

func (s *jsonScanner) reset(data []byte) {
	s.data, s.pos, s.depth = data, 0, 0
}

// ws skips JSON whitespace. It is called before and after every key and
// value, mostly at a byte above ' ', which the first test passes.
func (s *jsonScanner) ws() {
	for s.pos < len(s.data) {
		if c := s.data[s.pos]; c > ' ' || c != ' ' && c != '\t' && c != '\r' && c != '\n' {
			return
		}
		s.pos++
	}
}

// class returns the class of the value at pos (after whitespace), or jsonEnd.
func (s *jsonScanner) class() byte {
	s.ws()
	if s.pos >= len(s.data) {
		return jsonEnd
	}
	switch c := s.data[s.pos]; c {
	case '"', 't', 'f', 'n', '{', '[':
		return c
	case '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
		return jsonNumber
	default:
		return c
	}
}

func (s *jsonScanner) syntaxError(what string) *RecordError {
	if s.pos >= len(s.data) {
		return recordErrorf(ErrBadJSON, s.pos, "invalid JSON: unexpected end of record %s", what)
	}
	return recordErrorf(ErrBadJSON, s.pos, "invalid JSON: invalid character %s %s", quoteChar(s.data[s.pos]), what)
}

// quoteChar quotes a byte the way encoding/json does in its syntax errors.
func quoteChar(c byte) string {
	switch {
	case c == '\'':
		return `'\''`
	case c == '"':
		return `'"'`
	case c < 0x20 || c >= 0x7f:
		const hex = "0123456789abcdef"
		return `'\x` + string(hex[c>>4]) + string(hex[c&15]) + `'`
	}
	return "'" + string(rune(c)) + "'"
}

// beginObject consumes the '{' that starts an object.
func (s *jsonScanner) beginObject() error {
	s.ws()
	if s.pos >= len(s.data) || s.data[s.pos] != '{' {
		return s.syntaxError("looking for beginning of object")
	}
	s.pos++
	s.depth++
	if s.depth > maxJSONDepth {
		return recordErrorf(ErrBadJSON, s.pos-1, "invalid JSON: exceeded max depth")
	}
	return nil
}

// nextKey reads the next key of the object being read and the ':' after it,
// leaving pos at the value. It returns ok=false after the closing '}'. first
// must be true for the first call on an object. The key is valid until the
// next string is read.
func (s *jsonScanner) nextKey(first bool) (key []byte, ok bool, err error) {
	if ok, err = s.keyStart(first); !ok || err != nil {
		return nil, ok, err
	}
	if key, err = s.readString(); err != nil {
		return nil, false, err
	}
	if err = s.keyEnd(); err != nil {
		return nil, false, err
	}
	s.ws()
	return key, true, nil
}

// keyStart is nextKey up to the key: it leaves pos at the key's opening
// quote, or returns ok=false after the closing '}'.
func (s *jsonScanner) keyStart(first bool) (ok bool, err error) {
	s.ws()
	if s.pos < len(s.data) && s.data[s.pos] == '}' {
		s.pos++
		s.depth--
		return false, nil
	}
	if !first {
		if s.pos >= len(s.data) || s.data[s.pos] != ',' {
			return false, s.syntaxError("after object key:value pair")
		}
		s.pos++
		s.ws()
	}
	if s.pos >= len(s.data) || s.data[s.pos] != '"' {
		return false, s.syntaxError("looking for beginning of object key string")
	}
	return true, nil
}

// keyEnd is nextKey after the key: the space before the ':' and the ':'.
func (s *jsonScanner) keyEnd() error {
	s.ws()
	if s.pos >= len(s.data) || s.data[s.pos] != ':' {
		return s.syntaxError("after object key")
	}
	s.pos++
	return nil
}

// end checks that nothing but whitespace follows the top-level value.
func (s *jsonScanner) end() error {
	s.ws()
	if s.pos < len(s.data) {
		return s.syntaxError("after top-level value")
	}
	return nil
}

// strByte classifies string bytes: 0 plain, 1 needs a look (quote,
// backslash, control character, non-ASCII).
var strByte = func() (t [256]uint8) {
	for c := range 256 {
		if c < 0x20 || c == '"' || c == '\\' || c >= 0x80 {
			t[c] = 1
		}
	}
	return t
}()

// readString reads the string at pos (which is at its opening quote) and
// returns its decoded contents as valid UTF-8: escapes are resolved, and
// invalid UTF-8 bytes and lone surrogates become U+FFFD, as encoding/json
// does. The result aliases data or the scanner's scratch buffer and is valid
// until the next call.
func (s *jsonScanner) readString() ([]byte, error) {
	start := s.pos + 1
	i := start + plainPrefix(s.data[start:])
	for i < len(s.data) && strByte[s.data[i]] == 0 {
		i++
	}
	if i < len(s.data) && s.data[i] == '"' {
		s.pos = i + 1
		return s.data[start:i], nil
	}
	// Slow path: escapes, control characters or non-ASCII bytes.
	out := append(s.scratch[:0], s.data[start:i]...)
	for {
		if i >= len(s.data) {
			s.pos = i
			return nil, s.syntaxError("in string literal")
		}
		c := s.data[i]
		switch {
		case c == '"':
			s.pos = i + 1
			s.scratch = out
			return out, nil
		case c < 0x20:
			s.pos = i
			return nil, s.syntaxError("in string literal")
		case c == '\\':
			if i+1 >= len(s.data) {
				s.pos = i + 1
				return nil, s.syntaxError("in string escape code")
			}
			switch e := s.data[i+1]; e {
			case '"', '\\', '/':
				out = append(out, e)
				i += 2
			case 'b':
				out = append(out, '\b')
				i += 2
			case 'f':
				out = append(out, '\f')
				i += 2
			case 'n':
				out = append(out, '\n')
				i += 2
			case 'r':
				out = append(out, '\r')
				i += 2
			case 't':
				out = append(out, '\t')
				i += 2
			case 'u':
				r, ok := hex4(s.data, i+2)
				if !ok {
					s.pos = i + 2
					for k := 0; k < 4 && s.pos < len(s.data) && isHex(s.data[s.pos]); k++ {
						s.pos++
					}
					return nil, s.syntaxError("in \\u hexadecimal character escape")
				}
				i += 6
				if utf16.IsSurrogate(r) {
					// A valid pair is two escapes; anything else is a lone
					// surrogate, which becomes U+FFFD.
					r2 := rune(-1)
					if i+1 < len(s.data) && s.data[i] == '\\' && s.data[i+1] == 'u' {
						if v, ok := hex4(s.data, i+2); ok {
							r2 = v
						}
					}
					if d := utf16.DecodeRune(r, r2); d != utf8.RuneError {
						r = d
						i += 6
					} else {
						r = utf8.RuneError
					}
				}
				out = utf8.AppendRune(out, r)
			default:
				s.pos = i + 1
				return nil, s.syntaxError("in string escape code")
			}
		case c < utf8.RuneSelf:
			out = append(out, c)
			i++
		default:
			r, size := utf8.DecodeRune(s.data[i:])
			if r == utf8.RuneError && size == 1 {
				out = append(out, "\uFFFD"...)
			} else {
				out = append(out, s.data[i:i+size]...)
			}
			i += size
		}
	}
}

// skipString passes the string at pos (which is at its opening quote) and
// reports the errors readString would, at the same positions, without
// decoding it: a value nobody reads (an SGLang record's request_parameters,
// escaped JSON most of a record's bytes long) need not be copied out byte by
// byte. Non-ASCII bytes are no error in either, so they are passed whole.
func (s *jsonScanner) skipString() error {
	i := s.pos + 1
	for {
		i += stringRun(s.data[i:])
		if i >= len(s.data) {
			s.pos = i
			return s.syntaxError("in string literal")
		}
		switch c := s.data[i]; {
		case c == '"':
			s.pos = i + 1
			return nil
		case c < 0x20:
			s.pos = i
			return s.syntaxError("in string literal")
		case c == '\\':
			if i+1 >= len(s.data) {
				s.pos = i + 1
				return s.syntaxError("in string escape code")
			}
			switch s.data[i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i += 2
			case 'u':
				if _, ok := hex4(s.data, i+2); !ok {
					s.pos = i + 2
					for k := 0; k < 4 && s.pos < len(s.data) && isHex(s.data[s.pos]); k++ {
						s.pos++
					}
					return s.syntaxError("in \\u hexadecimal character escape")
				}
				// A surrogate pair's second half is an escape of its own,
				// checked as such on the next turn, as readString checks it.
				i += 6
			default:
				s.pos = i + 1
				return s.syntaxError("in string escape code")
			}
		}
	}
}

// stringRun returns how many leading bytes of b are neither a quote, a
// backslash nor below 0x20: plainPrefix's word test without its non-ASCII
// term, for skipString, to which such bytes are plain.
func stringRun(b []byte) int {
	i := 0
	for ; i+8 <= len(b); i += 8 {
		x := binary.LittleEndian.Uint64(b[i:])
		// (x - lows*0x20) &^ x flags the bytes below 0x20 (and, by a borrow,
		// maybe bytes above the first flagged one, which do not count).
		m := quoteMask(x) | (x-lows*0x20)&^x
		if m &= highs; m != 0 {
			return i + bits.TrailingZeros64(m)/8
		}
	}
	for ; i < len(b); i++ {
		if c := b[i]; c == '"' || c == '\\' || c < 0x20 {
			return i
		}
	}
	return i
}

// Constants of the word-at-a-time scan (plainPrefix).
const (
	lows  = 0x0101010101010101
	highs = 0x8080808080808080
)

// quoteMask sets the high bit of each byte of x that is a quote or a
// backslash (the classic "has zero byte" test on x XOR the byte), and maybe
// of bytes above the first such byte, which plainPrefix and stringRun do not
// count.
func quoteMask(x uint64) uint64 {
	q := x ^ (lows * '"')
	bs := x ^ (lows * '\\')
	return (q-lows)&^q | (bs-lows)&^bs
}

// plainPrefix returns how many leading bytes of b are plain string bytes
// (strByte 0), or a lower bound: it looks at 8 bytes at a time and leaves the
// last few, and the byte that needs a look, to the caller's byte loop.
func plainPrefix(b []byte) int {
	i := 0
	for ; i+8 <= len(b); i += 8 {
		x := binary.LittleEndian.Uint64(b[i:])
		// A byte of m has its high bit set if the byte of x is a quote, a
		// backslash, below 0x20 or at least 0x80 (the classic "has zero
		// byte" and "has byte less than" tests). Only bytes above the first
		// such byte can be set by mistake, which is what is counted here.
		m := quoteMask(x) | (x - lows*0x20) | x
		if m &= highs; m != 0 {
			return i + bits.TrailingZeros64(m)/8
		}
	}
	return i
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

// hex4 decodes the four hex digits at data[i:].
func hex4(data []byte, i int) (rune, bool) {
	if i+4 > len(data) {
		return 0, false
	}
	var r rune
	for _, c := range data[i : i+4] {
		switch {
		case '0' <= c && c <= '9':
			c -= '0'
		case 'a' <= c && c <= 'f':
			c = c - 'a' + 10
		case 'A' <= c && c <= 'F':
			c = c - 'A' + 10
		default:
			return 0, false
		}
		r = r<<4 | rune(c)
	}
	return r, true
}

// readNumber reads the number at pos and returns its text, checked against
// the JSON grammar: -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
func (s *jsonScanner) readNumber() ([]byte, error) {
	d := s.data
	start, i := s.pos, s.pos
	if i < len(d) && d[i] == '-' {
		i++
	}
	switch {
	case i < len(d) && d[i] == '0':
		i++
	case i < len(d) && '1' <= d[i] && d[i] <= '9':
		for i < len(d) && '0' <= d[i] && d[i] <= '9' {
			i++
		}
	default:
		s.pos = i
		return nil, s.syntaxError("in numeric literal")
	}
	if i < len(d) && d[i] == '.' {
		i++
		if i >= len(d) || d[i] < '0' || d[i] > '9' {
			s.pos = i
			return nil, s.syntaxError("after decimal point in numeric literal")
		}
		for i < len(d) && '0' <= d[i] && d[i] <= '9' {
			i++
		}
	}
	if i < len(d) && (d[i] == 'e' || d[i] == 'E') {
		i++
		if i < len(d) && (d[i] == '+' || d[i] == '-') {
			i++
		}
		if i >= len(d) || d[i] < '0' || d[i] > '9' {
			s.pos = i
			return nil, s.syntaxError("in exponent of numeric literal")
		}
		for i < len(d) && '0' <= d[i] && d[i] <= '9' {
			i++
		}
	}
	s.pos = i
	return d[start:i], nil
}

// readLiteral reads true, false or null at pos.
func (s *jsonScanner) readLiteral(lit string) error {
	for k := 0; k < len(lit); k++ {
		if s.pos >= len(s.data) || s.data[s.pos] != lit[k] {
			return s.syntaxError("in literal " + lit + " (expecting " + quoteChar(lit[k]) + ")")
		}
		s.pos++
	}
	return nil
}

// skipValue reads and checks the value at pos, whatever it is.
func (s *jsonScanner) skipValue() error {
	switch s.class() {
	case jsonString:
		return s.skipString()
	case jsonNumber:
		_, err := s.readNumber()
		return err
	case jsonTrue:
		return s.readLiteral("true")
	case jsonFalse:
		return s.readLiteral("false")
	case jsonNull:
		return s.readLiteral("null")
	case jsonObject:
		if err := s.beginObject(); err != nil {
			return err
		}
		for first := true; ; first = false {
			_, ok, err := s.nextKey(first)
			if err != nil || !ok {
				return err
			}
			if err := s.skipValue(); err != nil {
				return err
			}
		}
	case jsonArray:
		// elements' loop, written out: skipValue is the hot path (a LiteLLM
		// payload's messages), and the call through a func value cost it
		// 2-4 % (BenchmarkFormatDecode/litellm, alternated runs).
		s.pos++
		s.depth++
		if s.depth > maxJSONDepth {
			return recordErrorf(ErrBadJSON, s.pos-1, "invalid JSON: exceeded max depth")
		}
		s.ws()
		if s.pos < len(s.data) && s.data[s.pos] == ']' {
			s.pos++
			s.depth--
			return nil
		}
		for {
			if err := s.skipValue(); err != nil {
				return err
			}
			s.ws()
			if s.pos < len(s.data) && s.data[s.pos] == ']' {
				s.pos++
				s.depth--
				return nil
			}
			if s.pos >= len(s.data) || s.data[s.pos] != ',' {
				return s.syntaxError("after array element")
			}
			s.pos++
		}
	default:
		return s.syntaxError("looking for beginning of value")
	}
}

// elements reads the array at pos, calling elem with the scanner at each
// element; elem must consume it.
func (s *jsonScanner) elements(elem func() error) error {
	s.pos++
	s.depth++
	if s.depth > maxJSONDepth {
		return recordErrorf(ErrBadJSON, s.pos-1, "invalid JSON: exceeded max depth")
	}
	s.ws()
	if s.pos < len(s.data) && s.data[s.pos] == ']' {
		s.pos++
		s.depth--
		return nil
	}
	for {
		if err := elem(); err != nil {
			return err
		}
		s.ws()
		if s.pos < len(s.data) && s.data[s.pos] == ']' {
			s.pos++
			s.depth--
			return nil
		}
		if s.pos >= len(s.data) || s.data[s.pos] != ',' {
			return s.syntaxError("after array element")
		}
		s.pos++
	}
}

// readValue reads and checks the value at pos and returns it as encoding/json
// decodes into an interface{} with UseNumber: map[string]any, []any, string,
// json.Number, bool or nil; of keys given twice the last wins. It is one pass
// with no reflection, for the formats that read whole documents
// (parseJSONValue). Keys are interned in keys, which may be nil. If only is
// not nil and the value is an object, the members whose keys it does not hold
// are checked but left out: a format that reads a few keys need not build the
// rest (a LiteLLM payload's messages and response, the bulk of a real one).
func (s *jsonScanner) readValue(keys map[string]string, only map[string]bool) (any, error) {
	switch s.class() {
	case jsonString:
		b, err := s.readString()
		if err != nil {
			return nil, err
		}
		return string(b), nil
	case jsonNumber:
		b, err := s.readNumber()
		if err != nil {
			return nil, err
		}
		return json.Number(b), nil
	case jsonTrue:
		return true, s.readLiteral("true")
	case jsonFalse:
		return false, s.readLiteral("false")
	case jsonNull:
		return nil, s.readLiteral("null")
	case jsonObject:
		if err := s.beginObject(); err != nil {
			return nil, err
		}
		// A top-level object read for a known set of keys holds at most
		// those: sized for them, the map never grows (growing it was a
		// twelfth of a parsed read of SGLang's request metrics).
		m := make(map[string]any, len(only))
		for first := true; ; first = false {
			kb, ok, err := s.nextKey(first)
			if err != nil {
				return nil, err
			}
			if !ok {
				return m, nil
			}
			if only != nil && !only[string(kb)] {
				if err := s.skipValue(); err != nil {
					return nil, err
				}
				continue
			}
			k, interned := keys[string(kb)] // no allocation for the lookup
			if !interned {
				k = string(kb)
				if keys != nil && len(keys) < maxInternedKeys {
					keys[k] = k
				}
			}
			v, err := s.readValue(keys, nil)
			if err != nil {
				return nil, err
			}
			m[k] = v
		}
	case jsonArray:
		a := []any{}
		err := s.elements(func() error {
			v, err := s.readValue(keys, nil)
			a = append(a, v)
			return err
		})
		if err != nil {
			return nil, err
		}
		return a, nil
	default:
		return nil, s.syntaxError("looking for beginning of value")
	}
}

// maxInternedKeys bounds the key interning of readValue: the keys of a log
// format are few, and records with ever new keys must not grow it without end.
const maxInternedKeys = 4096
