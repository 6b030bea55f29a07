package analyze

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"path/filepath"
	"strings"
	"time"

	"github.com/tpsreport/tpsreport/schemas"
)

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
// level 1 rather than DuckDB's default 3: on the large outputs it saves far
// more time than the few percent of file it costs (BENCHMARKS.md, "The
// figures behind the code"). options adds to the COPY's options. COPY takes no parameter for its
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
