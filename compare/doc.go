// Package compare is the acceptance step of the pipeline: it takes the
// analysed windows, summaries and delivered requests of the baseline's runs
// and the candidate's runs (one or more a side) and decides each acceptance
// criterion of docs/acceptance.md (throughput, success rate, gap_fraction,
// retry rate, TTFT, TPOT, SLO attainment) as PASS, FAIL or INCONCLUSIVE
// with the numbers behind it, after leaving out a warm-up and a cool-down.
//
// Every criterion is a row of definitions (judge.go) over one resampling
// engine (engine.go): a statistic of a set of windows, compared as a ratio
// or a difference, with an interval from a circular block bootstrap of the
// windows in time order, so that requests that queued together are never
// taken as independent. Each of the k criteria judged may alarm in alpha/k
// of comparisons of an unchanged system. It is pure Go and deterministic:
// the resamples use a fixed seed, so the same inputs give the same verdict
// byte for byte.
package compare
