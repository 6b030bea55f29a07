package scan

import "bytes"

// What the formats' sniffers share: they score the first bytes of an input,
// which may end in the middle of a record.

// SniffBytes is how much of each input auto-detection looks at.
const SniffBytes = 64 << 10

// FirstLine returns the first non-blank line of b, trimmed.
func FirstLine(b []byte) []byte {
	for len(b) > 0 {
		line := b
		if i := bytes.IndexByte(b, '\n'); i >= 0 {
			line, b = b[:i], b[i+1:]
		} else {
			b = nil
		}
		if t := bytes.TrimSpace(line); len(t) > 0 {
			return t
		}
	}
	return nil
}

// TopLevelKeys returns the keys of the JSON object in line that could be
// read before the end or the first syntax error.
func TopLevelKeys(line []byte) map[string]bool {
	keys := map[string]bool{}
	var s JSON
	s.Reset(line)
	if s.BeginObject() != nil {
		return keys
	}
	for first := true; ; first = false {
		key, ok, err := s.NextKey(first)
		if err != nil || !ok {
			return keys
		}
		keys[string(key)] = true
		if s.SkipValue() != nil {
			return keys
		}
	}
}

// FirstObjectKeys returns the top-level keys of the first JSON object of
// head: the first line of NDJSON, the first element of an array, or a
// pretty-printed document. head may end in the middle of the object.
func FirstObjectKeys(head []byte) map[string]bool {
	head = bytes.TrimPrefix(head, BOM)
	i := 0
	for i < len(head) && (head[i] == ' ' || head[i] == '\t' || head[i] == '\r' || head[i] == '\n') {
		i++
	}
	if i < len(head) && head[i] == '[' {
		i++
	}
	return TopLevelKeys(head[i:])
}
