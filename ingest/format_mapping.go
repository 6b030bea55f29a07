package ingest

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/tpsreport/tpsreport/ingest/internal/scan"
	"github.com/tpsreport/tpsreport/schemas"
)

// The mapping format reads any JSON log (NDJSON, an array or documents)
// through a mapping file (YAML) that says, for each span column, where its
// value is and how to read it. testdata/mapping/*.yaml are examples
// (Helicone request exports, nginx JSON access logs):
//
//	name: helicone                # for people; errors name the file
//	zone: UTC                     # zone of naive timestamps (default UTC)
//	columns:
//	  span_id:     {path: request_id}
//	  queued_at:   {path: request_created_at, type: time}
//	  released_at: {from: queued_at, plus: delay_ms, unit: ms}
//	  first_token_at: {from: queued_at, plus: time_to_first_token, unit: ms}
//	  status:      {path: response_status, type: http}
//	  http_status: {path: response_status}
//	  input_tokens: {path: prompt_tokens}
//	defaults:
//	  model: unknown
//
// A column is read from path (dotted keys, a number indexes an array; a list
// of keys when a key holds dots) as its type requires: strings for ids,
// model, replica (type host keeps the host:port of a URL), error and
// retry_cause; whole numbers for tokens, attempt and http_status; time
// (layout auto, rfc3339, epoch_s, epoch_ms, epoch_us, epoch_ns or naive;
// auto takes RFC 3339, naive wall time in zone, or epoch numbers by
// magnitude) for the five timestamps. A timestamp may instead be another
// one plus or minus a duration read from a path (unit s, ms, us or ns).
// status is type word (values maps source words to ok/error/timeout/
// aborted/cancelled; the spans format's words are known) or type http (an
// HTTP code mapped as for the gateways).
//
// Attempts: request_id groups the attempts of one request (default: the
// span's own id); attempt, when mapped, numbers them, else analyze numbers
// them by queued_at.
//
// Errors: LoadMapping checks the file's syntax, column names, types,
// layouts, units and references up front, and that span_id (or
// request_id) and status (a path or a default) are mapped. The reader then
// checks every path against each record: a record in which a path names
// no key is rejected (missing_field, naming the column and the path),
// unless the column is marked optional: true. So a typo in a path rejects
// every record, never makes a NULL column, and one record that lacks a
// key does not stop the others, whether it comes first or later.

// SourceMapping is the source column of spans read through a mapping.
const SourceMapping = "mapping"

// Mapping is a parsed, checked mapping file.
type Mapping struct {
	File     string
	Name     string
	Zone     *time.Location
	Columns  map[string]*MapColumn
	Defaults map[string]string
}

// MapColumn is how one span column is read.
type MapColumn struct {
	Path     any               `yaml:"path"` // string or list of keys
	Type     string            `yaml:"type"`
	Layout   string            `yaml:"layout"`
	From     string            `yaml:"from"`
	Plus     any               `yaml:"plus"`
	Minus    any               `yaml:"minus"`
	Unit     string            `yaml:"unit"`
	Values   map[string]string `yaml:"values"`
	Optional bool              `yaml:"optional"`

	keys   []string // parsed Path
	offset []string // parsed Plus or Minus
	sign   int64
	scale  int // unit of the offset, as scan.ScaleDecimal's scale to µs
}

type mappingFile struct {
	Name     string                `yaml:"name"`
	Zone     string                `yaml:"zone"`
	Columns  map[string]*MapColumn `yaml:"columns"`
	Defaults map[string]string     `yaml:"defaults"`
}

var mapStringCols = []string{"span_id", "request_id", "model", "replica", "error", "retry_cause"}
var mapIntCols = []string{"attempt", "input_tokens", "output_tokens", "cached_tokens", "http_status"}
var mapTimeCols = []string{"queued_at", "admitted_at", "first_token_at", "last_token_at", "released_at"}

func mapColumnKind(name string) string {
	switch {
	case slices.Contains(mapStringCols, name):
		return "string"
	case slices.Contains(mapIntCols, name):
		return "int"
	case slices.Contains(mapTimeCols, name):
		return "time"
	case name == "status":
		return "status"
	}
	return ""
}

// LoadMapping reads and checks a mapping file.
func LoadMapping(path string) (*Mapping, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("read mapping: %w", err)
	}
	defer f.Close()
	if fi, err := f.Stat(); err == nil && fi.Mode()&os.ModeDevice != 0 {
		return nil, fmt.Errorf("read mapping %s: a device, not a file", path)
	}
	// Read at most one byte more than the cap, so that an endless input
	// (a FIFO fed forever) ends too.
	b, err := io.ReadAll(io.LimitReader(f, maxMappingBytes+1))
	if err != nil {
		return nil, fmt.Errorf("read mapping: %w", err)
	}
	if len(b) > maxMappingBytes {
		return nil, fmt.Errorf("mapping %s: larger than 1 MiB; a mapping file is a few lines of YAML", path)
	}
	return ParseMapping(path, b)
}

// maxMappingBytes bounds a mapping file.
const maxMappingBytes = 1 << 20

// ParseMapping parses and checks the text of a mapping file.
func ParseMapping(file string, text []byte) (*Mapping, error) {
	var mf mappingFile
	dec := yaml.NewDecoder(bytes.NewReader(text))
	dec.KnownFields(true)
	if err := dec.Decode(&mf); err != nil {
		return nil, fmt.Errorf("mapping %s: %w", file, err)
	}
	fail := func(format string, args ...any) (*Mapping, error) {
		return nil, fmt.Errorf("mapping %s: "+format, append([]any{file}, args...)...)
	}
	m := &Mapping{File: file, Name: mf.Name, Columns: mf.Columns, Defaults: mf.Defaults}
	if mf.Zone != "" {
		z, err := time.LoadLocation(mf.Zone)
		if err != nil {
			return fail("zone: %v", err)
		}
		m.Zone = z
	}
	if len(m.Columns) == 0 {
		return fail("no columns")
	}
	names := make([]string, 0, len(m.Columns))
	for name := range m.Columns {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		c := m.Columns[name]
		kind := mapColumnKind(name)
		if kind == "" {
			return fail("unknown column %q (want a spans.parquet column: span_id, request_id, attempt, queued_at, ...)", name)
		}
		if c == nil {
			return fail("column %s: empty", name)
		}
		var err error
		if c.keys, err = mapPath(c.Path); err != nil {
			return fail("column %s: path: %v", name, err)
		}
		switch kind {
		case "string":
			if c.Type != "" && c.Type != "string" && c.Type != "host" {
				return fail("column %s: type %q (want string or host)", name, c.Type)
			}
		case "int":
			if c.Type != "" && c.Type != "int" {
				return fail("column %s: type %q (want int)", name, c.Type)
			}
		case "status":
			switch c.Type {
			case "", "word", "http":
			default:
				return fail("column status: type %q (want word or http)", c.Type)
			}
			for w, st := range c.Values {
				if !schemas.ValidStatus(st) {
					return fail("column status: values: %q maps to %q (want ok, error, timeout, aborted or cancelled)", w, st)
				}
			}
		case "time":
			if c.Type != "" && c.Type != "time" {
				return fail("column %s: type %q (want time)", name, c.Type)
			}
			switch c.Layout {
			case "", "auto", "rfc3339", "epoch_s", "epoch_ms", "epoch_us", "epoch_ns", "naive":
			default:
				return fail("column %s: layout %q (want auto, rfc3339, epoch_s, epoch_ms, epoch_us, epoch_ns or naive)", name, c.Layout)
			}
			if c.From != "" {
				if mapColumnKind(c.From) != "time" || c.From == name {
					return fail("column %s: from %q is not another timestamp column", name, c.From)
				}
				if fc := m.Columns[c.From]; fc == nil || fc.From != "" {
					return fail("column %s: from %q must be a column read from a path", name, c.From)
				}
				if c.keys != nil {
					return fail("column %s: give path or from, not both", name)
				}
				off, sign := c.Plus, int64(1)
				if c.Minus != nil {
					off, sign = c.Minus, -1
				}
				if (c.Plus == nil) == (c.Minus == nil) {
					return fail("column %s: from needs one of plus or minus", name)
				}
				if c.offset, err = mapPath(off); err != nil || c.offset == nil {
					return fail("column %s: plus/minus: want a path", name)
				}
				c.sign = sign
				switch c.Unit {
				case "s":
					c.scale = 6
				case "ms":
					c.scale = 3
				case "us":
					c.scale = 0
				case "ns":
					c.scale = -3
				default:
					return fail("column %s: unit %q (want s, ms, us or ns)", name, c.Unit)
				}
			}
		}
		if c.keys == nil && c.From == "" {
			return fail("column %s: no path", name)
		}
	}
	for name, v := range m.Defaults {
		switch mapColumnKind(name) {
		case "string":
		case "status":
			if _, ok := spanStatus([]byte(v)); !ok {
				return fail("defaults: status %q (want ok, error, timeout, aborted or cancelled)", v)
			}
		default:
			return fail("defaults: column %q cannot have a default (only model, replica, error, retry_cause, request_id, status)", name)
		}
	}
	if m.Columns["span_id"] == nil && m.Columns["request_id"] == nil {
		return fail("map span_id or request_id (the record's id)")
	}
	if m.Columns["status"] == nil && m.Defaults["status"] == "" {
		return fail("map status, or give defaults: {status: ok}")
	}
	if m.Columns["queued_at"] == nil && m.Columns["released_at"] == nil {
		return fail("map queued_at or released_at")
	}
	return m, nil
}

// mapPath parses a path: dotted keys, or a YAML list of keys.
func mapPath(p any) ([]string, error) {
	switch x := p.(type) {
	case nil:
		return nil, nil
	case string:
		if x == "" {
			return nil, errors.New("empty")
		}
		keys := strings.Split(x, ".")
		if slices.Contains(keys, "") {
			return nil, fmt.Errorf("%q has an empty key", x)
		}
		return keys, nil
	case []any:
		keys := make([]string, len(x))
		for i, k := range x {
			s, ok := k.(string)
			if !ok || s == "" {
				return nil, fmt.Errorf("key %d is not a string", i)
			}
			keys[i] = s
		}
		if len(keys) == 0 {
			return nil, errors.New("empty")
		}
		return keys, nil
	}
	return nil, fmt.Errorf("want a string or a list of keys, found %T", p)
}

// lookup follows keys; found reports whether the last key exists (even
// when its value is null).
func lookup(v any, keys []string) (val any, found bool) {
	for _, k := range keys {
		switch x := v.(type) {
		case map[string]any:
			if v, found = x[k]; !found {
				return nil, false
			}
		case []any:
			i, err := strconv.Atoi(k)
			if err != nil || i < 0 || i >= len(x) {
				return nil, false
			}
			v = x[i]
		default:
			return nil, false
		}
	}
	return v, true
}

// checkPaths reports the first mapped path of a column that is not
// optional that names no key in rec: such a record is rejected (a mapped
// path that no record has, a typo, rejects every record, and never makes
// a NULL column).
func (m *Mapping) checkPaths(rec any) error {
	names := make([]string, 0, len(m.Columns))
	for n := range m.Columns {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, n := range names {
		c := m.Columns[n]
		if c.Optional {
			continue
		}
		for _, keys := range [][]string{c.keys, c.offset} {
			if keys == nil {
				continue
			}
			if _, ok := lookup(rec, keys); !ok {
				return scan.Errorf(ErrMissingField, -1, "column %s: path %q is not in the record (mapping %s; if records may lack it, mark the column optional: true)",
					n, strings.Join(keys, "."), m.File)
			}
		}
	}
	return nil
}

type mappingReader struct {
	*jsonRecordReader
	m    *Mapping
	zone *time.Location
}

var _ Reader = (*mappingReader)(nil)

// newMappingReader reads in through in.Mapping, whose zone, when it names
// one, overrides in.Zone. Without a mapping file (a "mapping:" input
// prefix and no --mapping) the reader fails at once with a hint.
func newMappingReader(in Input) Reader {
	r := &mappingReader{m: in.Mapping, zone: in.Zone}
	if r.m == nil {
		r.jsonRecordReader = newJSONRecordReader(in, nil)
		r.mode = modeDone
		r.err = errors.New("format mapping needs a mapping file. Try --mapping FILE.yaml")
		return r
	}
	if r.m.Zone != nil {
		r.zone = r.m.Zone
	}
	r.jsonRecordReader = newJSONRecordReader(in, r.decode)
	return r
}

func (r *mappingReader) decode(v any, _ []byte, out []Record) []Record {
	if _, ok := v.(map[string]any); !ok {
		return decodeReject(out, scan.Errorf(ErrBadType, -1, "want a JSON object, found %s", scan.KindName(v)))
	}
	if err := r.m.checkPaths(v); err != nil {
		return decodeReject(out, err)
	}
	var sp schemas.Span
	if err := r.fill(v, &sp); err != nil {
		return decodeReject(out, err)
	}
	return append(out, Record{Kind: KindSpan, Span: sp})
}

// Next stops at once when there is no mapping file.
func (r *mappingReader) Next() bool {
	if r.err != nil {
		return false
	}
	ok := r.jsonRecordReader.Next()
	if r.err != nil {
		return false
	}
	return ok
}

func (r *mappingReader) fill(v any, sp *schemas.Span) error {
	m := r.m
	*sp = schemas.Span{Source: SourceMapping}
	var fe scan.FirstErr
	get := func(name string) (any, string) {
		c := m.Columns[name]
		if c == nil || c.keys == nil {
			return nil, name
		}
		x, _ := lookup(v, c.keys)
		return x, name + " (" + strings.Join(c.keys, ".") + ")"
	}
	str := func(name string) *string {
		x, label := get(name)
		s := fe.Str(x, label)
		if s == nil {
			if d, ok := m.Defaults[name]; ok && d != "" {
				s = &d
			}
		}
		if c := m.Columns[name]; s != nil && c != nil && c.Type == "host" {
			s = scan.HostOf(s)
		}
		return s
	}
	integer := func(name string, lo, hi int64) *int64 {
		x, label := get(name)
		return fe.Integer(x, label, lo, hi)
	}
	times := map[string]*int64{}
	for _, name := range mapTimeCols {
		c := m.Columns[name]
		if c == nil || c.From != "" {
			continue
		}
		x, label := get(name)
		times[name] = r.timeValue(&fe, x, label, c.Layout)
	}
	for _, name := range mapTimeCols {
		c := m.Columns[name]
		if c == nil || c.From == "" {
			continue
		}
		x, _ := lookup(v, c.offset)
		d := fe.Duration(x, name+" ("+strings.Join(c.offset, ".")+")", c.scale)
		if d != nil {
			dd := c.sign * *d
			d = &dd
		}
		times[name] = scan.AddMicros(times[c.From], d)
	}
	sp.QueuedAt, sp.AdmittedAt, sp.FirstTokenAt = times["queued_at"], times["admitted_at"], times["first_token_at"]
	sp.LastTokenAt, sp.ReleasedAt = times["last_token_at"], times["released_at"]

	id := str("span_id")
	req := str("request_id")
	sp.Model, sp.Replica, sp.Error, sp.RetryCause = str("model"), str("replica"), str("error"), str("retry_cause")
	if a := integer("attempt", 0, 1<<31-1); a != nil {
		sp.Attempt = schemas.Ptr(int32(*a))
	}
	sp.InputTokens = integer("input_tokens", 0, 1<<62)
	sp.OutputTokens = integer("output_tokens", 0, 1<<62)
	sp.CachedTokens = integer("cached_tokens", 0, 1<<62)
	code := integer("http_status", 0, 999)
	sp.HTTPStatus = scan.HTTPStatus32(code)

	var status string
	if c := m.Columns["status"]; c != nil {
		x, label := get("status")
		switch {
		case scan.IsUnknown(x):
		case c.Type == "http":
			if n := fe.Integer(x, label, 0, 999); n != nil {
				status = scan.StatusFromHTTP(*n)
				if *n == 0 {
					status = schemas.StatusCancelled
				}
			}
		default:
			word := fmt.Sprint(x)
			if b, ok := x.(bool); ok {
				word = strconv.FormatBool(b)
			}
			if st, ok := c.Values[word]; ok {
				status = st
			} else if st, ok := spanStatus([]byte(word)); ok {
				status = st
			} else {
				fe.Keep(scan.Errorf(ErrBadValue, -1, "%s: unknown status %q (add it to the mapping's status values)", label, word))
			}
		}
	}
	if fe.Err != nil {
		return fe.Err
	}
	if status == "" {
		status = m.Defaults["status"]
		if status == "" {
			return scan.Errorf(ErrMissingField, -1, "missing status")
		}
		status, _ = spanStatus([]byte(status))
	}
	sp.Status = status
	switch {
	case id != nil:
		sp.SpanID = *id
	case req != nil:
		sp.SpanID = *req
	default:
		return scan.Errorf(ErrMissingField, -1, "missing span_id")
	}
	sp.RequestID = sp.SpanID
	if req != nil {
		sp.RequestID = *req
	}
	if sp.QueuedAt == nil && sp.ReleasedAt == nil {
		return scan.Errorf(ErrMissingField, -1, "missing queued_at and released_at")
	}
	return nil
}

// timeValue reads a timestamp in a layout.
func (r *mappingReader) timeValue(fe *scan.FirstErr, x any, label, layout string) *int64 {
	if scan.IsUnknown(x) {
		return nil
	}
	scale := 0
	switch layout {
	case "", "auto", "rfc3339", "naive":
		if layout == "rfc3339" {
			if _, ok := x.(string); !ok {
				fe.Keep(scan.Errorf(ErrBadType, -1, "%s: want an RFC 3339 string, found %s", label, scan.KindName(x)))
				return nil
			}
		}
		return fe.Time(x, label, r.zone)
	case "epoch_s":
		scale = 6
	case "epoch_ms":
		scale = 3
	case "epoch_us":
		scale = 0
	case "epoch_ns":
		scale = -3
	}
	num, ok, err := scan.NumberText(x, label)
	if err != nil || !ok {
		fe.Keep(err)
		return nil
	}
	us, _, fits := scan.ScaleDecimal(num, scale)
	if !fits || us < scan.MinMicros || us > scan.MaxMicros {
		fe.Keep(scan.Errorf(ErrBadTimestamp, -1, "%s: invalid timestamp %q: %v", label, num, scan.ErrTSOutOfRange))
		return nil
	}
	return &us
}

// sniffMapping never claims an input: a mapping needs --format mapping and
// its file.
func sniffMapping([]byte) int { return 0 }

// knownKeys returns the keys of the mapping's paths, in lower case: the
// fields whose short values a reject keeps (redactRawKnown). nil for no
// mapping.
func (m *Mapping) knownKeys() map[string]bool {
	if m == nil {
		return nil
	}
	known := map[string]bool{}
	for _, c := range m.Columns {
		for _, keys := range [][]string{c.keys, c.offset} {
			for _, k := range keys {
				known[strings.ToLower(k)] = true
			}
		}
	}
	return known
}
