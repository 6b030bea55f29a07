// Command tpsreport turns LLM-serving logs into Parquet span tables, derives the
// metrics that tell whether a serving system is really busy, and writes
// acceptance reports. Run `tpsreport --help`.
package main

import (
	"context"
	"os"
	"os/signal"
	"sync/atomic"
	"syscall"
	_ "time/tzdata" // --tz works on machines without a zoneinfo database
)

func main() {
	ctx, cancel := context.WithCancel(context.Background())
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	var got atomic.Value
	go func() {
		s := <-sigs
		got.Store(s)
		cancel() // every command stops at its next check and cleans up
	}()
	code := run(ctx, os.Args, os.Stdin, os.Stdout, os.Stderr)
	signal.Stop(sigs)
	if s, ok := got.Load().(os.Signal); ok {
		code = signalExit(s)
	}
	os.Exit(code)
}

// signalExit is the exit status of a command stopped by a signal, as shells
// report one: 128 + the signal's number (130 for SIGINT, 143 for SIGTERM), so
// that a nightly job's scheduler tells an interrupted run from a failed one.
func signalExit(s os.Signal) int {
	if n, ok := s.(syscall.Signal); ok {
		return 128 + int(n)
	}
	return exitUsage
}
