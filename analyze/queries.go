package analyze

import (
	"embed"
	"fmt"
	"io/fs"
	pathpkg "path"
	"strings"
	"text/template"
)

//go:embed queries
var queryFS embed.FS

// queries holds every named statement of queries/, loaded once. The
// statements sit in folders by the stage of the pipeline that runs them
// (queries/README.md); a statement's name is its file's, without the folder.
var queries = mustLoadQueries()

func mustLoadQueries() map[string]string {
	m := map[string]string{}
	err := fs.WalkDir(queryFS, "queries", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".sql") {
			return err
		}
		b, err := queryFS.ReadFile(path)
		if err != nil {
			return err
		}
		name := strings.TrimSuffix(pathpkg.Base(path), ".sql")
		if _, dup := m[name]; dup {
			return fmt.Errorf("two statements named %s", name)
		}
		m[name] = string(b)
		return nil
	})
	if err == nil {
		err = expandDists(m)
	}
	if err != nil {
		panic(fmt.Sprintf("analyze: load queries: %v", err))
	}
	return m
}

// distMetric is a per-span metric with a percentile object (docs/metrics.md): its
// name and its SQL expression over the spans table's columns. Micros: the
// expression gives whole µs, and the object seconds.
type distMetric struct {
	Name, Expr string
	Micros     bool
}

// distParts split the percentile objects over three statements (see
// queries/6-windows/win_dists.sql); metrics.sql joins them. The first two
// are over the successful spans released in the window, the third over the
// delivered requests completed in it (delivered_requests).
var distParts = []struct {
	Table    string
	From, At string // the rows, and the instant that places one in a window
	Metrics  []distMetric
}{
	{"win_dists_a", "spans WHERE ok", "released_us", []distMetric{
		{"t_queue", "t_queue_us(queued_us, admitted_us)", true}, {"ttft", "ttft_us(queued_us, first_token_us)", true},
		{"t_first_token", "t_first_token_us(admitted_us, first_token_us)", true}, {"t_stream", "t_stream_us(first_token_us, last_token_us)", true},
		{"t_in_flight", "t_in_flight_us(admitted_us, released_us)", true},
	}},
	{"win_dists_b", "spans WHERE ok", "released_us", []distMetric{
		{"t_total", "t_total_us(queued_us, released_us)", true}, {"tpot", "tpot(first_token_us, last_token_us, output_tokens)", false},
		{"stream_tps", "stream_tps(first_token_us, last_token_us, output_tokens)", false}, {"end_to_end_tps", "end_to_end_tps(admitted_us, released_us, output_tokens)", false},
		{"gateway_overhead", "gateway_overhead_us(gw)", true},
	}},
	{"win_dists_c", "delivered_requests", "completed_us", []distMetric{
		{"ttft_req", "ttft_req_us", true}, {"tpot_req", "tpot_req", false}, {"e2e_req", "e2e_req_us", true},
	}},
}

// distQuantile is a quantile of every percentile object: its name in the
// object (schemas.Percentiles' JSON name), its level, and its position in
// quantile_cont's list (1-based, as SQL lists are).
type distQuantile struct {
	Name  string
	Q     float64
	Index int
}

var distQuantiles = []distQuantile{{"p50", 0.5, 1}, {"p90", 0.9, 2}, {"p95", 0.95, 3}, {"p99", 0.99, 4}}

// expandDists turns the win_dists template into the statements of distParts,
// for the windows (win_dists_a, _b, _c) and for the run (run_dists_a, _b, _c).
// Each also comes split, a statement per metric (distPiece: win_dist_ttft,
// run_dist_ttft, … each making the table dist_ttft) and one that joins a
// part's pieces into its table (distJoin: win_dists_a_join), for runs of
// more than splitRunSpans spans (the condition split).
func expandDists(m map[string]string) error {
	t, err := template.New("win_dists").Parse(m["win_dists"])
	if err != nil {
		return err
	}
	expand := func(name, out, table, from, at string, metrics []distMetric, run bool) error {
		var b strings.Builder
		data := struct {
			Out, Table, From, At string
			Metrics              []distMetric
			Quantiles            []distQuantile
			Run                  bool
		}{out, table, from, at, metrics, distQuantiles, run}
		if err := t.Execute(&b, data); err != nil {
			return err
		}
		if _, dup := m[name]; dup {
			return fmt.Errorf("two statements named %s", name)
		}
		m[name] = b.String()
		return nil
	}
	for _, h := range distParts {
		for _, run := range []bool{false, true} {
			if err := expand(distStatement(h.Table, run), h.Table, h.Table, h.From, h.At, h.Metrics, run); err != nil {
				return err
			}
			for _, mt := range h.Metrics {
				if err := expand(distPiece(mt.Name, run), distPieceTable(mt.Name), h.Table, h.From, h.At, []distMetric{mt}, run); err != nil {
					return err
				}
			}
		}
		// The pieces have a row for the same windows (the rows of a part
		// are the same for each of its metrics), so the join keeps every
		// window, and its columns come in the order of the whole statement.
		from := distPieceTable(h.Metrics[0].Name)
		for _, mt := range h.Metrics[1:] {
			from += " JOIN " + distPieceTable(mt.Name) + " USING (window_index)"
		}
		m[distJoin(h.Table)] = fmt.Sprintf("-- %s: the pieces of %s (distPiece) as one table.\nCREATE OR REPLACE TABLE %s AS\nSELECT * FROM %s;\n",
			distJoin(h.Table), h.Table, h.Table, from)
	}
	delete(m, "win_dists")
	return nil
}

// distStatement names the statement of a part of the distributions, for the
// windows (win_dists_a) or the run (run_dists_a).
func distStatement(table string, run bool) string {
	if run {
		return "run" + strings.TrimPrefix(table, "win")
	}
	return table
}

// distPiece names the statement of one metric's distribution, for the
// windows (win_dist_ttft) or the run (run_dist_ttft); distPieceTable names
// the table it makes, the same for both; distJoin, the statement that joins
// a part's pieces into the part's table.
func distPiece(metric string, run bool) string {
	if run {
		return "run_dist_" + metric
	}
	return "win_dist_" + metric
}

func distPieceTable(metric string) string { return "dist_" + metric }

func distJoin(table string) string { return table + "_join" }

// query returns the statement named name; an unknown name is a programming error.
func query(name string) string {
	q, ok := queries[name]
	if !ok {
		panic(fmt.Sprintf("analyze: no query %q", name))
	}
	return q
}

// sqlString quotes s as a SQL string literal. It is the one place where a value is
// spliced into SQL text, for COPY destinations, which DuckDB does not take as a
// parameter; the values are paths this package builds.
func sqlString(s string) string {
	return "'" + strings.ReplaceAll(s, "'", "''") + "'"
}
