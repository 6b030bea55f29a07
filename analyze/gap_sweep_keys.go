package analyze

import (
	"cmp"
	"fmt"
	"math/bits"
	"slices"
)

// The parts of the attribution's sweep in Go (gap_sweep.go) that need no
// Arrow: its sort keys and its slices. A key is the step row's instant's
// offset from its slice's start in the high bits, then its replica (rid) in
// ridBits, then its four steps in the low gapCodeBits, so that a slice's
// keys sort by instant, then replica: the rows of one replica at one
// instant are adjacent, and apply together.

// gapCodeBits is how many low bits of a key hold the steps (gapCode).
const gapCodeBits = 7

// gapCode packs the steps of a row of gap_steps.sql, each −1, 0 or +1: to
// in_flight (di), queue_depth (dq), the engine's queue (de) and the wait at
// the gateway (dg). gapRows makes every row's, of steps of ±1 or 0 only.
func gapCode(di, dq, de, dg int64) uint64 {
	return uint64((di+1)*27 + (dq+1)*9 + (de+1)*3 + (dg + 1))
}

// gapStepOf unpacks a key's steps.
func gapStepOf(key uint64) (di, dq, de, dg int64) {
	c := int64(key & (1<<gapCodeBits - 1))
	return c/27 - 1, c/9%3 - 1, c/3%3 - 1, c%3 - 1
}

// gapKeyBits gives the bits below a key's offset for replicas numbered up
// to maxRid, and the span that cutSlices takes so that the offsets fit
// above them.
func gapKeyBits(maxRid, bucket int64) (low int, span uint64, err error) {
	if maxRid < 0 {
		return 0, 0, fmt.Errorf("a replica numbered %d", maxRid)
	}
	low = bits.Len64(uint64(maxRid)) + gapCodeBits
	room := uint64(1) << (64 - low)
	if bucket <= 0 || uint64(bucket) >= room {
		return 0, 0, fmt.Errorf("bins of %d µs: the attribution's keys hold offsets below %d µs beside %d replicas", bucket, room, maxRid)
	}
	return low, room - uint64(bucket), nil
}

// gapBins gives the bins of pool_sweep_bins (bin, steps, arrivals) with
// the count that bounds the attribution's rows in each: a row of
// gap_steps.sql is one of span_steps' at the same instant with an engine
// arrival's step added, or an engine arrival strictly inside a wait.
func gapBins(bins [][3]int64) [][2]int64 {
	out := make([][2]int64, len(bins))
	for i, b := range bins {
		out[i] = [2]int64{b[0], b[1] + b[2]}
	}
	return out
}

// stepBins gives the bins with the pool's steps alone.
func stepBins(bins [][3]int64) [][2]int64 {
	out := make([][2]int64, len(bins))
	for i, b := range bins {
		out[i] = [2]int64{b[0], b[1]}
	}
	return out
}

// replicaGroup is a row of replica_segments: a replica's segments of one
// in_flight (inf), queued or not, their lengths within the run's extent
// summed (length; none when every one lies outside) and weighted by
// queue_depth (lenQd, 128 bits: hi, lo).
type replicaGroup struct {
	rid     int32
	inf     int64
	queued  bool
	seen    bool // some segment is in the group
	inside  bool
	length  int64
	lenQdHi uint64
	lenQdLo uint64
}

// groupKey is what replica_segments groups by.
type groupKey struct {
	rid    int32
	inf    int64
	queued bool
}

// maxGroupInf bounds the in_flight whose groups replicaGroups keeps in
// arrays indexed by it; a larger one, never seen at a real cap, goes to a
// map.
const maxGroupInf = 1 << 16

// replicaGroups sums a replica's segments as replica_segments.sql does.
// The sweep adds every segment of every replica, so the groups are arrays
// by replica, queued or not and in_flight: a map's lookups were a third of
// the sweep (BENCHMARKS.md, "The figures behind the code").
type replicaGroups struct {
	t0, t1 int64
	byRid  [][2][]replicaGroup // [rid][queued][inf]; rid 0 unused
	other  map[groupKey]*replicaGroup
}

func newReplicaGroups(t0, t1 int64, replicas int) *replicaGroups {
	return &replicaGroups{t0: t0, t1: t1, byRid: make([][2][]replicaGroup, replicas+1), other: map[groupKey]*replicaGroup{}}
}

// group gives the group of replica rid's segments of inf, queued or not.
func (g *replicaGroups) group(rid int32, inf int64, queued bool) *replicaGroup {
	if inf < 0 || inf >= maxGroupInf || rid < 0 || int(rid) >= len(g.byRid) {
		k := groupKey{rid, inf, queued}
		s := g.other[k]
		if s == nil {
			s = &replicaGroup{rid: rid, inf: inf, queued: queued, seen: true}
			g.other[k] = s
		}
		return s
	}
	q := 0
	if queued {
		q = 1
	}
	row := g.byRid[rid][q]
	if int(inf) >= len(row) {
		row = append(row, make([]replicaGroup, int(inf)+1-len(row))...)
		g.byRid[rid][q] = row
	}
	s := &row[inf]
	if !s.seen {
		*s = replicaGroup{rid: rid, inf: inf, queued: queued, seen: true}
	}
	return s
}

// add adds replica rid's segment [lo, hi) of inf and qd, one of which is
// not 0.
func (g *replicaGroups) add(rid int32, lo, hi, inf, qd int64) {
	s := g.group(rid, inf, qd > 0)
	if hi <= g.t0 || lo >= g.t1 {
		return
	}
	n := min(hi, g.t1) - max(lo, g.t0)
	s.inside = true
	s.length += n
	// n and qd are not negative: the product is unsigned, and the sum
	// takes 128 bits as DuckDB's HUGEINT sum does.
	h, l := bits.Mul64(uint64(n), uint64(qd))
	var c uint64
	s.lenQdLo, c = bits.Add64(s.lenQdLo, l, 0)
	s.lenQdHi += h + c
}

// rows gives the groups in order of replica, in_flight, then queued.
func (g *replicaGroups) rows() []replicaGroup {
	var out []replicaGroup
	for _, q := range g.byRid {
		for _, row := range q {
			for _, s := range row {
				if s.seen {
					out = append(out, s)
				}
			}
		}
	}
	for _, s := range g.other {
		out = append(out, *s)
	}
	slices.SortFunc(out, func(x, y replicaGroup) int {
		return cmp.Or(cmp.Compare(x.rid, y.rid), cmp.Compare(x.inf, y.inf), boolCompare(x.queued, y.queued))
	})
	return out
}

func boolCompare(x, y bool) int {
	switch {
	case x == y:
		return 0
	case x:
		return 1
	}
	return -1
}

// gapStep is a row of gap_steps.sql: its instant and its steps (gapCode).
type gapStep struct {
	at   int64
	code uint64
}

// gapInstants is what gapRows reads of a span: queued_at, engine_arrived_at,
// admitted_at and released_at in µs, each with whether it is known (not
// NULL).
type gapInstants struct {
	q, e, a, r     int64
	hq, he, ha, hr bool
}

// gapRows appends the span's rows of gap_steps.sql to out: the same rows
// as the SQL, NULLs as SQL compares them (TestGapRowsMatchSQL). The
// comparisons below are gap_steps.sql's conditions: q < a (a wait), a <= r
// (a time in flight), loc (the arrival within the wait).
func gapRows(out []gapStep, s gapInstants) []gapStep {
	waits := s.hq && s.ha && s.q < s.a
	runs := s.ha && s.hr && s.a <= s.r
	if !waits && !runs {
		return out
	}
	loc := waits && s.he && s.q <= s.e && s.e <= s.a
	b := func(c bool) int64 {
		if c {
			return 1
		}
		return 0
	}
	if waits {
		out = append(out, gapStep{s.q, gapCode(0, 1, b(loc && s.e == s.q), b(loc && s.q < s.e))})
	}
	if loc && s.q < s.e && s.e < s.a {
		out = append(out, gapStep{s.e, gapCode(0, 0, 1, -1)})
	}
	out = append(out, gapStep{s.a, gapCode(b(runs), -b(waits), -b(loc && s.e < s.a), -b(loc && s.e == s.a))})
	if runs {
		out = append(out, gapStep{s.r, gapCode(-1, 0, 0, 0)})
	}
	return out
}

// gapFiles are the attribution's steps filed by slice for its sweep: the
// files, the keys' bits below the offset (low), the pool's replicas (by
// rid), and the most rows the bins allow (bound).
type gapFiles struct {
	files  *stepFiles
	low    int
	inPool []bool
	bound  int64
}

// add files a span's rows of gap_steps.sql when its replica is the pool's.
func (g *gapFiles) add(rid int32, steps []gapStep) error {
	if rid < 0 || int(rid) >= len(g.inPool) {
		return fmt.Errorf("a span of replica %d, beyond the %d counted", rid, len(g.inPool)-1)
	}
	if !g.inPool[rid] {
		return nil
	}
	for _, st := range steps {
		if err := g.files.addKey(st.at, uint64(rid)<<gapCodeBits|st.code); err != nil {
			return err
		}
	}
	return nil
}

// check: a row is one of the pool's steps or an engine arrival's, so the
// bins bound the rows filed.
func (g *gapFiles) check() error {
	var n int64
	for _, c := range g.files.counts {
		n += c
	}
	if n > g.bound {
		return fmt.Errorf("analyze pool_sweep_spans: filed %d of the attribution's steps, the bins counted at most %d", n, g.bound)
	}
	return nil
}
