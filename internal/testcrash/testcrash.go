// Package testcrash makes a test binary say where it was when a thread
// that is not Go's crashed.
//
// DuckDB runs queries on threads of its own. When code on one of them
// faults, Go's runtime has no goroutine to panic on: it restores the
// default action and the process dies with "signal: segmentation fault"
// and not a line more, so neither the test nor the statement running is
// known. Asked for SIGSEGV through os/signal, the runtime hands such a
// fault (one that Go code did not cause; Go's own still panic) to the
// channel instead, while the faulting thread keeps faulting in place;
// Watch then writes every goroutine's stack, which names the tests and
// the DuckDB calls in progress, and exits.
package testcrash

import (
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime/pprof"
	"syscall"
	"testing"
)

// Main is a TestMain that watches (Watch, to stderr) and runs the tests.
func Main(m *testing.M) {
	Watch(os.Stderr)
	os.Exit(m.Run())
}

// Watch, called first in a TestMain, reports a fault on a thread that is
// not Go's to w and exits with status 2.
func Watch(w io.Writer) {
	c := make(chan os.Signal, 1)
	signal.Notify(c, syscall.SIGSEGV, syscall.SIGBUS)
	go func() {
		sig := <-c
		fmt.Fprintf(w, "\ntestcrash: %v on a thread that is not Go's (DuckDB's, most likely); the goroutines then:\n\n", sig)
		_ = pprof.Lookup("goroutine").WriteTo(w, 2)
		os.Exit(2)
	}()
}
