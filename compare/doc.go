// Package compare is the acceptance step of the pipeline: it takes the
// analysed windows, summaries and delivered requests of a baseline run and a
// candidate run and decides each acceptance criterion of docs/acceptance.md
// (throughput, success rate, gap_fraction, retry rate, TTFT, TPOT, SLO
// attainment) as PASS, FAIL or INCONCLUSIVE with the numbers behind it, after
// leaving out a warm-up and a cool-down. It is pure Go and deterministic: the
// bootstraps use a fixed seed, so the same inputs give the same verdict byte
// for byte.
package compare
