// Command bench is `make bench`: it generates large inputs with the simulator
// (canonical spans of each -sizes, and for -format-sizes the same run as vLLM
// OTel spans and LiteLLM payloads), then measures, in one run and on the same
// files, tpsreport ingest against DuckDB's own read_json → Parquet (through the
// same DuckDB build) for each format, tpsreport analyze, report and compare,
// and the ingest and analyze of a LiteLLM + vLLM OTel run joined per request.
// Each step is a child process whose wall time and peak RSS are taken from its
// rusage. Each step runs -repeat times, in rounds that run every step once (so
// that tpsreport and DuckDB see the same share of a shared machine), and the
// median is reported; CPU times go to stderr. The table is printed and written
// to BENCHMARKS.md between the markers of its "Latest run" section.
package main

import (
	"bufio"
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	_ "github.com/duckdb/duckdb-go/v2"

	"github.com/tpsreport/tpsreport/schemas"
	"github.com/tpsreport/tpsreport/sim"
)

func main() {
	if len(os.Args) > 1 && os.Args[1] == "duckcopy" {
		if err := duckCopy(os.Args[2], os.Args[3]); err != nil {
			fmt.Fprintln(os.Stderr, "duckcopy:", err)
			os.Exit(1)
		}
		return
	}
	bin := flag.String("bin", "bin/tpsreport", "tpsreport binary to measure")
	out := flag.String("out", "bench/out", "work directory for the generated inputs and outputs")
	inputs := flag.String("inputs", "", "directory of the generated inputs (spans-1M.jsonl, ...), generated there if missing; '' means -out")
	only := flag.String("steps", envOr("BENCH_STEPS", ""), "run only the steps whose names start with one of these, comma-separated: a first word (ingest, analyze, report, compare) or more of a name ('ingest (tpsreport)': tpsreport's ingests, not DuckDB's); '' runs all")
	md := flag.String("md", "BENCHMARKS.md", "file whose latest-run section is rewritten ('' for none)")
	sizes := flag.String("sizes", envOr("BENCH_SIZES", "1000000,10000000"), "span counts to generate, comma-separated")
	formats := flag.String("format-sizes", envOr("BENCH_FORMAT_SIZES", "1000000"), "of -sizes, those also generated and measured as vLLM OTel and LiteLLM logs ('' for none)")
	repeat := flag.Int("repeat", envInt("BENCH_REPEAT", 3), "runs of each step; the median is reported")
	scale := flag.Bool("scale", false, "run the scale bench instead (make bench-scale): -scale-sizes generated straight into run datasets, analyzed, the largest reported and compared against the smaller; its section of -md is rewritten")
	scaleDir := flag.String("scale-dir", "bench/scale", "work directory of -scale")
	scaleSizes := flag.String("scale-sizes", envOr("SCALE_SIZES", "10000000,100000000"), "the two span counts of -scale, the smaller first")
	keep := flag.Bool("keep", os.Getenv("SCALE_KEEP") != "", "keep the largest -scale dataset (removed at the end otherwise)")
	flag.Parse()
	if *scale {
		if err := runScale(*bin, *scaleDir, *md, *scaleSizes, *keep); err != nil {
			fmt.Fprintln(os.Stderr, "bench-scale:", err)
			os.Exit(1)
		}
		return
	}
	if *inputs == "" {
		*inputs = *out
	}
	if err := run(*bin, *out, *inputs, *md, *sizes, *formats, *only, *repeat); err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
}

func envOr(k, d string) string {
	if v := os.Getenv(k); v != "" {
		return v
	}
	return d
}

func envInt(k string, d int) int {
	if v, err := strconv.Atoi(os.Getenv(k)); err == nil {
		return v
	}
	return d
}

// duckCopy is DuckDB's own reader and writer: read_json → Parquet (zstd).
func duckCopy(in, out string) error {
	db, err := sql.Open("duckdb", "")
	if err != nil {
		return err
	}
	defer db.Close()
	for _, s := range []string{"SET autoinstall_known_extensions = false", "SET autoload_known_extensions = false", "SET enable_progress_bar = false"} {
		if _, err := db.Exec(s); err != nil {
			return err
		}
	}
	q := fmt.Sprintf("COPY (SELECT * FROM read_json(%s, format = 'newline_delimited')) TO %s (FORMAT parquet, COMPRESSION zstd)", quote(in), quote(out))
	_, err = db.Exec(q)
	return err
}

func quote(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }

// measurement is one step's median over its runs.
type measurement struct {
	step, format, input string
	bytes, rows         int64
	wall                time.Duration
	rssKB               int64
	walls               []time.Duration
	cpus                []time.Duration // user + system time of each run
}

// step is one command the bench measures.
type step struct {
	name   string
	format string // input format of an ingest step: spans, vllm-otel, litellm
	argv   []string
	bytes  int64    // input bytes
	rows   int64    // spans in or out
	runDir string   // a run whose manifest counts the spans (rows)
	inputs []string // files read: in the page cache before the step starts
}

func run(bin, out, inputs, md, sizeList, formatList, only string, repeat int) error {
	for _, dir := range []string{out, inputs} {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return err
		}
	}
	self, err := os.Executable()
	if err != nil {
		return err
	}
	formatSizes := map[int64]bool{}
	if formatList != "" {
		for s := range strings.SplitSeq(formatList, ",") {
			n, err := strconv.ParseInt(strings.TrimSpace(s), 10, 64)
			if err != nil {
				return fmt.Errorf("-format-sizes %q: %w", s, err)
			}
			formatSizes[n] = true
		}
	}
	var ms []measurement
	for s := range strings.SplitSeq(sizeList, ",") {
		n, err := strconv.ParseInt(strings.TrimSpace(s), 10, 64)
		if err != nil {
			return fmt.Errorf("-sizes %q: %w", s, err)
		}
		label := human(n)
		withFormats := formatSizes[n]
		files, n, err := generate(inputs, label, n, withFormats)
		if err != nil {
			return err
		}
		size := func(path string) int64 {
			fi, err := os.Stat(path)
			if err != nil {
				return 0
			}
			return fi.Size()
		}
		in := files[sim.FormatSpans]
		runDir := filepath.Join(out, "run-"+label)
		steps := []step{
			{name: "ingest (tpsreport)", format: sim.FormatSpans, argv: []string{bin, "ingest", "--format", "spans", "--run", "bench", "--out", runDir, in}, runDir: runDir},
			{name: "ingest (DuckDB read_json → Parquet)", format: sim.FormatSpans, argv: []string{self, "duckcopy", in, filepath.Join(out, "duck-"+label+".parquet")}, runDir: runDir},
			{name: "analyze", argv: []string{bin, "analyze", runDir}, rows: n},
			{name: "report", argv: []string{bin, "report", "--out", filepath.Join(out, "report-"+label), runDir}, rows: n},
			{name: "compare (run against itself)", argv: []string{bin, "compare", "--out", filepath.Join(out, "compare-"+label), runDir, runDir}, rows: n},
		}
		if withFormats {
			// The same simulated run as a gateway's and an engine's logs: each
			// ingested alone against DuckDB's reader of the same file, then
			// both into one run, joined by analyze.
			for _, f := range benchFormats {
				dir := filepath.Join(out, f+"-"+label)
				steps = append(steps,
					step{name: "ingest (tpsreport)", format: f, argv: []string{bin, "ingest", "--format", sim.IngestFormat(f), "--run", "bench", "--out", dir, files[f]}, runDir: dir},
					step{name: "ingest (DuckDB read_json → Parquet)", format: f, argv: []string{self, "duckcopy", files[f], filepath.Join(out, "duck-"+f+"-"+label+".parquet")}, runDir: dir})
			}
			joined := joined(out, label)
			steps = append(steps,
				step{name: "ingest (tpsreport)", format: sim.FormatLiteLLM + " + " + sim.FormatVLLMOTel,
					argv:   []string{bin, "ingest", "--run", "bench", "--out", joined, sim.FormatLiteLLM + ":" + files[sim.FormatLiteLLM], sim.FormatVLLMOTel + ":" + files[sim.FormatVLLMOTel]},
					bytes:  size(files[sim.FormatLiteLLM]) + size(files[sim.FormatVLLMOTel]),
					runDir: joined},
				step{name: joinedStep, format: sim.FormatLiteLLM + " + " + sim.FormatVLLMOTel, argv: []string{bin, "analyze", joined}, runDir: joined})
		}
		for i := range steps {
			switch {
			case strings.Contains(steps[i].name, "DuckDB"):
				steps[i].inputs = steps[i].argv[2:3]
			case strings.HasPrefix(steps[i].name, "ingest"):
				steps[i].inputs = steps[i].argv[len(steps[i].argv)-1:]
				if steps[i].runDir == joined(out, label) {
					steps[i].inputs = []string{files[sim.FormatLiteLLM], files[sim.FormatVLLMOTel]}
				}
			}
			if steps[i].bytes == 0 && strings.HasPrefix(steps[i].name, "ingest") {
				steps[i].bytes = size(steps[i].argv[len(steps[i].argv)-1])
				if strings.Contains(steps[i].name, "DuckDB") {
					steps[i].bytes = size(steps[i].argv[2])
				}
			}
		}
		// Rounds: each round runs every step once, so that tpsreport and
		// DuckDB see the same share of a noisy machine.
		var sized []measurement
		rss := map[int][]int64{}
		for i := range repeat {
			k := 0
			for _, st := range steps {
				if !selected(st.name, only) {
					continue
				}
				if i == 0 {
					sized = append(sized, measurement{step: st.name, format: st.format, input: label, bytes: st.bytes, rows: st.rows})
				}
				m := &sized[k]
				if err := warm(st.inputs...); err != nil {
					return err
				}
				wall, cpu, kb, err := child(st.argv)
				if err != nil {
					return fmt.Errorf("%s %s (%s), run %d: %w", st.name, st.format, label, i+1, err)
				}
				if i == 0 && st.runDir != "" {
					// Unknown (blank spans/s) when the ingest of runDir was not run.
					m.rows, _ = writtenSpans(st.runDir)
				}
				m.walls = append(m.walls, wall)
				m.cpus = append(m.cpus, cpu)
				rss[k] = append(rss[k], kb)
				k++
			}
		}
		for k := range sized {
			m := &sized[k]
			m.wall = medianDur(m.walls)
			slices.Sort(rss[k])
			m.rssKB = rss[k][len(rss[k])/2]
			fmt.Fprintf(os.Stderr, "%-40s %-22s %-4s %8.2fs %8.0f MB RSS, CPU %.2fs (runs: %s wall, %s CPU)\n", m.step, m.format, label, m.wall.Seconds(),
				float64(m.rssKB)/1024, medianDur(m.cpus).Seconds(), seconds(m.walls), seconds(m.cpus))
		}
		ms = append(ms, sized...)
	}
	table := render(ms, sizeList, formatList, only, repeat)
	fmt.Print(table)
	if md != "" {
		return rewriteBetween(md, beginMarker, endMarker, table)
	}
	return nil
}

// joined is the run directory of the joined LiteLLM + vLLM OTel ingest.
func joined(out, label string) string { return filepath.Join(out, "joined-"+label) }

// warm reads files through once, so that every step finds its input in the
// page cache: the machine's disk is not what the bench measures, and a step
// must not pay for evictions caused by the one before.
func warm(files ...string) error {
	buf := make([]byte, 4<<20)
	for _, p := range files {
		f, err := os.Open(p)
		if err != nil {
			return err
		}
		for {
			if _, err = f.Read(buf); err != nil {
				break
			}
		}
		f.Close()
		if err != io.EOF {
			return fmt.Errorf("warm %s: %w", p, err)
		}
	}
	return nil
}

// writtenSpans reads the count of spans written from the manifest of a run.
func writtenSpans(runDir string) (int64, error) {
	b, err := os.ReadFile(filepath.Join(runDir, "manifest.json"))
	if err != nil {
		return 0, err
	}
	var man schemas.Manifest
	if err := json.Unmarshal(b, &man); err != nil {
		return 0, fmt.Errorf("%s: %w", runDir, err)
	}
	return man.Counts.Written, nil
}

// selected reports whether the step called name is among only, a
// comma-separated list of the beginnings of step names, each one or more
// whole words ("" selects all): "ingest" selects tpsreport's ingests and
// DuckDB's, "ingest (tpsreport)" tpsreport's alone, so that the joined path
// can be measured at 10 M spans without DuckDB's read_json of every format.
func selected(name, only string) bool {
	if only == "" {
		return true
	}
	for w := range strings.SplitSeq(only, ",") {
		w = strings.TrimSpace(w)
		if w != "" && strings.HasPrefix(name, w) && (len(name) == len(w) || name[len(w)] == ' ') {
			return true
		}
	}
	return false
}

// benchFormats are the simulator's log formats make bench ingests beside
// canonical spans (BENCH_FORMAT_SIZES), each against DuckDB's reader of the
// same file: an engine's (vLLM OTel, SGLang's request metrics) and a
// gateway's (LiteLLM, and LiteLLM whose responses carry vLLM's per-request
// metrics). LiteLLM + vLLM OTel are also ingested into one run and joined.
var benchFormats = []string{sim.FormatVLLMOTel, sim.FormatLiteLLM, sim.FormatLiteLLMMetrics, sim.FormatSGLangMetrics}

// generate writes the inputs of one size into dir: label names them
// (spans-1M.jsonl) and n is the number of canonical spans, those of the
// multi-replica scenario (a day of traffic, cut at n spans). withFormats adds
// the same run in each of benchFormats (vllm-otel-1M.jsonl, litellm-1M.jsonl,
// …). The simulator is deterministic, so files already there
// are kept. It returns the path of each file by format and the number of
// canonical spans.
func generate(dir, label string, n int64, withFormats bool) (map[string]string, int64, error) {
	files := map[string]string{sim.FormatSpans: filepath.Join(dir, "spans-"+label+".jsonl")}
	if withFormats {
		for _, f := range benchFormats {
			files[f] = filepath.Join(dir, f+"-"+label+".jsonl")
		}
	}
	countPath := files[sim.FormatSpans] + ".count"
	if b, err := os.ReadFile(countPath); err == nil {
		if c, err := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64); err == nil && allExist(files) {
			return files, c, nil
		}
	}
	sc, err := dayScenario(n)
	if err != nil {
		return nil, 0, err
	}

	type out struct {
		f    *os.File
		bw   *bufio.Writer
		path string
	}
	var outs []*out
	defer func() {
		for _, o := range outs {
			o.f.Close()
			os.Remove(o.f.Name()) // the temporary file, if still there
		}
	}()
	create := func(path string) (*bufio.Writer, error) {
		f, err := os.Create(path + ".tmp")
		if err != nil {
			return nil, err
		}
		o := &out{f: f, bw: bufio.NewWriterSize(f, 1<<20), path: path}
		outs = append(outs, o)
		return o.bw, nil
	}
	w, err := create(files[sim.FormatSpans])
	if err != nil {
		return nil, 0, err
	}
	// The canonical writer comes first in the tee and stops the run after n
	// spans, so that every format holds the same n spans.
	cw := &countingSpans{w: w, max: n}
	ws := []sim.Writer{cw}
	if withFormats {
		for _, f := range benchFormats {
			fw, err := create(files[f])
			if err != nil {
				return nil, 0, err
			}
			switch f {
			case sim.FormatVLLMOTel:
				ws = append(ws, sim.NewVLLMOTel(fw, sc, 1))
			case sim.FormatLiteLLM:
				ws = append(ws, sim.NewLiteLLM(fw, sc, 1))
			case sim.FormatLiteLLMMetrics:
				ws = append(ws, sim.NewLiteLLMMetrics(fw, sc, 1))
			case sim.FormatSGLangMetrics:
				ws = append(ws, sim.NewSGLangMetrics(fw, sc, 1))
			}
		}
	}
	tw := sim.Tee(ws...)
	if _, err := sim.Generate(sc, 1, tw); err != nil && !errors.Is(err, errEnough) {
		return nil, 0, err
	}
	if err := tw.Flush(); err != nil { // Generate does not flush after errEnough
		return nil, 0, err
	}
	for _, o := range outs {
		if err := o.bw.Flush(); err != nil {
			return nil, 0, err
		}
		if err := o.f.Close(); err != nil {
			return nil, 0, err
		}
	}
	for _, o := range outs {
		if err := os.Rename(o.f.Name(), o.path); err != nil {
			return nil, 0, err
		}
		fmt.Fprintf(os.Stderr, "generated %s\n", o.path)
	}
	return files, cw.n, os.WriteFile(countPath, []byte(strconv.FormatInt(cw.n, 10)+"\n"), 0o644)
}

func allExist(files map[string]string) bool {
	for _, p := range files {
		if _, err := os.Stat(p); err != nil {
			return false
		}
	}
	return true
}

// dayScenario is the scenario every bench generates: the multi-replica
// scenario's per-replica load over a day, from as many replicas as n spans a
// day need, stopped at n spans before the arrivals run out.
func dayScenario(n int64) (sim.Scenario, error) {
	sc, err := sim.Named("multi-replica")
	if err != nil {
		return sc, err
	}
	perReplica := sc.Rate / float64(sc.Replicas)
	sc.Duration = 24 * time.Hour
	sc.Rate = float64(n) / 86400 / 1.02 // about 2 % of spans are retries and hedges
	sc.Replicas = max(1, int(math.Ceil(sc.Rate/perReplica)))
	sc.MaxArrivals = n
	return sc, nil
}

var errEnough = errors.New("enough spans")

// countingSpans writes canonical JSONL spans and stops the simulation after max.
type countingSpans struct {
	w      io.Writer
	n, max int64
	buf    []byte
}

func (c *countingSpans) WriteSpan(s schemas.Span) error {
	if c.n >= c.max {
		return errEnough
	}
	c.buf = sim.AppendSpanJSON(c.buf[:0], &s)
	c.buf = append(c.buf, '\n')
	c.n++
	_, err := c.w.Write(c.buf)
	return err
}

func (c *countingSpans) WriteSample(schemas.Sample) error { return nil }
func (c *countingSpans) Flush() error                     { return nil }

// seconds formats durations as "1.23, 1.25".
func seconds(ds []time.Duration) string {
	s := make([]string, len(ds))
	for i, d := range ds {
		s[i] = fmt.Sprintf("%.2f", d.Seconds())
	}
	return strings.Join(s, ", ")
}

// child runs argv and returns its wall time, CPU time (user + system) and
// peak RSS (KiB).
func child(argv []string) (wall, cpu time.Duration, kb int64, err error) {
	cmd := exec.CommandContext(context.Background(), argv[0], argv[1:]...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	start := time.Now()
	if err := cmd.Run(); err != nil {
		return 0, 0, 0, fmt.Errorf("%v: %s", err, lastLine(stderr.String()))
	}
	wall = time.Since(start)
	cpu = cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		kb = ru.Maxrss
	}
	return wall, cpu, kb, nil
}

func lastLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		return s[i+1:]
	}
	return s
}

func medianDur(ds []time.Duration) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[len(s)/2]
}

func human(n int64) string {
	switch {
	case n%1_000_000 == 0:
		return strconv.FormatInt(n/1_000_000, 10) + "M"
	case n%1_000 == 0:
		return strconv.FormatInt(n/1_000, 10) + "k"
	}
	return strconv.FormatInt(n, 10)
}

func render(ms []measurement, sizes, formatSizes, only string, repeat int) string {
	var b strings.Builder
	host, _ := os.Hostname()
	steps := ""
	if only != "" {
		steps = fmt.Sprintf(" BENCH_STEPS='%s'", only)
	}
	fmt.Fprintf(&b, "Run %s on %s (%d CPUs, %s/%s, %s); `make bench BENCH_SIZES=%s BENCH_FORMAT_SIZES=%s BENCH_REPEAT=%d%s`; median of %d runs.\n\n",
		time.Now().UTC().Format("2006-01-02 15:04 MST"), host, runtime.NumCPU(), runtime.GOOS, runtime.GOARCH, runtime.Version(), sizes, formatSizes, repeat, steps, repeat)
	fmt.Fprintln(&b, "| step | input | wall (s) | runs (s) | MB/s | spans/s | peak RSS (MB) | vs DuckDB |")
	fmt.Fprintln(&b, "|---|---|---:|---|---:|---:|---:|---:|")
	duck := map[string]time.Duration{}
	for _, m := range ms {
		if strings.HasPrefix(m.step, "ingest (DuckDB") {
			duck[m.input+m.format] = m.wall
		}
	}
	for _, m := range ms {
		var runs []string
		for _, w := range m.walls {
			runs = append(runs, fmt.Sprintf("%.1f", w.Seconds()))
		}
		in := m.input + " run"
		if m.format != "" {
			in = m.format + ", " + in
		}
		if m.rows > 0 {
			in += ", " + thousands(m.rows) + " spans"
		}
		mbs, sps, ratio := "", "", ""
		if m.rows > 0 {
			sps = fmt.Sprintf("%.0f", float64(m.rows)/m.wall.Seconds())
		}
		if m.bytes > 0 {
			in += fmt.Sprintf(", %.0f MB", float64(m.bytes)/1e6)
			mbs = fmt.Sprintf("%.0f", float64(m.bytes)/1e6/m.wall.Seconds())
		}
		if d, ok := duck[m.input+m.format]; ok && m.step == "ingest (tpsreport)" {
			ratio = fmt.Sprintf("%.2f×", d.Seconds()/m.wall.Seconds())
		}
		fmt.Fprintf(&b, "| %s | %s | %.2f | %s | %s | %s | %.0f | %s |\n",
			m.step, in, m.wall.Seconds(), strings.Join(runs, ", "), mbs, sps, float64(m.rssKB)/1024, ratio)
	}
	b.WriteString(joinedRatios(ms))
	fmt.Fprintln(&b, "\n\"vs DuckDB\" is DuckDB's wall time over tpsreport's on the same file in the same run: above 1× tpsreport is faster. "+
		"The spans of a format run are those ingest wrote (the engine logs only the attempts that reached it); "+
		"DuckDB's copy converts the same file as it is, nested, without flattening it into spans.")
	return b.String()
}

// joinedStep is the analyze of the LiteLLM + vLLM OTel run, joined per request.
const joinedStep = "analyze (gateway ⋈ engine join)"

// joinedRatios states, for each size measured both ways, the joined path's
// analyze against the canonical spans' analyze of the same simulated run
// (issue 27: at most 1.5×): the median of the ratios of the two steps'
// walls in each round, which ran side by side.
func joinedRatios(ms []measurement) string {
	var b strings.Builder
	for _, j := range ms {
		if j.step != joinedStep {
			continue
		}
		for _, c := range ms {
			if c.step != "analyze" || c.input != j.input || len(c.walls) != len(j.walls) {
				continue
			}
			var rs []float64
			var runs []string
			for i := range j.walls {
				r := j.walls[i].Seconds() / c.walls[i].Seconds()
				rs = append(rs, r)
				runs = append(runs, fmt.Sprintf("%.2f×", r))
			}
			slices.Sort(rs)
			fmt.Fprintf(&b, "\nJoined path, %s: analyze of the LiteLLM + vLLM OTel run %.2f s (peak RSS %.0f MB) against %.2f s (%.0f MB) for the canonical spans of the same simulation: **%.2f×** (target ≤ 1.5×; median of the rounds' ratios %s).\n",
				j.input, j.wall.Seconds(), float64(j.rssKB)/1024, c.wall.Seconds(), float64(c.rssKB)/1024, rs[len(rs)/2], strings.Join(runs, ", "))
		}
	}
	return b.String()
}

const (
	beginMarker = "<!-- bench:begin -->"
	endMarker   = "<!-- bench:end -->"
)

// rewriteBetween replaces the text between the markers begin and end of path.
func rewriteBetween(path, begin, end, text string) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	s := string(b)
	i, j := strings.Index(s, begin), strings.Index(s, end)
	if i < 0 || j < i {
		return fmt.Errorf("%s has no %s … %s section", path, begin, end)
	}
	s = s[:i+len(begin)] + "\n" + text + s[j:]
	return os.WriteFile(path, []byte(s), 0o644)
}

func thousands(n int64) string {
	s := strconv.FormatInt(n, 10)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
