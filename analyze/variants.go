package analyze

// A variant is an object of the analysis that two makers can make: a Go
// step, the fast one, which a build with DuckDB's Arrow interface (the
// duckdb_arrow tag) runs, and SQL statements, which a build without the tag
// runs and which stay the reference the Go step is tested against. This
// table is the one place each is declared: docs/pipeline.md "One object,
// two ways" lists the same rows (TestVariantsTable), TestVariantsAgree
// runs each both ways on the same datasets, and the pipeline test forces
// each to the statements where its dataset says so (variantKnobs).
type variant struct {
	object string
	goStep []string // the Go files that make it
	sql    []string // the statements (queries/*/NAME.sql) that make it otherwise
	// condition is the pipeline's condition (conditions) under which the
	// Go step runs; "" when the choice is made inside a step (the joined
	// file's assembly falls back to the statements by itself).
	condition string
	// knob names the field of knobs that has the statements make it, and
	// toSQL sets it.
	knob  string
	toSQL func(*knobs)
	// joined: the object exists only in a run that joins a gateway's spans
	// with an engine's; else it is a pool's (several replicas, waits
	// located).
	joined bool
}

var variants = []variant{
	{object: "the pool's segments, and the attribution's", goStep: []string{"pool_sweep.go", "gap_sweep.go"},
		sql:       []string{"state_events.sql", "pool_segments.sql", "gap_steps.sql", "replica_events.sql"},
		condition: "swept", knob: "sqlSweep", toSQL: func(k *knobs) { k.sqlSweep = true }},
	{object: "the concurrency curve's in_flight", goStep: []string{"curve_merge.go"}, sql: []string{"curve_conc.sql"},
		condition: "merged", knob: "sqlCurve", toSQL: func(k *knobs) { k.sqlCurve = true }},
	{object: "the join's candidates", goStep: []string{"join_go.go"}, sql: []string{"join_raw.sql", "join_match.sql", "join_cand.sql"},
		condition: "matched", knob: "sqlMatch", toSQL: func(k *knobs) { k.sqlMatch = true }, joined: true},
	{object: "join_solo", goStep: []string{"join_solo.go"}, sql: []string{"join_solo.sql"},
		condition: "soloed", knob: "sqlSolo", toSQL: func(k *knobs) { k.sqlSolo = true }, joined: true},
	{object: "the joined spans' file", goStep: []string{"assemble.go"}, sql: []string{"joined_gateway.sql", "joined_engine.sql"},
		knob: "joinStatements", toSQL: func(k *knobs) { k.joinStatements = true }, joined: true},
	{object: "latencies.parquet's sort key", goStep: []string{"facts.go"}, sql: []string{"latencies_out_wide.sql"},
		condition: "packed", knob: "wideLatencies", toSQL: func(k *knobs) { k.wideLatencies = true }},
}

// variantKnobs are the knobs that have the statements make every object
// whose condition facts says does not hold.
func variantKnobs(facts map[string]bool) knobs {
	var k knobs
	for _, v := range variants {
		if v.condition != "" && !facts[v.condition] {
			v.toSQL(&k)
		}
	}
	return k
}
