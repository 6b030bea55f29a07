// Package compare is the acceptance step of the pipeline: it takes the
// analysed windows and summaries of a baseline run and a candidate run and
// decides each acceptance criterion of docs/acceptance.md (throughput, success
// rate, gap_fraction, retry rate) as PASS, FAIL or INCONCLUSIVE with the
// numbers behind it. It is pure Go and deterministic: the bootstrap uses a
// fixed seed, so the same inputs give the same verdict byte for byte.
package compare
