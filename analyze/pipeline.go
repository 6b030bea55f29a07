package analyze

import (
	"database/sql"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/tpsreport/tpsreport/schemas"
)

// The analysis is a list of steps, run in order by one loop (runSteps): each
// names its statement (queries/STAGE/NAME.sql), the tables, views and macros it
// creates, and the ones it drops once it has run, so that a step's inputs
// and the memory they hold can be read off the list. TestPipelineOrder
// checks the list against the statements' text: every object a step reads
// was created by an earlier step and not yet dropped, and every object a step
// creates is read later or written out.
//
// The stages, in order (docs/pipeline.md draws them):
//
//	macros    the per-span metric macros, the quantile and sweep macros
//	load      spans.parquet (or its gateway-engine join) into the spans table
//	requests  attempt numbers, each request's delivered span and latencies,
//	          the samples, the extent, data quality, the windows' events
//	side      beside the sweeps, on a second connection: requests.parquet
//	state     in_flight and queue_depth by sweep, per pool and replica; caps
//	curves    curves.json
//	windows   the per-window metrics, windows.parquet, latencies.parquet
//	run       the run as one window: summary.json's metrics
type step struct {
	// name is what the progress line and the debug log show, and the
	// statement's name (queries/NAME.sql) unless query or do is set.
	name string
	// query names the statement when it is not name (one statement run at
	// two points, with other parameters).
	query string
	// do runs a step that reads rows into Go (or loops), instead of
	// executing the statement; uses names the statements it runs, for
	// TestPipelineOrder.
	do   func(a *analysis, st *runState) error
	uses []string
	// args gives the statement's parameters, by name.
	args func(st *runState) []any
	// copyTo, when set, writes the statement's rows to the file it names
	// (Parquet, zstd).
	copyTo   func(st *runState) string
	copyOpts string
	// when names the conditions under which the step runs ("joined",
	// "!joined", "replicas & !pooled": conditions, all of them must
	// hold); "" always.
	when string
	// both runs the statement on the other connections as well (side,
	// reader): it sets a variable or the database in use, which each
	// connection holds on its own.
	both bool
	// side starts these steps on the side connection; wait waits for them.
	side []step
	wait bool
	// dropOnly: the step runs no statement, it drops what it names.
	dropOnly bool

	creates []string // tables, views and macros created or replaced
	drops   []string // dropped after the step: a table or view, or TABLE.COLUMN
}

// conditions are the facts of a dataset that choose between steps; the
// pipeline test runs the list under every combination. The variants'
// conditions (swept, merged, matched, soloed, packed) are added from their
// table, variants.go.
var conditions = map[string]func(st *runState) bool{
	// joined: the run holds a gateway's and an engine's spans (join.go).
	"joined": func(st *runState) bool { return st.gateway > 0 && st.engine > 0 },
	// arrivals: spans.parquet has the column engine_arrived_at (a dataset
	// ingested before it existed has not).
	"arrivals": func(st *runState) bool { return st.arrivals },
	// located: some span knows where it waited (engine_arrived_at).
	"located": func(st *runState) bool { return st.located },
	// unnumbered: some span has a request_id but no attempt number (a
	// joined run numbers its spans in the join: joined_file).
	"unnumbered": func(st *runState) bool { return st.unnumbered },
	// samples: the dataset has samples.parquet.
	"samples": func(st *runState) bool { return st.samplesPath != "" },
	// stages: the dataset has stages.parquet (disaggregated serving).
	"stages": func(st *runState) bool { return st.stagesPath != "" },
	// replicas: spans name more than one replica.
	"replicas": func(st *runState) bool { return st.replicaCount > 1 },
	// pooled: several replicas, every step of state on one of the pool's
	// (pool_rids), and some wait located: the attribution's steps are then
	// every replica's, and the replicas' segments come from its sweep (in
	// Go, or from gap_steps in SQL) rather than from a sort of the same
	// steps again (replica_events).
	"pooled": func(st *runState) bool {
		return st.located && st.replicaCount > 1 && !st.unnamedSteps
	},
	// durations: some span carries durations only (time_origin request):
	// the run is one window, and windows.parquet has no row.
	"durations": func(st *runState) bool { return st.durations > 0 },
	// large: the run has more than largeRunSpans spans; its tables are
	// stored in a database file.
	"large": func(st *runState) bool { return st.beyond(largeRunSpans) },
	// split: the run has more than splitRunSpans spans; its distributions
	// take a statement each.
	"split": func(st *runState) bool { return st.beyond(splitRunSpans) },
	// unnamed: the manifest names no run; the spans' run_id is used.
	"unnamed": func(st *runState) bool { return st.runID == "" },
}

// implied are the conditions that one implies (pooled: located and
// replicas), so that the pipeline test leaves out the combinations no
// dataset has.
var implied = map[string][]string{
	"pooled": {"located", "replicas"},
}

// whenHolds tells whether a step's when holds, given the truth of each
// condition.
func whenHolds(when string, holds func(cond string) bool) bool {
	for _, c := range whenConditions(when) {
		if holds(strings.TrimPrefix(c, "!")) == strings.HasPrefix(c, "!") {
			return false
		}
	}
	return true
}

// whenConditions splits a step's when into its conditions, each with its
// "!" if it has one.
func whenConditions(when string) []string {
	var cs []string
	for c := range strings.SplitSeq(when, "&") {
		if c = strings.TrimSpace(c); c != "" {
			cs = append(cs, c)
		}
	}
	return cs
}

// beyond tells whether the run has more than n spans, or than the test's
// stand-in for every such size (knobs.largeAt).
func (st *runState) beyond(n int64) bool {
	if st.k.largeAt != 0 {
		n = st.k.largeAt
	}
	return st.spans > n
}

func (s *step) enabled(st *runState) bool {
	return whenHolds(s.when, func(c string) bool { return conditions[c](st) })
}

// statement is the name of the step's statement in queries/.
func (s *step) statement() string {
	if s.query != "" {
		return s.query
	}
	return s.name
}

// runState is what the steps compute for the steps after them and for the
// result.
type runState struct {
	// coarsestUS is the coarsest time_resolution_us of the run's spans
	// (1: every span to the µs).
	coarsestUS  int64
	opt         Options
	k           knobs // a test's; zero in Run
	man         schemas.Manifest
	width       int64 // µs
	spansPath   string
	samplesPath string // "" without samples.parquet
	stagesPath  string // "" without stages.parquet
	tmpDir      string // where the outputs are written before they move

	gateway, engine int64 // spans of each join role
	spans           int64 // every span
	arrivals        bool  // spans.parquet has engine_arrived_at
	matchable       bool  // the match in Go reads spans.parquet (join.go)
	located         bool  // some span knows where it waited
	unnamedSteps    bool  // a span of the unnamed replica has a step of state
	join            *schemas.JoinCoverage
	unnumbered      bool
	t0, t1          int64 // the extent, µs
	noExtent        bool
	runID           string
	dq              schemas.DataQuality
	replicaCount    int64
	namedReplicas   int64 // of replicaCount, those a span names
	caps            resolvedCaps
	replicas        []schemas.ReplicaState
	curves          schemas.Curves
	windows         []schemas.Metrics
	run             schemas.Metrics
	mix             runMix
	disagg          *schemas.Disaggregation // from stages.parquet; nil without it

	// durations counts the spans that carry durations only (time_origin
	// request), from durationSources: when some do, the spans share no clock
	// (durations.go).
	durations       int64
	durationSources []string

	sideTask *sideTask
	// latencyKey sizes latencies_out's packed sort key; nil when the
	// latencies do not fit it (latencies_out_wide).
	latencyKey *latencyKey
	// gapFiles are the attribution's steps that the pool's sweep in Go
	// filed for the attribution's (gap_sweep.go); groups, when the
	// attribution's sweep made them, are the replicas' summed segments
	// (replica_segments_swept).
	gapFiles *gapFiles
	groups   []replicaGroup
	// curveRelease releases the merged curve's stream (curveConcMerged)
	// once curves has read it, and returns the merge's error.
	curveRelease func() error
	// requests is requests.parquet's splice, planned on the side
	// connection (writeRequests), written from requests_splice to
	// requests_spliced.
	requests *spliceTask
}

// params are the parameters of params.sql: the extent, the window width
// (runWidth for the run as one window), the pool's cap and the SLO's bounds.
func params(t0, t1, width, poolCap int64, slo *schemas.SLO) []any {
	var ttft, e2e *int64
	var tpot *float64
	if slo != nil {
		ttft, tpot, e2e = microsOf(slo.TTFT), slo.TPOT, microsOf(slo.E2E)
	}
	return []any{
		sql.Named("t0", t0), sql.Named("t1", t1), sql.Named("width", width),
		sql.Named("pool_cap", poolCap), sql.Named("whole", width == runWidth),
		sql.Named("slo_ttft_us", ttft), sql.Named("slo_tpot", tpot), sql.Named("slo_e2e_us", e2e),
		sql.Named("has_slo", slo != nil),
	}
}

// microsOf converts seconds to whole µs (rounded), nil to nil.
func microsOf(s *float64) *int64 {
	if s == nil {
		return nil
	}
	v := schemas.SecondsMicros(*s)
	return &v
}

// pipeline is the analysis, step by step.
var pipeline = slices.Concat([]step{
	// How many spans, of which roles: what the conditions are made of.
	{name: "span_sources", do: (*analysis).spanSources},
	// A large run's tables live in a database file of their own, stored
	// compressed: at 100 M spans the spans table and the pool's segments
	// do not fit in memory, and every later scan of them reads the
	// compressed blocks back from the file rather than the spilled ones
	// (BENCHMARKS.md). Everything the analysis creates is made after this,
	// so that it lands there.
	{name: "attach_work", when: "large", do: (*analysis).attachWork},
	{name: "use_work", when: "large", both: true},

	// macros
	{name: "span_metrics", creates: []string{"t_queue_us", "t_first_token_us", "ttft_us", "t_stream_us", "t_in_flight_us",
		"t_total_us", "gateway_overhead_us", "t_queue", "t_first_token", "ttft", "t_stream", "t_in_flight", "t_total",
		"gateway_overhead", "stream_tps", "end_to_end_tps", "tpot", "out_hi_us", "out_lo_us", "in_hi_us", "in_lo_us", "out_counted", "in_counted",
		"block_of", "block_bits", "in_block"}},
	{name: "sorted_quantiles", creates: []string{"sorted_quantiles"}},
	{name: "state_macros", creates: []string{"has_state_step", "in_gap", "over_cap"}},
	// The table macro sweeps the pool's steps in SQL (unless swept in Go)
	// and the replicas' (sweep_replicas, once the replicas are counted).
	{name: "sweep", when: "!swept", creates: []string{"sweep"}},

	// load
	{name: "spans_path", both: true, args: func(st *runState) []any { return []any{sql.Named("path", st.spansPath)} }},
	{name: "spans_file", when: "arrivals", creates: []string{"spans_file"}},
	{name: "spans_file_legacy", when: "!arrivals", creates: []string{"spans_file"}},
	// The join's candidates: matched in Go from spans.parquet (join_go.go)
	// or by the statements join_raw to join_cand.
	{name: "join_go", when: "joined & matched", do: (*analysis).joinGo,
		uses:    []string{"join_solo_stream", "join_cand_stream", "join_spare_stream", "join_reps_stream"},
		creates: []string{"join_solo", "join_cand", "join_spare", "join_solo_reps"}},
	{name: "join_raw", when: "joined & !matched", creates: []string{"raw_spans"}, args: func(*runState) []any {
		return []any{sql.Named("gateway", gatewaySources), sql.Named("engine", engineSources)}
	}},
	{name: "join_match", when: "joined & !matched", creates: []string{"join_match"},
		args: func(*runState) []any { return []any{sql.Named("tolerance_us", joinToleranceUS)} }},
	{name: "raw_max", when: "joined", args: func(st *runState) []any { return []any{sql.Named("raw_max", st.spans-1)} }},
	{name: "join_solo", when: "joined & !matched & !soloed", creates: []string{"join_solo"}},
	// Or in Go, from join_match's pairs read once (join_solo.go).
	{name: "join_solo_go", when: "joined & !matched & soloed", do: (*analysis).joinSoloGo,
		uses: []string{"join_solo_pairs", "join_solo_stream"}, creates: []string{"join_solo"}},
	{name: "join_cand", when: "joined & !matched", creates: []string{"join_cand"}, drops: []string{"join_match"}},
	{name: "join_pairs_table", when: "joined", creates: []string{"join_pairs"}},
	{name: "join_rounds", when: "joined", do: (*analysis).joinRounds, uses: []string{"join_pairs"}, drops: []string{"join_cand"}},
	{name: "join_unpaired", when: "joined & !matched", creates: []string{"join_unpaired"}},
	{name: "join_unpaired_go", when: "joined & matched", creates: []string{"join_unpaired"}},
	{name: "join_coverage", when: "joined", do: (*analysis).joinCoverage},
	// Each engine request's receipt at the gateway, for its stages.
	{name: "stage_gateways", when: "joined & stages", creates: []string{"stage_gateways"}},
	{name: "stage_gateways_none", when: "!joined & stages", creates: []string{"stage_gateways"}},
	// The joined spans' file: assembled in Go from spans.parquet and the
	// pairs, or by two statements of its columns (join.go, assemble.go).
	{name: "join_renames", when: "joined & !matched", creates: []string{"join_renames"}, drops: []string{"raw_spans"}},
	{name: "join_renames_go", when: "joined & matched", creates: []string{"join_renames"}, drops: []string{"join_spare", "join_solo_reps"}},
	{name: "joined_kept", when: "joined", drops: []string{"join_unpaired"}},
	{name: "joined_row", when: "joined", creates: []string{"joined_row"}},
	{name: "join_multi", when: "joined", creates: []string{"multi_requests"},
		args: func(*runState) []any { return []any{sql.Named("engine", engineSources)} }},
	{name: "join_numbers", when: "joined", creates: []string{"join_numbers"},
		args: func(*runState) []any { return []any{sql.Named("engine", engineSources)} }},
	{name: "joined_file", when: "joined", do: (*analysis).joinedFile,
		uses:  []string{"joined_pairs_out", "joined_numbers_out", "joined_renames_out", "joined_gateway", "joined_engine", "joined_file"},
		drops: []string{"join_solo", "join_pairs", "join_renames", "join_numbers"}},
	{name: "joined_path", when: "joined", both: true,
		args: func(st *runState) []any { return []any{sql.Named("path", filepath.Join(st.tmpDir, joinedFile))} }},
	{name: "span_src", when: "!joined", creates: []string{"span_src"}},
	{name: "span_src_joined", when: "joined", creates: []string{"span_src"}},
	{name: "durations_only", do: (*analysis).durationsOnly, uses: []string{"durations_only"}},
	{name: "span_times", creates: []string{"span_times"}},
	{name: "replica_ids", creates: []string{"replica_ids"}},
	{name: "multi_requests", when: "!joined", creates: []string{"multi_requests"}},
	{name: "load_spans", creates: []string{"spans"}},
	{name: "checkpoint_work", when: "large"},

	// requests
	{name: "span_facts", do: (*analysis).spanFacts},
	{name: "number_attempts", when: "unnumbered", creates: []string{"spans"}},
	{name: "request_facts", creates: []string{"multi_facts", "request_facts"}},
	{name: "request_ties"},
	{name: "delivered_bits", creates: []string{"delivered_blocks"}},
	{name: "attempt_list", when: "unnumbered", creates: []string{"attempt_list"}},
	{name: "delivered_requests", creates: []string{"delivered_requests"}},
	{name: "load_samples", when: "samples", creates: []string{"samples"},
		args: func(st *runState) []any { return []any{sql.Named("path", st.samplesPath)} }},
	{name: "empty_samples", when: "!samples", creates: []string{"samples"}},
	{name: "extent", do: (*analysis).extent, uses: []string{"extent", "stage_extent"}},
	{name: "run_id", when: "unnamed", do: (*analysis).spansRunID},
	{name: "quality", do: (*analysis).quality, uses: []string{"quality_spans", "sampling_holes"}},
	{name: "run_mix", do: (*analysis).runMix, uses: []string{"run_mix"}},
	// The windows' events are the last reader of the request facts, a row
	// per request: count them now, so that the facts are gone before
	// requests.parquet and the sweeps need the memory. Nothing after them
	// groups spans by request: the spans table's largest column goes too
	// (at 10 M spans, less to spill in the sweeps).
	{name: "params_events", query: "params", creates: []string{"params"},
		args: func(st *runState) []any { return params(st.t0, st.t1, st.width, 0, st.opt.SLO) }},
	{name: "logical_requests", creates: []string{"logical_requests"}},
	{name: "win_events", creates: []string{"win_events"}, drops: []string{
		"logical_requests", "request_facts", "multi_facts", "multi_requests",
		"spans.req", "spans.attempt", "spans.solo"}},

	// side: the pool's and the replicas' sweeps run on one thread; beside
	// them, on the side connection, go quality_source and requests.parquet,
	// which read span_src, the attempts and the delivered flags, none of
	// which the main connection changes meanwhile. They start once the
	// request facts are dropped and the spans table narrowed, when their
	// memory adds to the least. latencies.parquet stays on the main
	// connection: on the side, its sort met the attribution's (gap_steps)
	// at 100 M spans, and each spilled what the other held (BENCHMARKS.md).
	{name: "side", side: []step{
		{name: "quality_source", do: (*analysis).sourceQuality},
		{name: "request_spans", when: "!unnumbered", creates: []string{"request_spans"}},
		{name: "request_spans_unnumbered", when: "unnumbered", creates: []string{"request_spans"}},
		{name: "request_values", creates: []string{"request_values"}},
		{name: "requests_file", do: (*analysis).writeRequests, uses: []string{"requests_added", "requests_out", "requests_order", "delivered_out"}},
	}},

	// state
	{name: "quantities", when: "!large", creates: []string{"quantities"}},
	{name: "quantities_large", when: "large", creates: []string{"quantities"}},
	{name: "span_steps", creates: []string{"span_steps"}},
	{name: "replica_count", do: (*analysis).replicaCount},
	// Where the idle time comes from (docs/metrics.md): the attribution
	// sweep, when some span knows where it waited. Known before the pool's
	// sweep in Go, which makes the attribution's steps from the spans it
	// reads for its own (pool_sweep_located); its steps come before the
	// replicas' sweep, which reads them when they are every replica's.
	{name: "located", do: (*analysis).located},
	{name: "pool_rids", when: "located", creates: []string{"pool_rids"}},
	{name: "state_events", when: "!swept", creates: []string{"state_events"}},
	// The pool's steps are in its segments now: the replicas' are sorted
	// only then.
	{name: "pool_segments", when: "!swept", creates: []string{"pool_segments"}, drops: []string{"state_events"}},
	// Or the steps are sorted and swept in Go a slice of time at a time,
	// the state carried across (pool_sweep.go); with some wait located, the
	// attribution's steps are filed from the same spans for gap_sweep.
	{name: "pool_sweep", when: "swept & !located", do: (*analysis).poolSweepSegments,
		uses: []string{"pool_sweep_bins", "pool_sweep_rows", "pool_sweep_spans", "pool_sweep_segments"}, creates: []string{"pool_segments"}},
	{name: "pool_sweep_located", when: "swept & located", do: (*analysis).poolSweepSegments,
		uses: []string{"pool_sweep_bins", "pool_sweep_rows", "pool_sweep_spans", "pool_rid_list", "pool_sweep_segments"}, creates: []string{"pool_segments"}},
	{name: "gap_steps", when: "located & !swept", creates: []string{"gap_steps"}},
	// Or the attribution's steps, filed by the pool's sweep, are sorted and
	// swept in Go a slice of time at a time, as the pool's are
	// (gap_sweep.go): its segments, and when pooled the replicas' summed
	// segments (replica_segments_swept).
	{name: "gap_sweep", when: "located & swept", do: (*analysis).gapSweepSegments,
		uses: []string{"gap_sweep_segments"}, creates: []string{"gap_segments"}},
	// One replica's segments are the pool's, and the pool's replicas' steps
	// are in gap_steps (or swept with the attribution's): the replicas' own
	// sort and sweep run only for several replicas that are not all the
	// pool's, or when no wait is located.
	{name: "sweep_replicas", query: "sweep", when: "swept & replicas & !pooled", creates: []string{"sweep"}},
	{name: "replica_events", when: "replicas & !pooled", creates: []string{"replica_events"}},
	{name: "replica_sweep", when: "replicas & !pooled", creates: []string{"replica_sweep"}},
	{name: "replica_sweep_gap", when: "pooled & !swept", creates: []string{"replica_sweep"}},
	{name: "replica_sweep_pool", when: "!replicas", creates: []string{"replica_sweep"}},
	{name: "replica_segments", when: "!pooled", creates: []string{"replica_segments"}, drops: []string{"replica_sweep"},
		args: func(st *runState) []any { return []any{sql.Named("t0", st.t0), sql.Named("t1", st.t1)} }},
	{name: "replica_segments_gap", query: "replica_segments", when: "pooled & !swept", creates: []string{"replica_segments"}, drops: []string{"replica_sweep"},
		args: func(st *runState) []any { return []any{sql.Named("t0", st.t0), sql.Named("t1", st.t1)} }},
	{name: "replica_segments_swept", when: "pooled & swept", do: (*analysis).storeReplicaGroups,
		uses: []string{"replica_segments_swept"}, creates: []string{"replica_segments"}},
	// The steps are in the segments now; their memory goes to what follows.
	{name: "drop_replica_events", when: "replicas & !pooled", dropOnly: true, drops: []string{"replica_events"}},
	{name: "caps", do: (*analysis).resolveCaps, uses: []string{"replicas", "caps"}, creates: []string{"caps"}},
	{name: "gap_replica", when: "located & !swept", creates: []string{"gap_replica"}, drops: []string{"gap_steps"}},
	{name: "gap_replica_swept", when: "located & swept", creates: []string{"gap_replica"}, drops: []string{"gap_segments"}},
	{name: "gap_intervals", when: "located", creates: []string{"gap_intervals"}, drops: []string{"spans.arrived_us"},
		args: func(st *runState) []any { return []any{sql.Named("pool_cap", st.caps.Pool)} }},
	{name: "gap_events", when: "located", creates: []string{"gap_events"}, drops: []string{"gap_intervals"}},
	{name: "gap_causes", when: "located", creates: []string{"gap_causes"}, drops: []string{"gap_events"}},
	{name: "replica_gaps", when: "located", creates: []string{"replica_gaps"}, drops: []string{"gap_replica", "pool_rids"},
		args: func(st *runState) []any { return []any{sql.Named("t0", st.t0), sql.Named("t1", st.t1)} }},
	{name: "gap_causes_unlocated", when: "!located", creates: []string{"gap_causes"}, drops: []string{"spans.arrived_us"},
		args: func(st *runState) []any { return []any{sql.Named("pool_cap", st.caps.Pool)} }},
	{name: "replica_gaps_unlocated", when: "!located", creates: []string{"replica_gaps"}},
	{name: "sample_holds", creates: []string{"sample_holds"}},
	{name: "sample_segments", creates: []string{"sample_segments"}},
	{name: "engine_holds", creates: []string{"engine_holds"}, drops: []string{"sample_holds"}},
	// What reads the segments alone comes before the windows, so that their
	// tables are gone by the distributions (win_dists_*), which hold every
	// value of a window in memory outside DuckDB's memory_limit.
	{name: "replica_state", do: (*analysis).replicaStates, uses: []string{"replica_state"}, drops: []string{"replica_segments", "replica_gaps"}},

	// curves
	{name: "curve_values", creates: []string{"curve_spans", "curve_values", "curve_mids"}},
	{name: "curve_conc", when: "!merged", creates: []string{"curve_conc"}},
	// Or the midpoints are sorted, then merged in Go with the pool's
	// segments as curves reads them (curve_merge.go).
	{name: "curve_mids_sorted", when: "merged", creates: []string{"curve_mids_sorted"}},
	{name: "curve_conc_merged", when: "merged", do: (*analysis).curveConcMerged,
		uses: []string{"curve_merge_mids", "curve_merge_segments", "curve_conc_merged"}, creates: []string{"curve_conc"}},
	{name: "curves", do: (*analysis).curves, uses: []string{"curves"}},
	{name: "curve_conc_done", when: "merged", do: (*analysis).curveConcDone, drops: []string{"curve_conc", "curve_mids_sorted"}},
	{name: "side_wait", wait: true},
	// requests.parquet's splice copies its file beside the windows'
	// statements, which use no disk, on the cores they leave idle
	// (writeRequests).
	{name: "requests_splice", do: (*analysis).startRequests},

	// windows: each window's metrics. Inputs are dropped after their last
	// reader, before win_dists_* need the memory: the run's states are
	// summed from the windows' rows, so the pool's segments serve the
	// windows only.
	{name: "params_windows", query: "params", creates: []string{"params"},
		args: func(st *runState) []any { return params(st.t0, st.t1, st.width, st.caps.Pool, st.opt.SLO) }},
	{name: "windows", creates: []string{"windows"}},
	{name: "win_tokens", creates: []string{"win_tokens"}},
	{name: "win_state", creates: []string{"win_state"}, drops: []string{"pool_segments"}},
	{name: "win_gaps", creates: []string{"win_gaps"}, drops: []string{"gap_causes"}},
	{name: "win_sampled", creates: []string{"win_sampled"}},
	{name: "win_engine", creates: []string{"win_engine"}, drops: []string{"engine_holds"}},
}, distSteps(false), []step{
	{name: "win_slo", creates: []string{"win_slo"}},
	{name: "metrics", creates: []string{"metrics"}},
	{name: "metrics_windows", do: func(a *analysis, st *runState) (err error) {
		st.windows, err = a.metricRows()
		return err
	}, uses: []string{"metrics_json"}},
	{name: "windows_out", when: "!durations", copyTo: func(st *runState) string { return filepath.Join(st.tmpDir, schemas.WindowsFile) }},
	{name: "windows_out_none", when: "durations", copyTo: func(st *runState) string { return filepath.Join(st.tmpDir, schemas.WindowsFile) }},
	{name: "latency_rows", creates: []string{"latency_rows", "latency_columns"}},
	{name: "latency_key", do: (*analysis).latencyKey, uses: []string{"latency_bits"}},
	{name: "latencies_out", when: "packed", copyTo: func(st *runState) string { return filepath.Join(st.tmpDir, schemas.LatenciesFile) },
		args: func(st *runState) []any {
			k := st.latencyKey
			return []any{sql.Named("e2e_bits", k.e2eBits), sql.Named("ttft_null", k.ttftNull), sql.Named("e2e_null", k.e2eNull)}
		}},
	{name: "latencies_out_wide", when: "!packed", copyTo: func(st *runState) string { return filepath.Join(st.tmpDir, schemas.LatenciesFile) }},

	// run: the whole run as one window. Its event counts, state measures,
	// tokens and the counts, means and maxima of its distributions come from
	// the windows' rows (run_events, run_state, run_tokens, run_dists_*),
	// exactly (tokens to 1e-9, see run_tokens.sql); samples and quantiles
	// are computed again, since their percentiles do not add up.
	{name: "params_run", query: "params", creates: []string{"params"},
		args: func(st *runState) []any { return params(st.t0, st.t1, runWidth, st.caps.Pool, st.opt.SLO) }},
	{name: "run_window", query: "windows", creates: []string{"windows"}},
	{name: "run_tokens", creates: []string{"win_tokens"}},
	{name: "run_events", creates: []string{"win_events"}},
	{name: "run_state", creates: []string{"win_state"}},
	{name: "run_gaps", creates: []string{"win_gaps"}},
	{name: "run_sampled", query: "win_sampled", creates: []string{"win_sampled"}},
	{name: "run_engine", creates: []string{"win_engine"}},
}, distSteps(true), []step{
	{name: "run_slo", query: "win_slo", creates: []string{"win_slo"}},
	{name: "run_metrics", query: "metrics", creates: []string{"metrics"}},
	{name: "metrics_run", do: func(a *analysis, st *runState) error {
		rows, err := a.metricRows()
		if err != nil {
			return err
		}
		if len(rows) != 1 {
			return fmt.Errorf("analyze run window: %d rows, want 1", len(rows))
		}
		st.run = rows[0]
		return nil
	}, uses: []string{"metrics_json"}},
	{name: "requests_spliced", do: (*analysis).waitRequests},

	// disaggregated serving: the stages' budget and the worker roles
	{name: "disaggregation", when: "stages", do: (*analysis).disaggregation,
		uses: []string{"stage_load", "stage_caps", "stage_caps_none", "stage_budget", "stage_steps", "stage_role_steps",
			"stage_budget_run", "stage_kv_bytes", "stage_budget_pick", "stage_worker_state", "stage_role_state"},
		creates: []string{"stage_rows", "stage_caps", "stage_budget", "stage_steps", "stage_role_steps"},
		drops:   []string{"stage_role_steps", "stage_steps", "stage_budget", "stage_caps", "stage_rows", "stage_gateways"}},
})

// largeRunSpans is the size of run beyond which the analysis's tables are
// stored in a database file (the condition large, attach_work): at 100 M
// spans they do not fit in memory, and DuckDB reads their compressed
// blocks back from the file where it would write and read back the
// evicted ones. Where they mostly fit, the file costs time, so smaller
// runs keep their tables in memory (BENCHMARKS.md, "The figures behind
// the code").
const largeRunSpans = 20_000_000

// splitRunSpans is the size of run beyond which each distribution has its
// own statement (the condition split, distSteps). A statement's quantile
// states hold every value of its metrics outside DuckDB's memory_limit,
// about 13 bytes a value, on top of the buffer pool: one statement a metric
// bounds that peak for a few seconds more. Below this size the extra scans
// cost more than the memory is worth (BENCHMARKS.md, "The figures behind
// the code").
const splitRunSpans = 5_000_000

// distSteps are the steps of the distributions (distParts), for the windows
// or the run: a statement a part, or in a split run a statement a metric
// and one that joins them into the part's table.
func distSteps(run bool) []step {
	var steps []step
	for _, p := range distParts {
		steps = append(steps, step{name: distStatement(p.Table, run), when: "!split", creates: []string{p.Table}})
		var pieces []string
		for _, m := range p.Metrics {
			steps = append(steps, step{name: distPiece(m.Name, run), when: "split", creates: []string{distPieceTable(m.Name)}})
			pieces = append(pieces, distPieceTable(m.Name))
		}
		steps = append(steps, step{name: distJoin(distStatement(p.Table, run)), query: distJoin(p.Table), when: "split",
			creates: []string{p.Table}, drops: pieces})
	}
	return steps
}

// runSteps runs the enabled steps of steps in order.
func (a *analysis) runSteps(st *runState, steps []step) error {
	for i := range steps {
		s := &steps[i]
		if !s.enabled(st) {
			continue
		}
		if err := a.runStep(st, s); err != nil {
			return err
		}
	}
	return nil
}

func (a *analysis) runStep(st *runState, s *step) error {
	switch {
	case s.side != nil:
		st.sideTask = a.onSide(func(b *analysis) error { return b.runSteps(st, s.side) })
		return nil
	case s.wait:
		return st.sideTask.wait()
	case s.dropOnly:
		return a.drop(s.drops...)
	}
	a.stage(s.name)
	start := time.Now()
	var err error
	var args []any
	if s.args != nil {
		args = s.args(st)
	}
	switch {
	case s.do != nil:
		err = s.do(a, st)
	case s.copyTo != nil:
		err = a.copyRows(s.statement(), s.copyTo(st), s.copyOpts, args...)
	default:
		_, err = a.db.ExecContext(a.ctx, query(s.statement()), args...)
		for _, c := range []*sql.Conn{a.side, a.reader} {
			if err == nil && s.both && c != nil {
				_, err = c.ExecContext(a.ctx, query(s.statement()), args...)
			}
		}
		if err != nil {
			err = fmt.Errorf("analyze %s: %w", s.name, err)
		}
	}
	if err != nil {
		return err
	}
	a.logQuery(s.name, start)
	return a.drop(s.drops...)
}

// drop drops tables and views once no later step reads them, and
// TABLE.COLUMN columns of a table that stays.
func (a *analysis) drop(names ...string) error {
	for _, n := range names {
		var err error
		if t, c, ok := strings.Cut(n, "."); ok {
			_, err = a.db.ExecContext(a.ctx, "ALTER TABLE "+t+" DROP COLUMN "+c)
		} else {
			var views int
			if err = a.db.QueryRowContext(a.ctx, query("is_view"), sql.Named("name", n)).Scan(&views); err == nil {
				kind := "TABLE"
				if views > 0 {
					kind = "VIEW"
				}
				_, err = a.db.ExecContext(a.ctx, "DROP "+kind+" "+n)
			}
		}
		if err != nil {
			return fmt.Errorf("analyze drop %s: %w", n, err)
		}
	}
	return nil
}

// runNamed runs the enabled steps of the pipeline whose names are given, in
// the pipeline's order: a part of the analysis, for tests.
func (a *analysis) runNamed(st *runState, names ...string) error {
	var steps []step
	for _, s := range pipeline {
		if slices.Contains(names, s.name) {
			steps = append(steps, s)
		}
	}
	if len(steps) != len(names) {
		return fmt.Errorf("runNamed %v: %d of them are steps", names, len(steps))
	}
	return a.runSteps(st, steps)
}
