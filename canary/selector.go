package canary

import (
	"fmt"
	"path"
	"regexp"
	"strings"

	"github.com/tpsreport/tpsreport/schemas"
)

// Keys a selector matches on.
const (
	KeyReplica = "replica"
	KeyModel   = "model"
)

// A Selector picks spans by one of their names: the replica that served
// them or the model they asked for, matched by a glob (path.Match: *, ?,
// [a-z]) or by a regular expression (RE2, unanchored). Written KEY=GLOB,
// KEY~REGEX, or a bare GLOB for replica=GLOB.
type Selector struct {
	Key     string
	Pattern string
	re      *regexp.Regexp // nil for a glob
}

// Parse reads one selector.
func Parse(s string) (Selector, error) {
	key, pat, op := KeyReplica, s, byte('=')
	if i := strings.IndexAny(s, "=~"); i >= 0 {
		k := strings.TrimSpace(s[:i])
		switch k {
		case KeyReplica, KeyModel:
			key, pat, op = k, s[i+1:], s[i]
		default:
			return Selector{}, fmt.Errorf("selector %q: unknown key %q (want replica or model, as replica=vllm-3 or model~llama)", s, k)
		}
	}
	if pat == "" {
		return Selector{}, fmt.Errorf("selector %q: empty pattern", s)
	}
	sel := Selector{Key: key, Pattern: pat}
	if op == '~' {
		re, err := regexp.Compile(pat)
		if err != nil {
			return Selector{}, fmt.Errorf("selector %q: %w", s, err)
		}
		sel.re = re
		return sel, nil
	}
	if _, err := path.Match(pat, ""); err != nil {
		return Selector{}, fmt.Errorf("selector %q: bad glob: %w", s, err)
	}
	return sel, nil
}

// ParseAll reads every selector of ss.
func ParseAll(ss []string) ([]Selector, error) {
	out := make([]Selector, 0, len(ss))
	for _, s := range ss {
		sel, err := Parse(s)
		if err != nil {
			return nil, err
		}
		out = append(out, sel)
	}
	return out, nil
}

// String writes the selector as Parse reads it.
func (s Selector) String() string {
	op := "="
	if s.re != nil {
		op = "~"
	}
	return s.Key + op + s.Pattern
}

// matches reports whether name matches the pattern.
func (s Selector) matches(name string) bool {
	if s.re != nil {
		return s.re.MatchString(name)
	}
	ok, _ := path.Match(s.Pattern, name)
	return ok
}

// Match reports whether a span of the given replica (as the split files it:
// a gateway's upstream under its engine's name) and model is selected. A
// span that names no replica or no model matches no selector on it.
func (s Selector) Match(replica string, model *string) bool {
	switch s.Key {
	case KeyModel:
		return model != nil && s.matches(*model)
	default:
		return replica != "" && s.matches(replica)
	}
}

// matchAll reports whether every selector of sels matches.
func matchAll(sels []Selector, replica string, sp *schemas.Span) bool {
	for _, s := range sels {
		if !s.Match(replica, sp.Model) {
			return false
		}
	}
	return len(sels) > 0
}

// Texts writes each selector as Parse reads it.
func Texts(sels []Selector) []string {
	out := make([]string, len(sels))
	for i, s := range sels {
		out[i] = s.String()
	}
	return out
}
