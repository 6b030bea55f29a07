package main

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"strconv"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
)

func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){
		"tpsreport": func() { os.Exit(run(context.Background(), os.Args, os.Stdin, os.Stdout, os.Stderr)) },
	})
}

// TestCLI runs testdata/script/*.txtar: the command line end to end, with exact
// output and exit codes. `exitcode N cmd args...` runs a command and requires
// exit status N; `readable FILE...` requires that every user may read each
// file, as an output that a CI job or a web server of another user reads.
func TestCLI(t *testing.T) {
	testscript.Run(t, testscript.Params{
		Dir: "testdata/script",
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
