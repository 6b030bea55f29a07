package scan

import (
	"encoding/binary"
	"encoding/json"
	"math/bits"
	"reflect"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// MaxDepth is the deepest nesting of objects and arrays accepted, as in
// encoding/json.
const MaxDepth = 10000

// JSON scanner is a small validating JSON tokenizer over one record. Record
// decoders drive it field by field (NextKey, then one of the read or skip
// methods for the value) so that a record is decoded in one pass, without
// reflection and without building a map. It accepts exactly what
// encoding/json.Valid accepts; the fuzz tests hold it to that.
//
// Errors are *RecordError of kind ErrBadJSON at the byte offset where the
// input went wrong.
type JSON struct {
	Data    []byte
	Pos     int
	depth   int
	Scratch []byte // unescaped strings
}

// JSON value classes, from the first byte of a value.
const (
	End    = 0
	String = '"'
	Number = '0'
	True   = 't'
	False  = 'f'
	Null   = 'n'
	Object = '{'
	Array  = '['
)

// TypeErrorText says what an encoding/json type error found, in the terms
// of the input and not of Go: "itls: want an array, found a string";
// "want an object, found an array" for the document itself.
func TypeErrorText(te *json.UnmarshalTypeError) string {
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

// ClassName names a value class for bad_type reasons.
func ClassName(class byte) string {
	switch class {
	case String:
		return "string"
	case Number:
		return "number"
	case True, False:
		return "boolean"
	case Null:
		return "null"
	case Object:
		return "object"
	case Array:
		return "array"
	}
	return "nothing"
}

func (s *JSON) Reset(data []byte) {
	s.Data, s.Pos, s.depth = data, 0, 0
}

// SkipSpace skips JSON whitespace. It is called before and after every key and
// value, mostly at a byte above ' ', which the first test passes.
func (s *JSON) SkipSpace() {
	for s.Pos < len(s.Data) {
		if c := s.Data[s.Pos]; c > ' ' || c != ' ' && c != '\t' && c != '\r' && c != '\n' {
			return
		}
		s.Pos++
	}
}

// Class returns the class of the value at pos (after whitespace), or End.
func (s *JSON) Class() byte {
	s.SkipSpace()
	if s.Pos >= len(s.Data) {
		return End
	}
	switch c := s.Data[s.Pos]; c {
	case '"', 't', 'f', 'n', '{', '[':
		return c
	case '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
		return Number
	default:
		return c
	}
}

func (s *JSON) SyntaxError(what string) *RecordError {
	if s.Pos >= len(s.Data) {
		return Errorf(ErrBadJSON, s.Pos, "invalid JSON: unexpected end of record %s", what)
	}
	return Errorf(ErrBadJSON, s.Pos, "invalid JSON: invalid character %s %s", quoteChar(s.Data[s.Pos]), what)
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

// BeginObject consumes the '{' that starts an object.
func (s *JSON) BeginObject() error {
	s.SkipSpace()
	if s.Pos >= len(s.Data) || s.Data[s.Pos] != '{' {
		return s.SyntaxError("looking for beginning of object")
	}
	s.Pos++
	s.depth++
	if s.depth > MaxDepth {
		return Errorf(ErrBadJSON, s.Pos-1, "invalid JSON: exceeded max depth")
	}
	return nil
}

// NextKey reads the next key of the object being read and the ':' after it,
// leaving pos at the value. It returns ok=false after the closing '}'. first
// must be true for the first call on an object. The key is valid until the
// next string is read.
func (s *JSON) NextKey(first bool) (key []byte, ok bool, err error) {
	if ok, err = s.KeyStart(first); !ok || err != nil {
		return nil, ok, err
	}
	if key, err = s.ReadString(); err != nil {
		return nil, false, err
	}
	if err = s.KeyEnd(); err != nil {
		return nil, false, err
	}
	s.SkipSpace()
	return key, true, nil
}

// KeyStart is NextKey up to the key: it leaves pos at the key's opening
// quote, or returns ok=false after the closing '}'.
func (s *JSON) KeyStart(first bool) (ok bool, err error) {
	s.SkipSpace()
	if s.Pos < len(s.Data) && s.Data[s.Pos] == '}' {
		s.Pos++
		s.depth--
		return false, nil
	}
	if !first {
		if s.Pos >= len(s.Data) || s.Data[s.Pos] != ',' {
			return false, s.SyntaxError("after object key:value pair")
		}
		s.Pos++
		s.SkipSpace()
	}
	if s.Pos >= len(s.Data) || s.Data[s.Pos] != '"' {
		return false, s.SyntaxError("looking for beginning of object key string")
	}
	return true, nil
}

// KeyEnd is NextKey after the key: the space before the ':' and the ':'.
func (s *JSON) KeyEnd() error {
	s.SkipSpace()
	if s.Pos >= len(s.Data) || s.Data[s.Pos] != ':' {
		return s.SyntaxError("after object key")
	}
	s.Pos++
	return nil
}

// Finish checks that nothing but whitespace follows the top-level value.
func (s *JSON) Finish() error {
	s.SkipSpace()
	if s.Pos < len(s.Data) {
		return s.SyntaxError("after top-level value")
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

// ReadString reads the string at pos (which is at its opening quote) and
// returns its decoded contents as valid UTF-8: escapes are resolved, and
// invalid UTF-8 bytes and lone surrogates become U+FFFD, as encoding/json
// does. The result aliases data or the scanner's scratch buffer and is valid
// until the next call.
func (s *JSON) ReadString() ([]byte, error) {
	start := s.Pos + 1
	i := start + plainPrefix(s.Data[start:])
	for i < len(s.Data) && strByte[s.Data[i]] == 0 {
		i++
	}
	if i < len(s.Data) && s.Data[i] == '"' {
		s.Pos = i + 1
		return s.Data[start:i], nil
	}
	// Slow path: escapes, control characters or non-ASCII bytes.
	out := append(s.Scratch[:0], s.Data[start:i]...)
	for {
		if i >= len(s.Data) {
			s.Pos = i
			return nil, s.SyntaxError("in string literal")
		}
		c := s.Data[i]
		switch {
		case c == '"':
			s.Pos = i + 1
			s.Scratch = out
			return out, nil
		case c < 0x20:
			s.Pos = i
			return nil, s.SyntaxError("in string literal")
		case c == '\\':
			if i+1 >= len(s.Data) {
				s.Pos = i + 1
				return nil, s.SyntaxError("in string escape code")
			}
			switch e := s.Data[i+1]; e {
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
				r, ok := hex4(s.Data, i+2)
				if !ok {
					s.Pos = i + 2
					for k := 0; k < 4 && s.Pos < len(s.Data) && isHex(s.Data[s.Pos]); k++ {
						s.Pos++
					}
					return nil, s.SyntaxError("in \\u hexadecimal character escape")
				}
				i += 6
				if utf16.IsSurrogate(r) {
					// A valid pair is two escapes; anything else is a lone
					// surrogate, which becomes U+FFFD.
					r2 := rune(-1)
					if i+1 < len(s.Data) && s.Data[i] == '\\' && s.Data[i+1] == 'u' {
						if v, ok := hex4(s.Data, i+2); ok {
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
				s.Pos = i + 1
				return nil, s.SyntaxError("in string escape code")
			}
		case c < utf8.RuneSelf:
			out = append(out, c)
			i++
		default:
			r, size := utf8.DecodeRune(s.Data[i:])
			if r == utf8.RuneError && size == 1 {
				out = append(out, "\uFFFD"...)
			} else {
				out = append(out, s.Data[i:i+size]...)
			}
			i += size
		}
	}
}

// SkipString passes the string at pos (which is at its opening quote) and
// reports the errors ReadString would, at the same positions, without
// decoding it: a value nobody reads (an SGLang record's request_parameters,
// escaped JSON most of a record's bytes long) need not be copied out byte by
// byte. Non-ASCII bytes are no error in either, so they are passed whole.
func (s *JSON) SkipString() error {
	i := s.Pos + 1
	for {
		i += stringRun(s.Data[i:])
		if i >= len(s.Data) {
			s.Pos = i
			return s.SyntaxError("in string literal")
		}
		switch c := s.Data[i]; {
		case c == '"':
			s.Pos = i + 1
			return nil
		case c < 0x20:
			s.Pos = i
			return s.SyntaxError("in string literal")
		case c == '\\':
			if i+1 >= len(s.Data) {
				s.Pos = i + 1
				return s.SyntaxError("in string escape code")
			}
			switch s.Data[i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i += 2
			case 'u':
				if _, ok := hex4(s.Data, i+2); !ok {
					s.Pos = i + 2
					for k := 0; k < 4 && s.Pos < len(s.Data) && isHex(s.Data[s.Pos]); k++ {
						s.Pos++
					}
					return s.SyntaxError("in \\u hexadecimal character escape")
				}
				// A surrogate pair's second half is an escape of its own,
				// checked as such on the next turn, as ReadString checks it.
				i += 6
			default:
				s.Pos = i + 1
				return s.SyntaxError("in string escape code")
			}
		}
	}
}

// stringRun returns how many leading bytes of b are neither a quote, a
// backslash nor below 0x20: plainPrefix's word test without its non-ASCII
// term, for SkipString, to which such bytes are plain.
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

// ReadNumber reads the number at pos and returns its text, checked against
// the JSON grammar: -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
func (s *JSON) ReadNumber() ([]byte, error) {
	d := s.Data
	start, i := s.Pos, s.Pos
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
		s.Pos = i
		return nil, s.SyntaxError("in numeric literal")
	}
	if i < len(d) && d[i] == '.' {
		i++
		if i >= len(d) || d[i] < '0' || d[i] > '9' {
			s.Pos = i
			return nil, s.SyntaxError("after decimal point in numeric literal")
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
			s.Pos = i
			return nil, s.SyntaxError("in exponent of numeric literal")
		}
		for i < len(d) && '0' <= d[i] && d[i] <= '9' {
			i++
		}
	}
	s.Pos = i
	return d[start:i], nil
}

// ReadLiteral reads true, false or null at pos.
func (s *JSON) ReadLiteral(lit string) error {
	for k := 0; k < len(lit); k++ {
		if s.Pos >= len(s.Data) || s.Data[s.Pos] != lit[k] {
			return s.SyntaxError("in literal " + lit + " (expecting " + quoteChar(lit[k]) + ")")
		}
		s.Pos++
	}
	return nil
}

// SkipValue reads and checks the value at pos, whatever it is.
func (s *JSON) SkipValue() error {
	switch s.Class() {
	case String:
		return s.SkipString()
	case Number:
		_, err := s.ReadNumber()
		return err
	case True:
		return s.ReadLiteral("true")
	case False:
		return s.ReadLiteral("false")
	case Null:
		return s.ReadLiteral("null")
	case Object:
		if err := s.BeginObject(); err != nil {
			return err
		}
		for first := true; ; first = false {
			_, ok, err := s.NextKey(first)
			if err != nil || !ok {
				return err
			}
			if err := s.SkipValue(); err != nil {
				return err
			}
		}
	case Array:
		// elements' loop, written out: SkipValue is the hot path (a LiteLLM
		// payload's messages), and the call through a func value cost it
		// 2-4 % (BenchmarkFormatDecode/litellm, alternated runs).
		s.Pos++
		s.depth++
		if s.depth > MaxDepth {
			return Errorf(ErrBadJSON, s.Pos-1, "invalid JSON: exceeded max depth")
		}
		s.SkipSpace()
		if s.Pos < len(s.Data) && s.Data[s.Pos] == ']' {
			s.Pos++
			s.depth--
			return nil
		}
		for {
			if err := s.SkipValue(); err != nil {
				return err
			}
			s.SkipSpace()
			if s.Pos < len(s.Data) && s.Data[s.Pos] == ']' {
				s.Pos++
				s.depth--
				return nil
			}
			if s.Pos >= len(s.Data) || s.Data[s.Pos] != ',' {
				return s.SyntaxError("after array element")
			}
			s.Pos++
		}
	default:
		return s.SyntaxError("looking for beginning of value")
	}
}

// Elements reads the array at pos, calling elem with the scanner at each
// element; elem must consume it.
func (s *JSON) Elements(elem func() error) error {
	s.Pos++
	s.depth++
	if s.depth > MaxDepth {
		return Errorf(ErrBadJSON, s.Pos-1, "invalid JSON: exceeded max depth")
	}
	s.SkipSpace()
	if s.Pos < len(s.Data) && s.Data[s.Pos] == ']' {
		s.Pos++
		s.depth--
		return nil
	}
	for {
		if err := elem(); err != nil {
			return err
		}
		s.SkipSpace()
		if s.Pos < len(s.Data) && s.Data[s.Pos] == ']' {
			s.Pos++
			s.depth--
			return nil
		}
		if s.Pos >= len(s.Data) || s.Data[s.Pos] != ',' {
			return s.SyntaxError("after array element")
		}
		s.Pos++
	}
}

// ReadValue reads and checks the value at pos and returns it as encoding/json
// decodes into an interface{} with UseNumber: map[string]any, []any, string,
// json.Number, bool or nil; of keys given twice the last wins. It is one pass
// with no reflection, for the formats that read whole documents
// (ParseValue). Keys are interned in keys, which may be nil. If only is
// not nil and the value is an object, the members whose keys it does not hold
// are checked but left out: a format that reads a few keys need not build the
// rest (a LiteLLM payload's messages and response, the bulk of a real one).
func (s *JSON) ReadValue(keys map[string]string, only map[string]bool) (any, error) {
	switch s.Class() {
	case String:
		b, err := s.ReadString()
		if err != nil {
			return nil, err
		}
		return string(b), nil
	case Number:
		b, err := s.ReadNumber()
		if err != nil {
			return nil, err
		}
		return json.Number(b), nil
	case True:
		return true, s.ReadLiteral("true")
	case False:
		return false, s.ReadLiteral("false")
	case Null:
		return nil, s.ReadLiteral("null")
	case Object:
		if err := s.BeginObject(); err != nil {
			return nil, err
		}
		// A top-level object read for a known set of keys holds at most
		// those: sized for them, the map never grows (growing it was a
		// twelfth of a parsed read of SGLang's request metrics).
		m := make(map[string]any, len(only))
		for first := true; ; first = false {
			kb, ok, err := s.NextKey(first)
			if err != nil {
				return nil, err
			}
			if !ok {
				return m, nil
			}
			if only != nil && !only[string(kb)] {
				if err := s.SkipValue(); err != nil {
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
			v, err := s.ReadValue(keys, nil)
			if err != nil {
				return nil, err
			}
			m[k] = v
		}
	case Array:
		a := []any{}
		err := s.Elements(func() error {
			v, err := s.ReadValue(keys, nil)
			a = append(a, v)
			return err
		})
		if err != nil {
			return nil, err
		}
		return a, nil
	default:
		return nil, s.SyntaxError("looking for beginning of value")
	}
}

// maxInternedKeys bounds the key interning of ReadValue: the keys of a log
// format are few, and records with ever new keys must not grow it without end.
const maxInternedKeys = 4096

// PlainInteger reads the common integer: 1 to 18 digits, without sign,
// leading zero, fraction or exponent, and returns it and its length. It
// reports false for anything else, which the caller reads the general way;
// when it reports true, ReadNumber would have read the same digits.
func PlainInteger(b []byte) (v int64, n int, ok bool) {
	for n < len(b) && n < 19 {
		d := b[n] - '0'
		if d > 9 {
			break
		}
		v = v*10 + int64(d)
		n++
	}
	if n == 0 || n > 18 || b[0] == '0' && n > 1 {
		return 0, 0, false
	}
	if n < len(b) {
		if c := b[n]; c == '.' || c == 'e' || c == 'E' {
			return 0, 0, false
		}
	}
	return v, n, true
}

// ParseValue decodes raw as encoding/json decodes into an interface{}
// with numbers kept as json.Number (so that no digit is lost to float64), in
// one pass of the JSON scanner, so that syntax errors carry a column and match
// encoding/json exactly. Object keys are interned in keys (nil: none); a
// top-level object keeps only the keys in only (nil: all).
func ParseValue(raw []byte, keys map[string]string, only map[string]bool) (any, error) {
	var s JSON
	s.Reset(raw)
	v, err := s.ReadValue(keys, only)
	if err != nil {
		return nil, err
	}
	if err := s.Finish(); err != nil {
		return nil, err
	}
	return v, nil
}
