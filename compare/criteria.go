package compare

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/tpsreport/tpsreport/internal/suggest"
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

// keyKind is what the value of an acceptance-file key is.
type keyKind int

const (
	numberKey   keyKind = iota // a float64 field
	wholeKey                   // an int field
	boolKey                    // a bool field
	durationKey                // a float64 field of seconds, written "2m", "90s" or 120
	toggleKey                  // a criterion: on or off (Criteria.Off)
)

// criteriaKey is one key of an acceptance file: its field in
// schemas.Criteria (−1 for a criterion's on/off) and what a value looks
// like, for error messages.
type criteriaKey struct {
	name  string
	field int
	kind  keyKind
	want  string
}

// durationKeys are the float64 fields written as durations.
var durationKeys = map[string]bool{"warmup": true, "cooldown": true}

// criteriaKeys are the keys of schemas.Criteria, from its yaml tags, sorted;
// then the criteria, which an acceptance file turns on or off, in report order.
var criteriaKeys = func() []criteriaKey {
	t := reflect.TypeFor[schemas.Criteria]()
	def := reflect.ValueOf(schemas.DefaultCriteria())
	var out []criteriaKey
	for i := range t.NumField() {
		name, _, _ := strings.Cut(t.Field(i).Tag.Get("yaml"), ",")
		if name == "" || name == "-" {
			continue
		}
		k := criteriaKey{name: name, field: i}
		switch t.Field(i).Type.Kind() {
		case reflect.Float64:
			if durationKeys[name] {
				k.kind, k.want = durationKey, "a duration such as 2m or 90s, a number of seconds, or auto"
				break
			}
			ex := def.Field(i).Float()
			if ex == 0 {
				ex = 0.05
			}
			k.kind, k.want = numberKey, "a number such as "+strconv.FormatFloat(ex, 'g', -1, 64)
		case reflect.Int:
			k.kind, k.want = wholeKey, "a whole number such as "+strconv.FormatInt(def.Field(i).Int(), 10)
		case reflect.Bool:
			k.kind, k.want = boolKey, "true or false"
		default:
			panic("compare: no acceptance-file syntax for " + t.Field(i).Type.String() + " (" + name + ")")
		}
		out = append(out, k)
	}
	slices.SortFunc(out, func(a, b criteriaKey) int { return strings.Compare(a.name, b.name) })
	for _, n := range Names {
		out = append(out, criteriaKey{name: n, field: -1, kind: toggleKey, want: "on or off"})
	}
	return out
}()

// LoadCriteria reads an acceptance file (YAML): any subset of the keys of
// schemas.Criteria, the rest keeping their defaults, and "KEY: off" (or
// "on") for a criterion KEY. An unknown key is an error, so a typo does not
// silently keep a default. Errors are *CriteriaError and name the file, the
// line and the key.
func LoadCriteria(path string) (schemas.Criteria, error) {
	c := schemas.DefaultCriteria()
	f, err := os.Open(path)
	if err != nil {
		return c, fmt.Errorf("read criteria: %w", err)
	}
	defer f.Close()
	// A device (/dev/zero) or an endless pipe would be read forever: an
	// acceptance file is a page of YAML, so a device is refused and more
	// than MaxCriteriaBytes is an error.
	if fi, err := f.Stat(); err == nil && fi.Mode()&os.ModeDevice != 0 {
		return c, fmt.Errorf("read criteria: %s is a device, not an acceptance file", path)
	}
	b, err := io.ReadAll(io.LimitReader(f, MaxCriteriaBytes+1))
	if err != nil {
		return c, fmt.Errorf("read criteria: %w", err)
	}
	if len(b) > MaxCriteriaBytes {
		return c, fmt.Errorf("read criteria: %s is larger than 1 MiB; an acceptance file is a page of YAML", path)
	}
	return parseCriteria(path, b)
}

// MaxCriteriaBytes bounds an acceptance file.
const MaxCriteriaBytes = 1 << 20

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
	off := map[string]bool{}
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
		wrong := &CriteriaError{File: file, Line: val.Line, Key: key.name, Msg: "want " + key.want + ", got " + describe(val)}
		if val.Kind != yaml.ScalarNode || val.Tag == "!!null" {
			return c, wrong
		}
		switch key.kind {
		case toggleKey:
			switch val.Value {
			case "off":
				off[key.name] = true
			case "on":
			default:
				return c, wrong
			}
			continue
		case durationKey:
			if val.ShortTag() == "!!str" && val.Value == "auto" {
				switch key.name {
				case "warmup":
					c.WarmupAuto, c.Warmup = true, 0
				case "cooldown":
					c.CooldownAuto, c.Cooldown = true, 0
				}
				continue
			}
			if val.ShortTag() == "!!str" {
				secs, err := ParseSeconds(val.Value)
				if err != nil {
					return c, wrong
				}
				v.Field(key.field).SetFloat(secs)
				continue
			}
		}
		// yaml.v3 would truncate 2000.5 into an int field: check the
		// value's resolved tag first.
		f := v.Field(key.field)
		dst := reflect.New(f.Type())
		if !tagFits(val.ShortTag(), f.Kind()) || val.Decode(dst.Interface()) != nil {
			return c, wrong
		}
		f.Set(dst.Elem())
	}
	for _, n := range Names {
		if off[n] {
			c.Off = append(c.Off, n)
		}
	}
	c, err := settle(c)
	if err != nil {
		err.File, err.Line = file, lines[err.Key]
		return c, err
	}
	return c, nil
}

// Settle checks settings that came from flags as settle does those of a
// file: every value in its range, alpha and confidence made to agree.
func Settle(c schemas.Criteria) (schemas.Criteria, error) {
	c, err := settle(c)
	if err != nil {
		return c, err
	}
	return c, nil
}

// settle checks the settings and makes alpha and confidence agree. They
// are one setting, confidence = 1 − alpha: the overall verdict's
// false-alarm rate, and the level at which the criteria's intervals hold
// together. Either may be set; the one left at its default follows the
// other, and two that disagree are an error.
func settle(c schemas.Criteria) (schemas.Criteria, *CriteriaError) {
	if err := checkCriteria(c); err != nil {
		return c, err
	}
	if math.Abs(c.Confidence-(1-c.Alpha)) > 1e-12 {
		d := schemas.DefaultCriteria()
		switch {
		case c.Confidence == d.Confidence:
			c.Confidence = 1 - c.Alpha
		case c.Alpha == d.Alpha:
			c.Alpha = 1 - c.Confidence
		default:
			return c, &CriteriaError{Key: "alpha", Msg: fmt.Sprintf("%v and confidence %v disagree: confidence is 1 − alpha; set one of them", c.Alpha, c.Confidence)}
		}
	}
	return c, nil
}

// MaxBacklogWindows bounds min_backlog_windows: analyze makes at most
// 100,000 windows of a run (analyze.MaxWindows, which compare does not
// import).
const MaxBacklogWindows = 100_000

// MaxResamples bounds resamples: each criterion draws this many resamples
// of every window of both sides, so the bound keeps a comparison's time
// and memory within reach of a CI job.
const MaxResamples = 100_000

// maxSeconds is the longest time.Duration, in seconds.
const maxSeconds = float64(math.MaxInt64) / 1e9

// ParseSeconds reads a warm-up or cool-down: a Go duration with a unit
// ("2m", "90s", "1m30s") or a number of seconds ("120", "90.5"). Both forms
// hold the same range, a Go duration's (about 292 years either way):
// time.ParseDuration refuses "1e10s", so a plain number does too.
func ParseSeconds(s string) (float64, error) {
	if v, err := strconv.ParseFloat(s, 64); err == nil {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return 0, fmt.Errorf("want a finite duration, got %q", s)
		}
		if math.Abs(v) > maxSeconds {
			return 0, fmt.Errorf("want a duration of at most %.0f seconds (about 292 years), got %q", maxSeconds, s)
		}
		return v, nil
	}
	d, err := time.ParseDuration(s)
	if err != nil {
		return 0, fmt.Errorf("want a duration such as 2m or 90s, or a number of seconds, got %q", s)
	}
	return d.Seconds(), nil
}

// checkCriteria returns the first setting out of its range, naming its key.
func checkCriteria(c schemas.Criteria) *CriteriaError {
	bad := func(key, msg string, v any) *CriteriaError {
		return &CriteriaError{Key: key, Msg: fmt.Sprintf("%v: %s", v, msg)}
	}
	cv := reflect.ValueOf(c)
	for _, k := range criteriaKeys {
		if k.kind == numberKey || k.kind == durationKey {
			if x := cv.Field(k.field).Float(); math.IsNaN(x) || math.IsInf(x, 0) {
				return bad(k.name, "must be a finite number", x)
			}
		}
	}
	switch {
	case c.Confidence < 0.5 || c.Confidence >= 1:
		return bad("confidence", "must be at least 0.5 and below 1, such as 0.95 (1 − alpha)", c.Confidence)
	case c.Alpha <= 0 || c.Alpha > 0.5:
		return bad("alpha", "must be above 0 and at most 0.5, such as 0.05: a false-alarm rate", c.Alpha)
	case c.Resamples < 100 || c.Resamples > MaxResamples:
		return bad("resamples", fmt.Sprintf("must be between 100 and %d", MaxResamples), c.Resamples)
	case c.MinBacklogWindows < 1 || c.MinBacklogWindows > MaxBacklogWindows:
		return bad("min_backlog_windows", fmt.Sprintf("must be between 1 and %d (analyze makes no more windows)", MaxBacklogWindows), c.MinBacklogWindows)
	case c.MinImprovement <= -1:
		return bad("min_improvement", "must be greater than -1 (a fraction: 0.05 is 5 %)", c.MinImprovement)
	}
	type field struct {
		key string
		v   float64
	}
	// Tolerances on rates, which lie between 0 and 1.
	for _, f := range []field{
		{"success_tolerance", c.SuccessTolerance}, {"retry_tolerance", c.RetryTolerance},
		{"gap_tolerance", c.GapTolerance}, {"gap_floor", c.GapFloor}, {"slo_tolerance", c.SLOTolerance},
	} {
		switch {
		case f.v < 0:
			return bad(f.key, "must not be negative", f.v)
		case f.v > 1:
			return bad(f.key, "must be at most 1 (a fraction: 0.01 is 1 percentage point)", f.v)
		}
	}
	// Relative differences, and seconds.
	for _, f := range []field{
		{"load_mismatch", c.LoadMismatch}, {"token_mismatch", c.TokenMismatch},
		{"ttft_tolerance", c.TTFTTolerance}, {"tpot_tolerance", c.TPOTTolerance},
		{"warmup", c.Warmup}, {"cooldown", c.Cooldown},
	} {
		if f.v < 0 {
			return bad(f.key, "must not be negative", f.v)
		}
	}
	for _, n := range c.Off {
		if !slices.Contains(Names, n) {
			return &CriteriaError{Key: "off", Msg: fmt.Sprintf("%q is not a criterion; criteria: %s", n, strings.Join(Names, ", "))}
		}
	}
	return nil
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
	var settings, toggles []string
	best, bestD := "", 0
	for _, k := range criteriaKeys {
		if k.kind == toggleKey {
			toggles = append(toggles, k.name)
		} else {
			settings = append(settings, k.name)
		}
		if d := suggest.Distance(strings.ToLower(name), k.name); best == "" || d < bestD {
			best, bestD = k.name, d
		}
	}
	msg := fmt.Sprintf("unknown key %q", name)
	if bestD <= max(2, len(best)/4) {
		msg += fmt.Sprintf(" (did you mean %s?)", best)
	}
	return msg + "; valid keys: " + strings.Join(settings, ", ") + "; criteria, with on or off: " + strings.Join(toggles, ", ")
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
