// Package oracle is the test-only second implementation of the analyze stage:
// it derives the per-span, per-window and per-run metrics of docs/metrics.md and the
// analysis data-quality counts of §6 in plain Go (sorted events and loops, no
// SQL, no cgo), following docs/metrics.md to the letter, so that a differential
// test can hold the DuckDB engine of package analyze against it on randomized
// span sets (see RandomSpans).
//
// Every overlap and measure is integer microseconds (half-microseconds for the
// sampled state, whose hold limit can end on a half microsecond); float64 is
// used only for the final divisions and for token shares, each share correctly
// rounded and summed in a canonical order, so the result does not depend on the
// order of the input.
//
// Where docs/metrics.md leaves a case open, the choice made here is written as
// a comment starting with "Choice:" next to the code that makes it.
package oracle
