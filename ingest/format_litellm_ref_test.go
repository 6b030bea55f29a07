package ingest

// A reference decoder of the litellm format for TestLiteLLMMatchesReference,
// written from schemas/formats/gateways.md (its litellm section and the
// rules common to the gateway formats) and not from the reader: the line
// goes through encoding/json into maps, values through time.Parse and
// math/big, and the span is assembled here, so a mistake made in the reader
// is not made again in its reference. It shares no code with the reader but
// the schemas types.
//
// Where the document is silent, the reference follows these rules:
//
//   - A column read from one field "else" another looks at the second only
//     when the first is unknown; a value of the wrong type counts as unknown
//     there, and is also a problem of the record.
//   - Numbers may be written as strings holding a JSON number, with spaces
//     around; a string that holds none, a boolean, an object or an array is
//     of the wrong type. A whole number written as 2.0 or 1e3 is whole.
//   - Token counts are in [0, 2^62], metadata.attempted_retries in
//     [0, 2^31-1]; outside, or not whole, the value is bad.
//   - A timestamp string is RFC 3339 (with "T" or a space, an offset of
//     "+hh:mm", "+hh" or "Z"), a naive one read in the zone, or the text of an
//     epoch number; an epoch integer is seconds, ms, µs or ns by magnitude
//     (below 1e11, 1e14, 1e17), a number with a fraction or exponent is
//     seconds; it must fall in the years 0000 to 9999.
//   - id and startTime and endTime are required. An absent status is
//     success; status words are compared without case.
//   - error_information is the top-level object, else metadata's; an
//     error_code that is not a whole number in 100–599 is no code (not a
//     problem), and it gives http_status whatever the status.
//   - A failure's error is its error class, else "failure"; a failure whose
//     code would mean ok is an error.
//   - The replica is the host[:port] of a URL, the value itself when it has
//     no scheme or its URL does not parse, and unknown when it is blank.
//
// A malformed record may have several problems, and the document does not
// say which the reject names: the reference lists them all, and the test
// holds the reader to naming one of them.

import (
	"bytes"
	"encoding/json"
	"math/big"
	"net/url"
	"regexp"
	"strings"
	"time"

	"github.com/tpsreport/tpsreport/schemas"
)

// refProblem is one thing wrong with a record: the reject kind it calls for
// and the key of the field (its last path element; "" for the whole record).
type refProblem struct {
	kind error
	key  string
}

// refLiteLLM decodes one NDJSON line of the litellm format. It returns the
// span, or the problems that make the line a reject.
func refLiteLLM(line []byte, zone *time.Location) (schemas.Span, []refProblem) {
	if !json.Valid(line) {
		return schemas.Span{}, []refProblem{{ErrBadJSON, ""}}
	}
	top, ok := refJSON(line).(map[string]any)
	if !ok {
		return schemas.Span{}, []refProblem{{ErrBadType, ""}}
	}
	v := refValues{zone: zone}
	meta := refObject(top["metadata"])
	if s, ok := top["metadata"].(string); ok && strings.HasPrefix(strings.TrimSpace(s), "{") && json.Valid([]byte(s)) {
		meta = refObject(refJSON([]byte(s))) // SpendLogs: metadata as JSON text
	}

	id := v.str(top, "id")
	if id == nil {
		id = v.str(top, "request_id")
	}
	trace := v.str(top, "trace_id")
	if trace == nil {
		trace = v.str(meta, "trace_id")
	}
	retries := v.whole(meta["attempted_retries"], "attempted_retries", 0, 1<<31-1)
	model := v.str(top, "model")
	if model == nil {
		model = v.str(top, "model_group")
	}
	base := v.str(top, "api_base")
	if base == nil {
		base = v.str(refObject(top["hidden_params"]), "api_base")
	}
	replica := refHost(base)
	if replica == nil {
		replica = v.str(top, "model_id")
	}
	start := v.time(top, "startTime")
	end := v.time(top, "endTime")
	first := v.time(top, "completionStartTime")
	in := v.whole(top["prompt_tokens"], "prompt_tokens", 0, 1<<62)
	out := v.whole(top["completion_tokens"], "completion_tokens", 0, 1<<62)
	details := refObject(refObject(meta["usage_object"])["prompt_tokens_details"])
	cached := v.whole(details["cached_tokens"], "cached_tokens", 0, 1<<62)
	word := v.str(top, "status")
	if word == nil {
		word = v.str(meta, "status")
	}
	errInfo := refObject(top["error_information"])
	if errInfo == nil {
		errInfo = refObject(meta["error_information"])
	}
	codeText := v.str(errInfo, "error_code")
	class := v.str(errInfo, "error_class")

	if id == nil {
		v.problem(ErrMissingField, "id")
	}
	if start == nil {
		v.problem(ErrMissingField, "startTime")
	}
	if end == nil {
		v.problem(ErrMissingField, "endTime")
	}
	success := word == nil || strings.EqualFold(*word, "success")
	if !success && !strings.EqualFold(*word, "failure") {
		v.problem(ErrBadValue, "status")
	}
	if len(v.problems) > 0 {
		return schemas.Span{}, v.problems
	}

	var code *int64
	if codeText != nil {
		var probe refValues
		code = probe.whole(*codeText, "error_code", 100, 599)
	}
	sp := schemas.Span{
		Source:     SourceLiteLLM,
		SpanID:     *id,
		RequestID:  *id,
		Model:      model,
		Replica:    replica,
		QueuedAt:   start,
		ReleasedAt: end,
	}
	if retries != nil && *retries > 0 {
		sp.SpanID = *id + "#retry" + big.NewInt(*retries).String()
	}
	if trace != nil {
		sp.RequestID = *trace
	}
	if first != nil && *first != *end {
		sp.FirstTokenAt = first
	}
	if code != nil {
		c := int32(*code)
		sp.HTTPStatus = &c
	}
	if success {
		sp.Status = schemas.StatusOK
		sp.InputTokens, sp.OutputTokens, sp.CachedTokens = in, out, cached
		if sp.FirstTokenAt != nil {
			sp.LastTokenAt = end
		}
		return sp, nil
	}
	sp.Status = schemas.StatusError
	switch {
	case class != nil && strings.Contains(strings.ToLower(*class), "timeout"):
		sp.Status = schemas.StatusTimeout
	case class != nil && strings.Contains(strings.ToLower(*class), "cancel"):
		sp.Status = schemas.StatusCancelled
	case code != nil && (*code == 408 || *code == 504):
		sp.Status = schemas.StatusTimeout
	case code != nil && *code == 499:
		sp.Status = schemas.StatusCancelled
	}
	failure := "failure"
	sp.Error = &failure
	if class != nil {
		sp.Error = class
	}
	refNotZero := func(p *int64) *int64 {
		if p != nil && *p == 0 {
			return nil
		}
		return p
	}
	sp.InputTokens, sp.OutputTokens, sp.CachedTokens = refNotZero(in), refNotZero(out), refNotZero(cached)
	return sp, nil
}

// refJSON decodes valid JSON text with numbers kept as json.Number.
func refJSON(b []byte) any {
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		panic(err) // the caller checked json.Valid
	}
	return v
}

// refObject returns v when it is an object, else nil (an empty object for
// lookups).
func refObject(v any) map[string]any {
	m, _ := v.(map[string]any)
	return m
}

// refValues reads a record's values and collects its problems.
type refValues struct {
	zone     *time.Location
	problems []refProblem
}

func (v *refValues) problem(kind error, key string) {
	v.problems = append(v.problems, refProblem{kind, key})
}

// refUnknown: absent, null, "" and "-".
func refUnknown(x any) bool { return x == nil || x == "" || x == "-" }

// str reads a string (or a number, as its text) at key of o.
func (v *refValues) str(o map[string]any, key string) *string {
	switch x := o[key].(type) {
	case string:
		if refUnknown(x) {
			return nil
		}
		return &x
	case json.Number:
		s := string(x)
		return &s
	case nil:
		return nil
	}
	v.problem(ErrBadType, key)
	return nil
}

// refNumberSyntax is the grammar of a JSON number.
var refNumberSyntax = regexp.MustCompile(`^-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][-+]?[0-9]+)?$`)

// number returns the value of a number, or of a string holding one.
func (v *refValues) number(x any, key string) (*big.Rat, string, bool) {
	var text string
	switch t := x.(type) {
	case json.Number:
		text = string(t)
	case string:
		text = strings.TrimSpace(t)
	default:
		v.problem(ErrBadType, key)
		return nil, "", false
	}
	if !refNumberSyntax.MatchString(text) {
		v.problem(ErrBadType, key)
		return nil, "", false
	}
	r, ok := new(big.Rat).SetString(text)
	if !ok {
		panic("big.Rat refuses " + text)
	}
	return r, text, true
}

// whole reads a whole number in [lo, hi].
func (v *refValues) whole(x any, key string, lo, hi int64) *int64 {
	if refUnknown(x) {
		return nil
	}
	r, _, ok := v.number(x, key)
	if !ok {
		return nil
	}
	if !r.IsInt() || r.Num().Cmp(big.NewInt(lo)) < 0 || r.Num().Cmp(big.NewInt(hi)) > 0 {
		v.problem(ErrBadValue, key)
		return nil
	}
	n := r.Num().Int64()
	return &n
}

// The range of a timestamp, in µs: 0000-01-01 to 9999-12-31T23:59:59.999999.
var (
	refMinMicros = big.NewInt(time.Date(0, 1, 1, 0, 0, 0, 0, time.UTC).Unix() * 1e6)
	refMaxMicros = big.NewInt(time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC).Unix()*1e6 - 1)
)

// time reads a timestamp at key of o, in µs.
func (v *refValues) time(o map[string]any, key string) *int64 {
	x := o[key]
	if refUnknown(x) {
		return nil
	}
	if s, ok := x.(string); ok && !refNumberSyntax.MatchString(s) {
		us, ok := refParseTime(s, v.zone)
		if !ok {
			v.problem(ErrBadTimestamp, key)
			return nil
		}
		return &us
	}
	r, text, ok := v.number(x, key)
	if !ok {
		return nil
	}
	unit := int64(1e6) // seconds
	if !strings.ContainsAny(text, ".eE") {
		abs := new(big.Int).Abs(r.Num())
		switch {
		case abs.Cmp(big.NewInt(1e11)) < 0:
		case abs.Cmp(big.NewInt(1e14)) < 0:
			unit = 1e3
		case abs.Cmp(big.NewInt(1e17)) < 0:
			unit = 1
		default:
			r.Quo(r, big.NewRat(1000, 1)) // ns
			unit = 1
		}
	}
	us := refRound(new(big.Rat).Mul(r, new(big.Rat).SetInt64(unit)))
	if us.Cmp(refMinMicros) < 0 || us.Cmp(refMaxMicros) > 0 {
		v.problem(ErrBadTimestamp, key)
		return nil
	}
	n := us.Int64()
	return &n
}

// refRound rounds r to an integer, half away from zero.
func refRound(r *big.Rat) *big.Int {
	q, m := new(big.Int).QuoRem(r.Num(), r.Denom(), new(big.Int))
	if new(big.Int).Mul(new(big.Int).Abs(m), big.NewInt(2)).Cmp(r.Denom()) >= 0 {
		q.Add(q, big.NewInt(int64(r.Num().Sign())))
	}
	return q
}

// refParseTime parses an RFC 3339 timestamp, or a naive one in zone.
func refParseTime(s string, zone *time.Location) (int64, bool) {
	if zone == nil {
		zone = time.UTC
	}
	for _, sep := range []string{"T", " "} {
		for _, offset := range []string{"Z07:00", "Z07"} {
			if t, err := time.Parse("2006-01-02"+sep+"15:04:05"+offset, s); err == nil {
				return refMicros(t), true
			}
		}
		if t, err := time.ParseInLocation("2006-01-02"+sep+"15:04:05", s, zone); err == nil {
			return refMicros(t), true
		}
	}
	return 0, false
}

func refMicros(t time.Time) int64 {
	us := refRound(big.NewRat(int64(t.Nanosecond()), 1000))
	return t.Unix()*1e6 + us.Int64()
}

// refHost is the host[:port] of an API base.
func refHost(base *string) *string {
	if base == nil {
		return nil
	}
	s := strings.TrimSpace(*base)
	if s == "" {
		return nil
	}
	if strings.Contains(s, "://") {
		if u, err := url.Parse(s); err == nil && u.Host != "" {
			return &u.Host
		}
	}
	return &s
}
