package analyze

import (
	"bytes"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/parquet-go/parquet-go"

	"github.com/tpsreport/tpsreport/schemas"
)

// joinedRun is a gateway (LiteLLM) and an engine (vLLM OTel) logging n
// requests, with what makes the join set a column one way or another: every
// 7th request retried at the gateway (a multi-span request that LiteLLM does
// not number), every 11th refused by the gateway (its replica renamed), every
// 13th reaching the engine directly (an engine span no gateway span joins),
// engine request ids with and without V1's suffix, and engine values missing
// so that the gateway's are taken. layout orders spans.parquet: the
// gateway's spans first, the engine's first, or each request's side by side.
func joinedRun(n int, layout string) []schemas.Span {
	var gw, en []schemas.Span
	for i := range n {
		t := float64(i) * 0.5
		id := "r" + strconv.Itoa(i)
		g := schemas.Span{RunID: "j", Source: "litellm", SpanID: "chatcmpl-" + id, RequestID: "t" + strconv.Itoa(i),
			Model: str("m-gw"), Replica: str(fmt.Sprintf("gw-%d:4000", i%3)), QueuedAt: at(t), FirstTokenAt: at(t + 0.32),
			ReleasedAt: at(t + 1), InputTokens: i64(100), OutputTokens: i64(50), Status: "ok"}
		if i%23 == 0 {
			g.Attempt = i32(0)
		}
		if i%11 == 0 {
			g.Status, g.HTTPStatus, g.ReleasedAt, g.FirstTokenAt = "error", i32(429), at(t+0.01), nil
			gw = append(gw, g)
			continue
		}
		e := schemas.Span{RunID: "j", Source: "vllm-otel", SpanID: "e" + strconv.Itoa(i), RequestID: "chatcmpl-" + id,
			Model: str("m"), Replica: str(fmt.Sprintf("vllm-%d", i%2)), QueuedAt: at(t + 0.05), AdmittedAt: at(t + 0.1),
			FirstTokenAt: at(t + 0.3), LastTokenAt: at(t + 0.9), ReleasedAt: at(t + 0.95),
			InputTokens: i64(100), OutputTokens: i64(int64(40 + i%20)), CachedTokens: i64(int64(i % 64)), Status: "ok"}
		if i%4 == 0 {
			e.RequestID += "-1a2b3c4d"
		}
		if i%3 == 0 {
			e.EngineArrivedAt = at(t + 0.06)
		}
		if i%6 == 0 {
			e.Model = nil
		}
		if i%9 == 0 {
			e.QueuedAt = nil
		}
		if i%10 == 0 {
			e.ReleasedAt, e.LastTokenAt = nil, nil
		}
		if i%5 == 0 {
			e.InputTokens, e.OutputTokens = nil, nil
		}
		if i%17 == 0 {
			e.TimeResolutionUS = i32(1000)
		}
		if i%7 == 0 {
			// The first attempt failed after 0.2 s; its engine span too.
			ga := g
			ga.SpanID, ga.Status, ga.ReleasedAt, ga.FirstTokenAt = "chatcmpl-"+id+"a", "error", at(t+0.2), nil
			ea := e
			ea.SpanID, ea.RequestID, ea.Status = "e"+strconv.Itoa(i)+"a", "chatcmpl-"+id+"a", "error"
			ea.ReleasedAt, ea.FirstTokenAt, ea.LastTokenAt, ea.OutputTokens = at(t+0.15), nil, nil, nil
			gw, en = append(gw, ga), append(en, ea)
			g.QueuedAt, g.FirstTokenAt = at(t+0.25), at(t+0.62)
			e.QueuedAt, e.AdmittedAt, e.FirstTokenAt = at(t+0.3), at(t+0.35), at(t+0.6)
		}
		gw, en = append(gw, g), append(en, e)
		if i%13 == 0 {
			x := e
			x.SpanID, x.RequestID, x.Replica = "e"+strconv.Itoa(i)+"x", "cmpl-z"+strconv.Itoa(i), str("vllm-2")
			en = append(en, x)
		}
	}
	switch layout {
	case "gateway-first":
		return append(gw, en...)
	case "engine-first":
		return append(en, gw...)
	}
	// Side by side: each gateway span, then the engine spans admitted
	// before its arrival.
	var out []schemas.Span
	j := 0
	for _, g := range gw {
		out = append(out, g)
		for j < len(en) && *en[j].AdmittedAt <= *g.QueuedAt {
			out = append(out, en[j])
			j++
		}
	}
	return append(out, en[j:]...)
}

// TestAssembleMatchesSQL: the joined file assembled in Go holds the rows the
// statements write (joined_engine.sql, joined_gateway.sql), in their order,
// whichever way spans.parquet is laid out: requests.parquet, which holds
// every column of the joined file (gw as gateway_overhead), is the same row
// for row, and so is every other output. In the gateway-first layout the
// gateway's full row groups are copied into the joined file. The statements'
// run matches the candidates by join_raw.sql to join_cand.sql, the
// assembly's in Go (join_go.go). -short runs the last layout alone.
func TestAssembleMatchesSQL(t *testing.T) {
	const groupRows = 500
	for i, tc := range []struct {
		layout string
		copied bool
		duckdb bool // spans.parquet as DuckDB writes it: dictionaries of integers too
	}{{"gateway-first", true, false}, {"engine-first", false, false}, {"side-by-side", false, false}, {"gateway-first", true, true}} {
		if testing.Short() && i < 3 {
			continue
		}
		t.Run(fmt.Sprintf("%s/duckdb=%v", tc.layout, tc.duckdb), func(t *testing.T) {
			t.Parallel()
			spans := joinedRun(1200, tc.layout)
			var dirs [2]string
			var logs [2]bytes.Buffer
			for i, statements := range []bool{false, true} {
				dirs[i] = t.TempDir()
				path := filepath.Join(dirs[i], "spans.parquet")
				writeParquet(t, path, spans, parquet.MaxRowsPerRowGroup(groupRows))
				if tc.duckdb {
					db := testDB(t)
					q := fmt.Sprintf("COPY (FROM read_parquet('%[1]s')) TO '%[1]s.d' (FORMAT parquet, ROW_GROUP_SIZE %[2]d)", path, groupRows)
					if _, err := db.ExecContext(t.Context(), q); err != nil {
						t.Fatal(err)
					}
					if err := os.Rename(path+".d", path); err != nil {
						t.Fatal(err)
					}
				}
				analyzeDir(t, dirs[i], Options{Window: 30 * time.Second,
					Log: slog.New(slog.NewTextHandler(&logs[i], &slog.HandlerOptions{Level: slog.LevelDebug}))},
					withStatements(knobs{joinGroupRows: groupRows}, statements, "assembled", "soloed", "matched"))
			}
			m := regexp.MustCompile(`joined spans assembled" rows=(\d+) row_groups=(\d+) copied_row_groups=(\d+)`).FindStringSubmatch(logs[0].String())
			if m == nil {
				t.Fatalf("the joined file was not assembled:\n%s", logs[0].String())
			}
			if copied := m[3] != "0"; copied != tc.copied {
				t.Errorf("%s of %s row groups copied from spans.parquet, want copied %v", m[3], m[2], tc.copied)
			}
			if !bytes.Contains(logs[1].Bytes(), []byte("joined spans written by the statements")) {
				t.Fatal("the statements did not write the joined file")
			}
			// The statements' run matches the candidates and settles
			// join_solo by the statements too, so that the two runs compare
			// join_go.go with them as well.
			if got := bytes.Contains(logs[0].Bytes(), []byte(`msg="join matched in Go"`)); got != matchInGo {
				t.Errorf("join matched in Go: %v, want %v", got, matchInGo)
			}
			if bytes.Contains(logs[1].Bytes(), []byte(`msg="join matched in Go"`)) || bytes.Contains(logs[1].Bytes(), []byte(`msg="join solo"`)) {
				t.Error("the statements' run matched or settled join_solo in Go")
			}
			sameFiles(t, dirs, schemas.SummaryFile, schemas.CurvesFile, schemas.WindowsFile, schemas.LatenciesFile)
			rows := sameRows(t, dirs, schemas.RequestsFile)
			if want, _ := strconv.Atoi(m[1]); rows != int64(want) {
				t.Errorf("requests.parquet: %d rows, the joined file %d", rows, want)
			}
			// The run exercises what the join sets: renamed replicas, numbered
			// attempts, engine-only spans, coarser resolutions, gw.
			var renamed, numbered, engineOnly, coarse, overhead int64
			db := testDB(t)
			err := db.QueryRowContext(t.Context(), `
				SELECT count(*) FILTER (WHERE source = 'litellm' AND replica LIKE 'vllm-%'),
				       count(*) FILTER (WHERE attempt = 1),
				       count(*) FILTER (WHERE source = 'vllm-otel'),
				       count(*) FILTER (WHERE time_resolution_us = 1000),
				       count(gateway_overhead)
				FROM read_parquet(?)`, filepath.Join(dirs[0], schemas.RequestsFile)).Scan(&renamed, &numbered, &engineOnly, &coarse, &overhead)
			if err != nil {
				t.Fatal(err)
			}
			if renamed == 0 || numbered == 0 || engineOnly == 0 || coarse == 0 || overhead == 0 {
				t.Errorf("renamed %d, numbered %d, engine-only %d, coarse %d, gateway_overhead %d: want each > 0",
					renamed, numbered, engineOnly, coarse, overhead)
			}
		})
	}
}

// TestAssembleFallsBackToSQL: a spans.parquet the assembly does not read (one
// written before engine_arrived_at existed; one DuckDB wrote, with 64-bit
// attempts) has its joined file written by the statements, and the analysis
// is that of the same spans from ingest's file. -short runs DuckDB's file.
func TestAssembleFallsBackToSQL(t *testing.T) {
	spans := joinedRun(300, "gateway-first")
	for _, tc := range []struct {
		name  string
		write func(t *testing.T, path string)
	}{
		{"legacy", func(t *testing.T, path string) {
			// Without engine_arrived_at the spans' arrivals are unknown: the
			// reference is the same spans without them.
			writeLegacySpans(t, path, spans)
		}},
		{"duckdb", func(t *testing.T, path string) {
			src := filepath.Join(t.TempDir(), "src.parquet")
			writeParquet(t, src, spans)
			db := testDB(t)
			q := fmt.Sprintf("COPY (SELECT * REPLACE (attempt::BIGINT AS attempt) FROM read_parquet('%s')) TO '%s' (FORMAT parquet)", src, path)
			if _, err := db.ExecContext(t.Context(), q); err != nil {
				t.Fatal(err)
			}
		}},
	} {
		if testing.Short() && tc.name == "legacy" {
			continue
		}
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			want := spans
			if tc.name == "legacy" {
				want = slices.Clone(spans)
				for i := range want {
					want[i].EngineArrivedAt = nil
				}
			}
			var dirs [2]string
			var log bytes.Buffer
			for i := range dirs {
				dirs[i] = t.TempDir()
				opt := Options{Window: 30 * time.Second}
				if i == 0 {
					tc.write(t, filepath.Join(dirs[i], "spans.parquet"))
					opt.Log = slog.New(slog.NewTextHandler(&log, &slog.HandlerOptions{Level: slog.LevelDebug}))
				} else {
					writeParquet(t, filepath.Join(dirs[i], "spans.parquet"), want)
				}
				analyzeDir(t, dirs[i], opt)
			}
			if !regexp.MustCompile(`joined spans written by the statements" reason="cannot assemble: (spans.parquet has no flat column engine_arrived_at|column attempt is INT64)`).Match(log.Bytes()) {
				t.Errorf("the statements did not write the joined file:\n%s", log.String())
			}
			sameFiles(t, dirs, schemas.SummaryFile, schemas.CurvesFile)
		})
	}
}

// sameFiles checks that each of files is byte for byte the same in both
// analyses' directories.
func sameFiles(t *testing.T, dirs [2]string, files ...string) {
	t.Helper()
	for _, f := range files {
		a, err := os.ReadFile(filepath.Join(dirs[0], f))
		if err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(filepath.Join(dirs[1], f))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(a, b) {
			t.Errorf("%s differs between the two analyses", f)
		}
	}
}

// sameRows checks that file holds the same rows in the same order in both
// analyses' directories, and returns how many.
func sameRows(t *testing.T, dirs [2]string, file string) int64 {
	t.Helper()
	db := testDB(t)
	var rows, differ int64
	err := db.QueryRowContext(t.Context(), `
		WITH a AS (SELECT * FROM read_parquet(?, file_row_number = true)),
		     b AS (SELECT * FROM read_parquet(?, file_row_number = true))
		SELECT (SELECT count(*) FROM a),
		       (SELECT count(*) FROM (FROM a EXCEPT ALL FROM b)) + (SELECT count(*) FROM (FROM b EXCEPT ALL FROM a))`,
		filepath.Join(dirs[0], file), filepath.Join(dirs[1], file)).Scan(&rows, &differ)
	if err != nil {
		t.Fatal(err)
	}
	if rows == 0 || differ != 0 {
		t.Errorf("%s: %d rows, %d differ between the two analyses", file, rows, differ)
	}
	return rows
}

// withStatements is k with the statements making the variants of keys when
// statements is set.
func withStatements(k knobs, statements bool, keys ...string) knobs {
	if statements {
		k.statements = statementsFor(keys...).statements
	}
	return k
}
