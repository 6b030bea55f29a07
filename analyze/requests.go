package analyze

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/parquet-go/parquet-go"

	"github.com/tpsreport/tpsreport/internal/dataset"
	"github.com/tpsreport/tpsreport/schemas"
)

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
// file, the largest output, through the page cache, and beside this step
// the sweeps read and write their own files, where the windows' statements
// use no disk (BENCHMARKS.md).
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
