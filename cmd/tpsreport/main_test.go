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

	"github.com/tpsreport/tpsreport/internal/dataset"
	"github.com/tpsreport/tpsreport/internal/testcrash"
)

func TestMain(m *testing.M) {
	testcrash.Watch(os.Stderr)
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
// $FIXTURES names ingest/testdata, whose real-format files scripts read;
// $REPO the repository's root.
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
	locks := map[string]*dataset.Lock{}
	testscript.Run(t, testscript.Params{
		Files: files,
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			// lock [-shared] DIR takes DIR's lock as a writer (a reader)
			// would, in the test process, until `unlock DIR`.
			"lock": func(ts *testscript.TestScript, neg bool, args []string) {
				exclusive := true
				if len(args) == 2 && args[0] == "-shared" {
					exclusive, args = false, args[1:]
				}
				if neg || len(args) != 1 {
					ts.Fatalf("usage: lock [-shared] DIR")
				}
				l, err := dataset.LockDir(ts.MkAbs(args[0]), exclusive, "testscript lock "+args[0])
				ts.Check(err)
				locks[ts.MkAbs(args[0])] = l
			},
			"unlock": func(ts *testscript.TestScript, neg bool, args []string) {
				if neg || len(args) != 1 {
					ts.Fatalf("usage: unlock DIR")
				}
				locks[ts.MkAbs(args[0])].Unlock()
				delete(locks, ts.MkAbs(args[0]))
			},
			// hidden DIR succeeds when DIR holds a hidden entry other than
			// a lock file (.NAME.lock) and testscript's .tmp: what a killed
			// command left.
			"hidden": func(ts *testscript.TestScript, neg bool, args []string) {
				if len(args) != 1 {
					ts.Fatalf("usage: hidden DIR")
				}
				entries, err := os.ReadDir(ts.MkAbs(args[0]))
				ts.Check(err)
				var found []string
				for _, e := range entries {
					if strings.HasPrefix(e.Name(), ".") && !strings.HasSuffix(e.Name(), ".lock") && e.Name() != ".tmp" {
						found = append(found, e.Name())
					}
				}
				if neg && len(found) > 0 {
					ts.Fatalf("%s holds %v", args[0], found)
				}
				if !neg && len(found) == 0 {
					ts.Fatalf("%s holds no hidden entry", args[0])
				}
			},
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
		// $FIXTURES is ingest's testdata: the files other projects wrote,
		// with their sources quoted beside them, read where they are.
		// $REPO is the repository's root, for the scripts it ships (ci/)
		// and its sample logs (testdata/demo).
		Setup: func(env *testscript.Env) error {
			repo, err := filepath.Abs(filepath.Join("..", ".."))
			env.Setenv("FIXTURES", filepath.Join(repo, "ingest", "testdata"))
			env.Setenv("REPO", repo)
			return err
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
