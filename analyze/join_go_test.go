package analyze

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/tpsreport/tpsreport/schemas"
)

// matchForms are the ways the tests match the join's candidates: by the
// statements and, in a build with the duckdb_arrow tag, in Go.
func matchForms() map[string]knobs {
	forms := map[string]knobs{"sql": statementsFor("matched")}
	if matchInGo {
		forms["go"] = knobs{}
	}
	return forms
}

// joinTables runs the join's steps on spans with opt, up to join_renames,
// and gives its tables' rows, each sorted: join_solo, join_cand (read
// before the rounds drop it), join_pairs, join_unpaired, join_renames, and
// the coverage.
func joinTables(t *testing.T, spans []schemas.Span, opt knobs) map[string][]string {
	t.Helper()
	dir := t.TempDir()
	path := filepath.Join(dir, "spans.parquet")
	writeParquet(t, path, spans)
	a := readerAnalysis(t)
	st := &runState{k: opt, spansPath: path, tmpDir: dir}
	before := []string{"span_sources", "span_metrics", "spans_path", "spans_file", "spans_file_legacy",
		"join_go", "join_raw", "join_match", "raw_max", "join_solo", "join_solo_go", "join_cand"}
	if err := a.runNamed(st, before...); err != nil {
		t.Fatal(err)
	}
	if got, want := conditions["matched"](st), matchInGo && !opt.statements["matched"]; got != want {
		t.Fatalf("matched = %v, want %v", got, want)
	}
	out := map[string][]string{}
	for _, tb := range []string{"join_solo", "join_cand"} {
		out[tb] = tableRows(t, a, tb)
	}
	after := []string{"join_pairs_table", "join_rounds", "join_unpaired", "join_unpaired_go", "join_coverage", "join_renames", "join_renames_go"}
	if err := a.runNamed(st, after...); err != nil {
		t.Fatal(err)
	}
	for _, tb := range []string{"join_pairs", "join_unpaired", "join_renames"} {
		out[tb] = tableRows(t, a, tb)
	}
	out["coverage"] = []string{fmt.Sprintf("%+v", *st.join)}
	return out
}

// tableRows gives table tb's rows, each as its values printed, sorted.
func tableRows(t *testing.T, a *analysis, tb string) []string {
	t.Helper()
	rows, err := a.db.QueryContext(a.ctx, "FROM "+tb)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for rows.Next() {
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			t.Fatal(err)
		}
		parts := make([]string, len(vals))
		for i, v := range vals {
			parts[i] = fmt.Sprint(v)
		}
		out = append(out, strings.Join(parts, " "))
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	slices.Sort(out)
	return out
}

// TestJoinByHand: the join's tables for a few spans, worked out by hand
// (docs/metrics.md "Gateway and engine"), from the statements and from the
// match in Go. Rows 0-3 race for the key "a": G0 offers it as its
// span_id, G3 as its request_id, E1 through V1's suffix, E2 through its
// attempt suffix; E2 arrives 0.6 s after G0's release, within the tolerance
// but outside. None of them is solo, so all three candidates are ranked:
//
//	G0-E1  inside   d_end 0.1 s  d_first 0.1 s  d_order 0  d_start 0.5 s
//	G0-E2  outside  d_end 10 s   d_first NULL   d_order 1  d_start 10.6 s
//	G3-E2  inside   d_end 0      d_first NULL   d_order 0  d_start 0.1 s
//
// (G3-E1 is out of G3's reach: E1 arrives 10 s before G3.) G0 and E1 rank
// each other first, then G3 and E2. G4-E5 and G8-E9 are solo (G4's two ids
// are one key); E6 and G7 join nothing. gw-x, the replica of G7, sent two
// spans to vllm-1 (G0 in the rounds, G4 solo), one to vllm-9 (G3, in the
// rounds) and one to vllm-8 (G8, solo): counting only the rounds' pairs or
// only join_solo's would tie, and the tie go to vllm-9 or vllm-8.
func TestJoinByHand(t *testing.T) {
	t.Parallel()
	gw := func(sid, rid, rep string, q, f, r float64) schemas.Span {
		s := schemas.Span{RunID: "h", Source: "litellm", SpanID: sid, RequestID: rid, Replica: str(rep), QueuedAt: at(q), ReleasedAt: at(r), Status: "ok"}
		if f > 0 {
			s.FirstTokenAt = at(f)
		}
		return s
	}
	en := func(rid, rep string, q, f, r float64) schemas.Span {
		s := schemas.Span{RunID: "h", Source: "vllm-otel", SpanID: "e-" + rid, RequestID: rid, Replica: str(rep), QueuedAt: at(q), ReleasedAt: at(r), Status: "ok"}
		if f > 0 {
			s.FirstTokenAt = at(f)
		}
		return s
	}
	g7 := gw("q", "q2", "gw-x", 50, 0, 51)
	g7.Status = "error"
	spans := []schemas.Span{
		gw("chatcmpl-a", "x", "gw-x", 10, 12, 20),
		en("chatcmpl-a-1a2b3c4d", "vllm-1", 10.5, 12.1, 19.9),
		en("a#retry1", "vllm-9", 20.6, 0, 30),
		gw("b", "a", "gw-x", 20.5, 21, 30),
		gw("c", "c", "gw-x", 40, 41, 45),
		en("chatcmpl-c", "vllm-1", 40.1, 41, 44.9),
		en("zzz", "vllm-9", 60, 61, 62),
		g7,
		gw("d#2", "dd", "gw-x", 70, 71, 75),
		en("cmpl-d", "vllm-8", 70.2, 71, 74.9),
		{RunID: "h", Source: "spans", SpanID: "other", RequestID: "a", QueuedAt: at(10), ReleasedAt: at(20), Status: "ok"},
	}
	want := map[string][]string{
		"join_solo":     {"4 5", "8 9"},
		"join_cand":     {"0 1 false 100000 100000 0 500000", "0 2 true 10000000 <nil> 1 10600000", "3 2 false 0 <nil> 0 100000"},
		"join_pairs":    {"0 1", "3 2"},
		"join_unpaired": {"6 false true true vllm-9", "7 true false false gw-x"},
		"join_renames":  {"gw-x vllm-1"},
		"coverage":      {"{GatewaySpans:5 EngineSpans:5 Matched:4 GatewayOnly:1 EngineOnly:1 GatewayOnlyOK:0}"},
	}
	for name, opt := range matchForms() {
		got := joinTables(t, spans, opt)
		for tb, w := range want {
			if !slices.Equal(got[tb], w) {
				t.Errorf("%s: %s = %q, want %q", name, tb, got[tb], w)
			}
		}
	}
}

// tangledRun is a gateway and an engine logging n requests whose ids and
// instants tangle the join every way the statements tell apart: request
// ids shared by several requests (a key of many spans, ranked by arrival
// order), span ids with attempt suffixes, engine ids with and without V1's
// suffix (and suffixes that are not V1's), ids that are only a prefix,
// spans missing instants, coarse resolutions, arrivals at the edge of the
// tolerance, hedges, spans of neither side, in a shuffled order.
func tangledRun(seed uint64, n int) []schemas.Span {
	r := rand.New(rand.NewPCG(seed, 11))
	pick := func(xs ...string) string { return xs[r.IntN(len(xs))] }
	var out []schemas.Span
	for i := range n {
		id := fmt.Sprintf("r%d", i)
		t := float64(i) * 0.3
		g := schemas.Span{RunID: "t", Source: "litellm", SpanID: pick("chatcmpl-", "", "cmpl-") + id + pick("", "", "#1", "#retry2", "#x", "#"),
			RequestID: pick("", "t"+fmt.Sprint(i%7), "t"+fmt.Sprint(i), id), Status: pick("ok", "ok", "error"),
			QueuedAt: at(t), FirstTokenAt: at(t + 0.2), ReleasedAt: at(t + 1 + r.Float64()), InputTokens: i64(10), OutputTokens: i64(5)}
		if r.IntN(4) > 0 {
			g.Replica = str(pick("gw-0", "gw-1", "gw-2"))
		}
		switch r.IntN(10) {
		case 0:
			g.QueuedAt = nil
		case 1:
			g.ReleasedAt, g.FirstTokenAt = nil, nil
		case 2:
			g.QueuedAt, g.ReleasedAt = nil, nil
		}
		out = append(out, g)
		for range r.IntN(3) {
			// The engine's spans of the request: none, one, or a hedge.
			rid := pick("chatcmpl-", "", "cmpl-") + pick(id, id+"-1a2b3c4d", id+"-1A2B3C4D", id+"-1a2b3c4", "t"+fmt.Sprint(i%7), id+"#3")
			d := pick("0.05", "0.5", "1.2", "1.0", "-0.9", "-1.5")
			var dt float64
			fmt.Sscan(d, &dt)
			e := schemas.Span{RunID: "t", Source: "vllm-otel", SpanID: "e" + id, RequestID: rid, Status: pick("ok", "error"),
				QueuedAt: at(t + dt), AdmittedAt: at(t + dt + 0.01), FirstTokenAt: at(t + dt + 0.1), LastTokenAt: at(t + dt + 0.8), ReleasedAt: at(t + dt + 0.9),
				InputTokens: i64(10), OutputTokens: i64(5)}
			if r.IntN(4) > 0 {
				e.Replica = str(pick("vllm-0", "vllm-1"))
			}
			switch r.IntN(8) {
			case 0:
				e.QueuedAt = nil
			case 1:
				e.QueuedAt, e.AdmittedAt, e.FirstTokenAt = nil, nil, nil
			case 2:
				e.ReleasedAt, e.LastTokenAt = nil, nil
			case 3:
				e.TimeResolutionUS = i32(1_000_000)
			}
			out = append(out, e)
		}
		if r.IntN(9) == 0 {
			out = append(out, schemas.Span{RunID: "t", Source: "spans", SpanID: "s" + id, RequestID: id, QueuedAt: at(t), ReleasedAt: at(t + 1), Status: "ok"})
		}
	}
	r.Shuffle(len(out), func(i, j int) { out[i], out[j] = out[j], out[i] })
	return out
}

// TestJoinGoMatchesSQL: the match in Go gives the statements' tables, row
// for row, on tangled runs; each run has solo pairs, ranked candidates,
// pairs of the rounds, unpaired spans and renamed replicas, so that every
// table is compared on rows.
func TestJoinGoMatchesSQL(t *testing.T) {
	t.Parallel()
	if !matchInGo {
		t.Skip("this build matches the join by the statements only")
	}
	for seed := range uint64(4) {
		spans := tangledRun(seed, 400)
		want := joinTables(t, spans, statementsFor("matched"))
		got := joinTables(t, spans, knobs{})
		for _, tb := range slices.Sorted(maps.Keys(want)) {
			if len(want[tb]) == 0 {
				t.Errorf("seed %d: %s has no row: the test compares nothing", seed, tb)
			}
			if !slices.Equal(got[tb], want[tb]) {
				t.Errorf("seed %d: %s differs:\ngo  %d rows %s\nsql %d rows %s", seed, tb, len(got[tb]), head(got[tb]), len(want[tb]), head(want[tb]))
			}
		}
	}
}

// head is the first rows of a table, for a message.
func head(rows []string) string {
	return strings.Join(rows[:min(len(rows), 8)], "; ")
}

// randomID is an id made of the pieces the keys' rules look at: the OpenAI
// prefixes, attempt suffixes, V1's suffix and near misses of each.
func randomID(r *rand.Rand) string {
	pieces := []string{"chatcmpl-", "cmpl-", "chatcmpl", "#", "#retry", "retry", "7", "42", "-", "1a2b3c4d", "1A2B3C4D", "abcdef0", "é", "x", ""}
	var b strings.Builder
	for range r.IntN(6) {
		b.WriteString(pieces[r.IntN(len(pieces))])
	}
	return b.String()
}

// TestJoinKeyMatchesSQL: joinKey and trimV1Suffix give the keys of
// join_raw.sql's and join_match.sql's expressions, run by DuckDB, on ids
// built to meet every branch of them.
func TestJoinKeyMatchesSQL(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(5, 27))
	ids := []string{"chatcmpl-", "cmpl-a#retry3", "a#3#4", "a#retry", "x-1a2b3c4d", "-1a2b3c4d", "é-1a2b3c4d", "a-1a2b3c4dx"}
	for range 3000 {
		ids = append(ids, randomID(r))
	}
	db := testDB(t)
	if _, err := db.ExecContext(t.Context(), "CREATE TABLE ids (i INTEGER, id VARCHAR)"); err != nil {
		t.Fatal(err)
	}
	for i, id := range ids {
		if _, err := db.ExecContext(t.Context(), "INSERT INTO ids VALUES (?, ?)", i, id); err != nil {
			t.Fatal(err)
		}
	}
	rows, err := db.QueryContext(t.Context(), `
		SELECT i, k, CASE WHEN k LIKE '%-________' THEN nullif(regexp_replace(k, '-[0-9a-f]{8}$', ''), k) END
		FROM (SELECT i, CASE WHEN contains(id2, '#') THEN regexp_replace(id2, '#(retry)?[0-9]+$', '') ELSE id2 END AS k
		      FROM (SELECT i, CASE WHEN starts_with(id, 'chatcmpl-') THEN substr(id, 10)
		                           WHEN starts_with(id, 'cmpl-') THEN substr(id, 6) ELSE id END AS id2 FROM ids))
		ORDER BY i`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var trimmed int
	for rows.Next() {
		var i int
		var k string
		var k3 *string
		if err := rows.Scan(&i, &k, &k3); err != nil {
			t.Fatal(err)
		}
		if got := string(schemas.JoinKey([]byte(ids[i]))); got != k {
			t.Errorf("schemas.JoinKey(%q) = %q, SQL %q", ids[i], got, k)
		}
		got, ok := schemas.TrimV1Suffix([]byte(k))
		if ok != (k3 != nil) || ok && string(got) != *k3 {
			t.Errorf("schemas.TrimV1Suffix(%q) = %q, %v; SQL %v", k, got, ok, k3)
		}
		if ok {
			trimmed++
		}
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	if trimmed == 0 {
		t.Error("no id had V1's suffix: the test compares nothing")
	}
}

// The rules of join_raw.sql and join_match.sql as regular expressions,
// RE2's as DuckDB's are, for FuzzJoinKey.
var (
	attemptSuffixRE = regexp.MustCompile(`#(retry)?[0-9]+$`)
	v1SuffixRE      = regexp.MustCompile(`-[0-9a-f]{8}$`)
)

// FuzzJoinKey: joinKey and trimV1Suffix cut what the statements' regular
// expressions cut, on any bytes.
func FuzzJoinKey(f *testing.F) {
	for _, s := range []string{"chatcmpl-abc", "cmpl-a#retry3", "a#3#4", "x-1a2b3c4d", "-1a2b3c4d", "a#"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, id string) {
		want := id
		if s, ok := strings.CutPrefix(want, "chatcmpl-"); ok {
			want = s
		} else if s, ok := strings.CutPrefix(want, "cmpl-"); ok {
			want = s
		}
		want = attemptSuffixRE.ReplaceAllLiteralString(want, "")
		if got := string(schemas.JoinKey([]byte(id))); got != want {
			t.Fatalf("schemas.JoinKey(%q) = %q, want %q", id, got, want)
		}
		k3 := v1SuffixRE.ReplaceAllLiteralString(want, "")
		got, ok := schemas.TrimV1Suffix([]byte(want))
		if ok != (k3 != want) || ok && string(got) != k3 {
			t.Fatalf("schemas.TrimV1Suffix(%q) = %q, %v; want %q", want, got, ok, k3)
		}
	})
}

// TestMatchable: the match in Go takes a spans.parquet whose join columns
// are ingest's types, as ingest or DuckDB writes them, and leaves to the
// statements one whose resolution is 64-bit or whose instants are in ms.
func TestMatchable(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "spans.parquet")
	writeParquet(t, path, joinedRun(20, "side-by-side"))
	db := testDB(t)
	for _, tc := range []struct {
		name, cols string
		want       bool
	}{
		{"ingest", "", true},
		{"duckdb", "*", true},
		{"bigint-resolution", "* REPLACE (time_resolution_us::BIGINT AS time_resolution_us)", false},
		{"ms-instants", "* REPLACE (epoch_ms(queued_at) AS queued_at)", false},
	} {
		p := path
		if tc.cols != "" {
			p = filepath.Join(dir, tc.name+".parquet")
			q := fmt.Sprintf("COPY (SELECT %s FROM read_parquet('%s')) TO '%s' (FORMAT parquet)", tc.cols, path, p)
			if _, err := db.ExecContext(t.Context(), q); err != nil {
				t.Fatal(err)
			}
		}
		if got := matchable(p); got != tc.want {
			t.Errorf("%s: matchable = %v, want %v", tc.name, got, tc.want)
		}
	}
	if matchable(filepath.Join(dir, "none.parquet")) {
		t.Error("a missing file is matchable")
	}
}
