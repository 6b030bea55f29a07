package ingest

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// A rejected record is kept in rejects.jsonl so that a user can see what was
// wrong with it, but prompt and completion text must never reach any output
// (schemas/README.md). redactRaw removes it and cuts the record to 1 KiB.
const (
	// rawLimit is the most bytes of a record kept in rejects.jsonl.
	rawLimit = 1024
	// longString is the longest string kept when it is not known to be
	// harmless: a longer one may be text, and is removed.
	longString = 64
)

// textKeys are keys whose values hold prompt or completion text, matched
// case-insensitively at any depth.
var textKeys = map[string]bool{
	"prompt": true, "prompts": true, "prompt_text": true,
	"messages": true, "message": true,
	"completion": true, "completions": true, "choices": true, "delta": true,
	"content": true, "text": true,
	"input": true, "inputs": true, "input_text": true,
	"output": true, "outputs": true, "output_text": true,
	"response": true, "request_body": true, "response_body": true, "body": true,
	"instructions": true, "system": true,
}

func isTextKey(key []byte) bool {
	if len(key) > 16 {
		return false
	}
	var buf [16]byte
	low := buf[:len(key)]
	for i, c := range key {
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		low[i] = c
	}
	return textKeys[string(low)]
}

// redactRaw returns raw as rejects.jsonl keeps it. If raw is valid JSON, the
// value of every text key (textKeys) becomes "[removed]" and every other
// string longer than 64 bytes "[removed N bytes]". If it is not, every
// quoted string after a text key, and every quoted string longer than 64
// bytes (an unterminated one included), is removed the same way. The result
// is valid UTF-8, cut to at most 1 KiB on a character boundary.
func redactRaw(raw []byte) string {
	out, ok := redactJSON(raw)
	if !ok {
		out = redactText(raw)
	}
	return cutUTF8(strings.ToValidUTF8(string(out), "\uFFFD"), rawLimit)
}

// cutUTF8 cuts s to at most n bytes without splitting a character.
func cutUTF8(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

func appendRemoved(out []byte, n int) []byte {
	out = append(out, `"[removed `...)
	out = strconv.AppendInt(out, int64(n), 10)
	return append(out, ` bytes]"`...)
}

const removedText = `"[removed]"`

// redactJSON rewrites a valid JSON record compactly with text removed. It
// reports false when raw is not valid JSON.
func redactJSON(raw []byte) ([]byte, bool) {
	r := redactor{out: make([]byte, 0, min(len(raw), 2*rawLimit))}
	r.s.reset(raw)
	if r.value() != nil || r.s.end() != nil {
		return nil, false
	}
	return r.out, true
}

type redactor struct {
	s   jsonScanner
	out []byte
}

func (r *redactor) value() error {
	s := &r.s
	switch s.class() {
	case jsonString:
		start := s.pos
		b, err := s.readString()
		if err != nil {
			return err
		}
		if len(b) > longString {
			r.out = appendRemoved(r.out, len(b))
		} else {
			r.out = append(r.out, s.data[start:s.pos]...)
		}
		return nil
	case jsonObject:
		if err := s.beginObject(); err != nil {
			return err
		}
		r.out = append(r.out, '{')
		for first := true; ; first = false {
			key, ok, err := s.nextKey(first)
			if err != nil {
				return err
			}
			if !ok {
				r.out = append(r.out, '}')
				return nil
			}
			if !first {
				r.out = append(r.out, ',')
			}
			r.out = strconv.AppendQuote(r.out, string(key))
			r.out = append(r.out, ':')
			if isTextKey(key) {
				if err := s.skipValue(); err != nil {
					return err
				}
				r.out = append(r.out, removedText...)
				continue
			}
			if err := r.value(); err != nil {
				return err
			}
		}
	case jsonArray:
		r.out = append(r.out, '[')
		first := true
		err := s.elements(func() error {
			if !first {
				r.out = append(r.out, ',')
			}
			first = false
			return r.value()
		})
		r.out = append(r.out, ']')
		return err
	default:
		start := s.pos
		if err := s.skipValue(); err != nil {
			return err
		}
		r.out = append(r.out, s.data[start:s.pos]...)
		return nil
	}
}

// redactText removes text from a record that is not valid JSON, by looking
// only at its quoted strings.
func redactText(raw []byte) []byte {
	out := make([]byte, 0, min(len(raw), 2*rawLimit))
	removeNext := false // the previous string was a text key
	for i := 0; i < len(raw); {
		c := raw[i]
		if c != '"' {
			if removeNext && c != ':' && c != ' ' && c != '\t' && c != '\r' {
				removeNext = false // the value is not a string
			}
			out = append(out, c)
			i++
			continue
		}
		j := i + 1
		for j < len(raw) && raw[j] != '"' {
			if raw[j] == '\\' {
				j++
			}
			j++
		}
		end := min(j, len(raw))
		content := raw[i+1 : end]
		switch {
		case removeNext:
			out = append(out, removedText...)
		case len(content) > longString:
			out = appendRemoved(out, len(content))
		default:
			out = append(out, raw[i:min(j+1, len(raw))]...)
		}
		removeNext = false
		i = j + 1
		k := i
		for k < len(raw) && (raw[k] == ' ' || raw[k] == '\t') {
			k++
		}
		if k < len(raw) && raw[k] == ':' && isTextKey(content) {
			removeNext = true
		}
	}
	return out
}
