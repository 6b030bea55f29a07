package analyze

import (
	"database/sql"
	"fmt"

	"github.com/tpsreport/tpsreport/ingest"
	"github.com/tpsreport/tpsreport/schemas"
)

// Sources by role in the gateway-engine join, from ingest's formats table: a
// gateway's log records what the client saw, an engine's what the scheduler
// did. Spans of other sources (canonical spans, benchmark results) never
// join. A new gateway or engine format joins by declaring its role there.
var (
	gatewaySources = ingest.SourcesOf(ingest.RoleGateway)
	engineSources  = ingest.SourcesOf(ingest.RoleEngine)
)

// joinToleranceUS widens a gateway span's [queued_at, released_at] when looking
// for its engine span: the clocks of two hosts differ.
const joinToleranceUS = 1_000_000

// joinedFile is the joined spans' Parquet file in analyze's temp directory
// (joined_file.sql), which span_src reads in a joined run.
const joinedFile = "joined_spans.parquet"

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
	return nil
}

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
