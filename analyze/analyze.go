package analyze

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math"
	"math/bits"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/parquet-go/parquet-go"

	"github.com/tpsreport/tpsreport/capacity"
	"github.com/tpsreport/tpsreport/internal/dataset"
	"github.com/tpsreport/tpsreport/schemas"
)

// outputFiles are the files analyze adds to a run dataset, all written in a
// temporary directory and renamed into place at the end.
var outputFiles = []string{schemas.WindowsFile, schemas.RequestsFile, schemas.LatenciesFile, schemas.SummaryFile, schemas.CurvesFile}

// runWidth is the window width that makes the whole run one window: every instant
// t of the epoch has t / runWidth = 0.
const runWidth int64 = 1 << 62

// Options are the analyze flags.
type Options struct {
	Dir    string        // the run dataset
	Window time.Duration // window width; 0 means 60 s
	Cap    *int64        // --cap, per replica
	From   *time.Time    // --from (with To)
	To     *time.Time    // --to (with From)
	Log    *slog.Logger  // nil discards
	// Progress, when set, gets a one-line status that is rewritten in place
	// (the statement running and the time so far); cmd passes stderr only
	// when it is a terminal.
	Progress io.Writer
	// SLO, when set, is the latency bound per request that goodput and
	// slo_attainment count (docs/metrics.md "Requests and SLOs").
	SLO *schemas.SLO
	// Pricing, when set, prices the run: summary.json's cost
	// (docs/metrics.md "Cost and capacity").
	Pricing *capacity.Pricing

	// largeAt, when not 0, stands for largeRunSpans and splitRunSpans: a
	// test takes a small run for a large and split one with -1.
	largeAt int64
	// joinStatements has the statements write a joined run's joined file
	// rather than the assembly (join.go): a test compares the two.
	joinStatements bool
	// joinGroupRows, when not 0, stands for joinRowGroupRows.
	joinGroupRows int
	// curveSlice, when not 0, stands for curveSliceRows: a test has the
	// merge read a few midpoints at a time.
	curveSlice int64
	// sqlCurve has curve_conc.sql's ASOF join give the concurrency curve
	// rather than the merge (curve_merge.go): a test compares the two.
	sqlCurve bool
	// sweep, where not 0, stands for the sweep's sizes (pool_sweep.go): a
	// test has it cut slices of a few steps, read them for a few spans at a
	// time and stream a few segments a batch.
	sweep sweepSizes
	// sqlSweep has state_events.sql and pool_segments.sql give the pool's
	// segments rather than the sweep (pool_sweep.go): a test compares the
	// two.
	sqlSweep bool
	// sqlSolo has join_solo.sql settle join_solo rather than join_solo.go:
	// a test compares the two.
	sqlSolo bool
	// sqlMatch has the statements (join_raw.sql, join_match.sql,
	// join_cand.sql) match the join's candidates rather than join_go.go: a
	// test compares the two.
	sqlMatch bool
	// wideLatencies has latencies_out_wide's four sort keys order
	// latencies.parquet whatever the latencies (latencyKey).
	wideLatencies bool
}

// MaxWindows bounds the windows of one analysis: each costs a row in every
// per-window statement and in the report, so --window 1ms over a day (86
// million windows) would run for hours and write gigabytes.
const MaxWindows = 100_000

// Run analyses the dataset in opt.Dir and writes summary.json, windows.parquet,
// requests.parquet and curves.json into it, each atomically.
func Run(ctx context.Context, opt Options) (*schemas.RunResult, error) {
	log := opt.Log
	if log == nil {
		log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	width := opt.Window
	if width == 0 {
		width = 60 * time.Second
	}
	if width < time.Microsecond || width%time.Microsecond != 0 {
		return nil, fmt.Errorf("--window %s: must be a positive whole number of microseconds", width)
	}
	if (opt.From == nil) != (opt.To == nil) {
		return nil, errors.New("--from and --to go together")
	}
	if opt.From != nil && !opt.To.After(*opt.From) {
		return nil, fmt.Errorf("--to %s is not after --from %s", opt.To.Format(time.RFC3339Nano), opt.From.Format(time.RFC3339Nano))
	}
	if opt.Cap != nil && *opt.Cap <= 0 {
		return nil, fmt.Errorf("--cap %d: must be positive", *opt.Cap)
	}
	spansPath := filepath.Join(opt.Dir, "spans.parquet")
	if _, err := os.Stat(spansPath); err != nil {
		return nil, fmt.Errorf("read run dataset %q: %w (Try: tpsreport ingest --out %s ...)", opt.Dir, err, opt.Dir)
	}
	man, err := readManifest(opt.Dir)
	if err != nil {
		return nil, err
	}
	if n, ok := fileRows(man, schemas.SpansFile); ok && n == 0 && man.SamplesWritten > 0 && opt.From == nil {
		// Engine samples alone: no request to measure, and no request
		// to say when the run was. Over a span of time given, the
		// samples' state is measured.
		return nil, fmt.Errorf("%w: %s holds engine samples only (%d), no request span. Try: ingest the requests' log (the engine's request log or OTel spans, a gateway's log, a load tool's results) with the samples into one run, or --from and --to for the engine's state alone",
			ErrNoRequests, opt.Dir, man.SamplesWritten)
	}
	// The window count, bounded before any query: from --from/--to, else
	// from the instants ingest saw (the extent is checked again once known).
	if opt.From != nil {
		if err := checkWindowCount(schemas.Micros(*opt.From), schemas.Micros(*opt.To), width.Microseconds()); err != nil {
			return nil, err
		}
	} else if tr := man.TimeRange; tr != nil {
		if err := checkWindowCount(schemas.Micros(tr.Start), schemas.Micros(tr.End), width.Microseconds()); err != nil {
			return nil, err
		}
	}

	// The data must be the set ingest described: a kill inside an
	// ingest of an older version, or an edit, leaves spans of one run
	// beside the manifest of another.
	if err := dataset.Verify(opt.Dir, &man, ingestHint(opt.Dir, man), schemas.SpansFile, schemas.SamplesFile); err != nil {
		return nil, err
	}

	// The dataset with its new analysis is built in a stage beside it and
	// swapped in as a whole: a kill or a failure leaves the old analysis,
	// and a reader never sees the new summary beside the old windows.
	// DuckDB spills into the stage, so what a killed analyze spilled goes
	// with its stage (the next writer removes a dead process's stage).
	stage, err := dataset.Begin(opt.Dir)
	if err != nil {
		return nil, err
	}
	defer stage.Abort()
	hasManifest := fileExists(filepath.Join(opt.Dir, schemas.ManifestFile))
	if err := stage.Keep(func(name string) bool {
		return slices.Contains(outputFiles, name) || (hasManifest && len(man.Files) > 0 && name == schemas.ManifestFile)
	}); err != nil {
		return nil, err
	}
	tmpDir, err := os.MkdirTemp(stage.Dir(), ".analyze-")
	if err != nil {
		return nil, fmt.Errorf("create temp dir: %w", err)
	}
	defer os.RemoveAll(tmpDir)

	memory := runMemory(spansPath, opt)
	log.Debug("duckdb", "memory_limit", memory)
	db, conns, err := openDB(ctx, tmpDir, 3, memory)
	if err != nil {
		return nil, err
	}
	closeDB := func() {
		for _, c := range conns {
			c.Close()
		}
		db.Close()
	}
	defer func() {
		if conns != nil {
			closeDB()
		}
	}()

	a := &analysis{ctx: ctx, db: conns[0], side: conns[1], reader: conns[2], log: log, cpu: cpuTime(), progress: startProgress(opt.Progress)}
	res, err := a.run(opt, width.Microseconds(), spansPath, man, tmpDir)
	a.progress.stop()
	if err != nil {
		return nil, err
	}
	start := time.Now()
	closeDB()
	conns = nil
	closed := time.Since(start)
	start = time.Now()
	// Every output is complete in tmpDir: move them into the stage,
	// describe them in the manifest, and swap the stage in.
	for _, name := range outputFiles {
		if err := os.Rename(filepath.Join(tmpDir, name), filepath.Join(stage.Dir(), name)); err != nil {
			return nil, fmt.Errorf("write %s: %w", name, err)
		}
	}
	// What is left in tmpDir (a large run's database file, what DuckDB
	// spilled) is removed while the outputs are hashed: the one waits on
	// the file system, the other on the cores, so neither waits for the
	// other (BENCHMARKS.md, "The figures behind the code").
	removed := make(chan error, 1)
	go func() { removed <- os.RemoveAll(tmpDir) }()
	// A manifest of before files were recorded stays without them: the
	// dataset stays unchecked rather than half checked.
	if hasManifest && len(man.Files) > 0 {
		var rest []string
		for _, name := range outputFiles {
			if !slices.ContainsFunc(a.described, func(d schemas.DataFile) bool { return d.Name == name }) {
				rest = append(rest, name)
			}
		}
		files, err := dataset.DescribeAll(stage.Dir(), rest...)
		if err != nil {
			<-removed
			return nil, err
		}
		files = append(files, a.described...)
		dataset.SetFiles(&man, files, outputFiles...)
		if err := writeManifest(filepath.Join(stage.Dir(), schemas.ManifestFile), man); err != nil {
			<-removed
			return nil, err
		}
		res.Manifest = man
	}
	described := time.Since(start)
	if err := <-removed; err != nil {
		return nil, fmt.Errorf("remove temp dir: %w", err)
	}
	// The database's close, then the outputs' hashing and the temporary
	// files' removal, side by side.
	log.Debug("outputs", "close", closed.Round(time.Millisecond), "describe", described.Round(time.Millisecond),
		"remove", time.Since(start).Round(time.Millisecond))
	if err := stage.Commit(); err != nil {
		return nil, err
	}
	return res, nil
}

// checkWindowCount refuses a window width that cuts the extent [t0, t1) µs
// into more than MaxWindows windows, naming a width that would do.
func checkWindowCount(t0, t1, width int64) error {
	n := windowCount(t0, t1, width)
	if n <= MaxWindows {
		return nil
	}
	hint := "analyse part of it with --from and --to"
	if w, ok := widerWindow(t1 - t0); ok {
		hint = fmt.Sprintf("use a wider window, such as %s", w)
	}
	return fmt.Errorf("--window %s cuts the run's %s into %d windows, more than %d: %s",
		time.Duration(width)*time.Microsecond, spanText(t1-t0), n, MaxWindows, hint)
}

// spanText prints a length of µs as a duration (3m0s), or in days past what
// a time.Duration holds (292 years).
func spanText(us int64) string {
	if us < math.MaxInt64/int64(time.Microsecond) {
		return (time.Duration(us) * time.Microsecond).Round(time.Second).String()
	}
	return fmt.Sprintf("%.0f days", float64(us)/float64(24*time.Hour/time.Microsecond))
}

// windowCount is the number of epoch-aligned windows of width µs that
// overlap [t0, t1), at least 1.
func windowCount(t0, t1, width int64) int64 {
	if t1 <= t0 {
		return 1
	}
	return floorDiv(t1-1, width) - floorDiv(t0, width) + 1
}

func floorDiv(a, b int64) int64 {
	q := a / b
	if (a%b != 0) && ((a < 0) != (b < 0)) {
		q--
	}
	return q
}

// widerWindow is the first of the usual widths that cuts a span of spanUs µs
// into at most MaxWindows/2 windows (half, since alignment adds one); false
// when even a day is too narrow (a span of over 136 years).
func widerWindow(spanUs int64) (time.Duration, bool) {
	for _, w := range []time.Duration{time.Second, 5 * time.Second, 10 * time.Second, 30 * time.Second,
		time.Minute, 5 * time.Minute, 15 * time.Minute, time.Hour, 6 * time.Hour, 24 * time.Hour} {
		if spanUs/w.Microseconds() <= MaxWindows/2 {
			return w, true
		}
	}
	return 0, false
}

// ingestHint is the command that rebuilds the data of the dataset in dir.
func ingestHint(dir string, m schemas.Manifest) string {
	run := m.RunID
	if run == "" {
		run = "NAME"
	}
	return fmt.Sprintf("tpsreport ingest --run %s --out %s INPUT...", run, dir)
}

// analyzeHint is the command that rebuilds the analysis of the dataset in dir.
func analyzeHint(dir string) string {
	return "tpsreport analyze " + dir
}

// writeManifest writes m as ingest does (indented, a final newline).
func writeManifest(path string, m schemas.Manifest) error {
	b, err := json.MarshalIndent(m, "", "  ")
	if err == nil {
		err = os.WriteFile(path, append(b, '\n'), 0o666)
	}
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

func readManifest(dir string) (schemas.Manifest, error) {
	var m schemas.Manifest
	b, err := os.ReadFile(filepath.Join(dir, "manifest.json"))
	if errors.Is(err, os.ErrNotExist) {
		return m, nil
	}
	if err != nil {
		return m, fmt.Errorf("read manifest: %w", err)
	}
	if err := json.Unmarshal(b, &m); err != nil {
		return m, fmt.Errorf("read %s: %w", filepath.Join(dir, "manifest.json"), err)
	}
	return m, nil
}

// analysis runs the named statements of queries/ in order on one connection,
// db. side, when set, is a second connection to the same database, for work
// that runs beside db's (onSide); reader, a third, is where the merged
// curve reads its inputs while db's statement reads the merge
// (curveConcMerged).
type analysis struct {
	ctx    context.Context
	db     *sql.Conn
	side   *sql.Conn
	reader *sql.Conn
	name   string // the connection's name in the debug log: "" (db) or "side"
	log    *slog.Logger
	cpu    time.Duration // the process's CPU time at the last logQuery (--debug)

	progress *progress // nil without Options.Progress

	// described are the outputs already described for the manifest while
	// the analysis ran (requests.parquet's, once spliced), in tmpDir.
	described []schemas.DataFile
}

// sideTask is work running on the side connection (onSide).
type sideTask struct {
	cancel context.CancelFunc
	done   chan struct{}
	err    error
}

// onSide runs f on the side connection while the caller goes on with db's
// statements, and returns the task to wait for: DuckDB runs the two
// connections' statements side by side on its threads, so a statement that
// keeps one core busy (the sweeps) leaves the other to the side's. Without a side connection f runs here, before onSide returns.
// f must not read what the caller changes meanwhile, nor change what it reads.
func (a *analysis) onSide(f func(*analysis) error) *sideTask {
	ctx, cancel := context.WithCancel(a.ctx)
	t := &sideTask{cancel: cancel, done: make(chan struct{})}
	if a.side == nil {
		t.err = f(a)
		close(t.done)
		return t
	}
	b := &analysis{ctx: ctx, db: a.side, name: "side", log: a.log, cpu: cpuTime()}
	go func() {
		defer close(t.done)
		t.err = f(b)
	}()
	return t
}

// wait waits for the task to end and returns its error.
func (t *sideTask) wait() error {
	<-t.done
	t.cancel()
	return t.err
}

// stop interrupts the task, if it still runs, and waits for it to end: for
// the caller's error paths, which must not leave it running on a connection
// about to be closed.
func (t *sideTask) stop() {
	t.cancel()
	<-t.done
}

// logQuery logs the time a statement took (tpsreport --debug), the CPU time
// the process used since the connection's last statement logged (about twice
// the elapsed time when the statement kept both cores busy, about the same
// when it ran on one; while the side connection works, both connections'
// statements count in it), and what DuckDB holds afterwards: in memory, and
// spilled to its temp files.
func (a *analysis) logQuery(name string, start time.Time) {
	if !a.log.Enabled(a.ctx, slog.LevelDebug) {
		return
	}
	elapsed := time.Since(start)
	cpu := cpuTime()
	cpuUsed := cpu - a.cpu
	a.cpu = cpu
	var mem, spilled sql.NullInt64
	err := a.db.QueryRowContext(a.ctx, query("memory")).Scan(&mem, &spilled)
	if err != nil {
		a.log.Debug("query", "name", name, "conn", a.name, "elapsed", elapsed, "cpu", cpuUsed, "memory_error", err)
		return
	}
	a.log.Debug("query", "name", name, "conn", a.name, "elapsed", elapsed, "cpu", cpuUsed, "memory_mb", mem.Int64>>20, "spilled_mb", spilled.Int64>>20)
}

// copyRows writes the rows of the named query to path as Parquet. zstd at
// level 1 rather than DuckDB's default 3: on requests.parquet (a row per
// span) it compresses in about 60 % of the time for a file about 5 % larger.
// options adds to the COPY's options. COPY takes no parameter for its
// destination: the path, which this package builds, is quoted by sqlString.
func (a *analysis) copyRows(name, path, options string, args ...any) error {
	q := "COPY (" + query(name) + ") TO " + sqlString(path) + " (FORMAT parquet, COMPRESSION zstd, COMPRESSION_LEVEL 1" + options + ")"
	if _, err := a.db.ExecContext(a.ctx, q, args...); err != nil {
		return fmt.Errorf("analyze %s: %w", name, err)
	}
	return nil
}

// workFile is a large run's database (attach_work.sql) in analyze's temp
// directory.
const workFile = "work.duckdb"

// attachWork attaches a large run's database (attach_work), a file in the
// temporary directory. ATTACH takes no parameter for its path: the path,
// which this package builds, is quoted by sqlString.
func (a *analysis) attachWork(st *runState) error {
	q, ok := strings.CutSuffix(strings.TrimSpace(query("attach_work")), "ATTACH $path AS work;")
	if !ok {
		return errors.New("analyze attach_work: the statement is not ATTACH $path AS work")
	}
	q += "ATTACH " + sqlString(filepath.Join(st.tmpDir, workFile)) + " AS work"
	if _, err := a.db.ExecContext(a.ctx, q); err != nil {
		return fmt.Errorf("analyze attach_work: %w", err)
	}
	return nil
}

func (a *analysis) run(opt Options, width int64, spansPath string, man schemas.Manifest, tmpDir string) (*schemas.RunResult, error) {
	st := &runState{opt: opt, man: man, width: width, spansPath: spansPath, tmpDir: tmpDir, runID: man.RunID}
	if p := filepath.Join(opt.Dir, "samples.parquet"); fileExists(p) {
		st.samplesPath = p
	}
	defer func() {
		if st.sideTask != nil {
			st.sideTask.stop()
		}
		if st.curveRelease != nil {
			st.curveRelease()
		}
		if st.requests != nil {
			st.requests.stop()
		}
	}()
	if err := a.runSteps(st, pipeline); err != nil {
		return nil, err
	}
	return st.result()
}

// runMemory is the memory limit of the analysis of spansPath: a large
// run's (largeMemoryLimit) or memoryLimit. It is known before the database
// opens, whose configuration is locked then: spans.parquet's rows are the
// count of spans (span_sources) that the condition large reads. A file
// whose footer cannot be read gets memoryLimit, and its analysis the
// error.
func runMemory(spansPath string, opt Options) string {
	if n, err := parquetRows(spansPath); err == nil && (&runState{opt: opt, spans: n}).beyond(largeRunSpans) {
		return largeMemoryLimit
	}
	return memoryLimit
}

// parquetRows reads the number of rows of the Parquet file at path from its
// footer.
func parquetRows(path string) (int64, error) {
	f, closeFile, err := openParquet(path)
	if err != nil {
		return 0, err
	}
	defer closeFile()
	return f.NumRows(), nil
}

func fileExists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// result assembles summary.json and curves.json from what the steps
// computed, and writes them into tmpDir.
func (st *runState) result() (*schemas.RunResult, error) {
	sum := schemas.Summary{
		RunID:       st.runID,
		WindowWidth: float64(st.width) / 1e6,
		CapSource:   st.caps.Source,
		Warnings:    []string{},
	}
	engineLess := st.spans > 0 && st.engine == 0 && st.man.SamplesWritten == 0 && st.caps.Source == CapInferred
	switch {
	case st.spans == 0:
		sum.Warnings = append(sum.Warnings, fmt.Sprintf("the run holds engine samples only (%d), no request span: no request metric, throughput or gap_fraction. Try: ingest the requests' log with them (the engine's request log or OTel spans, a gateway's log, a load tool's results)",
			st.man.SamplesWritten))
	case engineLess && st.durations == 0:
		// The cap is the engine's; records of a client or a gateway do
		// not show one, and guessing it from their in_flight says nothing.
		sum.Warnings = append(sum.Warnings, "no engine's log or samples: the requests are as a client or a gateway saw them, so latencies, throughput and success_rate hold, while the engine's cap, queue and idle slots are unseen: gap_fraction and the engine state are not measured. Try: ingest the engine's log too, or give --cap N")
	case st.caps.Warning != "" && st.durations == 0:
		sum.Warnings = append(sum.Warnings, st.caps.Warning)
	}
	sum.Cap = &st.caps.Pool
	if st.noExtent && st.spans > 0 {
		sum.Warnings = append(sum.Warnings, "no span has a timestamp: no extent to measure")
	}
	sum.SLO = st.opt.SLO
	st.mix.into(&sum)
	sum.EngineOnly = st.spans > 0 && st.engine == st.spans
	if sum.EngineOnly {
		sum.Warnings = append(sum.Warnings, "only an engine's logs: queueing before the engine (gateway, load balancer, client) is invisible, so t_queue, ttft and gap_fraction count the engine's queue and its frontend's time (tokenizing, IPC) alone. Try: ingest the gateway's log too (litellm:..., kong:..., envoy-ai:...)")
	}
	sum.RunStart, sum.RunEnd = schemas.Time(st.t0), schemas.Time(st.t1)
	sum.Metrics = st.run
	if engineLess && st.caps.Pool == 0 {
		sum.GapFraction = nil // no span has an admission: no slot was seen, so no idle one
	}
	if sum.OverCapTime > 0 && sum.Cap != nil {
		sum.Warnings = append(sum.Warnings, fmt.Sprintf("more requests ran than the cap of %d (%s) allows, for %.3g s: the cap is below the concurrency the engine ran, so gap_time misses idle slots. Check --cap (max_num_seqs per replica)",
			*sum.Cap, sum.CapSource, sum.OverCapTime))
	}
	sum.WindowStart, sum.WindowEnd = sum.RunStart, sum.RunEnd

	sum.Replicas, sum.ReplicasOmitted = listReplicas(st.replicas)
	sum.DataQuality = st.dq
	for _, c := range st.dq.Inconsistent {
		sum.Warnings = append(sum.Warnings, fmt.Sprintf("%d %s read although %s own fields disagree (%s), the first: %s",
			c.Count, plural(c.Count, "record", "records"), plural(c.Count, "its", "their"), c.Reason, c.First))
	}
	if sampled := sampledWarnings(st.dq.Sampled); len(sampled) > 0 {
		sum.Warnings = append(sampled, sum.Warnings...) // first: it qualifies every number
	}
	if n := len(sum.DataQuality.Models); n > schemas.MaxListed {
		sum.DataQuality.Models, sum.DataQuality.ModelsOmitted = sum.DataQuality.Models[:schemas.MaxListed], int64(n-schemas.MaxListed)
	}
	if st.durations > 0 {
		st.durationsSummary(&sum)
		st.windows = []schemas.Metrics{}
		st.curves.Concurrency = []schemas.ConcurrencyPoint{}
		if st.opt.Pricing != nil {
			sum.Warnings = append(sum.Warnings, "a durations-only run has no run time to price: no cost")
		}
	} else if p := st.opt.Pricing; p != nil {
		c := capacity.Price(sum, st.windows, *p, st.namedReplicas)
		sum.Cost = &c
		if c.ReplicasSource == capacity.Assumed {
			sum.Warnings = append(sum.Warnings, "the logs name no replica: cost is priced for one (Try: --replicas N)")
		}
	}
	sum.DataQuality.OverCapTime = sum.OverCapTime
	sum.DataQuality.Join = st.join
	sum.Warnings = append(sum.Warnings, joinWarnings(st.join)...)
	if n := sum.DataQuality.CoarseTimeSpans; n > 0 {
		sum.Warnings = append(sum.Warnings, fmt.Sprintf("%d spans have timestamps only to the second (vLLM request log lines): their durations and proration are ±1 s", n))
	}
	if n := sum.DataQuality.RelativeSpans - st.durations; n > 0 {
		sum.Warnings = append(sum.Warnings, fmt.Sprintf("%d spans count time from a benchmark's start, not the wall clock: their windows do not line up with other runs", n))
	}
	if dq := sum.DataQuality; len(dq.Models) > 1 {
		const named = 10 // a warning is one line
		names, more := dq.Models, dq.ModelsOmitted
		if len(names) > named {
			names, more = names[:named], more+int64(len(names)-named)
		}
		list := fmt.Sprintf("%q", names)
		if more > 0 {
			list = fmt.Sprintf("%s and %d more", list, more)
		}
		sum.Warnings = append(sum.Warnings, fmt.Sprintf("mixed models %s: token counts are tokenizer-specific", list))
	}
	res := &schemas.RunResult{Manifest: st.man, Windows: st.windows, Curves: st.curves, Summary: sum}
	if err := writeJSON(filepath.Join(st.tmpDir, schemas.SummaryFile), sum); err != nil {
		return nil, err
	}
	if err := writeJSON(filepath.Join(st.tmpDir, schemas.CurvesFile), res.Curves); err != nil {
		return nil, err
	}
	return res, nil
}

// extent finds the run extent (or takes --from/--to) and checks the window
// count it gives.
func (a *analysis) extent(st *runState) error {
	var t0, t1 sql.NullInt64
	if err := a.db.QueryRowContext(a.ctx, query("extent")).Scan(&t0, &t1); err != nil {
		return fmt.Errorf("analyze extent: %w", err)
	}
	if st.opt.From != nil {
		t0 = sql.NullInt64{Int64: schemas.Micros(*st.opt.From), Valid: true}
		t1 = sql.NullInt64{Int64: schemas.Micros(*st.opt.To), Valid: true}
	}
	// With no instant at all there is no extent: write empty tables and NULL metrics.
	st.noExtent = !t0.Valid
	if st.noExtent {
		t0 = sql.NullInt64{Int64: 0, Valid: true}
		t1 = t0
	}
	st.t0, st.t1 = t0.Int64, t1.Int64
	return checkWindowCount(st.t0, st.t1, st.width)
}

// latencyKey is the packing of latencies_out's sort key: ttft_req_us above
// the low e2eBits bits, e2e_req_us in them, and a NULL of either as
// ttftNull or e2eNull, each above every value of its field.
type latencyKey struct {
	e2eBits           int
	ttftNull, e2eNull int64
}

// latencyKey sizes latencies_out's sort key from the delivered requests'
// latencies (latency_bits). latencies.parquet is ordered by completion, then
// by ttft_req_us, e2e_req_us and tpot_req: four keys of 9 bytes (a value and
// its NULL byte) pass the 32 bytes of DuckDB's fixed-size sort keys, which
// makes the sort slower (BENCHMARKS.md). When the two latencies fit one
// BIGINT side by side, latencies_out orders by that one key in their place;
// else latencies_out_wide keeps the four.
func (a *analysis) latencyKey(st *runState) error {
	var minT, maxT, minE, maxE sql.NullInt64
	if err := a.db.QueryRowContext(a.ctx, query("latency_bits")).Scan(&minT, &maxT, &minE, &maxE); err != nil {
		return fmt.Errorf("analyze latency_bits: %w", err)
	}
	if !st.opt.wideLatencies {
		st.latencyKey = packLatencies(minT, maxT, minE, maxE)
	}
	return nil
}

// packLatencies sizes the packed key for ttft_req_us in [minT, maxT] and
// e2e_req_us in [minE, maxE] (NULL bounds: no value): each field holds its
// largest value and, above it, its NULL, and both fit 63 bits, so that the
// key is a BIGINT ≥ 0 whose order is that of the two, NULLS LAST. nil when
// they do not fit, or when a latency is negative (which ttft_us and
// t_total_us never give).
func packLatencies(minT, maxT, minE, maxE sql.NullInt64) *latencyKey {
	if minT.Int64 < 0 || minE.Int64 < 0 {
		return nil
	}
	// Len64(max + 1) bits hold max + 1, the NULL, with max < 2^63.
	bt, be := bits.Len64(uint64(maxT.Int64)+1), bits.Len64(uint64(maxE.Int64)+1)
	if bt+be > 63 {
		return nil
	}
	return &latencyKey{e2eBits: be, ttftNull: 1<<bt - 1, e2eNull: 1<<be - 1}
}

// runMix holds the offered load and the token mix of the run (run_mix.sql).
type runMix struct {
	first, last     sql.NullInt64 // attempt-0 arrivals, µs
	arrivals        int64
	meanIn, meanOut sql.NullFloat64
}

// runMix reads the offered load and the token mix.
func (a *analysis) runMix(st *runState) error {
	m := &st.mix
	err := a.db.QueryRowContext(a.ctx, query("run_mix"), sql.Named("t0", st.t0), sql.Named("t1", st.t1)).Scan(
		&m.first, &m.last, &m.arrivals, &m.meanIn, &m.meanOut)
	if err != nil {
		return fmt.Errorf("analyze run_mix: %w", err)
	}
	return nil
}

// into sets the summary's offered load (arrivals over the arrival span: a
// run that drains the same traffic sooner offers the same load) and token mix.
func (m runMix) into(sum *schemas.Summary) {
	if m.first.Valid && m.last.Valid && m.last.Int64 > m.first.Int64 {
		sum.ArrivalSpan = float64(m.last.Int64-m.first.Int64) / 1e6
		sum.OfferedRate = ptr(float64(m.arrivals) / sum.ArrivalSpan)
	}
	if m.meanIn.Valid {
		sum.MeanInputTokens = ptr(m.meanIn.Float64)
	}
	if m.meanOut.Valid {
		sum.MeanOutputTokens = ptr(m.meanOut.Float64)
	}
}

// spansRunID takes the run's id from its spans.
func (a *analysis) spansRunID(st *runState) error {
	if err := a.db.QueryRowContext(a.ctx, query("run_id")).Scan(&st.runID); err != nil {
		return fmt.Errorf("analyze run_id: %w", err)
	}
	return nil
}

// spanFacts reads whether some span has no attempt number.
func (a *analysis) spanFacts(st *runState) error {
	if err := a.db.QueryRowContext(a.ctx, query("span_facts")).Scan(&st.unnumbered); err != nil {
		return fmt.Errorf("analyze span_facts: %w", err)
	}
	return nil
}

// replicaCount counts the replicas the state is swept over, and those the
// spans name.
func (a *analysis) replicaCount(st *runState) error {
	if err := a.db.QueryRowContext(a.ctx, query("replica_count")).Scan(&st.replicaCount, &st.namedReplicas); err != nil {
		return fmt.Errorf("analyze replica_count: %w", err)
	}
	return nil
}

// writeRequests writes requests.parquet into tmpDir. Its rows are those of
// the file span_src reads, in the same order: spans.parquet, or in a joined
// run the joined spans' file (joined_file). So DuckDB writes only the columns
// requests.parquet adds (requests_added) and the others are spliced in from
// that file's column chunks, byte for byte (splice.go). When the two files'
// row groups do not line up (spans.parquet from an ingest with other row
// groups than DuckDB's) or a column is missing, DuckDB writes every column
// (requests_out). Either way the file holds the same values.
//
// The splice is planned here and written later (requests_splice), beside
// the windows' statements, at the lowest CPU priority: it copies the whole
// file through the page cache, about 8 GB at 100 M spans, and beside this
// step the sweeps read and write their own files, where the windows'
// statements use no disk (BENCHMARKS.md).
func (a *analysis) writeRequests(st *runState) error {
	out := filepath.Join(st.tmpDir, schemas.RequestsFile)
	base := st.spansPath
	if st.join != nil {
		base = filepath.Join(st.tmpDir, joinedFile)
	}
	fs, err := a.planRequests(out, base, filepath.Join(st.tmpDir, "requests_added.parquet"))
	if err == nil {
		st.requests = &spliceTask{fs: fs, from: filepath.Base(base), describe: len(st.man.Files) > 0}
		return nil
	}
	if !errors.Is(err, errCannotSplice) {
		return err
	}
	a.log.Debug("requests.parquet written whole", "reason", err)
	return a.copyRows("requests_out", out, "")
}

// planRequests writes requests_added (through added) and the delivered
// flags' column beside it, and plans requests.parquet's splice of them with
// the other columns of the file base (spans.parquet or the joined spans'),
// once the added rows are checked to be base's, in its order. The two files
// are removed once the splice is written or given up.
func (a *analysis) planRequests(out, base, added string) (fs *fileSplice, err error) {
	delivered := filepath.Join(filepath.Dir(added), "requests_delivered.parquet")
	defer func() {
		if err != nil {
			os.Remove(added)
			os.Remove(delivered)
		}
	}()
	// The parts' times go to the debug log: at 100 M spans the step is the
	// side connection's longest, and its COPY the most of it.
	var parts []any
	start := time.Now()
	lap := func(part string) {
		now := time.Now()
		parts = append(parts, part, now.Sub(start))
		start = now
	}
	// Without dictionaries, which DuckDB tries on every column: the added
	// columns are mostly doubles that barely repeat, so a dictionary costs
	// time and saves almost no space (BENCHMARKS.md, "The figures behind
	// the code").
	if err := a.copyRows("requests_added", added, ", DICTIONARY_SIZE_LIMIT 1"); err != nil {
		return nil, err
	}
	lap("added")
	// The splice pairs row i of each file: the added columns must be in
	// base's order, as DuckDB keeps it (preserve_insertion_order).
	var inOrder sql.NullBool
	err = a.db.QueryRowContext(a.ctx, query("requests_order"), sql.Named("path", added)).Scan(&inOrder)
	if err != nil {
		return nil, fmt.Errorf("analyze requests_added: %w", err)
	}
	if inOrder.Valid && !inOrder.Bool {
		return nil, fmt.Errorf("%w: DuckDB wrote the added columns out of %s's order", errCannotSplice, filepath.Base(base))
	}
	lap("order")
	names, err := a.columns("requests_out")
	if err != nil {
		return nil, err
	}
	own, err := a.columns("requests_added")
	if err != nil {
		return nil, err
	}
	if err := a.writeDelivered(delivered, base); err != nil {
		return nil, err
	}
	lap("delivered")
	cols := make([]spliceColumn, len(names))
	for i, n := range names {
		cols[i] = spliceColumn{Name: n}
		switch {
		case n == "delivered":
			cols[i].Src = 2
		case slices.Contains(own, n):
			cols[i].Src = 1
		}
	}
	if fs, err = planFiles(out, []string{base, added, delivered}, cols); err != nil {
		return nil, err
	}
	fs.temps = []string{added, delivered}
	a.log.Debug("requests.parquet parts", parts...)
	return fs, nil
}

// spliceTask is requests.parquet's splice, planned on the side connection
// (writeRequests) and written beside the main connection's statements.
type spliceTask struct {
	fs       *fileSplice
	from     string // the file the other columns come from, for the debug log
	describe bool   // describe the file for the manifest once written
	cancel   context.CancelFunc
	done     chan struct{}
	err      error
	took     time.Duration
	file     *schemas.DataFile // the written file's description (describe)
}

// startRequests starts writing requests.parquet's splice, when one is
// planned.
func (a *analysis) startRequests(st *runState) error {
	t := st.requests
	if t == nil {
		return nil
	}
	var ctx context.Context
	ctx, t.cancel = context.WithCancel(a.ctx)
	t.done = make(chan struct{})
	// The copy, most of it the kernel's work on the thread that asks for
	// it, takes the cores the statements leave idle rather than theirs.
	goIdle(func(prio error) {
		defer close(t.done)
		if prio != nil {
			a.log.Debug("requests.parquet splice at the process's priority", "reason", prio)
		}
		start := time.Now()
		t.err = t.fs.write(ctx)
		t.took = time.Since(start)
		// The manifest's hash of the file is taken here, on the cores the
		// statements leave idle and soon after the file's pages were
		// written, rather than after the analysis, where hashing this
		// largest output on one core held up the end (BENCHMARKS.md, "The
		// figures behind the code").
		if t.err == nil && t.describe {
			var d schemas.DataFile
			d, t.err = dataset.DescribeContext(ctx, filepath.Dir(t.fs.out), filepath.Base(t.fs.out))
			t.file = &d
		}
	})
	return nil
}

// waitRequests waits for requests.parquet's splice to be written, having
// started it if requests_splice did not.
func (a *analysis) waitRequests(st *runState) error {
	t := st.requests
	if t == nil {
		return nil
	}
	if t.done == nil {
		if err := a.startRequests(st); err != nil {
			return err
		}
	}
	st.requests = nil
	<-t.done
	t.cancel()
	if t.err != nil {
		return fmt.Errorf("analyze requests_splice: %w", t.err)
	}
	if t.file != nil {
		a.described = append(a.described, *t.file)
	}
	a.log.Debug("requests.parquet spliced", "from", t.from, "splice", t.took, "described", t.file != nil)
	return nil
}

// stop gives up the splice: it interrupts its writing, if started, and
// waits for it to end, for the analysis's error paths.
func (t *spliceTask) stop() {
	if t.done == nil {
		t.fs.close()
		return
	}
	t.cancel()
	<-t.done
}

// deliveredBlock is the number of spans a row of delivered_blocks covers
// (block_of in span_metrics.sql).
const deliveredBlock = 65536

// writeDelivered writes requests.parquet's column delivered as a column file
// at path, a row per span of base (spans.parquet or the joined spans', whose
// row i is span idx i) in base's row groups, from delivered_blocks. The
// statements cannot give the column in base's order at any size: a join with
// the blocks reorders its rows, and a lookup in one bitstring of every span
// copies the bitstring for each vector (span_metrics.sql).
func (a *analysis) writeDelivered(path, base string) error {
	fh, err := os.Open(base)
	if err != nil {
		return fmt.Errorf("analyze delivered: %w", err)
	}
	md, err := readFooter(fh)
	fh.Close()
	if err != nil {
		return fmt.Errorf("analyze delivered: %s: %w", filepath.Base(base), err)
	}
	var blocks [][]byte // by block number: nil for a block without a delivered span
	rows, err := a.db.QueryContext(a.ctx, query("delivered_out"))
	if err != nil {
		return fmt.Errorf("analyze delivered_out: %w", err)
	}
	for rows.Next() {
		var blk int64
		var bits string
		if err := rows.Scan(&blk, &bits); err != nil {
			rows.Close()
			return fmt.Errorf("analyze delivered_out: %w", err)
		}
		if blk < 0 || blk > md.NumRows/deliveredBlock || len(bits) != deliveredBlock {
			rows.Close()
			return fmt.Errorf("analyze delivered_out: block %d of %d bits, for %d spans", blk, len(bits), md.NumRows)
		}
		for int64(len(blocks)) <= blk {
			blocks = append(blocks, nil)
		}
		blocks[blk] = []byte(bits)
	}
	if err := errors.Join(rows.Err(), rows.Close()); err != nil {
		return fmt.Errorf("analyze delivered_out: %w", err)
	}
	c, err := newColumnFile(path, "delivered", parquet.Optional(parquet.Leaf(parquet.BooleanType)))
	if err != nil {
		return fmt.Errorf("analyze delivered: %w", err)
	}
	var idx int64
	for _, rg := range md.RowGroups {
		for range rg.NumRows {
			var bits []byte
			if b := idx / deliveredBlock; b < int64(len(blocks)) {
				bits = blocks[b]
			}
			c.addBool(bits != nil && bits[idx%deliveredBlock] == '1')
			idx++
		}
		if err := c.endGroup(nil); err != nil {
			c.abort()
			return fmt.Errorf("analyze delivered: %w", err)
		}
	}
	if err := c.close(); err != nil {
		os.Remove(path)
		return fmt.Errorf("analyze delivered: %w", err)
	}
	return nil
}

// columns lists the column names of the named query's rows, without running
// it (DESCRIBE).
func (a *analysis) columns(name string) ([]string, error) {
	rows, err := a.db.QueryContext(a.ctx, "SELECT column_name FROM (DESCRIBE "+query(name)+")")
	if err != nil {
		return nil, fmt.Errorf("analyze %s: %w", name, err)
	}
	defer rows.Close()
	var names []string
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			return nil, fmt.Errorf("analyze %s: %w", name, err)
		}
		names = append(names, n)
	}
	return names, rows.Err()
}

// resolveCaps resolves the cap of every replica and loads them into the caps
// table.
func (a *analysis) resolveCaps(st *runState) (err error) {
	st.caps, err = a.caps(st.opt.Cap, st.man)
	return err
}

func (a *analysis) caps(flag *int64, man schemas.Manifest) (resolvedCaps, error) {
	rows, err := a.db.QueryContext(a.ctx, query("replicas"))
	if err != nil {
		return resolvedCaps{}, fmt.Errorf("analyze replicas: %w", err)
	}
	defer rows.Close()
	var reps []replicaFacts
	for rows.Next() {
		var f replicaFacts
		var sc sql.NullInt64
		if err := rows.Scan(&f.Name, &f.InSpans, &sc, &f.MaxInFlight); err != nil {
			return resolvedCaps{}, fmt.Errorf("analyze replicas: %w", err)
		}
		if sc.Valid {
			f.SampleCap = &sc.Int64
		}
		reps = append(reps, f)
	}
	if err := rows.Err(); err != nil {
		return resolvedCaps{}, fmt.Errorf("analyze replicas: %w", err)
	}
	rc := resolveCaps(reps, capInputs{Flag: flag, Logs: man.MaxNumSeqs, LogsByName: man.MaxNumSeqsBy})
	if len(reps) == 0 {
		rc.Source = CapInferred
		if flag != nil {
			rc.Source, rc.Pool = CapFromFlag, *flag
		}
	}
	names := make([]string, 0, len(rc.Names))
	vals := make([]int64, 0, len(rc.Names))
	for _, n := range rc.Names {
		names = append(names, n)
		vals = append(vals, rc.ByReplica[n])
	}
	if _, err := a.db.ExecContext(a.ctx, query("caps"), sql.Named("names", names), sql.Named("caps", vals)); err != nil {
		return resolvedCaps{}, fmt.Errorf("analyze caps: %w", err)
	}
	return rc, nil
}

// metricRows reads the rows of the metrics table (windows or run) as
// schemas.Metrics, through their JSON (metrics_json names every column as
// the struct's tags do).
func (a *analysis) metricRows() ([]schemas.Metrics, error) {
	rows, err := a.db.QueryContext(a.ctx, query("metrics_json"))
	if err != nil {
		return nil, fmt.Errorf("analyze metrics_json: %w", err)
	}
	defer rows.Close()
	out := []schemas.Metrics{}
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			return nil, fmt.Errorf("analyze metrics_json: %w", err)
		}
		var m schemas.Metrics
		if err := json.Unmarshal([]byte(s), &m); err != nil {
			return nil, fmt.Errorf("analyze metrics_json: %w", err)
		}
		out = append(out, m)
	}
	return out, rows.Err()
}

// located finds whether some span knows where it waited (the gap
// attribution's sweep runs only then), and whether a span that names no
// replica has a step of state (the condition pooled).
func (a *analysis) located(st *runState) error {
	if err := a.db.QueryRowContext(a.ctx, query("located")).Scan(&st.located, &st.unnamedSteps); err != nil {
		return fmt.Errorf("analyze located: %w", err)
	}
	return nil
}

// replicaStates reads each replica's state over the run (summary.json's
// replicas, when there are two or more).
func (a *analysis) replicaStates(st *runState) error {
	rows, err := a.db.QueryContext(a.ctx, query("replica_state"))
	if err != nil {
		return fmt.Errorf("analyze replica_state: %w", err)
	}
	defer rows.Close()
	secs := float64(st.t1-st.t0) / 1e6
	var out []schemas.ReplicaState
	for rows.Next() {
		var rs schemas.ReplicaState
		var capv, backlog, gap, engine, admission, unattributed int64
		var inf, qd float64
		if err := rows.Scan(&rs.Replica, &capv, &backlog, &gap, &inf, &qd, &engine, &admission, &unattributed); err != nil {
			return fmt.Errorf("analyze replica_state: %w", err)
		}
		rs.Cap = &capv
		rs.BacklogTime = float64(backlog) / 1e6
		rs.GapTime = float64(gap) / 1e6
		rs.EngineGapTime = float64(engine) / 1e6
		rs.AdmissionGapTime = float64(admission) / 1e6
		rs.UnattributedGapTime = float64(unattributed) / 1e6
		if secs > 0 {
			rs.GapFraction = ptr(rs.GapTime / secs)
			rs.MeanInFlight = ptr(inf / 1e6 / secs)
			rs.MeanQueueDepth = ptr(qd / 1e6 / secs)
			if capv > 0 {
				rs.Utilization = ptr(*rs.MeanInFlight / float64(capv))
			}
		}
		out = append(out, rs)
	}
	if err := rows.Err(); err != nil {
		return err
	}
	if len(out) >= 2 {
		st.replicas = out
	}
	return nil
}

// sampledWarnings say which inputs hold a sample of the requests their own
// totals count, the first three of them.
func sampledWarnings(ss []schemas.SampledInput) []string {
	var out []string
	for i, p := range ss {
		if i == 3 {
			out = append(out, fmt.Sprintf("%d more inputs hold a sample of their requests (summary.json data_quality.sampled_inputs)", len(ss)-3))
			break
		}
		out = append(out, filepath.Base(p.File)+": "+p.String())
	}
	return out
}

// quality counts the data-quality measures of docs/metrics.md "Data quality" that the spans table
// and the request facts show (quality_spans); sourceQuality adds the others.
func (a *analysis) quality(st *runState) error {
	man := st.man
	dq := schemas.DataQuality{
		RecordsRead:     man.Counts.Read,
		SpansWritten:    man.Counts.Written,
		RecordsRejected: man.Counts.Rejected,
		RecordsSkipped:  man.Counts.Skipped,
		RejectedBy:      man.RejectedBy,
		SkippedBy:       man.SkippedBy,
		Models:          []string{},
	}
	if dq.RejectedBy == nil {
		dq.RejectedBy = map[string]int64{}
	}
	for _, in := range man.Inputs {
		for _, p := range in.Sampled {
			p.File = in.Path
			dq.Sampled = append(dq.Sampled, p)
		}
	next:
		for _, c := range in.Inconsistent {
			for i := range dq.Inconsistent {
				if dq.Inconsistent[i].Reason == c.Reason {
					dq.Inconsistent[i].Count += c.Count
					continue next
				}
			}
			c.First = filepath.Base(in.Path) + ": " + c.First
			dq.Inconsistent = append(dq.Inconsistent, c)
		}
	}
	var mq, ma, mf, ml, mr, spansClipped int64
	err := a.db.QueryRowContext(a.ctx, query("quality_spans"), sql.Named("t0", st.t0), sql.Named("t1", st.t1)).Scan(
		&mq, &ma, &mf, &ml, &mr, &dq.OutOfOrder, &dq.UnlinkedRetries, &dq.SpansOutOfState, &spansClipped)
	if err != nil {
		return fmt.Errorf("analyze quality_spans: %w", err)
	}
	dq.MissingTimestamp = map[string]int64{
		"queued_at": mq, "admitted_at": ma, "first_token_at": mf, "last_token_at": ml, "released_at": mr,
	}
	if st.opt.From != nil {
		dq.SpansClipped = spansClipped
	}
	if err := a.db.QueryRowContext(a.ctx, query("sampling_holes")).Scan(&dq.SamplingHoles); err != nil {
		return fmt.Errorf("analyze sampling_holes: %w", err)
	}
	st.dq = dq
	return nil
}

// sourceQuality counts into dq the data-quality measures of docs/metrics.md "Data quality" read
// from span_src's columns that the spans table leaves out (quality_source).
func (a *analysis) sourceQuality(st *runState) error {
	dq := &st.dq
	var models []any
	err := a.db.QueryRowContext(a.ctx, query("quality_source")).Scan(
		&dq.DuplicateSpanIDs, &models, &dq.CoarseTimeSpans, &dq.RelativeSpans)
	if err != nil {
		return fmt.Errorf("analyze quality_source: %w", err)
	}
	for _, m := range models {
		if s, ok := m.(string); ok {
			dq.Models = append(dq.Models, s)
		}
	}
	return nil
}

// listReplicas bounds the per-replica states summary.json lists at
// schemas.MaxListed: those with the most gap time (ties by name), in the
// order of rs; and how many were left out.
func listReplicas(rs []schemas.ReplicaState) ([]schemas.ReplicaState, int64) {
	if len(rs) <= schemas.MaxListed {
		return rs, 0
	}
	order := make([]int, len(rs))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool {
		ra, rb := rs[order[a]], rs[order[b]]
		if ra.GapTime != rb.GapTime {
			return ra.GapTime > rb.GapTime
		}
		return ra.Replica < rb.Replica
	})
	keep := make([]bool, len(rs))
	for _, i := range order[:schemas.MaxListed] {
		keep[i] = true
	}
	out := make([]schemas.ReplicaState, 0, schemas.MaxListed)
	for i, r := range rs {
		if keep[i] {
			out = append(out, r)
		}
	}
	return out, int64(len(rs) - schemas.MaxListed)
}

// curves reads curves.json from curve_values over the run extent.
func (a *analysis) curves(st *runState) error {
	var s string
	if err := a.db.QueryRowContext(a.ctx, query("curves")).Scan(&s); err != nil {
		return fmt.Errorf("analyze curves: %w", err)
	}
	var c schemas.Curves
	if err := json.Unmarshal([]byte(s), &c); err != nil {
		return fmt.Errorf("analyze curves: %w", err)
	}
	if c.Concurrency == nil {
		c.Concurrency = []schemas.ConcurrencyPoint{}
	}
	st.curves = c
	return nil
}

// curveConcDone releases the merged curve's stream (curveConcMerged) once
// curves has read it, with the merge's error, if any.
func (a *analysis) curveConcDone(st *runState) error {
	release := st.curveRelease
	st.curveRelease = nil
	if release == nil {
		return errors.New("analyze curve_conc_done: no merged curve")
	}
	if err := release(); err != nil {
		return fmt.Errorf("analyze curve_conc: %w", err)
	}
	return nil
}

func writeJSON(path string, v any) error {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return fmt.Errorf("encode %s: %w", filepath.Base(path), err)
	}
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		return fmt.Errorf("write %s: %w", filepath.Base(path), err)
	}
	return nil
}

func ptr(v float64) *float64 { return &v }

// plural is one when n is 1, else many.
func plural(n int64, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// ErrNoRequests is the error of analysing a run dataset of engine samples
// alone: there is no request to measure.
var ErrNoRequests = errors.New("nothing to analyse")

// fileRows is the row count the manifest records for a data file; false for
// a dataset written before manifests recorded them.
func fileRows(man schemas.Manifest, name string) (int64, bool) {
	for _, f := range man.Files {
		if f.Name == name && f.Rows != nil {
			return *f.Rows, true
		}
	}
	return 0, false
}
