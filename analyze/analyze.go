package analyze

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"math"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/tpsreport/tpsreport/internal/dataset"
	"github.com/tpsreport/tpsreport/schemas"
)

// outputFiles are the files analyze adds to a run dataset, all written in a
// temporary directory and renamed into place at the end.
var outputFiles = []string{schemas.WindowsFile, schemas.RequestsFile, schemas.LatenciesFile, schemas.SummaryFile, schemas.CurvesFile,
	schemas.BudgetFile, schemas.RolesFile}

// optionalOutputs are the outputs only some runs have: a run with stages
// (disaggregation).
var optionalOutputs = []string{schemas.BudgetFile, schemas.RolesFile}

// runWidth is the window width that makes the whole run one window: every instant
// t of the epoch has t / runWidth = 0.
const runWidth int64 = 1 << 62

// Run analyses the dataset in opt.Dir and writes summary.json, windows.parquet,
// requests.parquet and curves.json into it, each atomically.
func Run(ctx context.Context, opt Options) (*schemas.RunResult, error) {
	return runWith(ctx, opt, knobs{})
}

// runWith is Run with a test's knobs.
func runWith(ctx context.Context, opt Options, k knobs) (*schemas.RunResult, error) {
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
	if n, ok := fileRows(man, schemas.SpansFile); ok && n == 0 && man.SamplesWritten > 0 && man.StagesWritten == 0 && opt.From == nil {
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
	if err := dataset.Verify(opt.Dir, &man, ingestHint(opt.Dir, man), schemas.SpansFile, schemas.SamplesFile, schemas.StagesFile); err != nil {
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

	memory := runMemory(spansPath, k)
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
	res, err := a.run(opt, k, width.Microseconds(), spansPath, man, tmpDir)
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
			if errors.Is(err, fs.ErrNotExist) && slices.Contains(optionalOutputs, name) {
				continue
			}
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

func (a *analysis) run(opt Options, k knobs, width int64, spansPath string, man schemas.Manifest, tmpDir string) (*schemas.RunResult, error) {
	st := &runState{opt: opt, k: k, man: man, width: width, spansPath: spansPath, tmpDir: tmpDir, runID: man.RunID}
	if p := filepath.Join(opt.Dir, "samples.parquet"); fileExists(p) {
		st.samplesPath = p
	}
	if p := filepath.Join(opt.Dir, schemas.StagesFile); fileExists(p) {
		st.stagesPath = p
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
func runMemory(spansPath string, k knobs) string {
	if n, err := parquetRows(spansPath); err == nil && (&runState{k: k, spans: n}).beyond(largeRunSpans) {
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
