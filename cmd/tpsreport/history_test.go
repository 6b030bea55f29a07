package main

import (
	"database/sql"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"
)

// TestHistoryQuery runs the history query that `run --help` documents on a
// nightly root of joined runs (a LiteLLM gateway's and vLLM's spans of the
// same attempts, two rows per attempt in spans.parquet) with a killed run's
// hidden stage beside them: it counts each attempt once, per run, and reads
// no stage.
func TestHistoryQuery(t *testing.T) {
	logs := txtarFiles(t, "testdata/script/join.txtar")
	root := filepath.Join(t.TempDir(), "dt=2026-11-20", "tps")
	e := &env{stdout: io.Discard, stderr: io.Discard, log: slog.New(slog.DiscardHandler), isTerminal: func(io.Writer) bool { return false }}
	for _, name := range []string{"night-1", "night-2"} {
		_, _, err := nightly(t.Context(), e, nightlyOptions{root: root, name: name, format: "auto",
			inputs: []string{"litellm:" + filepath.Join(logs, "litellm.jsonl"), "vllm-otel:" + filepath.Join(logs, "vllm-otel.jsonl")}})
		if err != nil {
			t.Fatal(err)
		}
	}
	// What a run killed between its stage and its swap leaves behind.
	if err := os.CopyFS(filepath.Join(root, ".run=night-3.tmp-1"), os.DirFS(filepath.Join(root, "run=night-1"))); err != nil {
		t.Fatal(err)
	}

	var help strings.Builder
	app := newApp(&env{stdout: &help, stderr: io.Discard})
	if err := app.Run([]string{"tpsreport", "run", "--help"}); err != nil {
		t.Fatal(err)
	}
	q := regexp.MustCompile(`read_parquet\('ROOT/[^']*'[^)]*\)`).FindString(help.String())
	if q == "" {
		t.Fatalf("run --help gives no history query:\n%s", help.String())
	}
	q = strings.Replace(q, "ROOT", root, 1)

	db, err := sql.Open("duckdb", "")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	rows, err := db.QueryContext(t.Context(), "SELECT run, count(*) FROM "+q+" GROUP BY run ORDER BY run")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var got []string
	for rows.Next() {
		var run string
		var n int64
		if err := rows.Scan(&run, &n); err != nil {
			t.Fatal(err)
		}
		got = append(got, fmt.Sprintf("%s=%d", run, n))
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	// join.txtar: 4 gateway and 4 engine spans, 3 joined: 5 attempts a run.
	if want := []string{"night-1=5", "night-2=5"}; strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("history query %s counts %v, want %v", q, got, want)
	}
}

// txtarFiles writes the files of a CLI script's archive into a temporary
// directory and returns it: the inputs of a test that runs the commands in
// process rather than as a script.
func txtarFiles(t *testing.T, path string) string {
	t.Helper()
	ar, err := txtar.ParseFile(path)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for _, f := range ar.Files {
		if err := os.WriteFile(filepath.Join(dir, f.Name), f.Data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}
