package ingest

import (
	"encoding/json"

	"github.com/tpsreport/tpsreport/ingest/internal/scan"
	"github.com/tpsreport/tpsreport/schemas"
)

// The stages format is the canonical JSONL input of request stages
// (schemas/README.md "Stages", stages.parquet): one JSON object per line with
// the keys request_id, attempt, stage, role, replica, started_at, ended_at and
// bytes. request_id, stage, started_at and ended_at are required; the
// timestamps take the forms of the spans format. `tpsreport simulate`
// writes it (stages.jsonl) for a disaggregated scenario. It decodes with
// encoding/json: a request has a few stages, and a run of disaggregated
// serving has as many lines as its workers log.

// SourceStages is the source column of stages read in the canonical format.
const SourceStages = "stages"

type stagesReader struct {
	*lineReader
}

var _ Reader = (*stagesReader)(nil)

func newStagesReader(in Input) Reader {
	r := &stagesReader{}
	r.lineReader = newLineReader(in, r.decodeLine)
	return r
}

// stageLine is one canonical stage line; numbers stay raw so that their
// type is checked here and timestamps keep every digit.
type stageLine struct {
	Source    *string         `json:"source"`
	RequestID *string         `json:"request_id"`
	Attempt   json.RawMessage `json:"attempt"`
	Stage     *string         `json:"stage"`
	Role      *string         `json:"role"`
	Replica   *string         `json:"replica"`
	StartedAt json.RawMessage `json:"started_at"`
	EndedAt   json.RawMessage `json:"ended_at"`
	Bytes     json.RawMessage `json:"bytes"`
}

func (r *stagesReader) decodeLine(line []byte, rec *Record) error {
	var l stageLine
	if err := json.Unmarshal(line, &l); err != nil {
		if _, ok := err.(*json.UnmarshalTypeError); ok {
			return scan.Errorf(ErrBadType, -1, "%v", err)
		}
		return scan.Errorf(ErrBadJSON, -1, "%v", err)
	}
	s := &rec.Stage
	*s = schemas.Stage{Source: SourceStages}
	if l.Source != nil && *l.Source != "" {
		s.Source = *l.Source
	}
	if l.RequestID == nil || *l.RequestID == "" {
		return scan.Errorf(ErrMissingField, -1, "missing request_id")
	}
	s.RequestID = *l.RequestID
	if l.Stage == nil {
		return scan.Errorf(ErrMissingField, -1, "missing stage")
	}
	if !schemas.ValidStage(*l.Stage) {
		return scan.Errorf(ErrBadValue, -1, "stage %q: want one of %v", *l.Stage, schemas.Stages)
	}
	s.Stage = *l.Stage
	if l.Role != nil {
		switch {
		case !schemas.ValidWorkerRole(*l.Role):
			return scan.Errorf(ErrBadValue, -1, "role %q: want one of %v", *l.Role, schemas.WorkerRoles)
		case s.Stage == schemas.StageGateway || s.Stage == schemas.StageRouter:
			return scan.Errorf(ErrBadValue, -1, "role %q on a %s stage: only a worker's stages have a role", *l.Role, s.Stage)
		}
		s.Role = l.Role
	}
	if l.Replica != nil && *l.Replica != "" {
		s.Replica = l.Replica
	}
	n, err := sampleCount("attempt", l.Attempt)
	if err != nil {
		return err
	}
	s.Attempt = n
	if s.StartedAt, err = jsonTime("started_at", l.StartedAt); err != nil {
		return err
	}
	if s.EndedAt, err = jsonTime("ended_at", l.EndedAt); err != nil {
		return err
	}
	if s.EndedAt < s.StartedAt {
		return scan.Errorf(ErrBadValue, -1, "ended_at is %d µs before started_at: a stage cannot end before it starts", s.StartedAt-s.EndedAt)
	}
	if len(l.Bytes) > 0 && string(l.Bytes) != "null" {
		if s.Stage != schemas.StageKVTransfer {
			return scan.Errorf(ErrBadValue, -1, "bytes on a %s stage: only a kv_transfer moves bytes", s.Stage)
		}
		var b int64
		if err := json.Unmarshal(l.Bytes, &b); err != nil {
			return scan.Errorf(ErrBadType, -1, "bytes: want a whole number, got %s", l.Bytes)
		}
		if b < 0 {
			return scan.Errorf(ErrBadValue, -1, "bytes %d: a size is never negative", b)
		}
		s.Bytes = &b
	}
	rec.Kind = KindStage
	return nil
}

// stageTime reads a required timestamp of a stage line, in the forms of
// the spans format.
func jsonTime(name string, raw json.RawMessage) (int64, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return 0, scan.Errorf(ErrMissingField, -1, "missing %s", name)
	}
	if raw[0] == '"' {
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return 0, scan.Errorf(ErrBadJSON, -1, "%s: %v", name, err)
		}
		v, err := scan.ParseTimestamp([]byte(s))
		if err != nil {
			return 0, scan.Errorf(ErrBadTimestamp, -1, "%s %q: %v", name, s, err)
		}
		return v, nil
	}
	if !scan.IsNumber(raw) {
		return 0, scan.Errorf(ErrBadType, -1, "%s: want a string or a number, got %s", name, raw)
	}
	v, err := scan.ParseEpoch(raw)
	if err != nil {
		return 0, scan.Errorf(ErrBadTimestamp, -1, "%s %s: %v", name, raw, err)
	}
	return v, nil
}

// sniffStages: 100 when the first non-blank line is an object with stage,
// started_at and ended_at at the top level and no span_id or ts.
func sniffStages(head []byte) int {
	if keys := scan.TopLevelKeys(scan.FirstLine(head)); keys["stage"] && keys["started_at"] && keys["ended_at"] && !keys["span_id"] && !keys["ts"] {
		return 100
	}
	return 0
}
