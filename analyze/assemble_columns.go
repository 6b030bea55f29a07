package analyze

import (
	"fmt"
	"slices"

	"github.com/parquet-go/parquet-go"
)

// Column types of the columns the join sets, as joined_engine.sql writes
// them (DuckDB writes every column optional).
var (
	timestampNode = parquet.Optional(parquet.Encoded(parquet.Timestamp(parquet.Microsecond), &parquet.DeltaBinaryPacked))
	int64Node     = parquet.Optional(parquet.Encoded(parquet.Int(64), &parquet.DeltaBinaryPacked))
	int32Node     = parquet.Optional(parquet.Encoded(parquet.Int(32), &parquet.DeltaBinaryPacked))
	stringNode    = parquet.Optional(parquet.Encoded(parquet.String(), &parquet.RLEDictionary))
)

// ints is one int64 value per joined row, with whether it is known.
type ints struct {
	v  []int64
	ok []bool
}

func newInts(n int) ints { return ints{v: make([]int64, n), ok: make([]bool, n)} }

func (x ints) clear() { clear(x.ok) }

// readInts reads column name into s (the rows' own values) and e (the values
// of the engine spans that joined, at their gateway span's row).
func (a *assembly) readInts(name string, s, e ints) error {
	s.clear()
	e.clear()
	err := scanInt64s(a.f, name, func(r int, v int64, ok bool) {
		d := a.pos[r]
		if a.eng[r] {
			e.v[d], e.ok[d] = v, ok
		} else {
			s.v[d], s.ok[d] = v, ok
		}
	})
	if err != nil {
		return fmt.Errorf("assemble %s: %w", name, err)
	}
	return nil
}

// strTable numbers the distinct strings of a column from 1.
type strTable struct {
	ids  map[string]uint32
	vals [][]byte
}

func newStrTable() *strTable { return &strTable{ids: map[string]uint32{}, vals: [][]byte{nil}} }

func (t *strTable) id(b []byte) uint32 {
	if id, ok := t.ids[string(b)]; ok {
		return id
	}
	id := uint32(len(t.vals))
	t.ids[string(b)] = id
	t.vals = append(t.vals, slices.Clone(b))
	return id
}

// readStrs reads string column name into s and e, as readInts. A page of a
// dictionary-encoded column holds the indexes of its values in the chunk's
// dictionary: each dictionary entry is numbered once, not each row's bytes.
func (a *assembly) readStrs(name string, s, e []uint32, t *strTable) error {
	clear(s)
	clear(e)
	err := scanStrIDs(a.f, name, t, func(r int, id uint32) {
		if id == 0 {
			return
		}
		if a.eng[r] {
			e[a.pos[r]] = id
		} else {
			s[a.pos[r]] = id
		}
	})
	if err != nil {
		return fmt.Errorf("assemble %s: %w", name, err)
	}
	return nil
}

// coalesce returns the first known of (v1, ok1), (v2, ok2).
func coalesce(v1 int64, ok1 bool, v2 int64, ok2 bool) (int64, bool) {
	if ok1 {
		return v1, true
	}
	return v2, ok2
}

// assembleTimes writes queued_at, engine_arrived_at, admitted_at,
// released_at and gw (joined_engine.sql): a joined span's queued_at is the
// gateway's (else the engine's), its engine_arrived_at the engine's (else
// the engine's queued_at), admitted_at the engine's and released_at the
// engine's (else the gateway's); gw is the gateway's total time minus the
// engine's, the engine's measured from its queued_at, else admitted_at.
func (a *assembly) assembleTimes(w *colWorker) error {
	s, e := w.ints(a.outN)
	eq, gw := newInts(a.outN), newInts(a.outN)
	// queued_at: gw starts as −(gateway's queued_at).
	if err := a.readInts("queued_at", s, e); err != nil {
		return err
	}
	copy(eq.v, e.v)
	copy(eq.ok, e.ok)
	for k := range a.outN {
		gw.v[k], gw.ok[k] = -s.v[k], a.paired[k] && s.ok[k]
	}
	err := writeInts(a.colFile("queued_at"), "queued_at", timestampNode, a.groups, func(k int) (int64, bool) {
		if a.paired[k] {
			return coalesce(s.v[k], s.ok[k], e.v[k], e.ok[k])
		}
		return s.v[k], s.ok[k]
	})
	if err != nil {
		return err
	}
	if err := a.readInts("engine_arrived_at", s, e); err != nil {
		return err
	}
	err = writeInts(a.colFile("engine_arrived_at"), "engine_arrived_at", timestampNode, a.groups, func(k int) (int64, bool) {
		if a.paired[k] {
			return coalesce(e.v[k], e.ok[k], eq.v[k], eq.ok[k])
		}
		return s.v[k], s.ok[k]
	})
	if err != nil {
		return err
	}
	// admitted_at: gw adds the engine's start, its queued_at else admitted_at.
	if err := a.readInts("admitted_at", s, e); err != nil {
		return err
	}
	for k := range a.outN {
		start, ok := coalesce(eq.v[k], eq.ok[k], e.v[k], e.ok[k])
		gw.v[k] += start
		gw.ok[k] = gw.ok[k] && ok
	}
	err = writeInts(a.colFile("admitted_at"), "admitted_at", timestampNode, a.groups, func(k int) (int64, bool) {
		if a.paired[k] {
			return e.v[k], e.ok[k]
		}
		return s.v[k], s.ok[k]
	})
	if err != nil {
		return err
	}
	// released_at: gw adds the gateway's release, less the engine's.
	if err := a.readInts("released_at", s, e); err != nil {
		return err
	}
	for k := range a.outN {
		gw.v[k] += s.v[k] - e.v[k]
		gw.ok[k] = gw.ok[k] && s.ok[k] && e.ok[k]
	}
	err = writeInts(a.colFile("released_at"), "released_at", timestampNode, a.groups, func(k int) (int64, bool) {
		if a.paired[k] {
			return coalesce(e.v[k], e.ok[k], s.v[k], s.ok[k])
		}
		return s.v[k], s.ok[k]
	})
	if err != nil {
		return err
	}
	return writeInts(a.colFile("gw"), "gw", int64Node, a.groups, func(k int) (int64, bool) {
		return gw.v[k], gw.ok[k]
	})
}

// assembleEngineTime writes first_token_at or last_token_at: a joined span's
// is the engine's.
func (a *assembly) assembleEngineTime(name string) func(*colWorker) error {
	return func(w *colWorker) error {
		s, e := w.ints(a.outN)
		if err := a.readInts(name, s, e); err != nil {
			return err
		}
		return writeInts(a.colFile(name), name, timestampNode, a.groups, func(k int) (int64, bool) {
			if a.paired[k] {
				return e.v[k], e.ok[k]
			}
			return s.v[k], s.ok[k]
		})
	}
}

// assembleTokens writes a token count: a joined span's is the engine's,
// else the gateway's.
func (a *assembly) assembleTokens(name string) func(*colWorker) error {
	return func(w *colWorker) error {
		s, e := w.ints(a.outN)
		if err := a.readInts(name, s, e); err != nil {
			return err
		}
		return writeInts(a.colFile(name), name, int64Node, a.groups, func(k int) (int64, bool) {
			if a.paired[k] {
				return coalesce(e.v[k], e.ok[k], s.v[k], s.ok[k])
			}
			return s.v[k], s.ok[k]
		})
	}
}

// assembleResolution writes time_resolution_us: a joined span's is the
// coarser of the two, NULL when both are exact.
func (a *assembly) assembleResolution(w *colWorker) error {
	s, e := w.ints(a.outN)
	if err := a.readInts("time_resolution_us", s, e); err != nil {
		return err
	}
	return writeInts(a.colFile("time_resolution_us"), "time_resolution_us", int32Node, a.groups, func(k int) (int64, bool) {
		if a.paired[k] {
			var r int64
			if s.ok[k] {
				r = s.v[k]
			}
			if e.ok[k] && e.v[k] > r {
				r = e.v[k]
			}
			return r, r != 0
		}
		return s.v[k], s.ok[k]
	})
}

// assembleAttempt writes attempt: the row's own, else join_numbers', else 0
// for a span with a request_id.
func (a *assembly) assembleAttempt(w *colWorker) error {
	s, e := w.ints(a.outN)
	if err := a.readInts("attempt", s, e); err != nil {
		return err
	}
	hasRequest, err := a.requestIDs()
	if err != nil {
		return err
	}
	next := 0
	return writeInts(a.colFile("attempt"), "attempt", int32Node, a.groups, func(k int) (int64, bool) {
		for next < len(a.numbered) && int(a.numbered[next]) < k {
			next++
		}
		if s.ok[k] {
			return s.v[k], true
		}
		if next < len(a.numbered) && int(a.numbered[next]) == k {
			return int64(a.numbers[next]), true
		}
		return 0, hasRequest == nil || hasRequest[k]
	})
}

// requestIDs reports, per joined row, whether its span has a request_id; nil
// when every span has one (the column is required, as ingest writes it).
func (a *assembly) requestIDs() ([]bool, error) {
	if a.fields["request_id"].Required() {
		return nil, nil
	}
	has := make([]bool, a.outN)
	err := scanStrings(a.f, "request_id", func(r int, _ []byte, ok bool) {
		if !a.eng[r] {
			has[a.pos[r]] = ok
		}
	})
	if err != nil {
		return nil, fmt.Errorf("assemble request_id: %w", err)
	}
	return has, nil
}

// assembleSourceReplica writes source and replica. A joined span's source is
// the gateway's and the engine's, joined by +; its replica the engine's, else
// the gateway's, and an unjoined gateway span's replica is renamed
// (join_renames; NULL when its replica has no rename).
func (a *assembly) assembleSourceReplica(w *colWorker) error {
	s, e := w.strs(a.outN)
	t := newStrTable()
	if err := a.readStrs("source", s, e, t); err != nil {
		return err
	}
	isGw := make([]bool, a.outN)
	gateway := make([]bool, len(t.vals))
	for i, v := range t.vals {
		gateway[i] = i > 0 && slices.Contains(a.in.gateway, string(v))
	}
	for k, id := range s {
		isGw[k] = gateway[id]
	}
	joined := map[[2]uint32]uint32{}
	err := writeStrings(a.colFile("source"), "source", a.groups, t, func(k int) uint32 {
		if !a.paired[k] {
			return s[k]
		}
		if s[k] == 0 || e[k] == 0 {
			return 0
		}
		key := [2]uint32{s[k], e[k]}
		id, ok := joined[key]
		if !ok {
			id = t.id(slices.Concat(t.vals[s[k]], []byte("+"), t.vals[e[k]]))
			joined[key] = id
		}
		return id
	})
	if err != nil {
		return err
	}
	t = newStrTable()
	if err := a.readStrs("replica", s, e, t); err != nil {
		return err
	}
	renamed := make([]uint32, len(t.vals))
	for i, v := range t.vals[1:] {
		if r, ok := a.in.renames[string(v)]; ok {
			renamed[1+i] = t.id([]byte(r))
		}
	}
	return writeStrings(a.colFile("replica"), "replica", a.groups, t, func(k int) uint32 {
		switch {
		case a.paired[k] && e[k] != 0:
			return e[k]
		case a.paired[k]:
			return s[k]
		case isGw[k]:
			return renamed[s[k]]
		default:
			return s[k]
		}
	})
}

// assembleEngineString writes model or time_origin: a joined span's is the
// engine's, else the gateway's.
func (a *assembly) assembleEngineString(name string) func(*colWorker) error {
	return func(w *colWorker) error {
		s, e := w.strs(a.outN)
		t := newStrTable()
		if err := a.readStrs(name, s, e, t); err != nil {
			return err
		}
		return writeStrings(a.colFile(name), name, a.groups, t, func(k int) uint32 {
			if a.paired[k] && e[k] != 0 {
				return e[k]
			}
			return s[k]
		})
	}
}
