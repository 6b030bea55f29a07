package analyze

import (
	"embed"
	"fmt"
	"io/fs"
	pathpkg "path"
	"sort"
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
func expandDists(m map[string]string) error {
	t, err := template.New("win_dists").Parse(m["win_dists"])
	if err != nil {
		return err
	}
	for _, h := range distParts {
		for _, run := range []bool{false, true} {
			var b strings.Builder
			data := struct {
				Table, From, At string
				Metrics         []distMetric
				Quantiles       []distQuantile
				Run             bool
			}{h.Table, h.From, h.At, h.Metrics, distQuantiles, run}
			if err := t.Execute(&b, data); err != nil {
				return err
			}
			name := h.Table
			if run {
				name = "run" + strings.TrimPrefix(h.Table, "win")
			}
			m[name] = b.String()
		}
	}
	delete(m, "win_dists")
	return nil
}

// query returns the statement named name; an unknown name is a programming error.
func query(name string) string {
	q, ok := queries[name]
	if !ok {
		panic(fmt.Sprintf("analyze: no query %q", name))
	}
	return q
}

// queryNames lists the embedded statements, sorted (for the prepare-all test).
func queryNames() []string {
	names := make([]string, 0, len(queries))
	for n := range queries {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// sqlString quotes s as a SQL string literal. It is the one place where a value is
// spliced into SQL text, for COPY destinations, which DuckDB does not take as a
// parameter; the values are paths this package builds.
func sqlString(s string) string {
	return "'" + strings.ReplaceAll(s, "'", "''") + "'"
}
