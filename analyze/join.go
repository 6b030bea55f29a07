package analyze

import (
	"fmt"

	"github.com/tpsreport/tpsreport/schemas"
)

// Sources by role in the gateway-engine join: a gateway's log records what the
// client saw, an engine's what the scheduler did. Spans of other sources
// (canonical spans, benchmark results) never join.
var (
	gatewaySources = []string{"litellm", "kong", "envoy-ai", "otel-genai", "mapping"}
	engineSources  = []string{"vllm-otel", "vllm-log"}
)

// joinToleranceUS widens a gateway span's [queued_at, released_at] when looking
// for its engine span: the clocks of two hosts differ.
const joinToleranceUS = 1_000_000

// maxJoinRounds bounds the pairing rounds (join_pairs.sql). Each round joins at
// least the nearest remaining pair of every chain of preferences, so a handful
// of spans racing for one id settle within a few rounds.
const maxJoinRounds = 8

// loadSpans loads the run's spans into the spans table through the view
// span_src: spans.parquet with its row numbers as idx, or, when the run holds
// both a gateway's and an engine's spans, their join (join_*.sql). It returns
// the join's coverage, nil without a join.
func (a *analysis) loadSpans(path string) (*schemas.JoinCoverage, error) {
	var gw, en int64
	err := a.db.QueryRowContext(a.ctx,
		"SELECT count(*) FILTER (source IN ?), count(*) FILTER (source IN ?) FROM read_parquet(?, hive_partitioning = false)",
		gatewaySources, engineSources, path).Scan(&gw, &en)
	if err != nil {
		return nil, fmt.Errorf("analyze sources: %w", err)
	}
	var cov *schemas.JoinCoverage
	src := "SELECT * EXCLUDE (file_row_number), file_row_number AS idx, NULL::BIGINT AS gw FROM read_parquet(" + sqlString(path) + ", file_row_number = true, hive_partitioning = false)"
	if gw > 0 && en > 0 {
		if cov, err = a.join(path, gw, en); err != nil {
			return nil, err
		}
		src = "SELECT * FROM joined_spans"
	}
	if _, err := a.db.ExecContext(a.ctx, "CREATE OR REPLACE VIEW span_src AS "+src); err != nil {
		return nil, fmt.Errorf("analyze span_src: %w", err)
	}
	for _, name := range []string{"span_times", "replica_ids", "multi_requests"} {
		if err := a.exec(name); err != nil {
			return nil, err
		}
	}
	return cov, a.exec("load_spans")
}

// join joins the gateway's spans with the engine's and counts the coverage.
func (a *analysis) join(path string, gw, en int64) (*schemas.JoinCoverage, error) {
	if err := a.exec("join_raw", path, gatewaySources, engineSources); err != nil {
		return nil, err
	}
	if err := a.exec("join_cand", joinToleranceUS); err != nil {
		return nil, err
	}
	if _, err := a.db.ExecContext(a.ctx, "CREATE OR REPLACE TABLE join_pairs (gi BIGINT, ei BIGINT)"); err != nil {
		return nil, fmt.Errorf("analyze join: %w", err)
	}
	for round := 1; ; round++ {
		res, err := a.db.ExecContext(a.ctx, query("join_pairs"))
		if err != nil {
			return nil, fmt.Errorf("analyze join_pairs: %w", err)
		}
		n, err := res.RowsAffected()
		if err != nil {
			return nil, fmt.Errorf("analyze join_pairs: %w", err)
		}
		a.log.Debug("join round", "round", round, "pairs", n)
		if n == 0 || round == maxJoinRounds {
			break
		}
	}
	if err := a.exec("join_spans"); err != nil {
		return nil, err
	}
	c := &schemas.JoinCoverage{GatewaySpans: gw, EngineSpans: en}
	err := a.db.QueryRowContext(a.ctx, `SELECT (SELECT count(*) FROM join_pairs),
		count(*) FILTER (is_gw AND status = 'ok' AND idx NOT IN (SELECT gi FROM join_pairs)) FROM raw_spans`).Scan(&c.Matched, &c.GatewayOnlyOK)
	if err != nil {
		return nil, fmt.Errorf("analyze join coverage: %w", err)
	}
	c.GatewayOnly, c.EngineOnly = gw-c.Matched, en-c.Matched
	for _, t := range []string{"raw_spans", "join_cand", "join_pairs"} {
		if _, err := a.db.ExecContext(a.ctx, "DROP TABLE "+t); err != nil {
			return nil, fmt.Errorf("analyze join: %w", err)
		}
	}
	return c, nil
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
