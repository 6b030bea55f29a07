package sim

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tpsreport/tpsreport/schemas"
)

func mustNamed(t testing.TB, name string) Scenario {
	t.Helper()
	sc, err := Named(name)
	if err != nil {
		t.Fatal(err)
	}
	return sc
}

func TestNames(t *testing.T) {
	got := Names()
	want := []string{"engine-hold", "fixed", "gap-mix", "imbalance", "light", "multi-replica", "overload", "retry-storm", "stall"}
	if !slices.Equal(got, want) {
		t.Errorf("Names() = %q, want %q", got, want)
	}
	for _, n := range got {
		sc := mustNamed(t, n)
		if sc.Name != n {
			t.Errorf("Named(%q).Name = %q", n, sc.Name)
		}
		if err := sc.Validate(); err != nil {
			t.Errorf("Named(%q): %v", n, err)
		}
	}
	_, err := Named("stal")
	if !errors.Is(err, ErrUnknownScenario) || !strings.Contains(err.Error(), "engine-hold, fixed, gap-mix, imbalance, light") {
		t.Errorf(`Named("stal") error = %v, want ErrUnknownScenario listing the names`, err)
	}
}

func TestValidate(t *testing.T) {
	tests := []struct {
		field string
		edit  func(*Scenario)
	}{
		{"Duration", func(s *Scenario) { s.Duration = 0 }},
		{"Rate", func(s *Scenario) { s.Rate = 0 }},
		{"DiurnalAmplitude", func(s *Scenario) { s.DiurnalAmplitude = 1 }},
		{"DiurnalPeriod", func(s *Scenario) { s.DiurnalAmplitude, s.DiurnalPeriod = 0.5, 0 }},
		{"BurstDuration/BurstFactor", func(s *Scenario) { s.BurstEvery, s.BurstFactor = time.Second, 0.5 }},
		{"Replicas", func(s *Scenario) { s.Replicas = 0 }},
		{"MaxNumSeqs", func(s *Scenario) { s.MaxNumSeqs = 0 }},
		{"DecodeRate", func(s *Scenario) { s.DecodeRate = -1 }},
		{"StallDuration", func(s *Scenario) { s.StallGap, s.StallDuration = time.Second, 0 }},
		{"ErrorRate", func(s *Scenario) { s.ErrorRate = 1.5 }},
		{"MaxAttempts", func(s *Scenario) { s.MaxAttempts = 0 }},
		{"Prompt", func(s *Scenario) { s.Prompt.Min = 0 }},
		{"Output", func(s *Scenario) { s.Output.Max = 0 }},
		{"Window", func(s *Scenario) { s.Window = time.Nanosecond }},
		{"Dispatch", func(s *Scenario) { s.Dispatch = "fastest" }},
		{"EngineStallGap", func(s *Scenario) { s.Dispatch, s.EngineStallGap = DispatchRandom, -1 }},
		{"EngineStallDuration", func(s *Scenario) { s.Dispatch, s.EngineStallGap = DispatchRandom, time.Second }},
		{"Dispatch", func(s *Scenario) { s.EngineStallGap, s.EngineStallDuration = time.Second, time.Second }},
		{"EngineStallJitter", func(s *Scenario) { s.EngineStallJitter = 2 }},
	}
	for _, tt := range tests {
		sc := mustNamed(t, "stall")
		tt.edit(&sc)
		err := sc.Validate()
		if err == nil || !strings.Contains(err.Error(), tt.field+" = ") {
			t.Errorf("%s: Validate() = %v, want an error naming %s", tt.field, err, tt.field)
		}
		if _, err := Run(sc, 1, func(schemas.Span) error { return nil }); err == nil {
			t.Errorf("%s: Run accepted an invalid scenario", tt.field)
		}
	}
}

// generate returns the JSONL spans, samples and truth.json bytes of a run.
func generate(t testing.TB, sc Scenario, seed uint64) (spans, samples, truth []byte) {
	t.Helper()
	var sp, sm, tj bytes.Buffer
	tr, err := WriteJSONL(&sp, &sm, sc, seed)
	if err != nil {
		t.Fatal(err)
	}
	if err := WriteTruth(&tj, tr); err != nil {
		t.Fatal(err)
	}
	return sp.Bytes(), sm.Bytes(), tj.Bytes()
}

func TestDeterministic(t *testing.T) {
	for _, name := range Names() {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			sc := mustNamed(t, name)
			sp1, sm1, tr1 := generate(t, sc, 1)
			sp2, sm2, tr2 := generate(t, sc, 1)
			if !bytes.Equal(sp1, sp2) || !bytes.Equal(sm1, sm2) || !bytes.Equal(tr1, tr2) {
				t.Fatal("two runs with seed 1 differ")
			}
			sp3, sm3, tr3 := generate(t, sc, 2)
			if bytes.Equal(sp1, sp3) || bytes.Equal(sm1, sm3) || bytes.Equal(tr1, tr3) {
				t.Error("seeds 1 and 2 give the same output")
			}
			// Asking for samples does not change the spans.
			var sp4 bytes.Buffer
			if _, err := WriteJSONL(&sp4, nil, sc, 1); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(sp1, sp4.Bytes()) {
				t.Error("spans differ with and without samples")
			}
		})
	}
}

// TestSpans checks every span of every scenario for what schemas/README.md and the
// model promise.
func TestSpans(t *testing.T) {
	for _, name := range Names() {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			sc := mustNamed(t, name)
			spans, tr := collect(t, sc, 1)
			ids := map[string]bool{}
			attempts := map[string][]int32{}
			var prevRel int64
			for i, s := range spans {
				where := fmt.Sprintf("span %d (%s)", i, s.SpanID)
				if s.RunID != sc.Name || s.Source != "sim" || s.Model == nil || *s.Model != sc.Model {
					t.Fatalf("%s: run_id %q source %q model %v", where, s.RunID, s.Source, s.Model)
				}
				if ids[s.SpanID] {
					t.Fatalf("%s: duplicate span_id", where)
				}
				ids[s.SpanID] = true
				if !schemas.ValidStatus(s.Status) || s.Attempt == nil || s.QueuedAt == nil || s.ReleasedAt == nil ||
					s.InputTokens == nil || s.OutputTokens == nil || s.HTTPStatus == nil {
					t.Fatalf("%s: missing a field every span has: %+v", where, s)
				}
				if *s.ReleasedAt < prevRel {
					t.Fatalf("%s: released at %d before the previous span's %d", where, *s.ReleasedAt, prevRel)
				}
				prevRel = *s.ReleasedAt
				// queued ≤ admitted ≤ first ≤ last ≤ released over the present ones.
				last := *s.QueuedAt
				for _, p := range []*int64{s.AdmittedAt, s.FirstTokenAt, s.LastTokenAt, s.ReleasedAt} {
					if p != nil {
						if *p < last {
							t.Fatalf("%s: timestamps out of order: %+v", where, s)
						}
						last = *p
					}
				}
				if (s.AdmittedAt == nil) != (s.Replica == nil) {
					t.Fatalf("%s: replica without admission or the reverse", where)
				}
				if (*s.Attempt > 0) != (s.RetryCause != nil) {
					t.Fatalf("%s: attempt %d with retry_cause %v", where, *s.Attempt, s.RetryCause)
				}
				out := *s.OutputTokens
				if (out > 0) != (s.FirstTokenAt != nil) || (out > 0) != (s.LastTokenAt != nil) {
					t.Fatalf("%s: %d output tokens with first %v last %v", where, out, s.FirstTokenAt, s.LastTokenAt)
				}
				if out == 1 && *s.FirstTokenAt != *s.LastTokenAt {
					t.Fatalf("%s: one token over an interval", where)
				}
				switch s.Status {
				case schemas.StatusOK:
					if s.AdmittedAt == nil || out < 1 || *s.HTTPStatus != 200 || s.Error != nil {
						t.Fatalf("%s: ok span %+v", where, s)
					}
				case schemas.StatusError:
					if *s.HTTPStatus != 500 && *s.HTTPStatus != 429 || s.Error == nil {
						t.Fatalf("%s: error span with http %d", where, *s.HTTPStatus)
					}
					if *s.HTTPStatus == 429 && (s.AdmittedAt != nil || *s.QueuedAt != *s.ReleasedAt) {
						t.Fatalf("%s: a rejected span must end where it starts, unadmitted", where)
					}
				case schemas.StatusTimeout:
					if *s.HTTPStatus != 408 {
						t.Fatalf("%s: timeout with http %d", where, *s.HTTPStatus)
					}
				case schemas.StatusCancelled:
					if *s.HTTPStatus != 499 {
						t.Fatalf("%s: cancelled with http %d", where, *s.HTTPStatus)
					}
				}
				if (sc.PrefixCacheHit > 0 && s.AdmittedAt != nil) != (s.CachedTokens != nil) {
					t.Fatalf("%s: cached_tokens %v", where, s.CachedTokens)
				}
				if s.CachedTokens != nil && *s.CachedTokens >= *s.InputTokens {
					t.Fatalf("%s: %d of %d prompt tokens cached", where, *s.CachedTokens, *s.InputTokens)
				}
				if !strings.HasPrefix(s.SpanID, s.RequestID+"-") {
					t.Fatalf("%s: span_id not under request %s", where, s.RequestID)
				}
				attempts[s.RequestID] = append(attempts[s.RequestID], *s.Attempt)
			}
			// Attempts of a request are numbered 0, 1, ... without holes.
			for id, as := range attempts {
				slices.Sort(as)
				for i, a := range as {
					if a != int32(i) {
						t.Fatalf("request %s: attempts %v", id, as)
					}
				}
			}
			if int64(len(attempts)) != tr.Arrivals || tr.Requests != tr.Arrivals {
				t.Errorf("%d requests in spans, truth arrivals %d requests %d", len(attempts), tr.Arrivals, tr.Requests)
			}
		})
	}
}

func TestSamples(t *testing.T) {
	for _, name := range []string{"stall", "multi-replica"} {
		sc := mustNamed(t, name)
		var samples []schemas.Sample
		var spans int
		tr, err := Run(sc, 1, func(schemas.Span) error { spans++; return nil },
			WithSamples(func(s schemas.Sample) error { samples = append(samples, s); return nil }))
		if err != nil {
			t.Fatal(err)
		}
		if int64(len(samples)) != tr.Sim.Samples || len(samples) == 0 {
			t.Fatalf("%s: %d samples, truth says %d", name, len(samples), tr.Sim.Samples)
		}
		iv := micros(sc.StatsInterval)
		var busy int
		for i, s := range samples {
			rep := i % sc.Replicas
			if s.Replica == nil || *s.Replica != fmt.Sprintf("vllm-%d", rep) || s.TS != sc.Start+int64(i/sc.Replicas)*iv {
				t.Fatalf("%s: sample %d is %v at %d", name, i, s.Replica, s.TS)
			}
			if s.RunID != sc.Name || *s.Cap != int32(sc.MaxNumSeqs) || *s.InFlight < 0 || *s.InFlight > *s.Cap || *s.QueueDepth < 0 {
				t.Fatalf("%s: sample %d: %+v", name, i, s)
			}
			if s.KVCacheUsage == nil || *s.KVCacheUsage < 0 || *s.KVCacheUsage > 1 {
				t.Fatalf("%s: sample %d kv_cache_usage %v", name, i, s.KVCacheUsage)
			}
			if *s.InFlight > 0 {
				busy++
			}
		}
		last := samples[len(samples)-1].TS
		if last > schemas.Micros(tr.RunEnd) || last+iv <= schemas.Micros(tr.RunEnd) {
			t.Errorf("%s: last sample at %d, run ends at %v", name, last, tr.RunEnd)
		}
		if busy < len(samples)/2 {
			t.Errorf("%s: only %d of %d samples see a request", name, busy, len(samples))
		}
	}
}

func backlogWindows(tr Truth) (n int, tps float64) {
	for _, w := range tr.Windows {
		if w.BacklogTime > 0 {
			n++
			tps += *w.RetryAdjustedSystemTPS
		}
	}
	return n, tps / float64(n)
}

// TestStallVersusFixed checks the pair the acceptance comparison is built on.
func TestStallVersusFixed(t *testing.T) {
	stall, fixed := mustNamed(t, "stall"), mustNamed(t, "fixed")
	spansS, trS := collect(t, stall, 1)
	spansF, trF := collect(t, fixed, 1)

	// The same arrivals and the same work.
	type work struct{ queued, input int64 }
	arrivals := func(spans []schemas.Span) map[string]work {
		m := map[string]work{}
		for _, s := range spans {
			if *s.Attempt == 0 {
				m[s.RequestID] = work{*s.QueuedAt, *s.InputTokens}
			}
		}
		return m
	}
	as, af := arrivals(spansS), arrivals(spansF)
	if len(as) != len(af) || len(as) == 0 {
		t.Fatalf("arrivals: stall %d, fixed %d", len(as), len(af))
	}
	for id, w := range as {
		if af[id] != w {
			t.Fatalf("request %s: stall %+v, fixed %+v", id, w, af[id])
		}
	}

	// stall: gap under backlog in most windows; enough backlog windows to compare.
	gapWins := 0
	for _, w := range trS.Windows {
		if w.GapTime > 0 {
			gapWins++
		}
	}
	if gapWins*10 < len(trS.Windows)*8 {
		t.Errorf("stall: gap_time > 0 in %d of %d windows, want most", gapWins, len(trS.Windows))
	}
	if *trS.GapFraction < 0.1 || trS.Sim.Stalls == 0 {
		t.Errorf("stall: gap_fraction %v with %d stalls", *trS.GapFraction, trS.Sim.Stalls)
	}
	// fixed: work-conserving, so never a gap.
	if trF.GapTime != 0 {
		t.Errorf("fixed: gap_time %v, want 0", trF.GapTime)
	}
	for _, w := range trF.Windows {
		if w.GapTime != 0 {
			t.Errorf("fixed: window %v has gap_time %v", w.WindowStart, w.GapTime)
		}
	}
	nS, tpsS := backlogWindows(trS)
	nF, tpsF := backlogWindows(trF)
	if nS < 5 || nF < 5 {
		t.Errorf("backlog windows: stall %d, fixed %d, want >= 5 each", nS, nF)
	}
	if r := *trF.SystemTPS / *trS.SystemTPS; r < 1.05 {
		t.Errorf("system_tps: fixed %v / stall %v = %.3f, want >= 1.05", *trF.SystemTPS, *trS.SystemTPS, r)
	}
	if r := tpsF / tpsS; r < 1.05 {
		t.Errorf("retry_adjusted_system_tps over backlog windows: fixed %.1f / stall %.1f = %.3f, want >= 1.05", tpsF, tpsS, r)
	}
	if r := *trS.ArrivalRate / *trF.ArrivalRate; r < 0.8 || r > 1.2 {
		t.Errorf("arrival_rate ratio %.3f: offered load must look alike (docs/acceptance.md guard)", r)
	}
}

func TestRetryStorm(t *testing.T) {
	_, tr := collect(t, mustNamed(t, "retry-storm"), 1)
	if *tr.RetryRate <= 0.2 {
		t.Errorf("retry_rate %v, want > 0.2", *tr.RetryRate)
	}
	if tr.Sim.Rejected == 0 || tr.Sim.Statuses[schemas.StatusTimeout] == 0 || tr.Sim.Statuses[schemas.StatusError] == 0 {
		t.Errorf("want rejections, timeouts and errors: %+v", tr.Sim)
	}
}

func TestOverload(t *testing.T) {
	_, tr := collect(t, mustNamed(t, "overload"), 1)
	if tr.Sim.QueueTimeouts == 0 || tr.Sim.Rejected == 0 || *tr.SuccessRate > 0.9 || *tr.Utilization < 0.9 {
		t.Errorf("overload: success_rate %v utilization %v %+v", *tr.SuccessRate, *tr.Utilization, tr.Sim)
	}
}

func TestLight(t *testing.T) {
	_, tr := collect(t, mustNamed(t, "light"), 1)
	if *tr.Utilization > 0.3 || tr.GapTime != 0 {
		t.Errorf("light: utilization %v gap_time %v", *tr.Utilization, tr.GapTime)
	}
}

func TestMultiReplica(t *testing.T) {
	sc := mustNamed(t, "multi-replica")
	spans, tr := collect(t, sc, 1)
	reps := map[string]int{}
	hedges, partial := 0, 0
	for _, s := range spans {
		if s.Replica != nil {
			reps[*s.Replica]++
		}
		if s.RetryCause != nil && *s.RetryCause == "hedge" {
			hedges++
		}
		if s.Status == schemas.StatusCancelled && *s.OutputTokens > 0 {
			partial++
		}
	}
	if len(reps) < 2 || len(reps) != sc.Replicas {
		t.Errorf("spans name replicas %v, want all %d", reps, sc.Replicas)
	}
	if hedges == 0 || partial == 0 || tr.Sim.Hedges != int64(hedges) {
		t.Errorf("hedges: %d spans (truth %d), %d cancelled with partial output", hedges, tr.Sim.Hedges, partial)
	}
	if *tr.SuccessRate != 1 {
		t.Errorf("success_rate %v, want 1", *tr.SuccessRate)
	}
}

// TestBoundedMemory runs an hour of traffic: the simulator holds only the
// requests alive at once, not the run.
func TestBoundedMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("slow; covers the simulator's memory staying bounded over an hour of light traffic")
	}
	sc := mustNamed(t, "light")
	sc.Duration = time.Hour
	var n int
	tr, err := Run(sc, 1, func(schemas.Span) error { n++; return nil })
	if err != nil {
		t.Fatal(err)
	}
	if n < 4000 || tr.Sim.MaxLiveRequests > 40 {
		t.Errorf("%d spans with up to %d live requests", n, tr.Sim.MaxLiveRequests)
	}
}

func TestMaxArrivals(t *testing.T) {
	sc := mustNamed(t, "multi-replica")
	sc.Duration = 0
	sc.MaxArrivals = 500
	_, tr := collect(t, sc, 3)
	if tr.Arrivals != 500 {
		t.Errorf("arrivals %d, want 500", tr.Arrivals)
	}
}

var errSink = errors.New("sink full")

type failAfter struct{ n int }

func (f *failAfter) Write(p []byte) (int, error) {
	if f.n -= len(p); f.n < 0 {
		return 0, errSink
	}
	return len(p), nil
}

func TestEmitErrorStops(t *testing.T) {
	sc := mustNamed(t, "stall")
	calls := 0
	_, err := Run(sc, 1, func(schemas.Span) error {
		if calls++; calls == 10 {
			return errSink
		}
		return nil
	})
	if !errors.Is(err, errSink) || calls != 10 {
		t.Errorf("Run = %v after %d calls, want errSink after 10", err, calls)
	}
	if _, err := WriteJSONL(&failAfter{n: 1 << 20}, io.Discard, sc, 1); !errors.Is(err, errSink) {
		t.Errorf("WriteJSONL to a failing writer = %v, want errSink", err)
	}
	if _, err := WriteJSONL(io.Discard, &failAfter{}, sc, 1); !errors.Is(err, errSink) {
		t.Errorf("WriteJSONL to a failing samples writer = %v, want errSink", err)
	}
}
