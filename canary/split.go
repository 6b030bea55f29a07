// Package canary makes a canary comparison's data (docs/acceptance.md
// "Canary comparisons"): it splits one run's spans and engine samples into
// the replicas of two groups, the canary (the candidate) and the replicas it
// is compared with (the baseline), one run dataset per replica, so that each
// replica is analysed alone over the same windows as every other and
// compare can pair the groups window by window. Each replica alone, rather
// than each group as one pool, because a group's backlog windows would
// otherwise depend on its size: a pool of three replicas is backlogged
// whenever any one of them is, a canary of one only when it is.
//
// It is pure Go: the callers analyse the datasets (analyze.Run over
// Split.From to Split.To) and compare them (compare.EvaluateCanary).
package canary

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/parquet-go/parquet-go"

	"github.com/tpsreport/tpsreport/internal/dataset"
	"github.com/tpsreport/tpsreport/schemas"
)

// Group names: the directories under Split's destination.
const (
	GroupCandidate = "candidate"
	GroupBaseline  = "baseline"
)

// Group is one side of a canary comparison: its replicas, each a run
// dataset of its own.
type Group struct {
	Selectors []string // as given; none for a baseline of every other replica
	Replicas  []string // sorted
	Dirs      []string // the dataset of each replica, in the order of Replicas
	// Pool is the dataset of the group's replicas together, written when
	// SplitRun is asked for pools: the group as one pool, for a report's
	// charts of the groups side by side.
	Pool    string
	Spans   int64
	Samples int64
}

// Split is what SplitRun wrote.
type Split struct {
	Run       string // the run's id
	Candidate Group
	Baseline  Group
	// Unassigned counts the spans in neither group; NoReplica of them name
	// no replica (a gateway's rejections, which no replica served).
	Unassigned, NoReplica int64
	// UnassignedSamples counts the engine samples of replicas in neither group.
	UnassignedSamples int64
	// Renamed maps a gateway's name of a replica (its upstream host:port)
	// to the engine's, under which its spans were filed.
	Renamed map[string]string
	// From and To are the run's extent: every replica is analysed over it,
	// so that all of them have the same windows.
	From, To time.Time
}

// ErrSelection marks an error of the selectors against the run: they pick
// no span, or every span, or spans for both groups. A nightly job reports
// it rather than losing the night.
var ErrSelection = errors.New("canary: the selectors do not make two groups of this run")

// selectionError is an ErrSelection with what the run holds.
type selectionError struct{ msg string }

func (e *selectionError) Error() string        { return e.msg }
func (e *selectionError) Is(target error) bool { return target == ErrSelection }

// rowGroupRows bounds a row group of the datasets written: a writer holds
// one in memory, and the split writes every replica's at once.
const rowGroupRows = 64 << 10

// SplitRun reads the run dataset in src and writes, under dst (which must
// not exist), one dataset for each replica of each group: dst/candidate/NAME
// and dst/baseline/NAME; with pools, also each group's replicas together,
// dst/candidate.pool and dst/baseline.pool. The candidate is the spans every selector of cand
// matches; the baseline those every selector of base matches, or, with no
// base, every other span that names a replica. A span that both select is
// an error: the groups must be apart.
func SplitRun(ctx context.Context, src, dst string, cand, base []Selector, pools bool) (*Split, error) {
	if len(cand) == 0 {
		return nil, errors.New("canary: no selector for the canary")
	}
	man, err := readManifest(src)
	if err != nil {
		return nil, err
	}
	if err := dataset.Verify(src, &man, "Try: ingest it again", schemas.SpansFile, schemas.SamplesFile); err != nil {
		return nil, err
	}
	spansPath := filepath.Join(src, schemas.SpansFile)
	sc, err := scan(ctx, spansPath)
	if err != nil {
		return nil, err
	}
	if sc.durations > 0 {
		return nil, fmt.Errorf("%s: %d spans carry durations only (no instants): a canary is compared window by window over the same time, which such spans do not have", spansPath, sc.durations)
	}
	if !sc.timed {
		return nil, fmt.Errorf("%s: no span has a time: a canary is compared window by window", spansPath)
	}
	sp := &Split{Run: man.RunID, Renamed: sc.renamed,
		From: time.UnixMicro(sc.t0).UTC(), To: time.UnixMicro(sc.t1).UTC(),
		Candidate: Group{Selectors: Texts(cand)}, Baseline: Group{Selectors: Texts(base)}}
	if sp.Run == "" {
		sp.Run = sc.runID
	}
	if err := os.MkdirAll(filepath.Dir(dst), 0o777); err != nil {
		return nil, err
	}
	if err := os.Mkdir(dst, 0o777); err != nil {
		return nil, fmt.Errorf("canary: %w", err)
	}
	w := &writers{dst: dst, open: map[key]*replicaSet{}, pools: pools}
	defer w.abort()
	if err := sp.spans(ctx, spansPath, sc, cand, base, w); err != nil {
		return nil, err
	}
	if sp.Candidate.Spans == 0 {
		return nil, &selectionError{fmt.Sprintf("canary: the selectors %s match no span of run %s; its replicas are %s",
			strings.Join(Texts(cand), " "), sp.Run, listed(sc.replicas))}
	}
	if sp.Baseline.Spans == 0 {
		return nil, &selectionError{fmt.Sprintf("canary: no span is left for the baseline of run %s (its replicas are %s): a canary is compared with other replicas over the same time",
			sp.Run, listed(sc.replicas))}
	}
	if err := sp.samples(ctx, filepath.Join(src, schemas.SamplesFile), w); err != nil {
		return nil, err
	}
	if err := w.close(man, sp); err != nil {
		return nil, err
	}
	return sp, nil
}

// listed writes names for a message, at most eight of them.
func listed(names []string) string {
	if len(names) == 0 {
		return "none (no span names a replica)"
	}
	if len(names) > 8 {
		return strings.Join(names[:8], ", ") + fmt.Sprintf(" and %d more", len(names)-8)
	}
	return strings.Join(names, ", ")
}

// scanned is what the first pass over the spans learns.
type scanned struct {
	runID     string
	timed     bool
	t0, t1    int64 // the run's extent, µs (analyze's extent.sql)
	durations int64 // spans with durations only
	renamed   map[string]string
	replicas  []string // as filed, sorted
}

// scan reads the spans once for the run's extent and the engines' replica
// names, under which a gateway's spans of the same host are filed: a
// gateway names its upstream host:port (LiteLLM's api_base, Kong's and
// Envoy's upstream), an engine itself, and the gateway-engine join needs
// both of a request's spans in one dataset. A gateway replica of no
// engine's name, by host either, is filed by the requests it shares with
// one (learnRenames).
func scan(ctx context.Context, path string) (*scanned, error) {
	sc := &scanned{t0: math.MaxInt64, t1: math.MinInt64, renamed: map[string]string{}}
	engines := map[string]bool{}
	gateways := map[string]bool{}
	all := map[string]bool{}
	engineSrc, gatewaySrc := schemas.SourcesOf(schemas.RoleEngine), schemas.SourcesOf(schemas.RoleGateway)
	err := eachSpan(ctx, path, func(s *schemas.Span) {
		if sc.runID == "" {
			sc.runID = s.RunID
		}
		if s.TimeOrigin != nil && *s.TimeOrigin == schemas.TimeOriginRequest {
			sc.durations++
		}
		if lo, hi, ok := instants(s); ok {
			sc.timed = true
			sc.t0, sc.t1 = min(sc.t0, lo), max(sc.t1, hi)
		}
		if s.Replica == nil || *s.Replica == "" {
			return
		}
		switch {
		case slices.Contains(engineSrc, s.Source):
			engines[*s.Replica] = true
		case slices.Contains(gatewaySrc, s.Source):
			gateways[*s.Replica] = true
		default:
			all[*s.Replica] = true
		}
	})
	if err != nil {
		return nil, err
	}
	var unnamed []string // gateway names no engine has, by host either
	for g := range gateways {
		switch h := host(g); {
		case engines[g]:
		case h != g && engines[h]:
			sc.renamed[g] = h
		default:
			unnamed = append(unnamed, g)
		}
	}
	if len(unnamed) > 0 && len(engines) > 0 {
		if err := sc.learnRenames(ctx, path, unnamed); err != nil {
			return nil, err
		}
	}
	for _, set := range []map[string]bool{engines, gateways, all} {
		for r := range set {
			r = sc.file(r)
			if !slices.Contains(sc.replicas, r) {
				sc.replicas = append(sc.replicas, r)
			}
		}
	}
	slices.Sort(sc.replicas)
	return sc, nil
}

// learnRenames files the spans of gateway replicas whose names no engine
// has (Kong's and Envoy's upstream address against the engines' pod names)
// under the engine replica that most of their requests reached, by the
// join's keys (schemas.JoinKey): a gateway span's span_id or request_id is
// an engine span's request_id, or that id without vLLM V1's internal
// suffix. A
// gateway replica whose requests went to no one engine replica for the
// most part keeps its own name.
func (sc *scanned) learnRenames(ctx context.Context, path string, unnamed []string) error {
	engineSrc, gatewaySrc := schemas.SourcesOf(schemas.RoleEngine), schemas.SourcesOf(schemas.RoleGateway)
	want := map[string]bool{}
	for _, g := range unnamed {
		want[g] = true
	}
	engineOf := map[string]string{} // join key → engine replica
	type gwSpan struct{ keys [2]string }
	spans := map[string][]gwSpan{} // gateway replica → its spans' keys
	err := eachSpan(ctx, path, func(s *schemas.Span) {
		if s.Replica == nil {
			return
		}
		switch {
		case slices.Contains(engineSrc, s.Source):
			k := schemas.JoinKey([]byte(s.RequestID))
			engineOf[string(k)] = *s.Replica
			if t, ok := schemas.TrimV1Suffix(k); ok && len(t) > 0 {
				engineOf[string(t)] = *s.Replica
			}
		case slices.Contains(gatewaySrc, s.Source) && want[*s.Replica]:
			spans[*s.Replica] = append(spans[*s.Replica], gwSpan{[2]string{string(schemas.JoinKey([]byte(s.SpanID))), string(schemas.JoinKey([]byte(s.RequestID)))}})
		}
	})
	if err != nil {
		return err
	}
	for g, ss := range spans {
		count := map[string]int{}
		for _, sp := range ss {
			for _, k := range sp.keys {
				if e, ok := engineOf[k]; ok && k != "" {
					count[e]++
					break
				}
			}
		}
		best, n := "", 0
		for e, c := range count {
			if c > n || c == n && e < best {
				best, n = e, c
			}
		}
		if 2*n > len(ss) {
			sc.renamed[g] = best
		}
	}
	return nil
}

// file is the name a span of replica r is filed under.
func (sc *scanned) file(r string) string {
	if e, ok := sc.renamed[r]; ok {
		return e
	}
	return r
}

// instants are a span's first and last instants as analyze's run extent
// takes them (docs/metrics.md "Run extent"): the first of queued_at,
// admitted_at, first_token_at, last_token_at, released_at that is set, and
// the first of them in the reverse order; false when none is.
func instants(s *schemas.Span) (lo, hi int64, ok bool) {
	lo, ok = first(s.QueuedAt, s.AdmittedAt, s.FirstTokenAt, s.LastTokenAt, s.ReleasedAt)
	hi, _ = first(s.ReleasedAt, s.LastTokenAt, s.FirstTokenAt, s.AdmittedAt, s.QueuedAt)
	return lo, hi, ok
}

// first is the first of ts that is set.
func first(ts ...*int64) (int64, bool) {
	for _, t := range ts {
		if t != nil {
			return *t, true
		}
	}
	return 0, false
}

// host is name without a trailing :port (and the brackets of an IPv6
// address); name itself when it has none.
func host(name string) string {
	i := strings.LastIndexByte(name, ':')
	if i <= 0 || i == len(name)-1 {
		return name
	}
	if _, err := strconv.ParseUint(name[i+1:], 10, 16); err != nil {
		return name
	}
	h := name[:i]
	if strings.HasPrefix(h, "[") && strings.HasSuffix(h, "]") {
		h = h[1 : len(h)-1]
	}
	return h
}

// spans files every span under its group and replica.
func (sp *Split) spans(ctx context.Context, path string, sc *scanned, cand, base []Selector, w *writers) error {
	var werr error
	err := eachSpan(ctx, path, func(s *schemas.Span) {
		if werr != nil {
			return
		}
		r := ""
		if s.Replica != nil {
			r = sc.file(*s.Replica)
		}
		if r == "" {
			sp.Unassigned++
			sp.NoReplica++
			return
		}
		inCand := matchAll(cand, r, s)
		inBase := !inCand
		if len(base) > 0 {
			inBase = matchAll(base, r, s)
			if inCand && inBase {
				werr = &selectionError{fmt.Sprintf("canary: a span of replica %s (model %s) is selected by both groups (%s and %s): the groups must be apart",
					r, deref(s.Model), strings.Join(Texts(cand), " "), strings.Join(Texts(base), " "))}
				return
			}
		}
		g := &sp.Baseline
		k := key{GroupBaseline, r}
		switch {
		case inCand:
			g, k = &sp.Candidate, key{GroupCandidate, r}
		case !inBase:
			sp.Unassigned++
			return
		}
		g.Spans++
		keys := []key{k}
		if w.pools {
			keys = append(keys, key{k.group, ""})
		}
		for _, k := range keys {
			rs, err := w.get(k)
			if err != nil {
				werr = err
				return
			}
			if err := rs.addSpan(s); err != nil {
				werr = err
				return
			}
			if lo, hi, ok := instants(s); ok {
				rs.t0, rs.t1 = min(rs.t0, lo), max(rs.t1, hi)
			}
		}
	})
	if err != nil {
		return err
	}
	return werr
}

// samples gives every engine sample to the datasets of its replica. A run
// without samples.parquet has none.
func (sp *Split) samples(ctx context.Context, path string, w *writers) error {
	if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	var werr error
	err := eachRow(ctx, path, func(s *schemas.Sample) {
		if werr != nil {
			return
		}
		placed := false
		if s.Replica != nil {
			for _, g := range []string{GroupCandidate, GroupBaseline} {
				rs, ok := w.open[key{g, *s.Replica}]
				if !ok {
					continue
				}
				placed = true
				if g == GroupCandidate {
					sp.Candidate.Samples++
				} else {
					sp.Baseline.Samples++
				}
				for _, rs := range []*replicaSet{rs, w.open[key{g, ""}]} {
					if rs == nil {
						continue
					}
					if err := rs.addSample(*s); err != nil {
						werr = err
						return
					}
				}
			}
		}
		if !placed {
			sp.UnassignedSamples++
		}
	})
	if err != nil {
		return err
	}
	return werr
}

// eachSpan calls fn for every span of the Parquet file at path, in order.
func eachSpan(ctx context.Context, path string, fn func(*schemas.Span)) error {
	return eachRow(ctx, path, fn)
}

// eachRow calls fn for every row of the Parquet file at path, in order.
func eachRow[T any](ctx context.Context, path string, fn func(*T)) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return err
	}
	pf, err := parquet.OpenFile(f, st.Size())
	if err != nil {
		return fmt.Errorf("canary: read %s: %w", path, err)
	}
	r := parquet.NewGenericReader[T](pf)
	defer r.Close()
	buf := make([]T, batch)
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		n, err := r.Read(buf)
		for i := range buf[:n] {
			fn(&buf[i])
		}
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("canary: read %s: %w", path, err)
		}
	}
}

func deref(s *string) string {
	if s == nil {
		return "none"
	}
	return *s
}

// key names one dataset: a group's replica, or with no replica the
// group's pool.
type key struct{ group, replica string }

// replicaSet is one replica's dataset being written.
type replicaSet struct {
	dir                  string
	replica              string
	spansFile, sampFile  *os.File
	spans                *parquet.GenericWriter[schemas.Span]
	samples              *parquet.GenericWriter[schemas.Sample]
	spanBuf              []schemas.Span   // rows not yet handed to spans
	sampleBuf            []schemas.Sample // rows not yet handed to samples
	nSpans, nSamples     int64
	t0, t1               int64
	spansDone, sampsDone bool
}

// writers are the datasets of a split, opened as their first span comes.
type writers struct {
	dst   string
	pools bool
	open  map[key]*replicaSet
	used  map[string]bool // directory names taken
}

func (w *writers) get(k key) (*replicaSet, error) {
	if rs, ok := w.open[k]; ok {
		return rs, nil
	}
	if w.used == nil {
		w.used = map[string]bool{}
	}
	name := dirName(k.replica)
	for i := 2; w.used[k.group+"/"+name]; i++ {
		name = dirName(k.replica) + "-" + strconv.Itoa(i)
	}
	w.used[k.group+"/"+name] = true
	dir := filepath.Join(w.dst, k.group, name)
	if k.replica == "" {
		dir = filepath.Join(w.dst, k.group+".pool")
	}
	if err := os.MkdirAll(dir, 0o777); err != nil {
		return nil, fmt.Errorf("canary: %w", err)
	}
	rs := &replicaSet{dir: dir, replica: k.replica, t0: math.MaxInt64, t1: math.MinInt64}
	var err error
	if rs.spansFile, err = os.Create(filepath.Join(dir, schemas.SpansFile)); err != nil {
		return nil, fmt.Errorf("canary: %w", err)
	}
	if rs.sampFile, err = os.Create(filepath.Join(dir, schemas.SamplesFile)); err != nil {
		rs.spansFile.Close()
		return nil, fmt.Errorf("canary: %w", err)
	}
	opts := []parquet.WriterOption{parquet.Compression(&parquet.Zstd), parquet.MaxRowsPerRowGroup(rowGroupRows)}
	rs.spans = parquet.NewGenericWriter[schemas.Span](rs.spansFile, opts...)
	rs.samples = parquet.NewGenericWriter[schemas.Sample](rs.sampFile, opts...)
	w.open[k] = rs
	return rs, nil
}

// dirName is a replica's name as a directory name: its letters, digits,
// dots, dashes and underscores, the rest as '_'.
func dirName(replica string) string {
	b := []byte(replica)
	for i, c := range b {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '-' || c == '_') {
			b[i] = '_'
		}
	}
	s := string(b)
	if s == "" || s == "." || s == ".." || strings.HasPrefix(s, ".") {
		s = "_" + s
	}
	return s
}

// close finishes every dataset with its manifest (the source's, with this
// replica's counts, time range, cap and files) and lists them in sp.
func (w *writers) close(src schemas.Manifest, sp *Split) error {
	keys := make([]key, 0, len(w.open))
	for k := range w.open {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b key) int { return strings.Compare(a.group+"\x00"+a.replica, b.group+"\x00"+b.replica) })
	for _, k := range keys {
		rs := w.open[k]
		if err := rs.finish(); err != nil {
			return err
		}
		g := &sp.Baseline
		if k.group == GroupCandidate {
			g = &sp.Candidate
		}
		m := src
		m.RunID = sp.Run + " " + rs.replica
		if k.replica == "" {
			m.RunID = sp.Run + " " + map[string]string{GroupCandidate: "canary", GroupBaseline: "baseline"}[k.group]
		}
		m.Counts = schemas.Counts{Read: rs.nSpans, Written: rs.nSpans}
		m.RejectedBy, m.SkippedBy, m.Ignored, m.Replaced = map[string]int64{}, map[string]int64{}, nil, ""
		m.SamplesWritten = rs.nSamples
		m.TimeRange = nil
		if rs.t0 <= rs.t1 {
			m.TimeRange = &schemas.TimeRange{Start: time.UnixMicro(rs.t0).UTC(), End: time.UnixMicro(rs.t1).UTC()}
		}
		if k.replica != "" {
			m.MaxNumSeqs, m.MaxNumSeqsBy = nil, nil
			if c, ok := src.MaxNumSeqsBy[rs.replica]; ok {
				m.MaxNumSeqs, m.MaxNumSeqsBy = &c, map[string]int64{rs.replica: c}
			} else if len(src.MaxNumSeqsBy) == 0 && src.MaxNumSeqs != nil {
				m.MaxNumSeqs = src.MaxNumSeqs
			}
		}
		files, err := dataset.DescribeAll(rs.dir, schemas.SpansFile, schemas.SamplesFile)
		if err != nil {
			return err
		}
		m.Files = files
		b, err := json.MarshalIndent(m, "", "  ")
		if err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(rs.dir, schemas.ManifestFile), append(b, '\n'), 0o666); err != nil {
			return fmt.Errorf("canary: %w", err)
		}
		if k.replica == "" {
			g.Pool = rs.dir
			continue
		}
		g.Replicas = append(g.Replicas, rs.replica)
		g.Dirs = append(g.Dirs, rs.dir)
	}
	w.open = nil
	return nil
}

// batch is how many rows a dataset's writer gets at once: one row a call
// costs the writer as much again as the row.
const batch = 1024

func (rs *replicaSet) addSpan(s *schemas.Span) error {
	rs.spanBuf = append(rs.spanBuf, *s)
	rs.nSpans++
	if len(rs.spanBuf) < batch {
		return nil
	}
	return rs.flushSpans()
}

func (rs *replicaSet) flushSpans() error {
	if _, err := rs.spans.Write(rs.spanBuf); err != nil {
		return fmt.Errorf("canary: write %s: %w", rs.dir, err)
	}
	rs.spanBuf = rs.spanBuf[:0]
	return nil
}

func (rs *replicaSet) addSample(s schemas.Sample) error {
	rs.sampleBuf = append(rs.sampleBuf, s)
	rs.nSamples++
	if len(rs.sampleBuf) < batch {
		return nil
	}
	return rs.flushSamples()
}

func (rs *replicaSet) flushSamples() error {
	if _, err := rs.samples.Write(rs.sampleBuf); err != nil {
		return fmt.Errorf("canary: write %s: %w", rs.dir, err)
	}
	rs.sampleBuf = rs.sampleBuf[:0]
	return nil
}

func (rs *replicaSet) finish() error {
	if !rs.spansDone {
		rs.spansDone = true
		if err := rs.flushSpans(); err != nil {
			return err
		}
		if err := rs.spans.Close(); err != nil {
			return fmt.Errorf("canary: write %s: %w", rs.dir, err)
		}
		if err := rs.spansFile.Close(); err != nil {
			return fmt.Errorf("canary: write %s: %w", rs.dir, err)
		}
	}
	if !rs.sampsDone {
		rs.sampsDone = true
		if err := rs.flushSamples(); err != nil {
			return err
		}
		if err := rs.samples.Close(); err != nil {
			return fmt.Errorf("canary: write %s: %w", rs.dir, err)
		}
		if err := rs.sampFile.Close(); err != nil {
			return fmt.Errorf("canary: write %s: %w", rs.dir, err)
		}
	}
	return nil
}

// abort closes what is still open after a failure; the caller removes dst.
func (w *writers) abort() {
	for _, rs := range w.open {
		if !rs.spansDone {
			rs.spansFile.Close()
		}
		if !rs.sampsDone {
			rs.sampFile.Close()
		}
	}
}

func readManifest(dir string) (schemas.Manifest, error) {
	var m schemas.Manifest
	p := filepath.Join(dir, schemas.ManifestFile)
	b, err := os.ReadFile(p)
	if errors.Is(err, fs.ErrNotExist) {
		if _, serr := os.Stat(filepath.Join(dir, schemas.SpansFile)); serr != nil {
			return m, fmt.Errorf("read run dataset %q: %w (Try: tpsreport ingest --out %s ...)", dir, serr, dir)
		}
		return m, nil
	}
	if err != nil {
		return m, fmt.Errorf("read %s: %w", p, err)
	}
	if err := json.Unmarshal(b, &m); err != nil {
		return m, fmt.Errorf("read %s: %w", p, err)
	}
	return m, nil
}
