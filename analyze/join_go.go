//go:build duckdb_arrow

package analyze

import (
	"cmp"
	"fmt"
	"hash/maphash"
	"math"
	"runtime/debug"
	"slices"
	"sort"
	"sync"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/parquet-go/parquet-go"

	"github.com/tpsreport/tpsreport/schemas"
)

// The gateway-engine join's candidates are matched here, in Go, from
// spans.parquet's columns read once, instead of by join_raw, join_match,
// join_solo and join_cand (docs/metrics.md "Gateway and engine"). Those held
// every gateway and engine span's keys and instants as a table (raw_spans,
// about 120 bytes a span in DuckDB's memory, which made join_match spill at
// 10 M spans) and hash-joined the keys; here each key is hashed to 96 bits,
// the keys of each side are sorted by their hashes, and one merge of the two
// sorted lists finds every pair sharing a key (BENCHMARKS.md). What the statements
// after the match read comes back as four tables, streamed through DuckDB's
// Arrow interface:
//
//	join_solo       the pairs whose spans have no other candidate (join_solo.sql);
//	join_cand       the other candidates with their rank keys (join_cand.sql);
//	join_spare      the gateway and engine spans not in join_solo, with the
//	                columns join_unpaired_go and join_renames_go read;
//	join_solo_reps  join_solo's pairs counted by gateway replica and engine
//	                replica, for join_renames_go.
//
// Keys are equal when both hashes are (maphash with two seeds, the second
// cut to 32 bits): two distinct keys pass for one with a chance of 2^-96 a
// pair, 10^-9 over every pair of 10^10 keys, and then only if their spans
// also lie within the time tolerance. TestJoinGoMatchesSQL checks the
// tables against the statements' on runs built to tell them apart.

// matchInGo tells whether this build matches the join in Go: only a build
// with DuckDB's Arrow interface can pass it the tables.
const matchInGo = true

// keyEntry is one join key of one span: the key's two hashes, 96 bits in
// all, and the span's row in spans.parquet; 16 bytes.
type keyEntry struct {
	h1  uint64
	h2  uint32
	row int32
}

// cmpKey orders entries by key, then by row.
func cmpKey(x, y keyEntry) int {
	if c := cmpHashes(x, y); c != 0 {
		return c
	}
	return cmp.Compare(x.row, y.row)
}

// noTime marks an unknown instant in matchSpans' arrays.
const noTime = math.MinInt64

// A span's role (matchRow.role), 0 for neither, and status
// (matchRow.status).
const (
	roleGateway = 1 + iota
	roleEngine
)

const (
	statusOther = iota
	statusOK    // status = 'ok'
	statusNull
)

// matchSpans is what the match reads of spans.parquet, by row: join_raw's
// columns, keys aside.
type matchSpans struct {
	n     int
	span  []matchRow
	first []int64 // first_token_at
	rep   []uint32
	reps  *strTable
	// The keys, each side's sorted (sortKeys).
	gw, en []keyEntry
}

// matchRow is what the merge reads of a span, side by side: the merge
// visits the spans in the order of their keys' hashes, and one cache line a
// span costs less than one an array.
type matchRow struct {
	lo, hi int64 // join_raw's lo and hi (an engine span's t and t_end)
	res    int32 // time_resolution_us, 0 when unknown
	// The role is set before the columns are read on two goroutines, the
	// status by one of them: two fields, so that they never write the
	// same byte.
	role, status uint8
}

// matchCand is a candidate pair: gateway row g, engine row e, and their
// d_order over one key they share.
type matchCand struct {
	g, e, order int32
}

// joinGo matches the join's candidates and stores join_solo, join_cand,
// join_spare and join_solo_reps.
func (a *analysis) joinGo(st *runState) error {
	if st.spans > math.MaxInt32 {
		// Unreached: the condition matched sends every run of more than
		// maxMatchRows rows, far fewer than this, to the statements.
		return fmt.Errorf("analyze join_go: %d spans overflow the row numbers", st.spans)
	}
	// The match's arrays are made once and hold no pointers, so the
	// collector costs little; run often, it keeps the garbage of the reading
	// (pages, the slices' growth) from adding to them.
	defer debug.SetGCPercent(debug.SetGCPercent(10))
	t0 := time.Now()
	m, err := readMatchSpans(st.spansPath)
	if err != nil {
		return fmt.Errorf("analyze join_go: %w", err)
	}
	if int64(m.n) != st.spans {
		return fmt.Errorf("analyze join_go: spans.parquet has %d rows, span_sources counted %d", m.n, st.spans)
	}
	read := time.Since(t0)
	if err := a.ctx.Err(); err != nil {
		return err
	}
	t1 := time.Now()
	cands := m.matchAll(joinToleranceUS)
	p := newPartners(m.n)
	for _, part := range cands {
		for _, c := range part {
			p.add(c.g, c.e)
		}
	}
	amb := ambiguous(cands, p)
	matched := time.Since(t1)

	solo, err := a.storeSolo(p)
	if err != nil {
		return err
	}
	cs := &candStream{m: m, amb: amb}
	if err := a.storeStream(&batchStream{schema: candSchema, next: cs.next}, "join_cand_go", "join_cand_stream"); err != nil {
		return err
	}
	ss := &spareStream{m: m, p: p}
	if err := a.storeStream(&batchStream{schema: spareSchema, next: ss.next}, "join_spare_go", "join_spare_stream"); err != nil {
		return err
	}
	rs := &repsStream{reps: m.reps, recs: m.soloReps(p)}
	if err := a.storeStream(&batchStream{schema: repsSchema, next: rs.next}, "join_reps_go", "join_reps_stream"); err != nil {
		return err
	}
	a.log.Debug("join matched in Go", "rows", m.n, "gateway_keys", len(m.gw), "engine_keys", len(m.en),
		"solo", solo, "cand", len(amb), "spare", ss.spare, "read", read, "match", matched, "store", time.Since(t1)-matched)
	// The arrays (about 80 bytes a row) are garbage now; handed back to the
	// system at once, they do not add to the statements' peak later.
	debug.FreeOSMemory()
	return nil
}

// readMatchSpans reads spans.parquet's matchColumns, two goroutines a half
// of them each, and sorts the keys.
func readMatchSpans(path string) (*matchSpans, error) {
	f, closeFile, err := openParquet(path)
	if err != nil {
		return nil, err
	}
	defer closeFile()
	n := int(f.NumRows())
	m := &matchSpans{n: n, span: make([]matchRow, n), first: make([]int64, n), rep: make([]uint32, n), reps: newStrTable()}
	var nGW, nEN int
	sources := newStrTable()
	var roles []uint8 // by the sources' numbers in sources
	err = scanStrIDs(f, "source", sources, func(r int, id uint32) {
		for int(id) >= len(roles) {
			var role uint8
			// Once a source: the lists are short.
			if b := sources.vals[len(roles)]; b != nil && slices.Contains(gatewaySources, string(b)) {
				role = roleGateway
			} else if b != nil && slices.Contains(engineSources, string(b)) {
				role = roleEngine
			}
			roles = append(roles, role)
		}
		switch roles[id] {
		case roleGateway:
			nGW++
		case roleEngine:
			nEN++
		}
		m.span[r].role = roles[id]
	})
	if err != nil {
		return nil, err
	}
	s1, s2 := maphash.MakeSeed(), maphash.MakeSeed()
	hash := func(k []byte, row int) keyEntry {
		return keyEntry{maphash.Bytes(s1, k), uint32(maphash.Bytes(s2, k)), int32(row)}
	}
	// Sized for a key a span from each id: appending does not leave copies
	// behind, but for the engine's second keys (V1's suffix cut off).
	gw1, gw2, en := make([]keyEntry, 0, nGW), make([]keyEntry, 0, nGW), make([]keyEntry, 0, nEN)
	var errs [2]error
	var wg sync.WaitGroup
	wg.Go(func() {
		// The gateway's span_id (k1), the status and replica, the
		// resolution.
		errs[0] = scanStrings(f, "span_id", func(r int, b []byte, ok bool) {
			if ok && m.span[r].role == roleGateway {
				if k := schemas.JoinKey(b); len(k) > 0 {
					gw1 = append(gw1, hash(k, r))
				}
			}
		})
		if errs[0] == nil {
			statuses := newStrTable()
			okID := statuses.id([]byte("ok"))
			errs[0] = scanStrIDs(f, "status", statuses, func(r int, id uint32) {
				if id == 0 {
					m.span[r].status = statusNull
				} else if id == okID {
					m.span[r].status = statusOK
				}
			})
		}
		if errs[0] == nil {
			errs[0] = scanStrIDs(f, "replica", m.reps, func(r int, id uint32) {
				if m.span[r].role != 0 {
					m.rep[r] = id
				}
			})
		}
		if errs[0] == nil {
			errs[0] = scanInt64s(f, "time_resolution_us", func(r int, v int64, ok bool) {
				if ok {
					// An INT32 column (checkColumns).
					m.span[r].res = int32(v)
				}
			})
		}
	})
	wg.Go(func() {
		// Every span's request_id (the gateway's k2, the engine's k2 and
		// k3), and the instants.
		errs[1] = scanStrings(f, "request_id", func(r int, b []byte, ok bool) {
			fl := m.span[r].role
			if !ok || fl == 0 {
				return
			}
			k := schemas.JoinKey(b)
			if len(k) == 0 {
				return
			}
			if fl == roleGateway {
				gw2 = append(gw2, hash(k, r))
				return
			}
			en = append(en, hash(k, r))
			if k3, ok := schemas.TrimV1Suffix(k); ok && len(k3) > 0 {
				en = append(en, hash(k3, r))
			}
		})
		if errs[1] == nil {
			errs[1] = m.readInstants(f)
		}
	})
	wg.Wait()
	if err := cmp.Or(errs[0], errs[1]); err != nil {
		return nil, err
	}
	// A gateway span whose request_id's key is its span_id's is listed
	// once: sortKeys puts the two entries side by side, and Compact drops
	// one.
	var wg2 sync.WaitGroup
	wg2.Go(func() { m.en = sortKeys(en) })
	m.gw = slices.Compact(sortKeys(gw1, gw2))
	wg2.Wait()
	return m, nil
}

// readInstants reads the five instants into lo, hi and first, in the order
// that lets each column overwrite or fill in the ones before it: lo is
// coalesce(queued_at, admitted_at, first_token_at, released_at) for an engine
// span, hi coalesce(released_at, last_token_at, first_token_at,
// admitted_at, queued_at); a gateway span's lo is coalesce(queued_at,
// released_at), its hi coalesce(released_at, queued_at) (join_raw.sql).
func (m *matchSpans) readInstants(f *parquet.File) error {
	for i := range m.span {
		m.span[i].lo, m.span[i].hi, m.first[i] = noTime, noTime, noTime
	}
	for _, c := range []struct {
		name    string
		gateway bool // the gateway's lo and hi take it too
	}{{"queued_at", true}, {"admitted_at", false}, {"first_token_at", false}, {"last_token_at", false}, {"released_at", true}} {
		last, isFirst := c.name == "last_token_at", c.name == "first_token_at"
		err := scanInt64s(f, c.name, func(r int, v int64, ok bool) {
			if !ok {
				return
			}
			s := &m.span[r]
			if isFirst {
				m.first[r] = v
			}
			if s.role != roleEngine && (s.role != roleGateway || !c.gateway) {
				return
			}
			if !last && s.lo == noTime {
				s.lo = v
			}
			s.hi = v
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// sortBits is how many top bits of h1 pick a key's bucket in sortKeys.
const sortBits = 16

// sortKeys gives the entries of parts in cmpKey order: scattered into
// buckets by the top bits of h1 in one pass, then each bucket (a few hundred
// entries at 10 M spans, which fit in the cache) sorted on its own, on two
// goroutines.
func sortKeys(parts ...[]keyEntry) []keyEntry {
	starts := make([]int, 1<<sortBits+1)
	for _, p := range parts {
		for _, e := range p {
			starts[e.h1>>(64-sortBits)+1]++
		}
	}
	for i := 1; i < len(starts); i++ {
		starts[i] += starts[i-1]
	}
	out := make([]keyEntry, starts[len(starts)-1])
	next := slices.Clone(starts[:len(starts)-1])
	for _, p := range parts {
		for _, e := range p {
			b := e.h1 >> (64 - sortBits)
			out[next[b]] = e
			next[b]++
		}
	}
	var wg sync.WaitGroup
	half := len(next) / 2
	for _, r := range [][2]int{{0, half}, {half, len(next)}} {
		wg.Go(func() {
			for b := r[0]; b < r[1]; b++ {
				slices.SortFunc(out[starts[b]:starts[b+1]], cmpKey)
			}
		})
	}
	wg.Wait()
	return out
}

// keyRun gives the end of the run of entries of s from i that share s[i]'s
// key.
func keyRun(s []keyEntry, i int) int {
	j := i + 1
	for j < len(s) && s[j].h1 == s[i].h1 && s[j].h2 == s[i].h2 {
		j++
	}
	return j
}

// matchAll matches the keys (match) on two goroutines, those whose first
// hash has its top bit clear on one, the others on the other: the merge
// waits on memory more than it computes.
func (m *matchSpans) matchAll(tolerance int64) [2][]matchCand {
	var out [2][]matchCand
	top := func(e keyEntry) bool { return e.h1>>63 != 0 }
	gs, es := sort.Search(len(m.gw), func(i int) bool { return top(m.gw[i]) }), sort.Search(len(m.en), func(i int) bool { return top(m.en[i]) })
	var wg sync.WaitGroup
	wg.Go(func() { out[0] = m.match(m.gw[:gs], m.en[:es], tolerance) })
	out[1] = m.match(m.gw[gs:], m.en[es:], tolerance)
	wg.Wait()
	return out
}

// match merges the two sides' sorted keys gw and en and gives every
// candidate pair (join_match.sql): a gateway span and an engine span sharing
// a key, the engine's arrival within the gateway's [lo, hi] widened by
// tolerance (µs) and the coarser resolution of the two. A pair sharing two
// keys is listed once for each.
func (m *matchSpans) match(gw, en []keyEntry, tolerance int64) []matchCand {
	var out []matchCand
	var gOrder, eOrder []int32
	for i, j := 0, 0; i < len(gw) && j < len(en); {
		if c := cmpHashes(gw[i], en[j]); c != 0 {
			if c < 0 {
				i = keyRun(gw, i)
			} else {
				j = keyRun(en, j)
			}
			continue
		}
		gi, ej := keyRun(gw, i), keyRun(en, j)
		g, e := gw[i:gi], en[j:ej]
		i, j = gi, ej
		if len(g) > 1 || len(e) > 1 {
			gOrder, eOrder = m.arrivalOrder(g, gOrder), m.arrivalOrder(e, eOrder)
		}
		for x, ge := range g {
			gs := &m.span[ge.row]
			if gs.lo == noTime {
				continue
			}
			for y, ee := range e {
				es := &m.span[ee.row]
				w := tolerance + int64(max(gs.res, es.res))
				if t := es.lo; t == noTime || t < gs.lo-w || t > gs.hi+w {
					continue
				}
				var order int32
				if len(g) > 1 || len(e) > 1 {
					order = gOrder[x] - eOrder[y]
					if order < 0 {
						order = -order
					}
				}
				out = append(out, matchCand{g: ge.row, e: ee.row, order: order})
			}
		}
	}
	return out
}

// cmpHashes orders entries by key: their two hashes.
func cmpHashes(x, y keyEntry) int {
	if c := cmp.Compare(x.h1, y.h1); c != 0 {
		return c
	}
	return cmp.Compare(x.h2, y.h2)
}

// arrivalOrder gives each span of a key's run its place in arrival order
// among them (join_cand.sql's row_number() OVER (PARTITION BY k ORDER BY lo,
// idx)), 1 first: by lo, unknown last, then by row.
func (m *matchSpans) arrivalOrder(run []keyEntry, buf []int32) []int32 {
	idx := make([]int, len(run))
	for i := range idx {
		idx[i] = i
	}
	slices.SortFunc(idx, func(x, y int) int {
		a, b := m.span[run[x].row].lo, m.span[run[y].row].lo
		if a != b {
			switch {
			case a == noTime:
				return 1
			case b == noTime:
				return -1
			}
			return cmp.Compare(a, b)
		}
		return cmp.Compare(run[x].row, run[y].row)
	})
	buf = slices.Grow(buf[:0], len(run))[:len(run)]
	for o, i := range idx {
		buf[i] = int32(o + 1)
	}
	return buf
}

// ambiguous gives the candidates whose spans are not in a solo pair, one
// per pair, each with its least d_order over the keys it shares.
func ambiguous(cands [2][]matchCand, p *partners) []matchCand {
	var amb []matchCand
	for _, part := range cands {
		for _, c := range part {
			if !p.solo(c.g) {
				amb = append(amb, c)
			}
		}
	}
	slices.SortFunc(amb, func(x, y matchCand) int {
		return cmp.Or(cmp.Compare(x.g, y.g), cmp.Compare(x.e, y.e), cmp.Compare(x.order, y.order))
	})
	return slices.CompactFunc(amb, func(x, y matchCand) bool { return x.g == y.g && x.e == y.e })
}

// soloReps counts the solo pairs by the gateway span's replica and the
// engine span's, both named.
func (m *matchSpans) soloReps(p *partners) map[[2]uint32]int64 {
	n := map[[2]uint32]int64{}
	for r, s := range m.span {
		if s.role != roleGateway || !p.solo(int32(r)) {
			continue
		}
		g, e := m.rep[r], m.rep[p.partner[r]]
		if g != 0 && e != 0 {
			n[[2]uint32{g, e}]++
		}
	}
	return n
}

// candSchema is join_cand's columns (join_cand.sql).
var candSchema = arrow.NewSchema([]arrow.Field{
	{Name: "gi", Type: arrow.PrimitiveTypes.Int64},
	{Name: "ei", Type: arrow.PrimitiveTypes.Int64},
	{Name: "outside", Type: arrow.FixedWidthTypes.Boolean},
	{Name: "d_end", Type: arrow.PrimitiveTypes.Int64},
	{Name: "d_first", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
	{Name: "d_order", Type: arrow.PrimitiveTypes.Int64},
	{Name: "d_start", Type: arrow.PrimitiveTypes.Int64},
}, nil)

// candStream makes join_cand's batches from the ambiguous candidates.
type candStream struct {
	m   *matchSpans
	amb []matchCand
	at  int
}

func abs64(v int64) int64 {
	if v < 0 {
		return -v
	}
	return v
}

func (s *candStream) next() (arrow.RecordBatch, error) {
	if s.at == len(s.amb) {
		return nil, nil
	}
	b := array.NewRecordBuilder(memory.DefaultAllocator, candSchema)
	defer b.Release()
	gi, ei := b.Field(0).(*array.Int64Builder), b.Field(1).(*array.Int64Builder)
	outside := b.Field(2).(*array.BooleanBuilder)
	dEnd, dFirst, dOrder, dStart := b.Field(3).(*array.Int64Builder), b.Field(4).(*array.Int64Builder),
		b.Field(5).(*array.Int64Builder), b.Field(6).(*array.Int64Builder)
	m := s.m
	end := min(len(s.amb), s.at+soloBatch)
	for _, c := range s.amb[s.at:end] {
		t, lo, hi := m.span[c.e].lo, m.span[c.g].lo, m.span[c.g].hi
		gi.Append(int64(c.g))
		ei.Append(int64(c.e))
		outside.Append(t < lo || t > hi)
		dEnd.Append(abs64(m.span[c.e].hi - hi))
		if f1, f2 := m.first[c.e], m.first[c.g]; f1 != noTime && f2 != noTime {
			dFirst.Append(abs64(f1 - f2))
		} else {
			dFirst.AppendNull()
		}
		dOrder.Append(int64(c.order))
		dStart.Append(abs64(t - lo))
	}
	s.at = end
	return b.NewRecordBatch(), nil
}

// spareSchema is join_spare's columns: join_unpaired's.
var spareSchema = arrow.NewSchema([]arrow.Field{
	{Name: "idx", Type: arrow.PrimitiveTypes.Int64},
	{Name: "is_gw", Type: arrow.FixedWidthTypes.Boolean},
	{Name: "is_en", Type: arrow.FixedWidthTypes.Boolean},
	{Name: "ok", Type: arrow.FixedWidthTypes.Boolean, Nullable: true},
	{Name: "replica", Type: arrow.BinaryTypes.String, Nullable: true},
}, nil)

// spareStream makes join_spare's batches: the gateway and engine spans, in
// row order, that are not in a solo pair.
type spareStream struct {
	m     *matchSpans
	p     *partners
	row   int
	spare int64
}

func (s *spareStream) next() (arrow.RecordBatch, error) {
	m := s.m
	b := array.NewRecordBuilder(memory.DefaultAllocator, spareSchema)
	defer b.Release()
	idx, isGW, isEN := b.Field(0).(*array.Int64Builder), b.Field(1).(*array.BooleanBuilder), b.Field(2).(*array.BooleanBuilder)
	ok, rep := b.Field(3).(*array.BooleanBuilder), b.Field(4).(*array.StringBuilder)
	k := 0
	for ; s.row < m.n && k < soloBatch; s.row++ {
		sp := &m.span[s.row]
		if sp.role == 0 || s.p.solo(int32(s.row)) {
			continue
		}
		idx.Append(int64(s.row))
		isGW.Append(sp.role == roleGateway)
		isEN.Append(sp.role == roleEngine)
		if sp.status == statusNull {
			ok.AppendNull()
		} else {
			ok.Append(sp.status == statusOK)
		}
		if id := m.rep[s.row]; id != 0 {
			rep.BinaryBuilder.Append(m.reps.vals[id])
		} else {
			rep.AppendNull()
		}
		k++
	}
	if k == 0 {
		return nil, nil
	}
	s.spare += int64(k)
	return b.NewRecordBatch(), nil
}

// repsSchema is join_solo_reps' columns.
var repsSchema = arrow.NewSchema([]arrow.Field{
	{Name: "g_rep", Type: arrow.BinaryTypes.String},
	{Name: "e_rep", Type: arrow.BinaryTypes.String},
	{Name: "n", Type: arrow.PrimitiveTypes.Int64},
}, nil)

// repsStream makes join_solo_reps' one batch.
type repsStream struct {
	reps *strTable
	recs map[[2]uint32]int64
	done bool
}

func (s *repsStream) next() (arrow.RecordBatch, error) {
	if s.done || len(s.recs) == 0 {
		return nil, nil
	}
	s.done = true
	b := array.NewRecordBuilder(memory.DefaultAllocator, repsSchema)
	defer b.Release()
	g, e, n := b.Field(0).(*array.StringBuilder), b.Field(1).(*array.StringBuilder), b.Field(2).(*array.Int64Builder)
	for k, v := range s.recs {
		g.BinaryBuilder.Append(s.reps.vals[k[0]])
		e.BinaryBuilder.Append(s.reps.vals[k[1]])
		n.Append(v)
	}
	return b.NewRecordBatch(), nil
}
