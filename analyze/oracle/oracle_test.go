package oracle

import (
	"fmt"
	"math"
	"testing"

	"github.com/tpsreport/tpsreport/schemas"
)

// t0 is 2026-11-20T00:00:00Z in µs: a multiple of every window width used here.
const t0 = int64(1795132800_000000)

const minute = int64(60_000_000)

// null marks a NULL timestamp in mk.
var null = math.Inf(-1)

// at is t0 + s seconds, nil for null.
func at(s float64) *int64 {
	if math.IsInf(s, -1) {
		return nil
	}
	return ptr(t0 + int64(math.Round(s*1e6)))
}

// mk builds a span of request req with timestamps q, a, f, l, r in seconds after t0.
func mk(id, req string, ts [5]float64, out int64, status string) schemas.Span {
	return schemas.Span{
		RunID: "test", Source: "test", SpanID: id, RequestID: req,
		QueuedAt: at(ts[0]), AdmittedAt: at(ts[1]), FirstTokenAt: at(ts[2]), LastTokenAt: at(ts[3]), ReleasedAt: at(ts[4]),
		OutputTokens: ptr(out), Status: status,
	}
}

// withAttempt, withReplica, withInput return a modified copy.
func withAttempt(s schemas.Span, a int32) schemas.Span   { s.Attempt = ptr(a); return s }
func withReplica(s schemas.Span, r string) schemas.Span  { s.Replica = ptr(r); return s }
func withInput(s schemas.Span, in int64) schemas.Span    { s.InputTokens = ptr(in); return s }
func withOutput(s schemas.Span, out *int64) schemas.Span { s.OutputTokens = out; return s }

const ok = schemas.StatusOK

// near reports whether got is within 1e-12 relative (or 1e-15 absolute) of want.
func near(got, want float64) bool {
	return got == want || math.Abs(got-want) <= 1e-12*math.Max(math.Abs(got), math.Abs(want)) || math.Abs(got-want) < 1e-15
}

// want checks a float.
func want(t *testing.T, name string, got, w float64) {
	t.Helper()
	if !near(got, w) {
		t.Errorf("%s: got %.17g, want %.17g", name, got, w)
	}
}

// wantP checks a nullable float: w nil means NULL.
func wantP(t *testing.T, name string, got *float64, w any) {
	t.Helper()
	switch w := w.(type) {
	case nil:
		if got != nil {
			t.Errorf("%s: got %.17g, want NULL", name, *got)
		}
	case float64:
		if got == nil {
			t.Errorf("%s: got NULL, want %.17g", name, w)
		} else if !near(*got, w) {
			t.Errorf("%s: got %.17g, want %.17g", name, *got, w)
		}
	case int:
		wantP(t, name, got, float64(w))
	default:
		panic(fmt.Sprintf("wantP: %T", w))
	}
}

// wantI checks an integer.
func wantI(t *testing.T, name string, got, w int64) {
	t.Helper()
	if got != w {
		t.Errorf("%s: got %d, want %d", name, got, w)
	}
}

func wantWindows(t *testing.T, res Result, n int) {
	t.Helper()
	if len(res.Windows) != n {
		t.Fatalf("got %d windows, want %d", len(res.Windows), n)
	}
}

// Scenario 1: a cap-4 pool whose requests wait through a 10 s admission stall
// while slots are free; the stall [55 s, 65 s) crosses the window edge at 60 s.
func TestGapAdmissionStall(t *testing.T) {
	spans := []schemas.Span{
		withReplica(mk("c", "C", [5]float64{0, 0, 1, 29, 30}, 10, ok), "r1"),
		withReplica(mk("a", "A", [5]float64{55, 65, 66, 79, 80}, 10, ok), "r1"),
		withReplica(mk("b", "B", [5]float64{55, 65, 66, 79, 80}, 10, ok), "r1"),
	}
	res := Analyze(spans, nil, Options{Width: minute, Cap: ptr(int64(4))})
	if res.Cap == nil || *res.Cap != 4 || res.CapSource != CapSourceFlag {
		t.Fatalf("cap %v %q, want 4 flag", res.Cap, res.CapSource)
	}
	if res.Start != t0 || res.End != t0+80_000_000 {
		t.Errorf("extent [%d, %d]", res.Start-t0, res.End-t0)
	}
	run := res.Run
	want(t, "run window_seconds", run.WindowSeconds, 80)
	want(t, "run gap_time", run.GapTime, 10)
	want(t, "run backlog_time", run.BacklogTime, 10)
	wantP(t, "run gap_fraction", run.GapFraction, 0.125)
	wantP(t, "run backlog_gap_fraction", run.BacklogGapFraction, 1)
	wantP(t, "run mean_in_flight", run.MeanInFlight, 0.75) // (30 + 2·15) / 80
	wantP(t, "run mean_queue_depth", run.MeanQueueDepth, 0.25)
	wantP(t, "run utilization", run.Utilization, 0.1875)
	want(t, "run over_cap_time", run.OverCapTime, 0)

	wantWindows(t, res, 2)
	w0, w1 := res.Windows[0], res.Windows[1]
	if !w0.WindowStart.Equal(schemas.Time(t0)) || !w0.WindowEnd.Equal(schemas.Time(t0+minute)) ||
		!w1.WindowStart.Equal(schemas.Time(t0+minute)) || !w1.WindowEnd.Equal(schemas.Time(t0+2*minute)) {
		t.Errorf("window bounds %v–%v, %v–%v", w0.WindowStart, w0.WindowEnd, w1.WindowStart, w1.WindowEnd)
	}
	want(t, "w0 window_seconds", w0.WindowSeconds, 60)
	want(t, "w1 window_seconds", w1.WindowSeconds, 20) // overlap with the extent, nominal end 120 s
	want(t, "w0 gap_time", w0.GapTime, 5)
	want(t, "w1 gap_time", w1.GapTime, 5)
	wantP(t, "w0 gap_fraction", w0.GapFraction, 5.0/60)
	wantP(t, "w1 gap_fraction", w1.GapFraction, 0.25)
	wantP(t, "w0 mean_in_flight", w0.MeanInFlight, 0.5)
	wantP(t, "w1 mean_in_flight", w1.MeanInFlight, 1.5)
	wantP(t, "w0 mean_queue_depth", w0.MeanQueueDepth, 10.0/60)
	wantP(t, "w1 mean_queue_depth", w1.MeanQueueDepth, 0.5)
	if res.Replicas != nil {
		t.Errorf("one replica: got replica states %v", res.Replicas)
	}
}

// Scenario 2: the same arrivals, work-conserving: no gap. With a backlog that
// waits only because every slot is busy, backlog without gap.
func TestGapWorkConserving(t *testing.T) {
	t.Run("admitted on arrival", func(t *testing.T) {
		spans := []schemas.Span{
			mk("c", "C", [5]float64{0, 0, 1, 29, 30}, 10, ok),
			mk("a", "A", [5]float64{55, 55, 56, 69, 70}, 10, ok),
			mk("b", "B", [5]float64{55, 55, 56, 69, 70}, 10, ok),
		}
		res := Analyze(spans, nil, Options{Width: minute, Cap: ptr(int64(4))})
		want(t, "run gap_time", res.Run.GapTime, 0)
		want(t, "run backlog_time", res.Run.BacklogTime, 0)
		wantP(t, "run gap_fraction", res.Run.GapFraction, 0)
		wantP(t, "run backlog_gap_fraction", res.Run.BacklogGapFraction, nil)
		for i, w := range res.Windows {
			want(t, fmt.Sprintf("w%d gap_time", i), w.GapTime, 0)
		}
	})
	// two slots, three requests: the third waits 10 s while both slots are busy.
	spans := []schemas.Span{
		mk("c1", "C1", [5]float64{0, 0, 1, 9, 10}, 10, ok),
		mk("c2", "C2", [5]float64{0, 0, 1, 9, 10}, 10, ok),
		mk("d", "D", [5]float64{0, 10, 11, 19, 20}, 10, ok),
	}
	t.Run("saturated", func(t *testing.T) {
		res := Analyze(spans, nil, Options{Width: minute, Cap: ptr(int64(2))})
		want(t, "run backlog_time", res.Run.BacklogTime, 10)
		want(t, "run gap_time", res.Run.GapTime, 0)
		wantP(t, "run backlog_gap_fraction", res.Run.BacklogGapFraction, 0)
		wantP(t, "run utilization", res.Run.Utilization, 0.75) // 30 slot-seconds / 20 s / 2
	})
	t.Run("a slot free", func(t *testing.T) {
		res := Analyze(spans, nil, Options{Width: minute, Cap: ptr(int64(3))})
		want(t, "run gap_time", res.Run.GapTime, 10)
	})
	t.Run("over cap", func(t *testing.T) {
		res := Analyze(spans, nil, Options{Width: minute, Cap: ptr(int64(1))})
		want(t, "run over_cap_time", res.Run.OverCapTime, 10)
		want(t, "quality over_cap_seconds", res.Quality.OverCapTime, 10)
		want(t, "run gap_time", res.Run.GapTime, 0)
	})
}

// Scenario 3: a request that fails once with partial output, then succeeds.
func TestRetryAccounting(t *testing.T) {
	spans := []schemas.Span{
		withInput(withAttempt(mk("s0", "R", [5]float64{0, 0, 1, 3, 3}, 20, schemas.StatusError), 0), 50),
		withInput(withAttempt(mk("s1", "R", [5]float64{3, 3, 4, 8, 8}, 100, ok), 1), 60),
	}
	res := Analyze(spans, nil, Options{Width: minute})
	r := res.Run
	want(t, "window_seconds", r.WindowSeconds, 8)
	want(t, "generated_tokens", r.GeneratedTokens, 120)
	want(t, "output_tokens", r.OutputTokens, 100)
	want(t, "delivered_tokens", r.DeliveredTokens, 100)
	want(t, "input_tokens", r.InputTokens, 60) // successful spans only
	wantP(t, "system_tps", r.SystemTPS, 12.5)
	wantP(t, "generated_tps", r.GeneratedTPS, 15)
	wantP(t, "retry_adjusted_system_tps", r.RetryAdjustedSystemTPS, 12.5)
	wantP(t, "input_tps", r.InputTPS, 7.5)
	wantP(t, "waste_fraction", r.WasteFraction, 1-100.0/120)
	wantI(t, "requests", r.Requests, 1)
	wantI(t, "succeeded_requests", r.SucceededRequests, 1)
	wantI(t, "attempts", r.Attempts, 2)
	wantI(t, "successful_attempts", r.SuccessfulAttempts, 1)
	wantI(t, "retry_attempts", r.RetryAttempts, 1)
	wantP(t, "retry_rate", r.RetryRate, 0.5)
	wantP(t, "success_rate", r.SuccessRate, 1)
	wantP(t, "attempt_success_rate", r.AttemptSuccessRate, 0.5)
	wantI(t, "arrivals", r.Arrivals, 1)
	wantP(t, "arrival_rate", r.ArrivalRate, 0.125)
	wantP(t, "little_concurrency", r.LittleConcurrency, 1) // 1/8 per s × 8 s
	if res.Spans[0].Delivered || !res.Spans[1].Delivered {
		t.Errorf("delivered: %v %v, want false true", res.Spans[0].Delivered, res.Spans[1].Delivered)
	}
	wantI(t, "t_stream n (successful only)", res.Run.TStream.N, 1)

	t.Run("NULL released_at last", func(t *testing.T) {
		spans := []schemas.Span{
			withAttempt(mk("d-a", "D", [5]float64{0, 0, 1, 4, null}, 30, ok), 0),
			withAttempt(mk("d-b", "D", [5]float64{2, 2, 3, 5, 5}, 50, ok), 1),
		}
		res := Analyze(spans, nil, Options{Width: minute})
		want(t, "delivered_tokens", res.Run.DeliveredTokens, 50)
		want(t, "output_tokens", res.Run.OutputTokens, 80) // d-a's stream ends at last_token_at
		if res.Spans[0].Delivered || !res.Spans[1].Delivered {
			t.Errorf("delivered: %v %v, want false true", res.Spans[0].Delivered, res.Spans[1].Delivered)
		}
	})

	// Two successful attempts: the one released first is delivered, and on a
	// tie of released_at the smaller span_id.
	for _, tc := range []struct {
		name      string
		releaseDA float64
		delivered float64
	}{
		{"tie by span_id", 5, 30},
		{"earlier release", 6, 50},
	} {
		t.Run(tc.name, func(t *testing.T) {
			spans := []schemas.Span{
				withAttempt(mk("d-b", "D", [5]float64{0, 0, 1, 5, 5}, 50, ok), 0),
				withAttempt(mk("d-a", "D", [5]float64{2, 2, 3, 5, tc.releaseDA}, 30, ok), 1),
			}
			r := Analyze(spans, nil, Options{Width: minute}).Run
			want(t, "output_tokens", r.OutputTokens, 80)
			want(t, "delivered_tokens", r.DeliveredTokens, tc.delivered)
			wantP(t, "waste_fraction", r.WasteFraction, 1-tc.delivered/80)
			wantP(t, "success_rate", r.SuccessRate, 1)
			wantP(t, "attempt_success_rate", r.AttemptSuccessRate, 1)
			wantP(t, "retry_rate", r.RetryRate, 0.5)
			wantI(t, "requests", r.Requests, 1)
		})
	}
}

// Scenario 4: a release and an admission at the same instant leave no gap;
// nor do they add up to two spans in flight for the inferred cap.
func TestTieReleaseAdmission(t *testing.T) {
	for _, tc := range []struct {
		name           string
		admitY         float64
		gap, backlog   float64
		inferredCapOne bool
	}{
		{"same instant", 10, 0, 5, true},
		{"100 ms later", 10.1, 0.1, 5.1, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			spans := []schemas.Span{
				mk("x", "X", [5]float64{0, 0, 1, 10, 10}, 5, ok),
				mk("y", "Y", [5]float64{5, tc.admitY, 11, 19, 20}, 5, ok),
			}
			res := Analyze(spans, nil, Options{Width: minute})
			if res.Cap == nil || *res.Cap != 1 || res.CapSource != CapSourceInferred {
				t.Fatalf("cap %v %q, want 1 inferred", res.Cap, res.CapSource)
			}
			want(t, "gap_time", res.Run.GapTime, tc.gap)
			want(t, "backlog_time", res.Run.BacklogTime, tc.backlog)
			want(t, "over_cap_time", res.Run.OverCapTime, 0)
		})
	}
}

// Scenario 5: proration across a window edge, a zero-length stream as a
// point, and --from/--to clipping.
func TestProration(t *testing.T) {
	spans := []schemas.Span{
		withInput(mk("p", "P", [5]float64{40, 45, 50, 70, 75}, 100, ok), 30), // 100 over [50, 70]
		withInput(mk("z", "Z", [5]float64{60, 62, 65, 65, 66}, 7, ok), 4),    // point at 65
		mk("u", "U", [5]float64{40, 40, 54, 63, 63}, 90, ok),                 // 60 | 30
		withInput(mk("y", "Y", [5]float64{59, 59, 60, 60, 61}, 3, ok), 2),    // point on the edge: window 1
		mk("f", "F", [5]float64{41, 41, 42, 44, 45}, 8, schemas.StatusError), // generated only
	}
	t.Run("windows", func(t *testing.T) {
		res := Analyze(spans, nil, Options{Width: minute})
		wantWindows(t, res, 2)
		w0, w1, r := res.Windows[0], res.Windows[1], res.Run
		want(t, "w0 window_seconds", w0.WindowSeconds, 20)
		want(t, "w1 window_seconds", w1.WindowSeconds, 15)
		want(t, "w0 output_tokens", w0.OutputTokens, 50+60)
		want(t, "w1 output_tokens", w1.OutputTokens, 50+7+30+3)
		want(t, "run output_tokens", r.OutputTokens, 200)
		want(t, "w0 generated_tokens", w0.GeneratedTokens, 118)
		want(t, "w0 input_tokens", w0.InputTokens, 32) // p over [45, 50], y over [59, 60]
		want(t, "w1 input_tokens", w1.InputTokens, 4)
		wantP(t, "w0 system_tps", w0.SystemTPS, 110.0/20)
		wantP(t, "w1 system_tps", w1.SystemTPS, 90.0/15)
		wantI(t, "w0 attempts", w0.Attempts, 1) // f at 45
		wantI(t, "w1 attempts", w1.Attempts, 4) // 61, 63, 66, 75
		wantI(t, "w0 arrivals", w0.Arrivals, 4)
		wantI(t, "w1 arrivals", w1.Arrivals, 1) // z at exactly 60
	})
	t.Run("coalesced intervals", func(t *testing.T) {
		// W = 60 s; every span starts queued at 50 s, and the extent is [50, 70].
		for _, tc := range []struct {
			name       string
			ts         [5]float64
			in0, in1   float64 // input tokens (40) in windows 0 and 1
			out0, out1 float64 // output tokens (12)
		}{
			{"complete", [5]float64{50, 58, 62, 70, 70}, 20, 20, 0, 12},
			{"no admitted_at: input a point at first_token_at", [5]float64{50, null, 62, 70, 70}, 0, 40, 0, 12},
			{"no first_token_at: input to last_token_at, output a point", [5]float64{50, 58, null, 70, 70}, 40 * 2.0 / 12, 40 * 10.0 / 12, 0, 12},
			{"no tokens times: both up to released_at", [5]float64{50, 52, null, null, 70}, 40 * 8.0 / 18, 40 * 10.0 / 18, 0, 12},
			{"no last_token_at: output to released_at", [5]float64{50, 52, 54, null, 70}, 40, 0, 12 * 6.0 / 16, 12 * 10.0 / 16},
		} {
			t.Run(tc.name, func(t *testing.T) {
				s := withInput(mk("s", "S", tc.ts, 12, ok), 40)
				res := Analyze([]schemas.Span{s}, nil, Options{Width: minute})
				wantWindows(t, res, 2)
				want(t, "w0 input", res.Windows[0].InputTokens, tc.in0)
				want(t, "w1 input", res.Windows[1].InputTokens, tc.in1)
				want(t, "w0 output", res.Windows[0].OutputTokens, tc.out0)
				want(t, "w1 output", res.Windows[1].OutputTokens, tc.out1)
			})
		}
	})
	t.Run("uneven split", func(t *testing.T) {
		s := []schemas.Span{mk("v", "V", [5]float64{50, 50, 50, 80, 80}, 100, ok)}
		res := Analyze(s, nil, Options{Width: minute})
		want(t, "w0", res.Windows[0].OutputTokens, 100.0/3)
		want(t, "w1", res.Windows[1].OutputTokens, 200.0/3)
		want(t, "run", res.Run.OutputTokens, 100)
	})
	t.Run("from/to", func(t *testing.T) {
		clipped := append(spans[:4:4],
			mk("e", "E", [5]float64{100, 100, 120, 120, 120}, 5, ok), // point at To: counts
			mk("o", "O", [5]float64{125, 125, 130, 130, 131}, 9, ok), // outside: dropped
		)
		res := Analyze(clipped, nil, Options{Width: minute, From: at(60), To: at(120)})
		if res.Start != t0+minute || res.End != t0+2*minute || !res.HasExtent {
			t.Fatalf("extent [%d, %d]", res.Start-t0, res.End-t0)
		}
		wantWindows(t, res, 1)
		w := res.Windows[0]
		want(t, "window_seconds", w.WindowSeconds, 60)
		want(t, "output_tokens", w.OutputTokens, 50+7+30+3+5)
		want(t, "run output_tokens", res.Run.OutputTokens, 95)
		want(t, "input_tokens", w.InputTokens, 4)              // p's [45, 50] and y's [59, 60] are outside
		wantI(t, "attempts", w.Attempts, 5)                    // p 75, z 66, u 63, y 61, e 120
		wantI(t, "arrivals", w.Arrivals, 2)                    // z 60, e 100
		wantI(t, "spans_clipped", res.Quality.SpansClipped, 4) // p, u, y before 60; o after 120
		want(t, "backlog_time", w.BacklogTime, 2)              // z queued [60, 62)
		wantP(t, "mean_in_flight", w.MeanInFlight, (15+4+3+1+20)/60.0)
	})
}

// little_concurrency: an arrival inside --from/--to whose request completes
// after --to still has its request_total (the request completed, though not
// in the window).
func TestLittleConcurrencyClipped(t *testing.T) {
	spans := []schemas.Span{
		mk("a", "A", [5]float64{10, 10, 11, 99, 100}, 5, ok),
		mk("b", "B", [5]float64{20, 20, 21, 29, 30}, 5, ok),
		mk("c", "C", [5]float64{30, 30, null, null, null}, 0, schemas.StatusError), // never completes
	}
	r := Analyze(spans, nil, Options{Width: minute, From: at(0), To: at(60)}).Run
	wantI(t, "arrivals", r.Arrivals, 3)
	wantI(t, "requests", r.Requests, 1) // b; a completes after --to
	wantP(t, "little_concurrency", r.LittleConcurrency, 3.0/60*(90+10)/2)
}

// An extent of one instant: one window of 0 seconds, rates NULL, events counted.
func TestZeroLengthExtent(t *testing.T) {
	s := []schemas.Span{mk("p", "P", [5]float64{30, 30, 30, 30, 30}, 4, ok)}
	res := Analyze(s, nil, Options{Width: minute})
	wantWindows(t, res, 1)
	for _, m := range []schemas.Metrics{res.Run, res.Windows[0]} {
		want(t, "window_seconds", m.WindowSeconds, 0)
		wantP(t, "system_tps", m.SystemTPS, nil)
		wantP(t, "arrival_rate", m.ArrivalRate, nil)
		wantP(t, "gap_fraction", m.GapFraction, nil)
		wantP(t, "mean_in_flight", m.MeanInFlight, nil)
		wantP(t, "waste_fraction", m.WasteFraction, 0)
		want(t, "output_tokens", m.OutputTokens, 4)
		wantI(t, "attempts", m.Attempts, 1)
		wantP(t, "success_rate", m.SuccessRate, 1)
		wantP(t, "little_concurrency", m.LittleConcurrency, nil)
	}
}

// The extent coalesces each span's first and last known instants.
func TestExtentCoalesce(t *testing.T) {
	spans := []schemas.Span{
		mk("a", "A", [5]float64{null, 5, 6, 7, 8}, 1, ok),
		mk("b", "B", [5]float64{10, 10, 11, 12, 30}, 1, ok),
		mk("c", "C", [5]float64{20, 20, 21, 40, null}, 1, ok),
	}
	res := Analyze(spans, nil, Options{Width: minute})
	if res.Start != t0+5_000_000 || res.End != t0+40_000_000 {
		t.Errorf("extent [%v, %v] s, want [5, 40]", seconds(res.Start-t0), seconds(res.End-t0))
	}
	want(t, "window_seconds", res.Run.WindowSeconds, 35)
	wantI(t, "requests", res.Run.Requests, 2) // c never completes
}

func TestNoExtent(t *testing.T) {
	res := Analyze(nil, nil, Options{Width: minute, Cap: ptr(int64(4))})
	if res.HasExtent || res.Windows != nil || res.Cap != nil || res.CapSource != "" {
		t.Errorf("no spans: %+v", res)
	}
	s := mk("p", "P", [5]float64{null, null, null, null, null}, 4, ok)
	res = Analyze([]schemas.Span{s}, nil, Options{Width: minute})
	if res.HasExtent || len(res.Windows) != 0 || res.Run.SystemTPS != nil || res.Run.TQueue.N != 0 {
		t.Errorf("no timestamps: %+v", res)
	}
	wantI(t, "missing released_at", res.Quality.MissingTimestamp["released_at"], 1)
	wantI(t, "spans_outside_state", res.Quality.SpansOutOfState, 1)
	if res.Cap == nil || *res.Cap != 0 || res.CapSource != CapSourceInferred {
		t.Errorf("cap %v %q, want 0 inferred", res.Cap, res.CapSource)
	}
}

// Scenario 6: percentiles of a known set.
func TestPercentiles(t *testing.T) {
	t.Run("quantile", func(t *testing.T) {
		for _, tc := range []struct {
			xs                 []float64
			p50, p90, p95, p99 float64
		}{
			{[]float64{1, 2, 3, 4}, 2.5, 3.7, 3.85, 3.97},
			{[]float64{10, 1, 4, 2, 3}, 3, 7.6, 8.8, 9.76},
			{[]float64{7}, 7, 7, 7, 7},
		} {
			p := percentiles(append([]float64(nil), tc.xs...))
			wantI(t, "n", p.N, int64(len(tc.xs)))
			wantP(t, "p50", p.P50, tc.p50)
			wantP(t, "p90", p.P90, tc.p90)
			wantP(t, "p95", p.P95, tc.p95)
			wantP(t, "p99", p.P99, tc.p99)
		}
		p := percentiles(nil)
		if p.N != 0 || p.P50 != nil || p.Mean != nil || p.Max != nil {
			t.Errorf("empty: %+v", p)
		}
	})
	t.Run("bits of numpy", func(t *testing.T) {
		// numpy 1.24.2 np.quantile(xs, q), printed with repr: its lerp computes
		// b − (b−a)(1−t) when t ≥ 0.5, which a + (b−a)t misses by an ulp here.
		for _, tc := range []struct {
			xs   []float64
			want [4]float64 // p50 p90 p95 p99
		}{
			{[]float64{5.7, 8.0, 0.6}, [4]float64{5.7, 7.54, 7.77, 7.954}},
			{[]float64{1, 2, 3, 4, 10}, [4]float64{3.0, 7.6000000000000005, 8.799999999999999, 9.76}},
			{[]float64{1, 2, 3, 4}, [4]float64{2.5, 3.7, 3.8499999999999996, 3.9699999999999998}},
		} {
			p := percentiles(append([]float64(nil), tc.xs...))
			for i, got := range []*float64{p.P50, p.P90, p.P95, p.P99} {
				if *got != tc.want[i] {
					t.Errorf("%v quantile %d: got %.17g, numpy %.17g", tc.xs, i, *got, tc.want[i])
				}
			}
		}
	})
	// t_queue 1, 2, 3, 4, 10 s over five successful spans; a failed span and a
	// span without queued_at do not count.
	var spans []schemas.Span
	for i, q := range []float64{1, 2, 3, 4, 10} {
		spans = append(spans, mk(fmt.Sprintf("s%d", i), fmt.Sprintf("R%d", i), [5]float64{10 - q, 10, 11, 12, 13}, 11, ok))
	}
	spans = append(spans,
		mk("f", "F", [5]float64{0, 10, 11, 12, 13}, 11, schemas.StatusError),
		mk("n", "N", [5]float64{null, 10, 11, 11, 13}, 1, ok), // 1 token: tpot NULL; t_stream 0: stream_tps NULL
	)
	r := Analyze(spans, nil, Options{Width: minute}).Run
	p := r.TQueue
	wantI(t, "t_queue n", p.N, 5)
	wantP(t, "t_queue p50", p.P50, 3)
	wantP(t, "t_queue p90", p.P90, 7.6)
	wantP(t, "t_queue p95", p.P95, 8.8)
	wantP(t, "t_queue p99", p.P99, 9.76)
	wantP(t, "t_queue mean", p.Mean, 4)
	wantP(t, "t_queue max", p.Max, 10)
	wantI(t, "t_in_flight n", r.TInFlight.N, 6)
	wantP(t, "t_in_flight p50", r.TInFlight.P50, 3)
	wantI(t, "tpot n", r.TPOT.N, 5)
	wantP(t, "tpot p99", r.TPOT.P99, 0.1) // 1 s / (11 − 1)
	wantI(t, "stream_tps n", r.StreamTPS.N, 5)
	wantP(t, "stream_tps max", r.StreamTPS.Max, 11)
	wantP(t, "end_to_end_tps mean", r.EndToEndTPS.Mean, (5*11.0/3+1.0/3)/6)
	wantI(t, "t_total n", r.TTotal.N, 5)
	wantP(t, "t_total p50", r.TTotal.P50, 6)
}

func TestSpanMetrics(t *testing.T) {
	spans := []schemas.Span{
		mk("a", "A", [5]float64{0, 2, 3, 7, 8}, 9, ok),
		mk("b", "B", [5]float64{0, 2, 1, 7, 8}, 9, ok), // first token before admission
		withOutput(mk("c", "C", [5]float64{0, null, 3, 3, 8}, 0, ok), nil),
	}
	res := Analyze(spans, nil, Options{Width: minute})
	a, b, c := res.Spans[0], res.Spans[1], res.Spans[2]
	wantP(t, "a t_queue", a.TQueue, 2)
	wantP(t, "a t_first_token", a.TFirstToken, 1)
	wantP(t, "a ttft", a.TTFT, 3)
	wantP(t, "a t_stream", a.TStream, 4)
	wantP(t, "a t_in_flight", a.TInFlight, 6)
	wantP(t, "a t_total", a.TTotal, 8)
	wantP(t, "a stream_tps", a.StreamTPS, 2.25)
	wantP(t, "a end_to_end_tps", a.EndToEndTPS, 1.5)
	wantP(t, "a tpot", a.TPOT, 0.5)
	wantP(t, "b t_first_token", b.TFirstToken, nil) // negative: NULL
	wantP(t, "b ttft", b.TTFT, 1)
	wantP(t, "b t_stream", b.TStream, 6)
	wantP(t, "c t_queue", c.TQueue, nil)
	wantP(t, "c t_stream", c.TStream, 0)
	wantP(t, "c stream_tps", c.StreamTPS, nil)
	wantP(t, "c tpot", c.TPOT, nil)
	wantI(t, "out_of_order", res.Quality.OutOfOrder, 1)
	wantI(t, "spans_outside_state", res.Quality.SpansOutOfState, 1)
	wantI(t, "missing admitted_at", res.Quality.MissingTimestamp["admitted_at"], 1)
	wantI(t, "missing queued_at", res.Quality.MissingTimestamp["queued_at"], 0)
}

// Scenario 7: attempt numbers when attempt is NULL.
func TestAttemptNumbering(t *testing.T) {
	spans := []schemas.Span{
		mk("sB", "X", [5]float64{5, 5, 6, 7, 8}, 1, schemas.StatusError),
		mk("sA", "X", [5]float64{5, 5, 6, 7, 8}, 1, schemas.StatusError),
		mk("sC", "X", [5]float64{null, 9, 9, 9, 9}, 1, ok),
		mk("sD", "X", [5]float64{1, 1, 2, 3, 4}, 1, schemas.StatusError),
		withAttempt(mk("y1", "Y", [5]float64{10, 10, 11, 12, 13}, 1, ok), 0),
		mk("y0", "Y", [5]float64{2, 2, 3, 4, 5}, 1, schemas.StatusError),
		withAttempt(mk("z2", "Z", [5]float64{3, 3, 4, 5, 6}, 1, ok), 2),
	}
	res := Analyze(spans, nil, Options{Width: minute})
	wantAtt := []int32{2, 1, 3, 0, 0, 0, 2}
	for i, sm := range res.Spans {
		if sm.SpanID != spans[i].SpanID || sm.Attempt != wantAtt[i] {
			t.Errorf("span %d: got %s attempt %d, want %s attempt %d", i, sm.SpanID, sm.Attempt, spans[i].SpanID, wantAtt[i])
		}
	}
	wantI(t, "arrivals", res.Run.Arrivals, 3)                    // sD, y0 and y1
	wantI(t, "retry_attempts", res.Run.RetryAttempts, 4)         // sA, sB, sC, z2
	wantI(t, "unlinked_retries", res.Quality.UnlinkedRetries, 1) // z2
	wantI(t, "requests", res.Run.Requests, 3)
	wantP(t, "success_rate", res.Run.SuccessRate, 1)
}

// Scenario 8: sampled state with a sampling hole and a known cap.
func TestSampledState(t *testing.T) {
	spans := []schemas.Span{withReplica(mk("s", "S", [5]float64{0, 0, 1, 19, 20}, 10, ok), "r1")}
	smp := func(ts float64, in, q *int32, c *int32) schemas.Sample {
		return schemas.Sample{RunID: "test", Source: "test", Replica: ptr("r1"), TS: *at(ts), InFlight: in, QueueDepth: q, Cap: c}
	}
	i32 := func(v int32) *int32 { return &v }
	samples := []schemas.Sample{
		smp(11, i32(0), i32(5), nil),
		smp(0, i32(4), i32(2), nil), // in_flight = cap: no gap
		smp(1, i32(2), i32(3), nil), // gap
		smp(2, i32(3), i32(0), nil), // no backlog
		smp(3, i32(1), i32(1), nil), // holds [3, 5): 2m = 2 s
		smp(10, nil, i32(1), nil),   // unknown
	}
	res := Analyze(spans, samples, Options{Width: 5_000_000, Cap: ptr(int64(4))})
	r := res.Run
	wantI(t, "sampling_holes", res.Quality.SamplingHoles, 1)
	wantP(t, "sampled_seconds", r.SampledSeconds, 6)
	wantP(t, "gap_time_sampled", r.GapTimeSampled, 4)
	wantP(t, "backlog_time_sampled", r.BacklogTimeSampled, 5)
	wantP(t, "gap_fraction_sampled", r.GapFractionSampled, 4.0/6)
	wantP(t, "backlog_gap_fraction_sampled", r.BacklogGapFractionSampled, 0.8)
	wantP(t, "mean_in_flight_sampled", r.MeanInFlightSampled, 11.0/6)
	wantP(t, "mean_queue_depth_sampled", r.MeanQueueDepthSampled, 2)
	wantP(t, "utilization_sampled", r.UtilizationSampled, 11.0/24)

	wantWindows(t, res, 4)
	w := res.Windows
	wantP(t, "w0 sampled_seconds", w[0].SampledSeconds, 5)
	wantP(t, "w0 gap_time_sampled", w[0].GapTimeSampled, 3)
	wantP(t, "w0 backlog_time_sampled", w[0].BacklogTimeSampled, 4)
	wantP(t, "w0 mean_in_flight_sampled", w[0].MeanInFlightSampled, 11.0/5)
	wantP(t, "w0 mean_queue_depth_sampled", w[0].MeanQueueDepthSampled, 7.0/5)
	for _, i := range []int{1, 3} {
		m := w[i]
		if m.SampledSeconds != nil || m.GapTimeSampled != nil || m.BacklogTimeSampled != nil || m.GapFractionSampled != nil ||
			m.BacklogGapFractionSampled != nil || m.MeanInFlightSampled != nil || m.MeanQueueDepthSampled != nil || m.UtilizationSampled != nil {
			t.Errorf("w%d: sampled metrics without a known sample: %+v", i, m)
		}
	}
	wantP(t, "w2 sampled_seconds", w[2].SampledSeconds, 1)
	wantP(t, "w2 gap_fraction_sampled", w[2].GapFractionSampled, 1)
	wantP(t, "w2 utilization_sampled", w[2].UtilizationSampled, 0)

	t.Run("own cap first", func(t *testing.T) {
		s := append([]schemas.Sample(nil), samples...)
		s[2].Cap = i32(2) // in_flight 2 at cap 2: no gap in [1, 2)
		r := Analyze(spans, s, Options{Width: 5_000_000, Cap: ptr(int64(4))}).Run
		wantP(t, "gap_time_sampled", r.GapTimeSampled, 3)
	})
	t.Run("half-microsecond median", func(t *testing.T) {
		// differences 1000 and 1001 µs: the median 1000.5 µs rounds down to
		// m = 1000 µs, so the last sample holds [2001 µs, 3001 µs)
		s := []schemas.Sample{
			{Replica: ptr("r1"), TS: t0, InFlight: i32(0), QueueDepth: i32(1)},
			{Replica: ptr("r1"), TS: t0 + 1000, InFlight: i32(0), QueueDepth: i32(1)},
			{Replica: ptr("r1"), TS: t0 + 2001, InFlight: i32(0), QueueDepth: i32(1)},
		}
		r := Analyze(spans, s, Options{Width: minute, Cap: ptr(int64(4))}).Run
		wantP(t, "sampled_seconds", r.SampledSeconds, 0.003001)
		wantP(t, "gap_time_sampled", r.GapTimeSampled, 0.003001)
	})
	t.Run("a difference of exactly 2m is no hole", func(t *testing.T) {
		// differences 1, 1, 2, 1 s: m = 1 s; [2, 4) holds for the whole 2 s
		s := []schemas.Sample{smp(0, i32(0), i32(1), nil), smp(1, i32(0), i32(1), nil), smp(2, i32(0), i32(1), nil),
			smp(4, i32(0), i32(1), nil), smp(5, i32(0), i32(1), nil)}
		res := Analyze(spans, s, Options{Width: minute, Cap: ptr(int64(4))})
		wantI(t, "sampling_holes", res.Quality.SamplingHoles, 0)
		wantP(t, "sampled_seconds", res.Run.SampledSeconds, 6)
	})
	t.Run("pool", func(t *testing.T) {
		// r2 joins on [0, 2) with in_flight 1 of its cap 1 and no queue: the
		// pool sums (in 5, q 2, cap 5) and (in 3, q 3, cap 5)
		s := append([]schemas.Sample(nil), samples...)
		s = append(s,
			schemas.Sample{Replica: ptr("r2"), TS: t0, InFlight: i32(1), QueueDepth: i32(0), Cap: i32(1)},
			schemas.Sample{Replica: ptr("r2"), TS: t0 + 1_000_000, InFlight: i32(1), QueueDepth: i32(0), Cap: i32(1)},
		)
		r := Analyze(spans, s, Options{Width: minute, Cap: ptr(int64(4))}).Run
		wantP(t, "sampled_seconds", r.SampledSeconds, 6)
		wantP(t, "gap_time_sampled", r.GapTimeSampled, 4)
		wantP(t, "mean_in_flight_sampled", r.MeanInFlightSampled, 13.0/6)
		// utilization against the pool cap, which counts only replicas of spans
		wantP(t, "utilization_sampled", r.UtilizationSampled, 13.0/24)
	})
}

// Scenario 9: the cap's sources and their precedence.
func TestCapPrecedence(t *testing.T) {
	spans := []schemas.Span{
		withReplica(mk("a1", "A1", [5]float64{0, 0, 1, 9, 10}, 1, ok), "r1"),
		withReplica(mk("a2", "A2", [5]float64{0, 0, 1, 9, 10}, 1, ok), "r1"),
		withReplica(mk("a3", "A3", [5]float64{0, 0, 1, 9, 10}, 1, ok), "r1"),
		withReplica(mk("a4", "A4", [5]float64{0, 10, 11, 11, 12}, 1, ok), "r1"), // waits while 3 run
		withReplica(mk("b1", "B1", [5]float64{0, 0, 1, 9, 10}, 1, ok), "r2"),
		withReplica(mk("b2", "B2", [5]float64{0, 0, 1, 9, 10}, 1, ok), "r2"),
	}
	capSample := func(rep string, c int32) schemas.Sample {
		return schemas.Sample{Replica: ptr(rep), TS: t0, Cap: &c}
	}
	for _, tc := range []struct {
		name      string
		opt       Options
		samples   []schemas.Sample
		cap       int64
		source    string
		r1, r2    int64
		poolGap   float64
		replicaG1 float64
	}{
		{"inferred", Options{}, nil, 5, CapSourceInferred, 3, 2, 0, 0},
		{"logs, one value", Options{MaxNumSeqs: ptr(int64(8))}, nil, 16, CapSourceLogs, 8, 8, 10, 10},
		{"logs by replica first", Options{MaxNumSeqs: ptr(int64(8)), MaxNumSeqsByReplica: map[string]int64{"r1": 6}}, nil, 14, CapSourceLogs, 6, 8, 10, 10},
		{"logs and inferred", Options{MaxNumSeqsByReplica: map[string]int64{"r1": 6}}, nil, 8, CapSourceInferred, 6, 2, 10, 10},
		{"samples over logs", Options{MaxNumSeqs: ptr(int64(8))}, []schemas.Sample{capSample("r1", 9), capSample("r1", 10)}, 18, CapSourceLogs, 10, 8, 10, 10},
		{"samples", Options{}, []schemas.Sample{capSample("r1", 3), capSample("r2", 5)}, 8, CapSourceSamples, 3, 5, 10, 0},
		{"flag over all", Options{Cap: ptr(int64(4)), MaxNumSeqs: ptr(int64(8))}, []schemas.Sample{capSample("r1", 10), capSample("r2", 5)}, 8, CapSourceFlag, 4, 4, 10, 10},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.opt.Width = minute
			res := Analyze(spans, tc.samples, tc.opt)
			if res.Cap == nil || *res.Cap != tc.cap || res.CapSource != tc.source {
				t.Fatalf("cap %v %q, want %d %q", res.Cap, res.CapSource, tc.cap, tc.source)
			}
			if len(res.Replicas) != 2 || res.Replicas[0].Replica != "r1" || res.Replicas[1].Replica != "r2" {
				t.Fatalf("replicas %+v", res.Replicas)
			}
			wantI(t, "r1 cap", *res.Replicas[0].Cap, tc.r1)
			wantI(t, "r2 cap", *res.Replicas[1].Cap, tc.r2)
			want(t, "pool gap_time", res.Run.GapTime, tc.poolGap)
			want(t, "r1 gap_time", res.Replicas[0].GapTime, tc.replicaG1)
			want(t, "r1 backlog_time", res.Replicas[0].BacklogTime, 10)
			want(t, "r2 backlog_time", res.Replicas[1].BacklogTime, 0)
			wantP(t, "r1 mean_in_flight", res.Replicas[0].MeanInFlight, 32.0/12)
			wantP(t, "r1 utilization", res.Replicas[0].Utilization, 32.0/12/float64(tc.r1))
			wantP(t, "pool utilization", res.Run.Utilization, 52.0/12/float64(tc.cap))
		})
	}
}

func TestDataQuality(t *testing.T) {
	m1, m2 := "m1", "m2"
	a := mk("a", "A", [5]float64{0, 1, 2, 3, 4}, 1, ok)
	a.Model = &m2
	b := mk("b", "B", [5]float64{0, null, 2, 3, 4}, 1, ok) // outside both states
	b.Model = &m1
	c := mk("c", "C", [5]float64{2, 1, 2, 3, 4}, 1, ok) // queued after admission: out of order, outside the queue
	d := a                                              // duplicate span_id
	res := Analyze([]schemas.Span{a, b, c, d}, nil, Options{Width: minute})
	q := res.Quality
	wantI(t, "duplicate_span_ids", q.DuplicateSpanIDs, 1)
	wantI(t, "out_of_order", q.OutOfOrder, 1)
	wantI(t, "spans_outside_state", q.SpansOutOfState, 2)
	wantI(t, "missing admitted_at", q.MissingTimestamp["admitted_at"], 1)
	if len(q.MissingTimestamp) != 5 {
		t.Errorf("missing_timestamp keys: %v", q.MissingTimestamp)
	}
	if fmt.Sprint(q.Models) != "[m1 m2]" {
		t.Errorf("models %v", q.Models)
	}
	wantI(t, "spans_clipped without --from/--to", q.SpansClipped, 0)
	// the duplicate counts twice in events and states
	wantI(t, "attempts", res.Run.Attempts, 4)
	wantP(t, "mean_in_flight", res.Run.MeanInFlight, (3+3+3)/4.0)
}

// Empty windows between activity are reported, aligned to the epoch.
func TestEmptyWindows(t *testing.T) {
	spans := []schemas.Span{
		mk("a", "A", [5]float64{10, 10, 11, 12, 13}, 1, ok),
		mk("b", "B", [5]float64{200, 200, 201, 202, 203}, 1, ok),
	}
	res := Analyze(spans, nil, Options{Width: minute})
	wantWindows(t, res, 4)
	for i, w := range res.Windows {
		if !w.WindowStart.Equal(schemas.Time(t0 + int64(i)*minute)) {
			t.Errorf("window %d starts %v", i, w.WindowStart)
		}
	}
	w := res.Windows[1]
	want(t, "empty window_seconds", w.WindowSeconds, 60)
	wantP(t, "empty system_tps", w.SystemTPS, 0)
	wantP(t, "empty waste_fraction", w.WasteFraction, nil)
	wantP(t, "empty success_rate", w.SuccessRate, nil)
	wantP(t, "empty backlog_gap_fraction", w.BacklogGapFraction, nil)
	wantP(t, "empty mean_in_flight", w.MeanInFlight, 0)
	want(t, "first window_seconds", res.Windows[0].WindowSeconds, 50)
	want(t, "last window_seconds", res.Windows[3].WindowSeconds, 23)
}
