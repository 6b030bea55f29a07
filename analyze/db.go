package analyze

import (
	"context"
	"database/sql"
	"fmt"

	_ "github.com/duckdb/duckdb-go/v2" // registers the "duckdb" driver
)

// settings keep DuckDB in process and off the network: no extension is ever
// installed or loaded beyond the ones built in (parquet, json, icu), and the
// configuration is locked afterwards.
var settings = []string{
	"SET autoinstall_known_extensions = false",
	"SET autoload_known_extensions = false",
	"SET allow_community_extensions = false",
	"SET enable_progress_bar = false",
	"SET preserve_insertion_order = true",
	// Times are UTC instants: formatting one (load_windows) must not depend
	// on the machine's time zone.
	"SET TimeZone = 'UTC'",
	// DuckDB's buffers come from a pool of this size that keeps what it frees
	// instead of returning it to the system, which saves page faults and
	// system time (BENCHMARKS.md, "The figures behind the code").
	"SET block_allocator_memory = '2GB'",
	// An ASOF join whose left side DuckDB estimates at fewer rows than this
	// runs as a nested loop over the right side. The estimate can be far off
	// (curves' stream midpoints against the segments, estimated small), and
	// the loop then runs for minutes where the join takes seconds.
	"SET asof_loop_join_threshold = 0",
}

// memoryLimit bounds DuckDB's memory whatever the input size: beyond it
// DuckDB spills to the temp directory (inside the dataset, removed
// afterwards). Peak RSS runs 1–1.5 GB above it (the block pool above, and
// the quantile aggregates' states, which DuckDB does not count), at the end,
// in the distributions. The analysis promises bounded memory under 4 GB;
// this limit keeps the peak there and costs almost no time against a run
// that never spills (BENCHMARKS.md, "The figures behind the code").
const memoryLimit = "2500MB"

// largeMemoryLimit is a large run's (largeRunSpans), whose bound is 8 GB
// rather than 4: the sorts (latencies_out, the side's requests_file) and
// the pool's sweep spill less with it, for a shorter analysis well within
// that bound (BENCHMARKS.md, "The figures behind the code").
const largeMemoryLimit = "3500MB"

// openDB opens an in-memory DuckDB database with the settings above, memory
// (a DuckDB size) as its memory limit, and n connections to it (tempDir:
// where DuckDB may spill when memory is short).
// The connections share the database's catalog: this package's tables, views
// and macros are created in it, not as TEMP objects (which each connection
// would keep to itself), so that a statement may run on any of them. Variables
// (SET VARIABLE) are a connection's own. The caller closes the connections,
// then the database.
func openDB(ctx context.Context, tempDir string, n int, memory string) (*sql.DB, []*sql.Conn, error) {
	db, err := sql.Open("duckdb", "")
	if err != nil {
		return nil, nil, fmt.Errorf("open duckdb: %w", err)
	}
	db.SetMaxOpenConns(n)
	db.SetMaxIdleConns(n)
	fail := func(conns []*sql.Conn, err error) (*sql.DB, []*sql.Conn, error) {
		for _, c := range conns {
			c.Close()
		}
		db.Close()
		return nil, nil, err
	}
	var conns []*sql.Conn
	for range n {
		c, err := db.Conn(ctx)
		if err != nil {
			return fail(conns, fmt.Errorf("open duckdb: %w", err))
		}
		conns = append(conns, c)
		// enable_progress_bar is a connection's own setting (the others are
		// the database's): every connection gets them all.
		for _, s := range settings {
			if _, err := c.ExecContext(ctx, s); err != nil {
				return fail(conns, fmt.Errorf("duckdb %q: %w", s, err))
			}
		}
	}
	if _, err := conns[0].ExecContext(ctx, "SET memory_limit = "+sqlString(memory)); err != nil {
		return fail(conns, fmt.Errorf("duckdb memory_limit: %w", err))
	}
	if tempDir != "" {
		if _, err := conns[0].ExecContext(ctx, "SET temp_directory = "+sqlString(tempDir)); err != nil {
			return fail(conns, fmt.Errorf("duckdb temp_directory: %w", err))
		}
	}
	if _, err := conns[0].ExecContext(ctx, "SET lock_configuration = true"); err != nil {
		return fail(conns, fmt.Errorf("duckdb lock_configuration: %w", err))
	}
	return db, conns, nil
}
