// Package dataset commits an output directory as a set. It sits under every
// writer of the pipeline (ingest, analyze, report, compare and the nightly
// run): each builds its whole directory in a stage beside it and swaps the
// stage in with one atomic exchange, so a reader, a concurrent job or a kill
// sees either the old set or the new one, never a mix.
//
// It also holds what makes a dataset checkable and exclusive: the
// description of its files in manifest.json (Describe, Verify) and the lock
// beside it (Lock).
package dataset
