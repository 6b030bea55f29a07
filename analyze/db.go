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
	// instead of returning it to the system: on 10 M spans a third fewer page
	// faults (3.3 M -> 2.1 M) and about 5 s less system time.
	"SET block_allocator_memory = '2GB'",
	// An ASOF join whose left side DuckDB estimates at fewer rows than this
	// runs as a nested loop over the right side. The estimate can be far off:
	// curves' ~10 M stream midpoints against ~20 M segments, estimated
	// small, ran for more than ten minutes instead of seconds.
	"SET asof_loop_join_threshold = 0",
}

// memoryLimit bounds DuckDB's memory whatever the input size: beyond it
// DuckDB spills to the temp directory (inside the dataset, removed
// afterwards). Peak RSS runs 1–1.5 GB above it (the block pool above, and
// the quantile aggregates' states, which DuckDB does not count), at the end,
// in the distributions. On 10 M spans, alternated (medians of 5): 2.5 GB
// ran 29.6 s (28.9–30.3) at 3.3–3.5 GB peak RSS, 2 GB 30.8 s (30.4–31.7) at
// 3.0–3.2 GB; 3 GB 30.5–31.3 s at 3.4–3.6 GB; a run that never spills
// (10 GB) 29.2 s at 4.6 GB. Bounded memory under the 4 GB target is the
// promise, so 2.5 GB.
const memoryLimit = "2500MB"

// largeMemoryLimit is a large run's (largeRunSpans), whose bound is 8 GB
// rather than 4. At 100 M spans, one analysis each (BENCHMARKS.md): 568.3 s
// at 6.26 GB peak RSS against 614.5 s at 6.01 GB with memoryLimit, the
// sorts (latencies_out, the side's requests_file) and the pool's sweep the
// most of the gain.
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
