package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
	"github.com/rogpeppe/go-internal/txtar"
)

func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){
		"tpsreport": func() { os.Exit(run(context.Background(), os.Args, os.Stdin, os.Stdout, os.Stderr)) },
	})
}

// shortScripts are the scripts of testdata/script that -short runs. In a
// few seconds they still take the command line end to end: help and usage
// errors, ingest → analyze → report (pipeline), a gateway and an engine
// joined (join), vLLM's stats log (vllm_sampled), and the shipped logs
// through compare and its report (demo). Each of the others simulates and
// analyses several runs; they are left to `make test`, and -short's skip
// message says what each covers (the first sentence of its header).
var shortScripts = []string{"demo", "help", "join", "pipeline", "vllm_sampled"}

// TestCLI runs testdata/script/*.txtar: the command line end to end, with exact
// output and exit codes. `exitcode N cmd args...` runs a command and requires
// exit status N; `readable FILE...` requires that every user may read each
// file, as an output that a CI job or a web server of another user reads.
// -short runs only shortScripts.
func TestCLI(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "script", "*.txtar"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no testdata/script/*.txtar: %v", err)
	}
	for _, name := range shortScripts {
		if !slices.Contains(files, filepath.Join("testdata", "script", name+".txtar")) {
			t.Errorf("shortScripts names %s, which is not in testdata/script", name)
		}
	}
	if testing.Short() {
		var run []string
		for _, f := range files {
			name := strings.TrimSuffix(filepath.Base(f), ".txtar")
			if slices.Contains(shortScripts, name) {
				run = append(run, f)
				continue
			}
			covers, err := scriptSummary(f)
			if err != nil {
				t.Fatal(err)
			}
			t.Run(name, func(t *testing.T) { t.Skip("slow; covers: " + covers) })
		}
		files = run
	}
	testscript.Run(t, testscript.Params{
		Files: files,
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"readable": func(ts *testscript.TestScript, neg bool, args []string) {
				if neg || len(args) == 0 {
					ts.Fatalf("usage: readable FILE...")
				}
				for _, name := range args {
					fi, err := os.Stat(ts.MkAbs(name))
					ts.Check(err)
					if fi.Mode().Perm()&0o044 != 0o044 {
						ts.Fatalf("%s: mode %v, want it readable by group and others", name, fi.Mode().Perm())
					}
				}
			},
			"exitcode": func(ts *testscript.TestScript, neg bool, args []string) {
				if neg || len(args) < 2 {
					ts.Fatalf("usage: exitcode N command [args...]")
				}
				want, err := strconv.Atoi(args[0])
				ts.Check(err)
				err = ts.Exec(args[1], args[2:]...)
				got := 0
				var ee *exec.ExitError
				if errors.As(err, &ee) {
					got = ee.ExitCode()
				} else if err != nil {
					ts.Fatalf("%v", err)
				}
				if got != want {
					ts.Fatalf("exit status %d, want %d", got, want)
				}
			},
		},
		UpdateScripts: os.Getenv("UPDATE_GOLDEN") != "",
	})
}

// scriptSummary is the first sentence of a script's header comment.
func scriptSummary(path string) (string, error) {
	ar, err := txtar.ParseFile(path)
	if err != nil {
		return "", err
	}
	var words []string
	for _, line := range strings.Split(string(ar.Comment), "\n") {
		line = strings.TrimSpace(line)
		if !strings.HasPrefix(line, "#") {
			break
		}
		words = append(words, strings.Fields(strings.TrimPrefix(line, "#"))...)
	}
	text := strings.Join(words, " ")
	if i := strings.Index(text+" ", ". "); i >= 0 {
		text = text[:i+1]
	}
	if text == "" {
		return "", fmt.Errorf("%s: no header comment to say what it covers", path)
	}
	return text, nil
}
