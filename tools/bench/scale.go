package main

// The scale bench (make bench-scale, -scale): the day scenario at 10 M and
// 100 M spans, generated straight into run datasets (the simulator's
// canonical JSONL piped into `tpsreport ingest -`, never written to disk: the
// 100 M file would be about 48 GB), then analyze of each, and report and
// compare of the largest. Every step is a child process measured as in the
// bench (wall time, peak RSS from its rusage); analyze runs with --debug, and
// its per-statement log gives the slowest statements and the spill.

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/tpsreport/tpsreport/schemas"
	"github.com/tpsreport/tpsreport/sim"
)

// scaleMeasure is one step of the scale bench.
type scaleMeasure struct {
	step, input    string
	spans          int64
	wall, cpu      time.Duration
	rssKB          int64
	load           [2]float64 // mean and max of the 1-minute load average while it ran
	slowest        []statement
	spilledMB      int64 // most DuckDB held in its temp files after any statement
	outBytes       int64 // what the step left on disk (dataset, outputs)
	freeBefore     int64 // free bytes of the work directory's file system before the step
	diskNeedBefore int64 // what the step was estimated to need
}

// statement is one line of analyze's --debug log.
type statement struct {
	name, conn string
	elapsed    time.Duration
	spilledMB  int64
	memoryMB   int64
}

// Spill of analyze per span: about 110 bytes at 10 M spans (BENCHMARKS.md),
// and the dataset and analyze's outputs, until the small run measures them.
const (
	spillPerSpan   = 110
	datasetPerSpan = 40
	outputsPerSpan = 60
	diskMargin     = 1 << 30 // left free whatever the estimate
	// spillGrowth is the spill a span of the large run over the small
	// run's, with a margin: at 100 M against 10 M spans, 1.5 with the tables
	// uncompressed (20.7 GB at most) and 1.15 as a large run stores them
	// (15.8 GB; BENCHMARKS.md "A large run").
	spillGrowth = 2.0
)

func runScale(bin, dir, md, sizeList string, keep bool) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	var sizes []int64
	for s := range strings.SplitSeq(sizeList, ",") {
		n, err := strconv.ParseInt(strings.TrimSpace(s), 10, 64)
		if err != nil {
			return fmt.Errorf("-scale-sizes %q: %w", s, err)
		}
		sizes = append(sizes, n)
	}
	if len(sizes) != 2 || sizes[0] >= sizes[1] {
		return fmt.Errorf("-scale-sizes %q: want two sizes, the smaller first", sizeList)
	}
	small, large := sizes[0], sizes[1]
	runDir := func(n int64) string { return filepath.Join(dir, "run-"+human(n)) }

	// Per-span disk use: the defaults until the small run measures them.
	perDataset, perOutputs, perSpill := float64(datasetPerSpan), float64(outputsPerSpan), float64(spillPerSpan)
	var ms []scaleMeasure
	analyzed := map[int64]int{} // index in ms of the analyze of n spans
	analysis := func(n int64) *scaleMeasure {
		if i, ok := analyzed[n]; ok {
			return &ms[i]
		}
		return nil
	}
	// the small run's analysis after the large one's (nil before it).
	var after *scaleMeasure
	// analyzeStep analyses the n spans of rd (what names the step in the
	// disk check, suffix the log's name), once the disk holds its outputs
	// and spill as the small run measured them. analyze reads the spans and
	// samples from the page cache, as the steps of the other bench do
	// (warm): a dataset evicted by whatever ran before would otherwise
	// charge the disk to one run and not the other.
	analyzeStep := func(rd string, n int64, what, suffix string) (scaleMeasure, error) {
		need := int64(float64(n) * (perOutputs + perSpill))
		free, err := checkDisk(dir, need, what)
		if err != nil {
			return scaleMeasure{}, err
		}
		if err := warm(analyzeInputs(rd)...); err != nil {
			return scaleMeasure{}, err
		}
		m, err := analyzeRun(bin, rd, n, suffix)
		if err != nil {
			return scaleMeasure{}, err
		}
		m.freeBefore, m.diskNeedBefore = free, need
		return m, nil
	}
	// Each step's figures go to md as soon as it ends, marked unfinished,
	// so that a run stopped half way (out of time, out of disk) still
	// leaves what it measured.
	record := func(m scaleMeasure) error {
		ms = append(ms, m)
		if md == "" {
			return nil
		}
		return rewriteBetween(md, scaleBegin, scaleEnd, renderScale(ms, analysis(small), after, analysis(large), small, large, sizeList, keep)+
			"\n**Unfinished**: the run had measured only the steps above when this was written.\n")
	}
	for _, n := range sizes {
		label := human(n)
		rd := runDir(n)
		if c, err := writtenSpans(rd); err == nil && c > 0 {
			fmt.Fprintf(os.Stderr, "scale: %s holds a %s-span dataset, kept\n", rd, label)
			// An earlier analysis's outputs go first: the next one would
			// write its own beside them (9.8 GB at 100 M spans), where a
			// generated dataset starts without.
			if err := removeDerived(rd); err != nil {
				return err
			}
		} else {
			need := int64(float64(n) * perDataset)
			free, err := checkDisk(dir, need, "generate and ingest "+label+" spans")
			if err != nil {
				return err
			}
			m, err := generateRun(bin, rd, n)
			if err != nil {
				return err
			}
			m.freeBefore, m.diskNeedBefore = free, need
			if err := record(m); err != nil {
				return err
			}
		}
		if n == small {
			if b := ingestBytes(rd); b > 0 {
				perDataset = float64(b) / float64(n)
			}
		}
		m, err := analyzeStep(rd, n, "analyze "+label+" spans (spill and outputs)", "")
		if err != nil {
			return err
		}
		if n == small {
			if m.outBytes > 0 {
				perOutputs = float64(m.outBytes) / float64(n)
			}
			if m.spilledMB > 0 {
				// Spill grows faster than the spans (spillGrowth).
				perSpill = max(perSpill, spillGrowth*float64(m.spilledMB<<20)/float64(n))
			}
		}
		analyzed[n] = len(ms)
		if err := record(m); err != nil {
			return err
		}
	}

	// The small run is analysed again after the large one: a shared
	// machine's speed moves over the large one's many minutes (on this
	// one by a third to four fifths between hours, BENCHMARKS.md "The
	// machine's drift"), and the mean of the small run's two analyses, one
	// on each side of the large one, cancels a steady drift where one
	// analysis before would charge all of it to the ratio.
	if err := removeDerived(runDir(small)); err != nil {
		return err
	}
	again, err := analyzeStep(runDir(small), small, "analyze "+human(small)+" spans again", "-after")
	if err != nil {
		return err
	}
	again.step = "analyze (again, after the " + human(large) + " run)"
	after = &again
	if err := record(again); err != nil {
		return err
	}

	// report of the large run, and compare of it against the small one: a
	// second large run of another seed would need another large dataset on
	// a disk that does not hold two.
	rep := filepath.Join(dir, "report-"+human(large))
	cmp := filepath.Join(dir, "compare-"+human(large)+"-vs-"+human(small))
	for _, st := range []struct {
		name string
		argv []string
	}{
		{"report", []string{bin, "report", "--out", rep, runDir(large)}},
		{"compare (" + human(large) + " run against the " + human(small) + " run)", []string{bin, "compare", "--out", cmp, runDir(small), runDir(large)}},
	} {
		free, err := checkDisk(dir, 256<<20, st.name)
		if err != nil {
			return err
		}
		m := scaleMeasure{step: st.name, input: human(large) + " run", spans: large, freeBefore: free, diskNeedBefore: 256 << 20}
		var stderr []byte
		m.wall, m.cpu, m.rssKB, m.load, stderr, err = measured(st.argv, nil)
		if err != nil {
			return fmt.Errorf("%s: %w: %s", st.name, err, lastLine(string(stderr)))
		}
		m.outBytes = dirBytes(st.argv[3])
		logStep(m)
		if err := record(m); err != nil {
			return err
		}
	}

	text := renderScale(ms, analysis(small), after, analysis(large), small, large, sizeList, keep)
	fmt.Print(text)
	if !keep {
		if err := os.RemoveAll(runDir(large)); err != nil {
			return err
		}
		fmt.Fprintf(os.Stderr, "scale: removed %s (-keep keeps it)\n", runDir(large))
	}
	if md != "" {
		return rewriteBetween(md, scaleBegin, scaleEnd, text)
	}
	return nil
}

// checkDisk refuses a step that needs more than the free space of dir's
// file system (less a margin), and returns the free bytes.
func checkDisk(dir string, need int64, what string) (int64, error) {
	var st syscall.Statfs_t
	if err := syscall.Statfs(dir, &st); err != nil {
		return 0, err
	}
	free := int64(st.Bavail) * st.Bsize
	fmt.Fprintf(os.Stderr, "scale: %s needs about %.1f GB; %.1f GB free in %s\n", what, float64(need)/1e9, float64(free)/1e9, dir)
	if free-need < diskMargin {
		return free, fmt.Errorf("not enough disk to %s: it needs about %.1f GB and %.1f GB more kept free, and %s has %.1f GB free. Try: free some space, or -scale-dir on a larger file system",
			what, float64(need)/1e9, float64(diskMargin)/1e9, dir, float64(free)/1e9)
	}
	return free, nil
}

// dirBytes is the disk use of the files under dir (0 if there is none).
func dirBytes(dir string) int64 {
	var n int64
	filepath.WalkDir(dir, func(_ string, d os.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if fi, err := d.Info(); err == nil && !d.IsDir() {
			if st, ok := fi.Sys().(*syscall.Stat_t); ok {
				n += st.Blocks * 512
			} else {
				n += fi.Size()
			}
		}
		return nil
	})
	return n
}

// ingestBytes is the disk use of what ingest wrote into the dataset rd: the
// rest is analyze's.
func ingestBytes(rd string) int64 {
	var n int64
	for _, f := range []string{"spans.parquet", "samples.parquet", "rejects.jsonl", "manifest.json"} {
		n += dirBytes(filepath.Join(rd, f))
	}
	return n
}

// generateRun writes n spans of the day scenario into the run dataset rd:
// the simulator here writes canonical JSONL into the stdin of
// `tpsreport ingest -`, so that the JSON is never on disk. The measure is the
// ingest child's, whose wall time is the simulator's too (they run side by
// side, one core each).
func generateRun(bin, rd string, n int64) (scaleMeasure, error) {
	label := human(n)
	sc, err := dayScenario(n)
	if err != nil {
		return scaleMeasure{}, err
	}
	// Written to a temporary directory, renamed when the ingest succeeded:
	// a dataset in rd is always a whole one.
	tmp := rd + ".tmp"
	if err := os.RemoveAll(tmp); err != nil {
		return scaleMeasure{}, err
	}
	pr, pw := io.Pipe()
	var simErr error
	var count int64
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		bw := bufio.NewWriterSize(pw, 1<<20)
		cw := &countingSpans{w: bw, max: n}
		_, err := sim.Generate(sc, 1, cw)
		if errors.Is(err, errEnough) {
			err = nil
		}
		if err == nil {
			err = bw.Flush()
		}
		count = cw.n
		simErr = err
		pw.CloseWithError(err)
	}()
	m := scaleMeasure{step: "generate → ingest (simulator piped into ingest -)", input: label + " run", spans: n}
	var stderr []byte
	m.wall, m.cpu, m.rssKB, m.load, stderr, err = measured([]string{bin, "ingest", "--format", "spans", "--run", "scale-" + label, "--out", tmp, "-"}, pr)
	pr.CloseWithError(io.ErrClosedPipe) // a failed ingest must not leave the simulator blocked
	wg.Wait()
	if err != nil {
		os.RemoveAll(tmp)
		return m, fmt.Errorf("ingest of %s spans from the simulator: %w: %s", label, err, lastLine(string(stderr)))
	}
	if simErr != nil {
		os.RemoveAll(tmp)
		return m, fmt.Errorf("simulate %s spans: %w", label, simErr)
	}
	written, err := writtenSpans(tmp)
	if err != nil {
		return m, err
	}
	if written != count {
		return m, fmt.Errorf("ingest of %s spans wrote %d of the %d the simulator wrote", label, written, count)
	}
	m.spans = written
	if err := os.RemoveAll(rd); err != nil {
		return m, err
	}
	if err := os.Rename(tmp, rd); err != nil {
		return m, err
	}
	m.outBytes = dirBytes(rd)
	logStep(m)
	return m, nil
}

// removeDerived removes the files analyze added to the dataset rd.
func removeDerived(rd string) error {
	for _, f := range schemas.DerivedFiles {
		if err := os.Remove(filepath.Join(rd, f)); err != nil && !errors.Is(err, os.ErrNotExist) {
			return err
		}
	}
	return nil
}

// analyzeInputs lists the files of the dataset rd that analyze reads.
func analyzeInputs(rd string) []string {
	files := []string{filepath.Join(rd, "spans.parquet")}
	if p := filepath.Join(rd, "samples.parquet"); dirBytes(p) > 0 {
		files = append(files, p)
	}
	return files
}

// analyzeRun analyses rd with --debug and reads its per-statement log,
// which it writes beside rd (analyze-10M.log, with suffix before .log).
func analyzeRun(bin, rd string, n int64, suffix string) (scaleMeasure, error) {
	m := scaleMeasure{step: "analyze", input: human(n) + " run", spans: n}
	// The log is written as it comes, to follow a long analyze while it runs.
	logFile, err := os.Create(filepath.Join(filepath.Dir(rd), "analyze-"+human(n)+suffix+".log"))
	if err != nil {
		return m, err
	}
	defer logFile.Close()
	var stderr []byte
	m.wall, m.cpu, m.rssKB, m.load, stderr, err = measured([]string{bin, "--debug", "analyze", rd}, nil, logFile)
	if err != nil {
		return m, fmt.Errorf("analyze %s: %w: %s", rd, err, lastLine(string(stderr)))
	}
	m.outBytes = dirBytes(rd) - ingestBytes(rd)
	sts := parseStatements(stderr)
	for _, s := range sts {
		m.spilledMB = max(m.spilledMB, s.spilledMB)
	}
	slices.SortStableFunc(sts, func(a, b statement) int { return int(b.elapsed - a.elapsed) })
	m.slowest = sts[:min(len(sts), 8)]
	logStep(m)
	return m, nil
}

// parseStatements reads the "msg=query" lines of analyze's --debug log
// (analyze.logQuery: name, conn, elapsed, memory_mb, spilled_mb).
func parseStatements(log []byte) []statement {
	var sts []statement
	for line := range strings.Lines(string(log)) {
		if !strings.Contains(line, " msg=query ") {
			continue
		}
		var s statement
		for f := range strings.FieldsSeq(line) {
			k, v, ok := strings.Cut(f, "=")
			if !ok {
				continue
			}
			v = strings.Trim(v, `"`)
			switch k {
			case "name":
				s.name = v
			case "conn":
				s.conn = v
			case "elapsed":
				s.elapsed, _ = time.ParseDuration(v)
			case "memory_mb":
				s.memoryMB, _ = strconv.ParseInt(v, 10, 64)
			case "spilled_mb":
				s.spilledMB, _ = strconv.ParseInt(v, 10, 64)
			}
		}
		sts = append(sts, s)
	}
	return sts
}

// measured runs argv (stdin from in, if not nil) and returns its wall time,
// CPU time, peak RSS (KiB), the mean and max of the machine's 1-minute load
// average sampled every 5 s while it ran, and its stderr (copied to tee as it
// comes, if any).
func measured(argv []string, in io.Reader, tee ...io.Writer) (wall, cpu time.Duration, kb int64, load [2]float64, stderr []byte, err error) {
	cmd := exec.CommandContext(context.Background(), argv[0], argv[1:]...)
	var eb bytes.Buffer
	cmd.Stderr = io.MultiWriter(append([]io.Writer{&eb}, tee...)...)
	cmd.Stdin = in
	done := make(chan struct{})
	loads := make(chan []float64, 1)
	go func() {
		var ls []float64
		t := time.NewTicker(5 * time.Second)
		defer t.Stop()
		for {
			if l, err := loadAvg(); err == nil {
				ls = append(ls, l)
			}
			select {
			case <-done:
				loads <- ls
				return
			case <-t.C:
			}
		}
	}()
	start := time.Now()
	err = cmd.Run()
	wall = time.Since(start)
	close(done)
	ls := <-loads
	for _, l := range ls {
		load[0] += l / float64(len(ls))
		load[1] = max(load[1], l)
	}
	if cmd.ProcessState != nil {
		cpu = cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
		if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
			kb = ru.Maxrss
		}
	}
	return wall, cpu, kb, load, eb.Bytes(), err
}

// loadAvg is the machine's 1-minute load average.
func loadAvg() (float64, error) {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return 0, err
	}
	f := strings.Fields(string(b))
	if len(f) == 0 {
		return 0, fmt.Errorf("/proc/loadavg: empty")
	}
	return strconv.ParseFloat(f[0], 64)
}

func logStep(m scaleMeasure) {
	fmt.Fprintf(os.Stderr, "scale: %-40s %-9s %8.1fs CPU %7.1fs %7.0f MB RSS, load %.1f (max %.1f), %.2f GB on disk",
		m.step, m.input, m.wall.Seconds(), m.cpu.Seconds(), float64(m.rssKB)/1024, m.load[0], m.load[1], float64(m.outBytes)/1e9)
	if m.spilledMB > 0 {
		fmt.Fprintf(os.Stderr, ", %d MB spilled at most", m.spilledMB)
	}
	fmt.Fprintln(os.Stderr)
	for _, s := range m.slowest {
		fmt.Fprintf(os.Stderr, "scale:     %-28s %-5s %7.1fs  %6d MB in memory, %6d MB spilled after\n", s.name, s.conn, s.elapsed.Seconds(), s.memoryMB, s.spilledMB)
	}
}

const (
	scaleBegin = "<!-- scale:begin -->"
	scaleEnd   = "<!-- scale:end -->"
	// Targets of issue 27.
	scaleRSSLimitMB = 8 * 1000
	scaleTimeRatio  = 12
	scaleOutputWall = time.Minute
)

// renderScale renders the measures ms: small and large are the two runs'
// analyses, after the small run's again after the large one's (nil until
// then), against whose mean with small the large one is compared.
func renderScale(ms []scaleMeasure, small, after, large *scaleMeasure, ns, nl int64, sizeList string, keep bool) string {
	var b strings.Builder
	host, _ := os.Hostname()
	cmd := "make bench-scale"
	if sizeList != "10000000,100000000" {
		cmd += " SCALE_SIZES=" + sizeList
	}
	if keep {
		cmd += " SCALE_KEEP=1"
	}
	once := "each step once"
	if after != nil {
		once += ", the " + human(ns) + " run's analysis twice"
	}
	fmt.Fprintf(&b, "Run %s on %s (%d CPUs, %s/%s, %s); `%s`; %s.\n\n",
		time.Now().UTC().Format("2006-01-02 15:04 MST"), host, runtime.NumCPU(), runtime.GOOS, runtime.GOARCH, runtime.Version(), cmd, once)
	fmt.Fprintln(&b, "| step | input | wall (s) | CPU (s) | spans/s | peak RSS (MB) | on disk after (GB) | load avg, mean (max) |")
	fmt.Fprintln(&b, "|---|---|---:|---:|---:|---:|---:|---|")
	for _, m := range ms {
		sps := ""
		if m.spans > 0 && m.wall > 0 {
			sps = fmt.Sprintf("%.0f", float64(m.spans)/m.wall.Seconds())
		}
		fmt.Fprintf(&b, "| %s | %s, %s spans | %.1f | %.1f | %s | %.0f | %.2f | %.1f (%.1f) |\n",
			m.step, m.input, thousands(m.spans), m.wall.Seconds(), m.cpu.Seconds(), sps, float64(m.rssKB)/1024, float64(m.outBytes)/1e9, m.load[0], m.load[1])
	}
	b.WriteString("\n")
	if slices.ContainsFunc(ms, func(m scaleMeasure) bool { return strings.HasPrefix(m.step, "generate") }) {
		b.WriteString("The generate → ingest step's wall time is the simulator's and the ingest's together (side by side on a pipe); its CPU time and peak RSS are the ingest's. ")
	} else {
		b.WriteString("The datasets were there from an earlier run (SCALE_KEEP=1), so none was generated. ")
	}
	b.WriteString("The load average is the machine's: about 2 is this bench alone on 2 cores, above that another process shared them.\n")
	for _, m := range []*scaleMeasure{small, large} {
		if m == nil || len(m.slowest) == 0 {
			continue
		}
		fmt.Fprintf(&b, "\nanalyze of the %s: slowest statements (--debug log; %d MB spilled at most)\n\n", m.input, m.spilledMB)
		fmt.Fprintln(&b, "| statement | connection | wall (s) | in memory after (MB) | spilled after (MB) |")
		fmt.Fprintln(&b, "|---|---|---:|---:|---:|")
		for _, s := range m.slowest {
			fmt.Fprintf(&b, "| %s | %s | %.1f | %d | %d |\n", s.name, s.conn, s.elapsed.Seconds(), s.memoryMB, s.spilledMB)
		}
	}
	if small != nil && large != nil {
		// The small run's time: its one analysis, or the mean of the two
		// on either side of the large one's.
		wall, cpu, of := small.wall.Seconds(), small.cpu.Seconds(), ""
		if after != nil {
			wall, cpu = (wall+after.wall.Seconds())/2, (cpu+after.cpu.Seconds())/2
			of = fmt.Sprintf(", the mean of its analyses before and after the %s run's (%.1f s, %.1f s)", human(nl), small.wall.Seconds(), after.wall.Seconds())
		}
		ratio := large.wall.Seconds() / wall
		fmt.Fprintf(&b, "\n| target (issue 27) | measured | |\n|---|---|---|\n")
		fmt.Fprintf(&b, "| analyze of %s spans: peak RSS < 8 GB | %.0f MB | %s |\n", thousands(nl), float64(large.rssKB)/1024, holds(float64(large.rssKB)/1024 < scaleRSSLimitMB))
		fmt.Fprintf(&b, "| analyze of %s spans ≤ %d× analyze of %s spans | %.1f s / %.1f s%s = %.2f× for %.0f× the spans (CPU time %.2f×, less moved by a shared machine) | %s |\n", human(nl), scaleTimeRatio, human(ns), large.wall.Seconds(), wall, of, ratio, float64(nl)/float64(ns), large.cpu.Seconds()/cpu, holds(ratio <= scaleTimeRatio))
		for _, m := range ms {
			if m.step == "report" || strings.HasPrefix(m.step, "compare") {
				fmt.Fprintf(&b, "| %s of the %s under a minute | %.1f s, %.0f MB | %s |\n", strings.SplitN(m.step, " ", 2)[0], m.input, m.wall.Seconds(), float64(m.rssKB)/1024, holds(m.wall < scaleOutputWall))
			}
		}
	}
	return b.String()
}

func holds(ok bool) string {
	if ok {
		return "holds"
	}
	return "**missed**"
}
