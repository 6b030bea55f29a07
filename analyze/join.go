package analyze

import (
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime/debug"
	"slices"
	"time"

	"github.com/parquet-go/parquet-go"

	"github.com/tpsreport/tpsreport/schemas"
)

// Sources by role in the gateway-engine join (schemas/roles.go): a
// gateway's log records what the client saw, an engine's what the scheduler
// did. Spans of other sources (canonical spans, benchmark results) never
// join. A new gateway or engine format joins by declaring its role there.
var (
	gatewaySources = schemas.SourcesOf(schemas.RoleGateway)
	engineSources  = schemas.SourcesOf(schemas.RoleEngine)
)

// joinToleranceUS widens a gateway span's [queued_at, released_at] when looking
// for its engine span: the clocks of two hosts differ.
const joinToleranceUS = 1_000_000

// joinedFile is the joined spans' Parquet file in analyze's temp directory
// (joined_file.sql), which span_src reads in a joined run; the two parts it
// is made of (joined_gateway.sql, joined_engine.sql) are removed once it is
// written.
const (
	joinedFile        = "joined_spans.parquet"
	joinedGatewayPart = "joined_gateway.parquet"
	joinedEnginePart  = "joined_engine.parquet"
)

// maxJoinRounds bounds the pairing rounds (join_pairs.sql). Each round joins at
// least the nearest remaining pair of every chain of preferences, so a handful
// of spans racing for one id settle within a few rounds.
const maxJoinRounds = 8

// spanSources counts the spans of each join role: with both a gateway's and
// an engine's, the steps join_* join them and span_src reads the join
// (pipeline.go).
func (a *analysis) spanSources(st *runState) error {
	err := a.db.QueryRowContext(a.ctx, query("span_sources"), sql.Named("path", st.spansPath),
		sql.Named("gateway", gatewaySources), sql.Named("engine", engineSources)).Scan(&st.gateway, &st.engine, &st.spans, &st.arrivals)
	if err != nil {
		return fmt.Errorf("analyze span_sources: %w", err)
	}
	if matchInGo && st.gateway > 0 && st.engine > 0 {
		st.matchable = matchable(st.spansPath)
	}
	return nil
}

// maxMatchRows bounds the spans.parquet rows the match in Go takes
// (join_go.go): its arrays hold about 80 bytes a row at their peak, 3.2 GB
// at 40 M rows, while DuckDB holds next to nothing (BENCHMARKS.md, "The
// figures behind the code"). A larger run is matched by the statements,
// which spill instead.
const maxMatchRows = 40_000_000

// matchable tells whether the match in Go reads spans.parquet's columns: a
// file not written by ingest may hold other types, which the statements
// read.
func matchable(path string) bool {
	f, closeFile, err := openParquet(path)
	if err != nil {
		return false
	}
	defer closeFile()
	var want []parquet.Field
	for _, c := range spanColumns {
		if slices.Contains(matchColumns, c.Name()) {
			want = append(want, c)
		}
	}
	return checkColumns(f, fieldsOf(f), want) == nil
}

// matchColumns are the columns of spans.parquet the match in Go reads.
var matchColumns = []string{"source", "span_id", "request_id", "status", "replica", "queued_at", "admitted_at",
	"first_token_at", "last_token_at", "released_at", "time_resolution_us"}

// joinRounds repeats join_pairs until a round adds no pair (or maxJoinRounds).
func (a *analysis) joinRounds(*runState) error {
	for round := 1; ; round++ {
		res, err := a.db.ExecContext(a.ctx, query("join_pairs"))
		if err != nil {
			return fmt.Errorf("analyze join_pairs: %w", err)
		}
		n, err := res.RowsAffected()
		if err != nil {
			return fmt.Errorf("analyze join_pairs: %w", err)
		}
		a.log.Debug("join round", "round", round, "pairs", n)
		if n == 0 || round == maxJoinRounds {
			return nil
		}
	}
}

// joinCoverage counts how the gateway's and the engine's spans joined.
func (a *analysis) joinCoverage(st *runState) error {
	c := &schemas.JoinCoverage{GatewaySpans: st.gateway, EngineSpans: st.engine}
	if err := a.db.QueryRowContext(a.ctx, query("join_coverage")).Scan(&c.Matched, &c.GatewayOnlyOK); err != nil {
		return fmt.Errorf("analyze join coverage: %w", err)
	}
	c.GatewayOnly, c.EngineOnly = st.gateway-c.Matched, st.engine-c.Matched
	st.join = c
	return nil
}

// joinWarnings explains a join that left many spans unmatched: when more than
// half of the successful gateway spans or of the engine spans found no partner,
// the two logs probably cover different requests or times, or the gateway does
// not forward the request id.
func joinWarnings(c *schemas.JoinCoverage) []string {
	if c == nil {
		return nil
	}
	var out []string
	if c.GatewayOnlyOK > c.Matched {
		out = append(out, fmt.Sprintf("%d successful gateway spans joined no engine span: their engine times and gateway_overhead are unknown (do the gateway and engine logs cover the same time, and does the gateway forward X-Request-Id?)", c.GatewayOnlyOK))
	}
	if c.Matched*2 < c.EngineSpans {
		out = append(out, fmt.Sprintf("only %d of %d engine spans joined a gateway span: the others keep the engine's arrival as queued_at", c.Matched, c.EngineSpans))
	}
	return out
}

// joinedColumns are the joined spans' file's columns, in its order, each
// from the part that holds it: 0 the columns a span keeps from its own row
// (joined_gateway), 1 those the join sets (joined_engine).
var joinedColumns = []spliceColumn{
	{"run_id", 0}, {"source", 1}, {"span_id", 0}, {"request_id", 0}, {"attempt", 1}, {"retry_cause", 0},
	{"model", 1}, {"replica", 1}, {"queued_at", 1}, {"engine_arrived_at", 1}, {"admitted_at", 1},
	{"first_token_at", 1}, {"last_token_at", 1}, {"released_at", 1}, {"input_tokens", 1}, {"output_tokens", 1},
	{"cached_tokens", 1}, {"status", 0}, {"error", 0}, {"http_status", 0}, {"time_resolution_us", 1},
	{"time_origin", 1}, {"gw", 1},
}

// joinedFile writes the joined spans' file (joined_file.sql): assembled in Go
// from spans.parquet and the pairs (assemble.go), or, when spans.parquet's
// columns are not the types the assembly reads, by the statements.
func (a *analysis) joinedFile(st *runState) error {
	out := filepath.Join(st.tmpDir, joinedFile)
	err := errCannotAssemble
	if !st.k.statements["assembled"] {
		err = a.assembleJoinedFile(st, out)
	}
	if errors.Is(err, errCannotAssemble) {
		a.log.Debug("joined spans written by the statements", "reason", err)
		err = a.joinedFileSQL(st, out)
	}
	if err != nil {
		return fmt.Errorf("analyze joined_file: %w", err)
	}
	return nil
}

// assembleJoinedFile writes the pairs and attempt numbers for the assembly,
// reads the renames, and assembles the joined file.
func (a *analysis) assembleJoinedFile(st *runState, out string) error {
	in := joinInputs{
		pairs:     filepath.Join(st.tmpDir, "joined_pairs.parquet"),
		numbers:   filepath.Join(st.tmpDir, "joined_numbers.parquet"),
		renames:   map[string]string{},
		gateway:   gatewaySources,
		groupRows: joinRowGroupRows,
	}
	if st.k.joinGroupRows != 0 {
		in.groupRows = st.k.joinGroupRows
	}
	defer os.Remove(in.pairs)
	defer os.Remove(in.numbers)
	t0 := time.Now()
	if err := a.copyRows("joined_pairs_out", in.pairs, ", DICTIONARY_SIZE_LIMIT 1"); err != nil {
		return err
	}
	if err := a.copyRows("joined_numbers_out", in.numbers, ", DICTIONARY_SIZE_LIMIT 1"); err != nil {
		return err
	}
	rows, err := a.db.QueryContext(a.ctx, query("joined_renames_out"))
	if err != nil {
		return fmt.Errorf("analyze joined_renames_out: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var g, e string
		if err := rows.Scan(&g, &e); err != nil {
			return fmt.Errorf("analyze joined_renames_out: %w", err)
		}
		in.renames[g] = e
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("analyze joined_renames_out: %w", err)
	}
	inputs := time.Since(t0)
	stats, err := assembleJoined(a.ctx, out, st.tmpDir, st.spansPath, in)
	// The assembly's arrays (about 80 bytes a span) are garbage now; handed
	// back to the system at once, they do not add to the statements' peak
	// later in the analysis, as the Go runtime would keep them a while.
	debug.FreeOSMemory()
	if err == nil {
		a.log.Debug("joined spans assembled", "rows", stats.rows, "row_groups", stats.groups, "copied_row_groups", stats.copied,
			"inputs", inputs, "place", stats.place, "columns", stats.columns, "splice", stats.splice)
	}
	return err
}

// joinedFileSQL writes the joined file by the statements: joined_gateway and
// joined_engine write its two parts, row i of one beside row i of the other,
// which joinParts puts side by side.
func (a *analysis) joinedFileSQL(st *runState, out string) error {
	g, e := filepath.Join(st.tmpDir, joinedGatewayPart), filepath.Join(st.tmpDir, joinedEnginePart)
	defer os.Remove(g)
	defer os.Remove(e)
	if err := a.copyRows("joined_gateway", g, "", sql.Named("engine", engineSources)); err != nil {
		return err
	}
	if err := a.copyRows("joined_engine", e, "", sql.Named("gateway", gatewaySources), sql.Named("engine", engineSources)); err != nil {
		return err
	}
	return a.joinParts(g, e, out)
}

// joinParts writes the joined file out from its two parts g and e and removes
// them. DuckDB writes both parts' row groups at 122,880 rows, so the file is
// spliced from their column chunks without decoding a page; when they do not
// line up, DuckDB puts the rows side by side (joined_file.sql), on one
// thread.
func (a *analysis) joinParts(g, e, out string) error {
	defer os.Remove(g)
	defer os.Remove(e)
	err := spliceFiles(out, []string{g, e}, joinedColumns)
	if errors.Is(err, errCannotSplice) {
		a.log.Debug("joined spans written whole", "reason", err)
		err = a.copyRows("joined_file", out, "", sql.Named("gateway_part", g), sql.Named("engine_part", e))
	}
	return err
}
