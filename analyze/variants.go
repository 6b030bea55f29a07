package analyze

// A variant is an object of the analysis that two makers can make: a Go
// step, the fast one, which a build with DuckDB's Arrow interface (the
// duckdb_arrow tag) runs, and SQL statements, which a build without the tag
// runs and which stay the reference the Go step is tested against. This
// table is the one place each is declared, with the rule that picks its
// maker: docs/pipeline.md "One object, two ways" lists the same rows
// (TestVariantsTable), TestVariantsAgree runs each both ways on the same
// datasets, and the pipeline test forces each to the statements where its
// dataset says so (variantKnobs).
type variant struct {
	object string
	goStep []string // the Go files that make it
	sql    []string // the statements (queries/*/NAME.sql) that make it otherwise
	// key names the variant: the pipeline's condition (conditions) under
	// which the Go step makes it, and the key of knobs.statements by which
	// a test has the statements make it instead.
	key string
	// goRuns tells whether the Go step can make it in this run: the build,
	// the run's size, the dataset's columns. The condition key holds when it
	// does and no test asked for the statements. nil: the choice is made
	// inside a step (the joined file's assembly falls back to the
	// statements by itself), and key is no condition.
	goRuns func(st *runState) bool
	// joined: the object exists only in a run that joins a gateway's spans
	// with an engine's; else it is a pool's (several replicas, waits
	// located).
	joined bool
}

var variants = []variant{
	// The build sweeps the pool's steps in Go (poolSweep).
	{object: "the pool's segments, and the attribution's", goStep: []string{"pool_sweep.go", "gap_sweep.go"},
		sql: []string{"state_events.sql", "pool_segments.sql", "gap_steps.sql", "replica_events.sql"},
		key: "swept", goRuns: func(*runState) bool { return poolSweep }},
	// The build merges the concurrency curve in Go (curveMerge).
	{object: "the concurrency curve's in_flight", goStep: []string{"curve_merge.go"}, sql: []string{"curve_conc.sql"},
		key: "merged", goRuns: func(*runState) bool { return curveMerge }},
	// The build matches the join's candidates in Go (matchInGo),
	// spans.parquet holds the columns the match reads as ingest writes
	// them, and the run has no more rows than it takes (maxMatchRows).
	{object: "the join's candidates", goStep: []string{"join_go.go"}, sql: []string{"join_raw.sql", "join_match.sql", "join_cand.sql"},
		key: "matched", goRuns: func(st *runState) bool { return matchInGo && st.matchable && st.spans <= maxMatchRows }, joined: true},
	// The build settles join_solo in Go (soloInGo), and the run has no more
	// rows than the assembly takes (maxAssembleRows: its partner array,
	// 4 bytes a row, is held beside DuckDB's memory; past it join_solo.sql,
	// which spills, is the better way).
	{object: "join_solo", goStep: []string{"join_solo.go"}, sql: []string{"join_solo.sql"},
		key: "soloed", goRuns: func(st *runState) bool { return soloInGo && st.spans <= maxAssembleRows }, joined: true},
	{object: "the joined spans' file", goStep: []string{"assemble.go"}, sql: []string{"joined_gateway.sql", "joined_engine.sql"},
		key: "assembled", joined: true},
	// ttft_req_us and e2e_req_us fit one BIGINT side by side (latencyKey).
	{object: "latencies.parquet's sort key", goStep: []string{"facts.go"}, sql: []string{"latencies_out_wide.sql"},
		key: "packed", goRuns: func(st *runState) bool { return st.latencyKey != nil }},
}

// The variants' conditions join the pipeline's: each holds when its Go step
// can run and no test asked for the statements.
func init() {
	for _, v := range variants {
		if v.goRuns != nil {
			conditions[v.key] = func(st *runState) bool { return !st.k.statements[v.key] && v.goRuns(st) }
		}
	}
}

// statementsFor are knobs that have the statements make the variants of
// the given keys.
func statementsFor(keys ...string) knobs {
	k := knobs{statements: map[string]bool{}}
	for _, key := range keys {
		k.statements[key] = true
	}
	return k
}

// variantKnobs are the knobs that have the statements make every object
// whose condition facts says does not hold.
func variantKnobs(facts map[string]bool) knobs {
	var keys []string
	for _, v := range variants {
		if v.goRuns != nil && !facts[v.key] {
			keys = append(keys, v.key)
		}
	}
	return statementsFor(keys...)
}
