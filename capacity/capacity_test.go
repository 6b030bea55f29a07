package capacity

import (
	"errors"
	"math"
	"testing"
	"time"

	"github.com/tpsreport/tpsreport/schemas"
)

func f(v float64) *float64 { return &v }

func near(t *testing.T, name string, got *float64, want float64) {
	t.Helper()
	if got == nil {
		t.Fatalf("%s = nil, want %v", name, want)
	}
	if math.Abs(*got-want) > 1e-9*math.Max(1, math.Abs(want)) {
		t.Fatalf("%s = %v, want %v", name, *got, want)
	}
}

// t0 is a window boundary: every window starts a whole minute after it.
var t0 = time.Date(2026, 11, 26, 10, 0, 0, 0, time.UTC)

func window(i int, secs float64, backlog float64, delivered float64, requests, succeeded int64) schemas.Metrics {
	start := t0.Add(time.Duration(i) * time.Minute)
	return schemas.Metrics{
		WindowStart: start, WindowEnd: start.Add(time.Duration(secs * float64(time.Second))),
		WindowSeconds: secs, BacklogTime: backlog, DeliveredTokens: delivered,
		Requests: requests, SucceededRequests: succeeded,
	}
}

// TestPriceByHand: a 10-minute run at 250 delivered tok/s and one completion
// a second, on two replicas at 9 an hour: 18 an hour, 0.005 a second, so
// 0.005 / 250 × 10^6 = 20 per million tokens and 0.005 per completion. Two
// of its three windows have a backlog and deliver 54,000 tokens in 120 s
// (450 tok/s): 0.005 / 450 × 10^6 = 11.11 per million at saturation.
func TestPriceByHand(t *testing.T) {
	sum := schemas.Summary{}
	sum.RetryAdjustedSystemTPS = f(250)
	sum.SucceededRequests = 600
	sum.WindowSeconds = 600
	windows := []schemas.Metrics{
		window(0, 60, 12, 30000, 60, 60),
		window(1, 60, 0, 6000, 50, 50),
		window(2, 60, 0.5, 24000, 70, 69),
	}
	c := Price(sum, windows, Pricing{ReplicaCostPerHour: 9, Replicas: 2, Currency: "EUR"}, 5)
	if c.Replicas != 2 || c.ReplicasSource != FromFlag || c.Currency != "EUR" || c.ReplicaCostPerHour != 9 {
		t.Fatalf("replicas %d from %q, currency %q, price %v; want 2 from flag, EUR, 9", c.Replicas, c.ReplicasSource, c.Currency, c.ReplicaCostPerHour)
	}
	near(t, "cost_per_hour", &c.CostPerHour, 18)
	near(t, "cost_per_million_tokens", c.CostPerMillionTokens, 20)
	near(t, "cost_per_million_tokens_saturated", c.CostPerMillionTokensSaturated, 100.0/9)
	near(t, "cost_per_completion", c.CostPerCompletion, 0.005)

	// Without --replicas the logs' five replicas are priced, and every
	// figure scales with them.
	c = Price(sum, windows, Pricing{ReplicaCostPerHour: 9}, 5)
	if c.Replicas != 5 || c.ReplicasSource != FromLogs {
		t.Fatalf("replicas %d from %q, want 5 from logs", c.Replicas, c.ReplicasSource)
	}
	near(t, "cost_per_million_tokens", c.CostPerMillionTokens, 50)
	// Logs that name no replica: one, marked assumed.
	c = Price(sum, windows, Pricing{ReplicaCostPerHour: 9}, 0)
	if c.Replicas != 1 || c.ReplicasSource != Assumed {
		t.Fatalf("replicas %d from %q, want 1 assumed", c.Replicas, c.ReplicasSource)
	}
}

// TestSeedsWorkedExample: "a server generating 10,000 tokens/second at
// $10/hour" costs 10 / 3600 / 10,000 × 10^6 = $0.2778 per million tokens,
// $0.000278 per 1,000; not the $0.001 per 1,000 the article says, which
// leaves out the 3,600 seconds of the hour (3.6× off).
func TestSeedsWorkedExample(t *testing.T) {
	sum := schemas.Summary{}
	sum.RetryAdjustedSystemTPS = f(10000)
	sum.WindowSeconds = 3600
	windows := []schemas.Metrics{window(0, 3600, 3600, 10000*3600, 0, 0)}
	c := Price(sum, windows, Pricing{ReplicaCostPerHour: 10, Currency: "USD"}, 1)
	near(t, "cost_per_million_tokens", c.CostPerMillionTokens, 0.2777777777777778)
	near(t, "cost_per_million_tokens_saturated", c.CostPerMillionTokensSaturated, 0.2777777777777778)
	if got := *c.CostPerMillionTokens / 1000; math.Abs(got-0.000278) > 5e-7 {
		t.Fatalf("per 1,000 tokens %v, want 0.000278", got)
	}
	if ratio := 0.001 / (*c.CostPerMillionTokens / 1000); math.Abs(ratio-3.6) > 1e-9 {
		t.Fatalf("the article's figure is %v× ours, want 3.6×", ratio)
	}
	if c.CostPerCompletion != nil {
		t.Fatalf("cost_per_completion = %v with no completion, want nil", *c.CostPerCompletion)
	}
}

func TestPriceWithoutThroughput(t *testing.T) {
	c := Price(schemas.Summary{}, []schemas.Metrics{window(0, 60, 0, 100, 1, 1)}, Pricing{ReplicaCostPerHour: 2}, 0)
	if c.CostPerHour != 2 || c.CostPerMillionTokens != nil || c.CostPerMillionTokensSaturated != nil || c.CostPerCompletion != nil {
		t.Fatalf("got %+v, want cost_per_hour 2 and every per-unit figure nil", c)
	}
}

func TestValidate(t *testing.T) {
	for _, p := range []Pricing{{}, {ReplicaCostPerHour: -1}, {ReplicaCostPerHour: math.NaN()}, {ReplicaCostPerHour: math.Inf(1)}, {ReplicaCostPerHour: 1, Replicas: -2}} {
		if err := p.Validate(); !errors.Is(err, ErrBadPrice) {
			t.Errorf("%+v: got %v, want ErrBadPrice", p, err)
		}
	}
	if err := (Pricing{ReplicaCostPerHour: 0.5}).Validate(); err != nil {
		t.Errorf("0.5 an hour: %v", err)
	}
	good := Settings{TargetRPM: 600, Attainment: 0.9, Utilization: 0.8}
	if err := good.Validate(); err != nil {
		t.Fatal(err)
	}
	for _, s := range []Settings{
		{TargetRPM: 0, Attainment: 0.9, Utilization: 0.8},
		{TargetRPM: math.NaN(), Attainment: 0.9, Utilization: 0.8},
		{TargetRPM: 60, Attainment: 0.9, Utilization: 1.5},
		{TargetRPM: 60, Attainment: 0, Utilization: 0.8},
		{TargetRPM: 60, Attainment: 0.9, Utilization: 0.8, Pricing: &Pricing{}},
	} {
		if err := s.Validate(); err == nil {
			t.Errorf("%+v: accepted", s)
		}
	}
}

func TestChangeAndHeadline(t *testing.T) {
	base := schemas.Cost{CostPerHour: 10, CostPerMillionTokens: f(2), CostPerMillionTokensSaturated: f(1), CostPerCompletion: f(0.01)}
	cand := schemas.Cost{CostPerHour: 10, CostPerMillionTokens: f(1.9), CostPerMillionTokensSaturated: f(0.895), CostPerCompletion: f(0.011)}
	ch := Change(base, cand, "flag")
	near(t, "cost_per_hour change", ch.CostPerHour, 0)
	near(t, "per million change", ch.CostPerMillionTokens, -0.05)
	near(t, "saturated change", ch.CostPerMillionTokensSaturated, -0.105)
	near(t, "per completion change", ch.CostPerCompletion, 0.1)
	if want := "saves 10.5 % per million tokens at saturation"; ch.Headline != want {
		t.Fatalf("headline %q, want %q", ch.Headline, want)
	}
	cand.CostPerMillionTokensSaturated = nil
	if got, want := Change(base, cand, "flag").Headline, "saves 5.0 % per million tokens over the run"; got != want {
		t.Fatalf("headline %q, want %q", got, want)
	}
	cand.CostPerMillionTokens = nil
	if got, want := Change(base, cand, "flag").Headline, "costs 10.0 % more per completion"; got != want {
		t.Fatalf("headline %q, want %q", got, want)
	}
	if got, want := Change(base, base, "runs").Headline, "costs the same per million tokens at saturation"; got != want {
		t.Fatalf("headline %q, want %q", got, want)
	}
	if got, want := Change(schemas.Cost{}, schemas.Cost{}, "runs").Headline, "no cost figure exists in both runs"; got != want {
		t.Fatalf("headline %q, want %q", got, want)
	}
}

// planRun: four backlog windows complete 480 requests in 240 s on one
// replica (2 req/s), one idle window completes 30; successful spans hold a
// slot 10 s on average, under a cap of 32.
func planRun() Measured {
	sum := schemas.Summary{RunID: "r", CapSource: "flag"}
	sum.Cap = new(int64)
	*sum.Cap = 32
	sum.TInFlight.Mean = f(10)
	return Measured{Name: "runs/r", Summary: sum, Windows: []schemas.Metrics{
		window(0, 60, 30, 0, 122, 120),
		window(1, 60, 60, 0, 130, 130),
		window(2, 60, 0, 0, 30, 30),
		window(3, 60, 45, 0, 110, 110),
		window(4, 60, 1, 0, 121, 120),
	}}
}

// TestSizeByHand: 480 RPM is 8 req/s; by throughput 8 / (2 × 0.8) = 5
// replicas exactly (not 6 for a rounding error); by Little's law 8 × 10 s =
// 80 slots, 80 / (32 × 0.8) = 3.125, so 4. The plan is the larger: 5.
func TestSizeByHand(t *testing.T) {
	p, err := Size(planRun(), Settings{TargetRPM: 480, Attainment: 0.9, Utilization: 0.8, Pricing: &Pricing{ReplicaCostPerHour: 3}})
	if err != nil {
		t.Fatal(err)
	}
	th := p.Throughput
	if th.Windows != 4 || th.Seconds != 240 || th.Completions != 480 || th.WindowsSkipped != 0 {
		t.Fatalf("throughput route over %d windows, %v s, %d completions, %d skipped; want 4, 240, 480, 0", th.Windows, th.Seconds, th.Completions, th.WindowsSkipped)
	}
	near(t, "capacity_per_replica", th.CapacityPerReplica, 2)
	near(t, "concurrency", p.Little.Concurrency, 80)
	near(t, "cap_per_replica", p.Little.CapPerReplica, 32)
	if *th.Replicas != 5 || *p.Little.Replicas != 4 || *p.Replicas != 5 || p.Basis != ByThroughput {
		t.Fatalf("replicas by throughput %d, by Little %d, plan %d (%s); want 5, 4, 5 by throughput", *th.Replicas, *p.Little.Replicas, *p.Replicas, p.Basis)
	}
	near(t, "cost_per_hour", p.CostPerHour, 15)
	if p.MeasuredReplicas != 1 || p.ReplicasSource != Assumed {
		t.Fatalf("measured replicas %d from %q, want 1 assumed", p.MeasuredReplicas, p.ReplicasSource)
	}

	// Measured on two replicas (--replicas 2), each did 1 req/s and had 16
	// slots: 8 / (1 × 0.8) = 10 by throughput, 80 / (16 × 0.8) = 6.25 → 7.
	p, err = Size(planRun(), Settings{TargetRPM: 480, Attainment: 0.9, Utilization: 0.8, Replicas: 2, Pricing: &Pricing{ReplicaCostPerHour: 3}})
	if err != nil {
		t.Fatal(err)
	}
	if *p.Throughput.Replicas != 10 || *p.Little.Replicas != 7 || *p.Replicas != 10 {
		t.Fatalf("on two measured replicas: %d by throughput, %d by Little, plan %d; want 10, 7, 10", *p.Throughput.Replicas, *p.Little.Replicas, *p.Replicas)
	}

	// Long slot times make Little's law the binding route: 8 × 40 s = 320
	// slots, 320 / 25.6 = 12.5 → 13.
	m := planRun()
	m.Summary.TInFlight.Mean = f(40)
	p, _ = Size(m, Settings{TargetRPM: 480, Attainment: 0.9, Utilization: 0.8})
	if *p.Replicas != 13 || p.Basis != ByLittle || p.CostPerHour != nil {
		t.Fatalf("plan %d by %s (cost %v), want 13 by littles_law and no cost", *p.Replicas, p.Basis, p.CostPerHour)
	}
}

// TestSizeWithSLO: with an SLO, a backlog window counts only when at least
// the attainment share of its completed requests met it, and only the
// requests that met it count as capacity.
func TestSizeWithSLO(t *testing.T) {
	m := planRun()
	m.Windows = m.Windows[:3]
	// Window 0: 122 completed, 110 delivered within 2 s, 10 at 3 s: 110/122
	// = 90.2 % ≥ 90 %. Window 1: 130 completed, 100 within: 76.9 %, left
	// out. Window 2 has no backlog. One latency at the run's last instant
	// belongs to the last window.
	lat := func(w int, at time.Duration, e2e float64) schemas.RequestLatency {
		return schemas.RequestLatency{Released: schemas.Micros(t0.Add(time.Duration(w)*time.Minute + at)), E2E: e2e, TTFT: 0.1, TPOT: math.NaN()}
	}
	for i := range 110 {
		m.Latencies = append(m.Latencies, lat(0, time.Duration(i)*100*time.Millisecond, 2))
	}
	for range 10 {
		m.Latencies = append(m.Latencies, lat(0, 30*time.Second, 3))
	}
	for range 100 {
		m.Latencies = append(m.Latencies, lat(1, 0, 1.5))
	}
	m.Latencies = append(m.Latencies, lat(3, 0, 1)) // 10:03:00, the end of window 2
	e2e := 2.0
	s := Settings{TargetRPM: 330, SLO: &schemas.SLO{E2E: &e2e}, Attainment: 0.9, Utilization: 1}
	met := MetPerWindow(m.Windows, m.Latencies, *s.SLO)
	if met[0] != 110 || met[1] != 100 || met[2] != 1 {
		t.Fatalf("met per window %v, want [110 100 1]", met)
	}
	p, err := Size(m, s)
	if err != nil {
		t.Fatal(err)
	}
	th := p.Throughput
	if th.Windows != 1 || th.WindowsSkipped != 1 || th.Completions != 110 || th.Requests != 122 {
		t.Fatalf("SLO route: %d windows, %d skipped, %d met of %d; want 1, 1, 110 of 122", th.Windows, th.WindowsSkipped, th.Completions, th.Requests)
	}
	// 110 / 60 s = 1.8333 req/s; 330 RPM = 5.5 req/s → 3 replicas exactly.
	near(t, "capacity_per_replica", th.CapacityPerReplica, 110.0/60)
	if *th.Replicas != 3 {
		t.Fatalf("replicas by throughput %d, want 3", *th.Replicas)
	}
	// Over the run 211 of 282 requests met it (74.82 %): Little's law,
	// which sizes from the whole run's slot time, does not count, and the
	// plan is the throughput route's.
	if p.Little.Replicas != nil || p.Little.Reason != "over the run 74.82 % of the requests met the SLO, under 90 %: its slot time is not one of a fleet that meets it" ||
		*p.Replicas != 3 || p.Basis != ByThroughput || p.SLOMissed != "" {
		t.Fatalf("plan %v by %s; Little's law %v: %q", *p.Replicas, p.Basis, p.Little.Replicas, p.Little.Reason)
	}
	// A bound no window meets: the route says why and gives no count.
	tight := 0.5
	s.SLO = &schemas.SLO{E2E: &tight}
	p, _ = Size(m, s)
	if p.Throughput.Replicas != nil || p.Throughput.Reason != "no backlog window met the SLO for 90 % of its requests" {
		t.Fatalf("tight SLO: replicas %v, reason %q", p.Throughput.Replicas, p.Throughput.Reason)
	}
	// No window met it at all: the run shows no capacity at the SLO, so
	// Little's law sizes nothing from it either, and the plan says why.
	if p.Replicas != nil || p.Little.Replicas != nil || p.SLOMissed != "the run never met the SLO: in no window did 90 % of the requests meet it (0 % did over the run)" {
		t.Fatalf("tight SLO: replicas %v (Little's law %v), slo_missed %q; want none and the reason", p.Replicas, p.Little.Replicas, p.SLOMissed)
	}
	if Best([]Plan{p}) != -1 {
		t.Fatal("a run that never met the SLO was the pick")
	}
	// No latencies to judge by is an error, not a plan without the SLO.
	m.Latencies = nil
	if _, err := Size(m, s); err == nil {
		t.Fatal("an SLO without latencies.parquet was accepted")
	}
}

func TestSizeUnsaturated(t *testing.T) {
	m := planRun()
	for i := range m.Windows {
		m.Windows[i].BacklogTime = 0
	}
	p, err := Size(m, Settings{TargetRPM: 60, Attainment: 0.9, Utilization: 0.8})
	if err != nil {
		t.Fatal(err)
	}
	if p.Throughput.Replicas != nil || p.Throughput.Reason == "" {
		t.Fatalf("an unsaturated run gave a throughput capacity: %+v", p.Throughput)
	}
}

func TestBest(t *testing.T) {
	n := func(v int64) *int64 { return &v }
	plans := []Plan{{Replicas: nil}, {Replicas: n(5), CostPerHour: f(50)}, {Replicas: n(4), CostPerHour: f(60)}, {Replicas: n(4), CostPerHour: f(40)}}
	if got := Best(plans); got != 3 {
		t.Fatalf("Best = %d, want 3 (fewest replicas, cheaper on a tie)", got)
	}
	if got := Best(plans[:1]); got != -1 {
		t.Fatalf("Best of no counted plan = %d, want -1", got)
	}
}

func TestCompare(t *testing.T) {
	mk := func(tps float64, c *schemas.Cost) schemas.Summary {
		s := schemas.Summary{Cost: c}
		s.RetryAdjustedSystemTPS = f(tps)
		return s
	}
	// At compare's price, both runs are priced alike: 1,000 → 1,250 tok/s
	// at 36 an hour is 10 → 8 per million, a 20 % saving.
	ch, note := Compare(mk(1000, nil), mk(1250, nil), nil, nil, &Pricing{ReplicaCostPerHour: 36})
	if ch == nil || note != "" || ch.PricedBy != "flag" {
		t.Fatalf("got %+v, %q", ch, note)
	}
	near(t, "baseline", ch.Baseline.CostPerMillionTokens, 10)
	near(t, "candidate", ch.Candidate.CostPerMillionTokens, 8)
	near(t, "change", ch.CostPerMillionTokens, -0.2)
	// Without a price: the runs' own costs, when both have one in one currency.
	b, c := &schemas.Cost{CostPerHour: 2, CostPerMillionTokens: f(4)}, &schemas.Cost{CostPerHour: 2, CostPerMillionTokens: f(5)}
	if ch, _ := Compare(mk(1, b), mk(1, c), nil, nil, nil); ch == nil || ch.PricedBy != "runs" || *ch.CostPerMillionTokens != 0.25 {
		t.Fatalf("runs' own prices: %+v", ch)
	}
	if ch, note := Compare(mk(1, b), mk(1, nil), nil, nil, nil); ch != nil || note == "" {
		t.Fatalf("one priced run: %+v, %q; want nil and a note", ch, note)
	}
	if ch, note := Compare(mk(1, nil), mk(1, nil), nil, nil, nil); ch != nil || note != "" {
		t.Fatalf("no price: %+v, %q; want nil and no note", ch, note)
	}
	c.Currency = "EUR"
	if ch, note := Compare(mk(1, b), mk(1, c), nil, nil, nil); ch != nil || note == "" {
		t.Fatalf("two currencies: %+v, %q; want nil and a note", ch, note)
	}
}
