package compare

import (
	"context"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/tpsreport/tpsreport/schemas"
)

// canaryRuns builds a canary's replicas over n 60 s windows: every replica
// serves a share of one traffic, whose level moves from window to window
// (an AR(1) of step sd shared, by shared), and each replica's throughput is
// 1,000 tok/s at that level with noise of its own (own); the canary's
// replicas deliver gain more. Every window has a backlog. Each replica
// completes 600 requests, 597 of them delivered, with 606 attempts.
func canaryRuns(nBase, nCand, n int, gain, shared, own float64, seed uint64) (base, cand []Run) {
	level := ar1(n, 0.8, seed)
	start := time.Date(2026, 11, 20, 10, 0, 0, 0, time.UTC)
	mk := func(id string, g float64, s uint64) Run {
		rng := rand.New(rand.NewPCG(s, 5))
		ws := make([]schemas.Metrics, n)
		for i := range ws {
			v := 1000 * (1 + g) * (1 + shared*level[i]/2) * (1 + own*rng.NormFloat64())
			ws[i] = schemas.Metrics{WindowStart: start.Add(time.Duration(i) * time.Minute), WindowSeconds: 60,
				RetryAdjustedSystemTPS: f(v), BacklogTime: 60}
		}
		r := Run{Summary: schemas.Summary{RunID: id, WindowWidth: 60, RunStart: start, RunEnd: start.Add(time.Duration(n) * time.Minute)}, Windows: ws}
		r.Summary.OfferedRate = f(2)
		r.Summary.DataQuality.Models = []string{"llama"}
		setCounts(&r, 600, 597, 606, 6, s)
		return r
	}
	for i := range nBase {
		base = append(base, mk("run vllm-"+string(rune('0'+i)), 0, seed*100+uint64(i)))
	}
	for i := range nCand {
		cand = append(cand, mk("run canary-"+string(rune('0'+i)), gain, seed*100+50+uint64(i)))
	}
	return base, cand
}

// canaryGroups names the groups of canaryRuns for EvaluateCanary.
func canaryGroups(base, cand []Run) schemas.Canary {
	names := func(rs []Run) []string {
		var out []string
		for _, r := range rs {
			out = append(out, strings.TrimPrefix(r.Summary.RunID, "run "))
		}
		return out
	}
	return schemas.Canary{Run: "run", Candidate: schemas.CanaryGroup{Selectors: []string{"replica=canary-*"}, Replicas: names(cand)},
		Baseline: schemas.CanaryGroup{Replicas: names(base)}}
}

// canaryCriteria judges the criteria canaryRuns has data for: no latencies.
func canaryCriteria() schemas.Criteria {
	c := schemas.DefaultCriteria()
	c.Off = []string{TTFT, TPOT}
	return c
}

// TestPairedSpreadIdenticalSides: two sides with the same windows differ by
// nothing in any resample: the paired standard error is exactly 0, while
// each side alone spreads.
func TestPairedSpreadIdenticalSides(t *testing.T) {
	base, _ := canaryRuns(1, 1, 40, 0, 0.3, 0.05, 1)
	sd := sides(selectRuns(base, canaryCriteria()), false)
	d, sb, sc, ok := pairedSpread(context.Background(), sd, sd, ratioOf(sumBacklogTPS, sumBacklogWindows), math.Log, 500, [2]uint64{1, 2})
	if !ok {
		t.Fatal("not paired")
	}
	if d.se != 0 {
		t.Errorf("paired standard error %v, want 0", d.se)
	}
	if sb.se <= 0 || sb.se != sc.se {
		t.Errorf("each side's standard error %v and %v, want the same, above 0", sb.se, sc.se)
	}
	if d.df < 1 {
		t.Errorf("degrees of freedom %v", d.df)
	}
}

// TestPairedSpreadCancelsSharedTraffic: when the traffic both groups served
// moves their throughput together (±15 % from window to window) and each
// replica's own noise is 2 %, the paired interval is several times
// narrower than the sides' apart.
func TestPairedSpreadCancelsSharedTraffic(t *testing.T) {
	base, cand := canaryRuns(3, 1, 60, 0, 0.3, 0.02, 2)
	c := canaryCriteria()
	v, err := EvaluateCanary(context.Background(), base, cand, c, canaryGroups(base, cand))
	if err != nil {
		t.Fatal(err)
	}
	thr := verdictOf(v, Throughput)
	r := thr.Resampling
	if r == nil || !r.Paired {
		t.Fatalf("throughput resampling %+v, want paired", r)
	}
	if r.StandardError*4 > r.UnpairedStandardError {
		t.Errorf("paired standard error %.4f, unpaired %.4f: want the pairing to narrow it more than 4 times", r.StandardError, r.UnpairedStandardError)
	}
	if v.Bootstrap.Method != CanaryMethod || v.Canary == nil || v.Canary.Windows != 60 {
		t.Errorf("bootstrap %q, canary %+v", v.Bootstrap.Method, v.Canary)
	}
	if v.Baseline != "run: vllm-0, vllm-1, vllm-2" || v.Candidate != "run: canary-0" {
		t.Errorf("sides named %q and %q", v.Baseline, v.Candidate)
	}
	if thr.Title != "Throughput per replica improves" {
		t.Errorf("title %q", thr.Title)
	}
}

// TestCanaryRates: over 200 seeds of shared traffic (±15 %) and 3 % noise
// of each replica's own, an unchanged canary gets an overall PASS or FAIL in
// at most 5 % of them (a claim any criterion makes: throughput's PASS or
// FAIL, another's FAIL), and a canary with 8 % more throughput per replica
// is found (throughput PASS) in at least 95 %; compared as two runs of
// different traffic would be, apart, it is found in far fewer.
func TestCanaryRates(t *testing.T) {
	if testing.Short() {
		t.Skip("200 canaries")
	}
	const seeds = 200
	c := canaryCriteria()
	c.Resamples = 500
	var alarms, found, foundApart int
	for s := range uint64(seeds) {
		base, cand := canaryRuns(3, 1, 60, 0, 0.3, 0.03, 1000+s)
		v, err := EvaluateCanary(context.Background(), base, cand, c, canaryGroups(base, cand))
		if err != nil {
			t.Fatal(err)
		}
		if v.Overall != schemas.Inconclusive {
			alarms++
		}
		base, cand = canaryRuns(3, 1, 60, 0.08, 0.3, 0.03, 1000+s)
		v, err = EvaluateCanary(context.Background(), base, cand, c, canaryGroups(base, cand))
		if err != nil {
			t.Fatal(err)
		}
		if verdictOf(v, Throughput).Verdict == schemas.Pass {
			found++
		}
		_, other := canaryRuns(3, 1, 60, 0.08, 0.3, 0.03, 5000+s)
		apart, err := EvaluateRuns(context.Background(), base, other, c)
		if err != nil {
			t.Fatal(err)
		}
		if verdictOf(apart, Throughput).Verdict == schemas.Pass {
			foundApart++
		}
	}
	t.Logf("unchanged: %d of %d alarmed; +8 %%: found in %d paired, %d apart", alarms, seeds, found, foundApart)
	if alarms > seeds*5/100 {
		t.Errorf("an unchanged canary alarmed in %d of %d seeds, want at most 5 %%", alarms, seeds)
	}
	if found < seeds*95/100 {
		t.Errorf("+8 %% throughput found in %d of %d seeds, want at least 95 %%", found, seeds)
	}
	if foundApart*2 > found {
		t.Errorf("apart, +8 %% was found in %d seeds, paired in %d: want the pairing to find it at least twice as often", foundApart, found)
	}
}

// TestCanaryTrafficGuard: a canary that got half the requests of its peers
// is INCONCLUSIVE, the guard naming the imbalance; one of too few requests
// is named.
func TestCanaryTrafficGuard(t *testing.T) {
	base, cand := canaryRuns(3, 1, 30, 0, 0.3, 0.02, 3)
	setCounts(&cand[0], 300, 298, 303, 3, 9)
	cand[0].Summary.OfferedRate = f(1)
	v, err := EvaluateCanary(context.Background(), base, cand, canaryCriteria(), canaryGroups(base, cand))
	if err != nil {
		t.Fatal(err)
	}
	want := "the balancer did not give the groups comparable traffic: requests per replica 600 vs 300 (the canary's 50.0 % of its peers'), offered load per replica 2/s vs 1/s (−50 %); baseline vs canary, limit ±20 %"
	if v.Overall != schemas.Inconclusive || len(v.Guards) != 1 || v.Guards[0] != want {
		t.Fatalf("overall %s, guards %q, want INCONCLUSIVE and %q", v.Overall, v.Guards, want)
	}
	for _, cr := range v.Criteria {
		// A criterion undecided on its own keeps its own reason.
		if cr.Verdict != schemas.Inconclusive || cr.Name != Throughput && !strings.Contains(cr.Reason, want) {
			t.Errorf("%s: %s %q", cr.Name, cr.Verdict, cr.Reason)
		}
	}
	if v.Canary.Candidate.Requests != 300 || v.Canary.Baseline.Requests != 1800 || v.Canary.Baseline.RequestsPerReplica != 600 {
		t.Errorf("requests %+v", v.Canary)
	}

	base, cand = canaryRuns(3, 1, 30, 0, 0.3, 0.02, 4)
	for i := range base {
		setCounts(&base[i], 150, 150, 150, 0, uint64(i))
	}
	for i := range cand {
		setCounts(&cand[i], 150, 150, 150, 0, 7)
	}
	v, err = EvaluateCanary(context.Background(), base, cand, canaryCriteria(), canaryGroups(base, cand))
	if err != nil {
		t.Fatal(err)
	}
	want = "too few requests: the canary (canary-0) completed 150 requests; a group needs 200"
	if v.Overall != schemas.Inconclusive || len(v.Guards) != 1 || v.Guards[0] != want {
		t.Errorf("overall %s, guards %q, want INCONCLUSIVE and %q", v.Overall, v.Guards, want)
	}
}

// TestAlignWindows: windows that not every replica has (an automatic
// warm-up cut from one) are left out of all of them, with the requests
// completed in them.
func TestAlignWindows(t *testing.T) {
	base, cand := canaryRuns(2, 1, 10, 0, 0, 0, 5)
	start := base[0].Windows[0].WindowStart
	cand[0].Requests = []schemas.RequestLatency{
		{Released: start.Add(30 * time.Second).UnixMicro(), TTFT: 1, TPOT: 0.01},
		{Released: start.Add(90 * time.Second).UnixMicro(), TTFT: 2, TPOT: 0.02},
	}
	base[1].Windows = base[1].Windows[1:]
	bsel, csel := selectRuns(base, canaryCriteria()), selectRuns(cand, canaryCriteria())
	if n := alignWindows(bsel, csel); n != 9 {
		t.Fatalf("%d common windows, want 9", n)
	}
	for _, s := range append(bsel, csel...) {
		if len(s.windows) != 9 || !s.windows[0].WindowStart.Equal(start.Add(time.Minute)) {
			t.Errorf("%d windows from %v", len(s.windows), s.windows[0].WindowStart)
		}
	}
	if len(csel[0].requests) != 1 || csel[0].requests[0].TTFT != 2 || csel[0].excluded != 1 {
		t.Errorf("requests %+v, excluded %d", csel[0].requests, csel[0].excluded)
	}
	var want int64
	for _, w := range cand[0].Windows[1:] {
		want += w.Requests
	}
	if csel[0].counts.requests != want {
		t.Errorf("requests counted %d, want %d", csel[0].counts.requests, want)
	}
}
