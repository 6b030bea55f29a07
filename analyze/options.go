package analyze

import (
	"io"
	"log/slog"
	"time"

	"github.com/tpsreport/tpsreport/capacity"
	"github.com/tpsreport/tpsreport/schemas"
)

// Options are the analyze flags.
type Options struct {
	Dir    string        // the run dataset
	Window time.Duration // window width; 0 means 60 s
	Cap    *int64        // --cap, per replica
	From   *time.Time    // --from (with To)
	To     *time.Time    // --to (with From)
	Log    *slog.Logger  // nil discards
	// Progress, when set, gets a one-line status that is rewritten in place
	// (the statement running and the time so far); cmd passes stderr only
	// when it is a terminal.
	Progress io.Writer
	// SLO, when set, is the latency bound per request that goodput and
	// slo_attainment count (docs/metrics.md "Requests and SLOs").
	SLO *schemas.SLO
	// Pricing, when set, prices the run: summary.json's cost
	// (docs/metrics.md "Cost and capacity").
	Pricing *capacity.Pricing
}

// knobs are a test's hand on the analysis, which Run leaves at zero: the
// SQL way of making an object that a Go step makes (the variants of
// docs/pipeline.md's "One object, two ways"), and sizes set small so that
// a small run takes a large one's paths or is read in slices of a few rows.
// The tests run through runWith.
type knobs struct {
	// largeAt, when not 0, stands for largeRunSpans and splitRunSpans: a
	// test takes a small run for a large and split one with -1.
	largeAt int64
	// joinGroupRows, when not 0, stands for joinRowGroupRows.
	joinGroupRows int
	// curveSlice, when not 0, stands for curveSliceRows: a test has the
	// merge read a few midpoints at a time.
	curveSlice int64
	// sweep, where not 0, stands for the sweep's sizes (pool_sweep.go): a
	// test has it cut slices of a few steps, read them for a few spans at a
	// time and stream a few segments a batch.
	sweep sweepSizes
	// statements has the statements make the variants (variants.go) of
	// these keys rather than their Go steps: a test compares the two.
	statements map[string]bool
}

// MaxWindows bounds the windows of one analysis: each costs a row in every
// per-window statement and in the report, so --window 1ms over a day (86
// million windows) would run for hours and write gigabytes.
const MaxWindows = 100_000
