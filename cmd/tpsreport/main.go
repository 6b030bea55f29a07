// Command tpsreport turns LLM-serving logs into Parquet span tables, derives the
// metrics that tell whether a serving system is really busy, and writes
// acceptance reports. Run `tpsreport --help`.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"
	_ "time/tzdata" // --tz works on machines without a zoneinfo database
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args, os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}
