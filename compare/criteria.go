package compare

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/tpsreport/tpsreport/schemas"
)

// CriteriaError is a bad acceptance file or setting, printed compiler-style:
// "acceptance.yaml:3: min_improvement: want a number such as 0.05, got "5%"".
// File and Line are empty when the setting did not come from a file; Key is
// empty for an error of the file as a whole.
type CriteriaError struct {
	File string
	Line int
	Key  string
	Msg  string
}

func (e *CriteriaError) Error() string {
	var b strings.Builder
	if e.File != "" {
		b.WriteString(e.File)
		if e.Line > 0 {
			b.WriteString(":" + strconv.Itoa(e.Line))
		}
		b.WriteString(": ")
	}
	if e.Key != "" {
		b.WriteString(e.Key + ": ")
	}
	b.WriteString(e.Msg)
	return b.String()
}

// criteriaKey is one key of an acceptance file: its field in
// schemas.Criteria and what a value looks like, for error messages.
type criteriaKey struct {
	name  string
	field int
	want  string
}

// criteriaKeys are the keys of schemas.Criteria, from its yaml tags, sorted.
var criteriaKeys = func() []criteriaKey {
	t := reflect.TypeFor[schemas.Criteria]()
	def := reflect.ValueOf(schemas.DefaultCriteria())
	var out []criteriaKey
	for i := range t.NumField() {
		name, _, _ := strings.Cut(t.Field(i).Tag.Get("yaml"), ",")
		if name == "" || name == "-" {
			continue
		}
		var want string
		switch t.Field(i).Type.Kind() {
		case reflect.Float64:
			ex := def.Field(i).Float()
			if ex == 0 {
				ex = 0.05
			}
			want = "a number such as " + strconv.FormatFloat(ex, 'g', -1, 64)
		case reflect.Int:
			want = "a whole number such as " + strconv.FormatInt(def.Field(i).Int(), 10)
		case reflect.Bool:
			want = "true or false"
		default:
			want = "a " + t.Field(i).Type.String()
		}
		out = append(out, criteriaKey{name: name, field: i, want: want})
	}
	slices.SortFunc(out, func(a, b criteriaKey) int { return strings.Compare(a.name, b.name) })
	return out
}()

// LoadCriteria reads an acceptance file (YAML): any subset of the keys of
// schemas.Criteria, the rest keeping their defaults. An unknown key is an
// error, so a typo does not silently keep a default. Errors are
// *CriteriaError and name the file, the line and the key.
func LoadCriteria(path string) (schemas.Criteria, error) {
	c := schemas.DefaultCriteria()
	b, err := os.ReadFile(path)
	if err != nil {
		return c, fmt.Errorf("read criteria: %w", err)
	}
	return parseCriteria(path, b)
}

// parseCriteria decodes an acceptance file key by key, so that each error
// speaks of the key and value the user wrote rather than of Go types.
func parseCriteria(file string, b []byte) (schemas.Criteria, error) {
	c := schemas.DefaultCriteria()
	var doc yaml.Node
	if err := yaml.NewDecoder(bytes.NewReader(b)).Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			return c, nil // an empty file keeps every default
		}
		return c, syntaxError(file, err)
	}
	root := &doc
	if root.Kind == yaml.DocumentNode && len(root.Content) == 1 {
		root = root.Content[0]
	}
	if root.Kind == yaml.ScalarNode && root.Tag == "!!null" {
		return c, nil // only comments
	}
	if root.Kind != yaml.MappingNode {
		return c, &CriteriaError{File: file, Line: root.Line, Msg: "want keys with values, such as \"min_improvement: 0.05\", one a line"}
	}
	lines := map[string]int{}
	v := reflect.ValueOf(&c).Elem()
	for i := 0; i+1 < len(root.Content); i += 2 {
		k, val := root.Content[i], root.Content[i+1]
		key, ok := lookupKey(k.Value)
		if !ok {
			return c, &CriteriaError{File: file, Line: k.Line, Msg: unknownKey(k.Value)}
		}
		if first, dup := lines[key.name]; dup {
			return c, &CriteriaError{File: file, Line: k.Line, Key: key.name, Msg: fmt.Sprintf("set twice (first on line %d)", first)}
		}
		lines[key.name] = k.Line
		f := v.Field(key.field)
		if val.Kind != yaml.ScalarNode || val.Tag == "!!null" {
			return c, &CriteriaError{File: file, Line: val.Line, Key: key.name, Msg: "want " + key.want + ", got " + describe(val)}
		}
		// yaml.v3 would truncate 2000.5 into an int field: check the
		// value's resolved tag first.
		dst := reflect.New(f.Type())
		if !tagFits(val.ShortTag(), f.Kind()) || val.Decode(dst.Interface()) != nil {
			return c, &CriteriaError{File: file, Line: val.Line, Key: key.name, Msg: "want " + key.want + ", got " + describe(val)}
		}
		f.Set(dst.Elem())
	}
	if err := checkCriteria(c); err != nil {
		err.File, err.Line = file, lines[err.Key]
		return c, err
	}
	return c, nil
}

// tagFits reports whether a YAML scalar of tag can set a field of kind.
func tagFits(tag string, kind reflect.Kind) bool {
	switch kind {
	case reflect.Float64:
		return tag == "!!float" || tag == "!!int"
	case reflect.Int:
		return tag == "!!int"
	case reflect.Bool:
		return tag == "!!bool"
	}
	return true
}

func lookupKey(name string) (criteriaKey, bool) {
	for _, k := range criteriaKeys {
		if k.name == name {
			return k, true
		}
	}
	return criteriaKey{}, false
}

// unknownKey says that name is no key, suggests the closest key when one is
// close, and lists the valid ones.
func unknownKey(name string) string {
	names := make([]string, len(criteriaKeys))
	best, bestD := "", 0
	for i, k := range criteriaKeys {
		names[i] = k.name
		if d := editDistance(strings.ToLower(name), k.name); best == "" || d < bestD {
			best, bestD = k.name, d
		}
	}
	msg := fmt.Sprintf("unknown key %q", name)
	if bestD <= max(2, len(best)/4) {
		msg += fmt.Sprintf(" (did you mean %s?)", best)
	}
	return msg + "; valid keys: " + strings.Join(names, ", ")
}

// describe quotes a YAML value the way the user wrote it.
func describe(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	}
	if n.Tag == "!!null" {
		return "nothing"
	}
	return strconv.Quote(n.Value)
}

// yamlLine finds the line in yaml.v3's "yaml: line N: msg" errors.
var yamlLine = regexp.MustCompile(`^yaml: line (\d+): (.*)$`)

// syntaxError restates a YAML syntax error as file:line: msg.
func syntaxError(file string, err error) error {
	msg := err.Error()
	if m := yamlLine.FindStringSubmatch(msg); m != nil {
		line, _ := strconv.Atoi(m[1])
		return &CriteriaError{File: file, Line: line, Msg: "not valid YAML: " + m[2]}
	}
	return &CriteriaError{File: file, Msg: "not valid YAML: " + strings.TrimPrefix(msg, "yaml: ")}
}

// editDistance is the Levenshtein distance of a and b.
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
