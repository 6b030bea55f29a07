package analyze

import (
	"context"
	"fmt"
	"log/slog"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/tpsreport/tpsreport/schemas"
)

// queryRecord is one "query" line of the debug log (tpsreport --debug): a
// step of the pipeline, the connection it ran on and what it cost.
type queryRecord struct {
	name, conn         string
	elapsed, cpu       time.Duration
	memoryMB, spilled  int64
	hasMemory, hasCPU  bool
	memoryErr, unknown []string // memory_error values; attributes of unexpected kind or name
}

// recordingHandler keeps the "query" records of an analysis; the side
// connection logs from its own goroutine.
type recordingHandler struct {
	mu      sync.Mutex
	records []queryRecord
}

func (h *recordingHandler) Enabled(context.Context, slog.Level) bool { return true }
func (h *recordingHandler) WithAttrs([]slog.Attr) slog.Handler       { return h }
func (h *recordingHandler) WithGroup(string) slog.Handler            { return h }

func (h *recordingHandler) Handle(_ context.Context, r slog.Record) error {
	if r.Message != "query" {
		return nil
	}
	var q queryRecord
	r.Attrs(func(a slog.Attr) bool {
		v := a.Value.Resolve()
		switch {
		case a.Key == "name" && v.Kind() == slog.KindString:
			q.name = v.String()
		case a.Key == "conn" && v.Kind() == slog.KindString:
			q.conn = v.String()
		case a.Key == "elapsed" && v.Kind() == slog.KindDuration:
			q.elapsed = v.Duration()
		case a.Key == "cpu" && v.Kind() == slog.KindDuration:
			q.cpu, q.hasCPU = v.Duration(), true
		case a.Key == "memory_mb" && v.Kind() == slog.KindInt64:
			q.memoryMB, q.hasMemory = v.Int64(), true
		case a.Key == "spilled_mb" && v.Kind() == slog.KindInt64:
			q.spilled = v.Int64()
		case a.Key == "memory_error":
			q.memoryErr = append(q.memoryErr, v.String())
		default:
			q.unknown = append(q.unknown, fmt.Sprintf("%s=%v (%s)", a.Key, v, v.Kind()))
		}
		return true
	})
	h.mu.Lock()
	h.records = append(h.records, q)
	h.mu.Unlock()
	return nil
}

// profile analyses dir with the debug log on and returns its query records
// and the wall time of the analysis.
func profile(t *testing.T, dir string, opt Options, k knobs) ([]queryRecord, time.Duration) {
	t.Helper()
	h := &recordingHandler{}
	opt.Log = slog.New(h)
	start := time.Now()
	analyzeDir(t, dir, opt, k)
	return h.records, time.Since(start)
}

// checkRecords: every record names its step and carries the elapsed time,
// the CPU time and DuckDB's memory and spill, and the main connection's
// statements, which run one after another, took no longer together than
// the whole analysis.
func checkRecords(t *testing.T, recs []queryRecord, wall time.Duration) {
	t.Helper()
	var sum time.Duration
	for i, r := range recs {
		switch {
		case r.name == "":
			t.Errorf("record %d has no name: %+v", i, r)
		case r.elapsed <= 0 || r.elapsed > wall:
			t.Errorf("%s: elapsed %v, want in (0, %v]", r.name, r.elapsed, wall)
		case !r.hasCPU || r.cpu < 0:
			t.Errorf("%s: cpu %v (logged %v), want a duration >= 0", r.name, r.cpu, r.hasCPU)
		case len(r.memoryErr) > 0:
			t.Errorf("%s: memory_error %q", r.name, r.memoryErr)
		case !r.hasMemory || r.memoryMB < 0 || r.spilled < 0:
			t.Errorf("%s: memory_mb %d (logged %v), spilled_mb %d, want both >= 0", r.name, r.memoryMB, r.hasMemory, r.spilled)
		case len(r.unknown) > 0:
			t.Errorf("%s: unexpected attributes %q", r.name, r.unknown)
		}
		if r.conn == "" {
			sum += r.elapsed
		}
	}
	if sum > wall {
		t.Errorf("the main connection's statements took %v together, more than the analysis's %v: a step is timed twice", sum, wall)
	}
}

// loggedSteps are the names the pipeline logs on each connection ("" the
// main one, "side" the other), in order, given the truth of each condition.
func loggedSteps(facts map[string]bool) map[string][]string {
	want := map[string][]string{}
	var walk func(conn string, steps []step)
	walk = func(conn string, steps []step) {
		for i := range steps {
			s := &steps[i]
			if !whenHolds(s.when, func(c string) bool { return facts[c] }) {
				continue
			}
			switch {
			case s.side != nil:
				walk("side", s.side)
			case s.wait, s.dropOnly:
			default:
				want[conn] = append(want[conn], s.name)
			}
		}
	}
	walk("", pipeline)
	return want
}

// TestProfileQueries: the debug log (tpsreport --debug) profiles every step
// of an analysis, so that a slow one can be found: one record per step that
// ran, on its connection, in the pipeline's order, with its elapsed time,
// CPU time and memory. Two datasets set each condition of the pipeline
// (conditions) one way and the other, so between them every step runs and
// is checked. With ANALYZE_PROFILE_DIR set, the dataset there is analysed
// too and its profile printed, slowest step first:
//
//	ANALYZE_PROFILE_DIR=bench/out/run-1M go test -run TestProfileQueries -v ./analyze/
func TestProfileQueries(t *testing.T) {
	t.Parallel()
	// Request a: a LiteLLM span in front of a vLLM OTel span on r0; b the
	// same on r1. No attempt numbers, samples of both replicas, no manifest.
	var spans []schemas.Span
	for i, id := range []string{"a", "b"} {
		s := float64(i)
		rep := str(fmt.Sprintf("r%d", i))
		spans = append(spans,
			schemas.Span{RunID: "p", Source: "litellm", SpanID: id + "-gw", RequestID: id, Status: "ok",
				QueuedAt: at(s), FirstTokenAt: at(s + 1), ReleasedAt: at(s + 5), InputTokens: i64(10), OutputTokens: i64(20)},
			schemas.Span{RunID: "p", Source: "vllm-otel", SpanID: id + "-en", RequestID: id, Status: "ok", Replica: rep,
				QueuedAt: at(s + 0.1), AdmittedAt: at(s + 0.2), FirstTokenAt: at(s + 1), LastTokenAt: at(s + 4.9), ReleasedAt: at(s + 4.9),
				InputTokens: i64(10), OutputTokens: i64(20)})
	}
	// Request c: an llmperf span that carries durations only.
	zero := int64(0)
	spans = append(spans, schemas.Span{RunID: "p", Source: "llmperf", SpanID: "c", RequestID: "c", Status: "ok",
		QueuedAt: &zero, FirstTokenAt: i64(100000), LastTokenAt: i64(900000), ReleasedAt: i64(900000),
		OutputTokens: i64(9), TimeOrigin: str(schemas.TimeOriginRequest)})
	var samples []schemas.Sample
	for _, r := range []string{"r0", "r1"} {
		samples = append(samples, schemas.Sample{RunID: "p", Source: "test", Replica: str(r), TS: *at(0), InFlight: i32(1), QueueDepth: i32(0), Cap: i32(4)})
	}
	all := writeDataset(t, spans, samples, nil)
	// Stages of a and b: a router, a prefill on p0, a decode on r0 or r1.
	var stages []schemas.Stage
	for i, id := range []string{"a", "b"} {
		s := int64(i) * 1_000_000
		stages = append(stages,
			schemas.Stage{RunID: "p", Source: "stages", RequestID: id, Stage: schemas.StageRouter, StartedAt: *at(0) + s, EndedAt: *at(0.05) + s},
			schemas.Stage{RunID: "p", Source: "stages", RequestID: id, Stage: schemas.StagePrefill, Role: str(schemas.RolePrefill), Replica: str("p0"),
				StartedAt: *at(0.1) + s, EndedAt: *at(0.5) + s},
			schemas.Stage{RunID: "p", Source: "stages", RequestID: id, Stage: schemas.StageDecode, Role: str(schemas.RoleDecode), Replica: str(fmt.Sprintf("r%d", i)),
				StartedAt: *at(0.6) + s, EndedAt: *at(4.9) + s})
	}
	writeParquet(t, filepath.Join(all, schemas.StagesFile), stages)

	// The same requests as canonical spans without attempt numbers (a joined
	// run numbers its spans in the join, so only a run without one numbers
	// them afterwards), on r0 alone, without samples.parquet, in a run the
	// manifest names, written before the column engine_arrived_at existed.
	var canon []schemas.Span
	for _, sp := range spans {
		if sp.Source == "vllm-otel" {
			sp.Source, sp.Attempt, sp.Replica = "spans", nil, str("r0")
			canon = append(canon, sp)
		}
	}
	none := writeDataset(t, canon, nil, &schemas.Manifest{RunID: "named"})
	writeLegacySpans(t, filepath.Join(none, "spans.parquet"), canon)
	if err := os.Remove(filepath.Join(none, "samples.parquet")); err != nil {
		t.Fatal(err)
	}

	// The engine's spans of both requests on r0 and r1, canonical, each
	// arrived at the engine when it queued there, and a third span that
	// names no replica but was admitted and released: a step of state
	// outside the pool, so the replicas sort their own steps
	// (replica_events). In "all" the durations-only span, of no replica,
	// has no step of state, and the replicas' sweep reads gap_steps
	// (pooled).
	var twoReplicas []schemas.Span
	for _, sp := range spans {
		if sp.Source == "vllm-otel" {
			sp.Source, sp.Attempt, sp.EngineArrivedAt = "spans", i32(1), sp.QueuedAt
			twoReplicas = append(twoReplicas, sp)
		}
	}
	stray := twoReplicas[0]
	stray.SpanID, stray.RequestID, stray.Replica, stray.EngineArrivedAt = "d-en", "d", nil, nil
	twoReplicas = append(twoReplicas, stray)
	own := writeDataset(t, twoReplicas, nil, &schemas.Manifest{RunID: "own"})
	writeParquet(t, filepath.Join(own, schemas.StagesFile), stages)

	cases := []struct {
		name  string
		dir   string
		facts map[string]bool
	}{
		{"all", all, map[string]bool{"packed": true, "merged": curveMerge, "swept": poolSweep, "large": true, "split": true, "durations": true, "arrivals": true, "located": true, "joined": true, "unnumbered": false, "samples": true, "replicas": true, "pooled": true, "unnamed": true, "soloed": soloInGo, "matched": matchInGo, "stages": true}},
		// The same dataset with its join's candidates matched by the
		// statements.
		{"all/sql-match", all, map[string]bool{"packed": true, "merged": curveMerge, "swept": poolSweep, "large": true, "split": true, "durations": true, "arrivals": true, "located": true, "joined": true, "unnumbered": false, "samples": true, "replicas": true, "pooled": true, "unnamed": true, "soloed": soloInGo, "matched": false, "stages": true}},
		// The same dataset with the pool and the attribution swept by the
		// statements.
		{"all/sql-sweep", all, map[string]bool{"packed": true, "merged": curveMerge, "swept": false, "large": true, "split": true, "durations": true, "arrivals": true, "located": true, "joined": true, "unnumbered": false, "samples": true, "replicas": true, "pooled": true, "unnamed": true, "soloed": soloInGo, "matched": matchInGo, "stages": true}},
		{"none", none, map[string]bool{"packed": false, "merged": false, "swept": poolSweep, "large": false, "split": false, "durations": false, "arrivals": false, "located": false, "joined": false, "unnumbered": true, "samples": false, "replicas": false, "pooled": false, "unnamed": false, "soloed": false, "matched": false, "stages": false}},
		{"own", own, map[string]bool{"packed": true, "merged": curveMerge, "swept": poolSweep, "large": false, "split": false, "durations": false, "arrivals": true, "located": true, "joined": false, "unnumbered": false, "samples": true, "replicas": true, "pooled": false, "unnamed": false, "soloed": false, "matched": false, "stages": true}},
	}
	ran := map[string]bool{}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got, want := slices.Sorted(maps.Keys(tc.facts)), slices.Sorted(maps.Keys(conditions)); !slices.Equal(got, want) {
				t.Fatalf("the dataset states conditions %q, the pipeline has %q", got, want)
			}
			k := variantKnobs(tc.facts)
			if tc.facts["large"] {
				k.largeAt = -1
			}
			recs, wall := profile(t, tc.dir, Options{Window: 10 * time.Second}, k)
			checkRecords(t, recs, wall)
			got := map[string][]string{}
			for _, r := range recs {
				got[r.conn] = append(got[r.conn], r.name)
				ran[r.name] = true
			}
			for conn, want := range loggedSteps(tc.facts) {
				if msg := diffSteps(got[conn], want); msg != "" {
					t.Errorf("connection %q: %s", conn, msg)
				}
			}
			if len(got) != 2 {
				t.Errorf("records on connections %q, want the main one and the side one", slices.Sorted(maps.Keys(got)))
			}
		})
	}
	for _, s := range allSteps(pipeline) {
		// A build without the merge, the sweep and the Go match cannot run
		// their steps.
		// The one joined dataset settles join_solo one way: in Go where the
		// build can (TestJoinSolo runs both).
		other := map[bool]string{true: "join_solo", false: "join_solo_go"}[soloInGo]
		if !s.wait && !s.dropOnly && s.side == nil && !ran[s.name] && (curveMerge || s.when != "merged") && (poolSweep || !slices.Contains(whenConditions(s.when), "swept")) &&
			(matchInGo || !slices.Contains(whenConditions(s.when), "matched")) && s.name != other {
			t.Errorf("step %s ran in no dataset: no profile shows it", s.name)
		}
	}

	if dir := os.Getenv("ANALYZE_PROFILE_DIR"); dir != "" {
		t.Run("ANALYZE_PROFILE_DIR", func(t *testing.T) {
			recs, wall := profile(t, dir, Options{}, knobs{})
			checkRecords(t, recs, wall)
			slices.SortFunc(recs, func(a, b queryRecord) int { return int(b.elapsed - a.elapsed) })
			t.Logf("%s analysed in %v:", dir, wall.Round(time.Millisecond))
			for _, r := range recs {
				t.Logf("%-22s %-4s %10v  cpu %10v  memory %5d MB  spilled %5d MB",
					r.name, r.conn, r.elapsed.Round(time.Microsecond), r.cpu.Round(time.Microsecond), r.memoryMB, r.spilled)
			}
		})
	}
}

// diffSteps says how the logged step names differ from the steps wanted:
// the steps missing, the names not wanted, or else the first out of order.
func diffSteps(got, want []string) string {
	var missing, extra []string
	for _, w := range want {
		if !slices.Contains(got, w) {
			missing = append(missing, w)
		}
	}
	for _, g := range got {
		if !slices.Contains(want, g) {
			extra = append(extra, g)
		}
	}
	switch {
	case len(missing) > 0 || len(extra) > 0:
		return fmt.Sprintf("steps not logged %q, logged but not wanted %q", missing, extra)
	case len(got) != len(want):
		return fmt.Sprintf("%d records for %d steps: a step logged twice in %q", len(got), len(want), got)
	}
	for i := range want {
		if got[i] != want[i] {
			return fmt.Sprintf("record %d is %s, want %s (the pipeline's order)", i, got[i], want[i])
		}
	}
	return ""
}
