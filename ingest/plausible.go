package ingest

import (
	"encoding/json"
	"strconv"
	"time"

	"github.com/tpsreport/tpsreport/ingest/internal/scan"
	"github.com/tpsreport/tpsreport/schemas"
)

// Instants far from any plausible log, such as epoch 0 (a common "unset"),
// year 0001 or 9999, are valid timestamps but not times a request was
// served; one of them makes a run's extent span centuries, and analyze's
// windows with it. Run rejects a span or sample holding one, with the
// reason implausible_time, and warns once per input.
const (
	// plausibleFrom is the first plausible instant: 2000-01-01T00:00:00Z.
	plausibleFrom int64 = 946684800_000000
	// plausibleTo is the first instant after the plausible years:
	// 2101-01-01T00:00:00Z.
	plausibleTo int64 = 4133980800_000000
)

// implausibleSpan returns a reason error when one of sp's instants lies
// outside the years 2000..2100, or nil. Spans whose times do not count from
// the Unix epoch (vllm-bench's, relative to the benchmark) are not checked.
func implausibleSpan(sp *schemas.Span) error {
	if sp.TimeOrigin != nil {
		return nil
	}
	for _, c := range [...]struct {
		name string
		t    *int64
	}{
		{"queued_at", sp.QueuedAt}, {"engine_arrived_at", sp.EngineArrivedAt}, {"admitted_at", sp.AdmittedAt}, {"first_token_at", sp.FirstTokenAt},
		{"last_token_at", sp.LastTokenAt}, {"released_at", sp.ReleasedAt},
	} {
		if c.t != nil && !plausible(*c.t) {
			return implausibleError("span "+strconv.Quote(sp.SpanID), c.name, *c.t)
		}
	}
	return nil
}

// implausibleSample is implausibleSpan for a sample's ts.
func implausibleSample(sm *schemas.Sample) error {
	if plausible(sm.TS) {
		return nil
	}
	what := "sample"
	if sm.Replica != nil {
		what = "sample of replica " + strconv.Quote(*sm.Replica)
	}
	return implausibleError(what, "ts", sm.TS)
}

func plausible(us int64) bool { return plausibleFrom <= us && us < plausibleTo }

func implausibleError(what, column string, us int64) error {
	t := time.UnixMicro(us).UTC().Format(time.RFC3339Nano)
	return scan.Errorf(ErrImplausibleTime, -1, "%s: %s %s is outside the years 2000 to 2100 (an unset clock?)", what, column, t)
}

// implausibleRaw is the raw column of a span or sample rejected for its
// time: the row as it would have been written (it holds no prompt text).
func implausibleRaw(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		return nil
	}
	return b
}

// inputStats is what Run tells about one input once it is read.
type inputStats struct {
	implausible      int64       // records rejected as implausible_time
	firstImplausible *ParseError // the first of them
}

// implausibleRecord turns a span or sample record with an implausible
// instant into a reject of kind implausible_time, and returns its error;
// it returns nil and leaves any other record alone.
func implausibleRecord(rec *Record, file string) *ParseError {
	var err error
	var raw []byte
	switch rec.Kind {
	case KindSpan:
		if err = implausibleSpan(&rec.Span); err != nil {
			raw = implausibleRaw(&rec.Span)
		}
	case KindSample:
		if err = implausibleSample(&rec.Sample); err != nil {
			raw = implausibleRaw(&rec.Sample)
		}
	}
	if err == nil {
		return nil
	}
	rec.Kind = KindReject
	rec.Err = &ParseError{File: file, Line: rec.Line, Err: err}
	rec.Raw = raw
	rec.Span, rec.Sample = schemas.Span{}, schemas.Sample{}
	return rec.Err
}
