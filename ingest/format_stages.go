package ingest

import (
	"math"
	"strconv"

	"github.com/tpsreport/tpsreport/ingest/internal/scan"
	"github.com/tpsreport/tpsreport/schemas"
)

// The stages format is the canonical JSONL input of request stages
// (schemas/README.md "Stages", stages.parquet): one JSON object per line with
// the keys request_id, attempt, stage, role, replica, started_at, ended_at and
// bytes. request_id, stage, started_at and ended_at are required; the
// timestamps take the forms of the spans format. `tpsreport simulate`
// writes it (stages.jsonl) for a disaggregated scenario. A request has
// several stages, so a run has several times as many lines as spans: they
// are read with the JSON scanner, their ids from an arena and their few
// distinct names (source, stage, role, replica) interned, as spans are.

// SourceStages is the source column of stages read in the canonical format.
const SourceStages = "stages"

type stagesReader struct {
	*lineReader
	sc     scan.JSON
	arena  scan.Arena
	intern scan.Interner
	recent [4]scan.RecentStrings // source, stage, role, replica
	day    scan.DayCache
}

var _ Reader = (*stagesReader)(nil)

func newStagesReader(in Input) Reader {
	r := &stagesReader{}
	r.lineReader = newLineReader(in, r.decodeLine)
	return r
}

// stageKey is a key of a stage line.
type stageKey uint8

const (
	kUnknown stageKey = iota
	kSource
	kRequestID
	kAttempt
	kStage
	kRole
	kReplica
	kStartedAt
	kEndedAt
	kBytes
)

func stageKeyOf(key []byte) stageKey {
	switch string(key) { // no allocation: the compiler matches bytes in place
	case "source":
		return kSource
	case "request_id":
		return kRequestID
	case "attempt":
		return kAttempt
	case "stage":
		return kStage
	case "role":
		return kRole
	case "replica":
		return kReplica
	case "started_at":
		return kStartedAt
	case "ended_at":
		return kEndedAt
	case "bytes":
		return kBytes
	}
	return kUnknown
}

var stageKeyNames = [...]string{kSource: "source", kRequestID: "request_id", kAttempt: "attempt", kStage: "stage",
	kRole: "role", kReplica: "replica", kStartedAt: "started_at", kEndedAt: "ended_at", kBytes: "bytes"}

// stageLine is what a line gave, before the checks that need every key.
type stageLine struct {
	started, ended, bytes *int64
	role                  *string
	hasStage              bool
}

func (r *stagesReader) decodeLine(line []byte, rec *Record) error {
	st := &rec.Stage
	*st = schemas.Stage{Source: SourceStages}
	s := &r.sc
	s.Reset(line)
	if err := beginLineObject(s); err != nil {
		return err
	}
	// A syntax error anywhere wins over a field's error, which wins over a
	// missing field; among field errors the leftmost wins.
	var fieldErr error
	var l stageLine
	for first := true; ; first = false {
		key, ok, err := s.NextKey(first)
		if err != nil {
			return err
		}
		if !ok {
			break
		}
		k := stageKeyOf(key)
		if k == kUnknown {
			if err := s.SkipValue(); err != nil {
				return err
			}
			continue
		}
		if err := r.field(k, st, &l); err != nil {
			if isBadJSON(err) {
				return err
			}
			if fieldErr == nil {
				fieldErr = err
			}
		}
	}
	if err := s.Finish(); err != nil {
		return err
	}
	if fieldErr != nil {
		return fieldErr
	}
	return checkStage(st, &l, rec)
}

// checkStage checks what needs every key of the line and completes st.
func checkStage(st *schemas.Stage, l *stageLine, rec *Record) error {
	switch {
	case st.RequestID == "":
		return scan.Errorf(ErrMissingField, -1, "missing request_id")
	case !l.hasStage:
		return scan.Errorf(ErrMissingField, -1, "missing stage")
	case !schemas.ValidStage(st.Stage):
		return scan.Errorf(ErrBadValue, -1, "stage %q: want one of %v", st.Stage, schemas.Stages)
	}
	if l.role != nil {
		switch {
		case !schemas.ValidWorkerRole(*l.role):
			return scan.Errorf(ErrBadValue, -1, "role %q: want one of %v", *l.role, schemas.WorkerRoles)
		case st.Stage == schemas.StageGateway || st.Stage == schemas.StageRouter:
			return scan.Errorf(ErrBadValue, -1, "role %q on a %s stage: only a worker's stages have a role", *l.role, st.Stage)
		}
		st.Role = l.role
	}
	switch {
	case l.started == nil:
		return scan.Errorf(ErrMissingField, -1, "missing started_at")
	case l.ended == nil:
		return scan.Errorf(ErrMissingField, -1, "missing ended_at")
	}
	st.StartedAt, st.EndedAt = *l.started, *l.ended
	if st.EndedAt < st.StartedAt {
		return scan.Errorf(ErrBadValue, -1, "ended_at is %d µs before started_at: a stage cannot end before it starts", st.StartedAt-st.EndedAt)
	}
	if l.bytes != nil {
		if st.Stage != schemas.StageKVTransfer {
			return scan.Errorf(ErrBadValue, -1, "bytes on a %s stage: only a kv_transfer moves bytes", st.Stage)
		}
		st.Bytes = l.bytes
	}
	rec.Kind = KindStage
	return nil
}

// field reads the value of key k at the scanner's position; the value is
// always consumed, even when it is refused, so that decoding can go on
// checking the syntax of the rest of the line.
func (r *stagesReader) field(k stageKey, st *schemas.Stage, l *stageLine) error {
	s := &r.sc
	pos := s.Pos
	switch k {
	case kStartedAt:
		v, err := r.timestamp(k)
		l.started = v
		return err
	case kEndedAt:
		v, err := r.timestamp(k)
		l.ended = v
		return err
	case kAttempt, kBytes:
		v, isNull, err := r.wholeNumber(k)
		switch {
		case err != nil || isNull:
			return err
		case k == kAttempt && (v < 0 || v > math.MaxInt32):
			return scan.Errorf(ErrBadValue, pos, "attempt %d: out of range", v)
		case k == kAttempt:
			st.Attempt = r.arena.Int32(int32(v))
		case v < 0:
			return scan.Errorf(ErrBadValue, pos, "bytes %d: a size is never negative", v)
		default:
			l.bytes = r.arena.Int64(v)
		}
		return nil
	}
	var b []byte
	switch c := s.Class(); c {
	case scan.Null:
		return s.ReadLiteral("null")
	case scan.String:
		var err error
		if b, err = s.ReadString(); err != nil {
			return err
		}
	default:
		if err := s.SkipValue(); err != nil {
			return err
		}
		return scan.Errorf(ErrBadType, pos, "%s: want a string, found %s", stageKeyNames[k], scan.ClassName(c))
	}
	if len(b) == 0 {
		return nil // as absent
	}
	switch k {
	case kRequestID:
		st.RequestID = r.arena.Text(b)
	case kSource:
		st.Source = r.recent[0].Get(b, &r.intern)
	case kStage:
		st.Stage, l.hasStage = r.recent[1].Get(b, &r.intern), true
	case kRole:
		l.role = r.arena.Str(r.recent[2].Get(b, &r.intern))
	case kReplica:
		st.Replica = r.arena.Str(r.recent[3].Get(b, &r.intern))
	}
	return nil
}

// wholeNumber reads an integer value, or null.
func (r *stagesReader) wholeNumber(k stageKey) (v int64, isNull bool, err error) {
	s := &r.sc
	pos := s.Pos
	switch c := s.Class(); c {
	case scan.Null:
		return 0, true, s.ReadLiteral("null")
	case scan.Number:
		num, err := s.ReadNumber()
		if err != nil {
			return 0, false, err
		}
		if v, n, ok := scan.PlainInteger(num); ok && n == len(num) {
			return v, false, nil
		}
		if v, err := strconv.ParseInt(string(num), 10, 64); err == nil {
			return v, false, nil // a negative number, refused by its field
		}
		return 0, false, scan.Errorf(ErrBadType, pos, "%s: want a whole number, got %s", stageKeyNames[k], num)
	default:
		if err := s.SkipValue(); err != nil {
			return 0, false, err
		}
		return 0, false, scan.Errorf(ErrBadType, pos, "%s: want a whole number, got %s", stageKeyNames[k], s.Data[pos:s.Pos])
	}
}

// timestamp reads a stage's instant, an RFC 3339 string or an epoch number
// as the spans format takes them; null is missing.
func (r *stagesReader) timestamp(k stageKey) (*int64, error) {
	s := &r.sc
	pos := s.Pos
	name := stageKeyNames[k]
	switch c := s.Class(); c {
	case scan.String:
		// The common shape first: its bytes need no unescaping, so they are
		// read in place when the closing quote is where it must be.
		if end := s.Pos + 1 + scan.UTCMicrosLen; end < len(s.Data) && s.Data[end] == '"' {
			if us, ok := scan.ParseUTCMicros(s.Data[s.Pos+1:end], &r.day); ok {
				s.Pos = end + 1
				return r.arena.Int64(us), nil
			}
		}
		b, err := s.ReadString()
		if err != nil {
			return nil, err
		}
		us, err := scan.ParseTimestamp(b)
		if err != nil {
			return nil, scan.Errorf(ErrBadTimestamp, pos, "%s %q: %v", name, b, err)
		}
		return r.arena.Int64(us), nil
	case scan.Number:
		num, err := s.ReadNumber()
		if err != nil {
			return nil, err
		}
		us, err := scan.ParseEpoch(num)
		if err != nil {
			return nil, scan.Errorf(ErrBadTimestamp, pos, "%s %s: %v", name, num, err)
		}
		return r.arena.Int64(us), nil
	case scan.Null:
		return nil, s.ReadLiteral("null")
	default:
		if err := s.SkipValue(); err != nil {
			return nil, err
		}
		return nil, scan.Errorf(ErrBadType, pos, "%s: want a string or a number, found %s", name, scan.ClassName(c))
	}
}

// sniffStages: 100 when the first non-blank line is an object with stage,
// started_at and ended_at at the top level and no span_id or ts.
func sniffStages(head []byte) int {
	if keys := scan.TopLevelKeys(scan.FirstLine(head)); keys["stage"] && keys["started_at"] && keys["ended_at"] && !keys["span_id"] && !keys["ts"] {
		return 100
	}
	return 0
}
