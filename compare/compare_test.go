package compare

import (
	"encoding/json"
	"errors"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tpsreport/tpsreport/schemas"
)

func f(v float64) *float64 { return &v }

// synth builds a run of n 60 s windows whose retry-adjusted TPS is tps·(1 ± noise),
// with backlog in every window and the given gap_time per window; 1,000
// requests completed, 999 of them delivered, and 1,010 attempts, 10 of them
// retries, spread over the windows.
func synth(id string, n int, tps, noise, gap float64, seed uint64) Run {
	r := rand.New(rand.NewPCG(seed, 9))
	start := time.Date(2026, 11, 20, 10, 0, 0, 0, time.UTC)
	var ws []schemas.Metrics
	for i := range n {
		v := tps * (1 + noise*(2*r.Float64()-1))
		ws = append(ws, schemas.Metrics{
			WindowStart: start.Add(time.Duration(i) * time.Minute), WindowSeconds: 60,
			RetryAdjustedSystemTPS: f(v), BacklogTime: 30, GapTime: gap,
		})
	}
	run := Run{Summary: schemas.Summary{RunID: id}, Windows: ws, Requests: steadyRequests(start, n)}
	run.Summary.ArrivalRate = f(5)
	run.Summary.DataQuality.Models = []string{"llama"}
	setCounts(&run, 1000, 999, 1010, 10, seed)
	return run
}

// setCounts spreads a run's completed requests (of them succeeded) and
// its attempts (of them retries) over its windows, and sets its summary's
// totals to match, as analyze writes them. The requests and attempts are
// spread evenly; the failures and the retries fall in windows drawn at
// random from seed, so that they vary from window to window as real ones
// do.
func setCounts(r *Run, requests, succeeded, attempts, retries int64, seed uint64) {
	n := int64(len(r.Windows))
	rng := rand.New(rand.NewPCG(seed, 17))
	for i := range r.Windows {
		w := &r.Windows[i]
		w.Requests = requests / n
		if int64(i) < requests%n {
			w.Requests++
		}
		w.SucceededRequests = w.Requests
		w.Attempts = attempts / n
		if int64(i) < attempts%n {
			w.Attempts++
		}
		w.RetryAttempts = 0
	}
	for range requests - succeeded {
		for {
			w := &r.Windows[rng.IntN(int(n))]
			if w.SucceededRequests > 0 {
				w.SucceededRequests--
				break
			}
		}
	}
	for range retries {
		for {
			w := &r.Windows[rng.IntN(int(n))]
			if w.RetryAttempts < w.Attempts {
				w.RetryAttempts++
				break
			}
		}
	}
	r.Summary.Requests, r.Summary.SucceededRequests = requests, succeeded
	r.Summary.Attempts, r.Summary.RetryAttempts = attempts, retries
}

// steadyRequests are 500 delivered requests spread over n minutes from
// start, with the same latencies in every run: the latency criteria pass
// with ratio 1.
func steadyRequests(start time.Time, n int) []schemas.RequestLatency {
	out := make([]schemas.RequestLatency, 500)
	for i := range out {
		out[i] = schemas.RequestLatency{
			Released: start.UnixMicro() + int64(i)*int64(n)*60_000_000/500,
			TTFT:     0.5 + float64(i*37%100)/100,
			TPOT:     0.02 + float64(i*53%100)/10000,
			E2E:      math.NaN(),
		}
	}
	return out
}

func verdictOf(v schemas.Verdict, name string) schemas.Criterion {
	for _, c := range v.Criteria {
		if c.Name == name {
			return c
		}
	}
	return schemas.Criterion{}
}

func TestStallRemoved(t *testing.T) {
	base := synth("stall", 20, 1000, 0.1, 12, 1)
	cand := synth("fixed", 20, 1400, 0.1, 0, 2)
	v, err := Evaluate(base, cand, schemas.DefaultCriteria())
	if err != nil {
		t.Fatal(err)
	}
	if c := verdictOf(v, Throughput); c.Verdict != schemas.Pass || *c.Lo <= 1 {
		t.Errorf("throughput: got %s (lo %v), want PASS with lo > 1: %s", c.Verdict, *c.Lo, c.Reason)
	}
	if c := verdictOf(v, GapFraction); c.Verdict != schemas.Pass || math.Abs(*c.Baseline-0.2) > 1e-12 || *c.Candidate != 0 {
		t.Errorf("gap_fraction: got %s %v→%v, want PASS 0.2→0", c.Verdict, *c.Baseline, *c.Candidate)
	}
	if v.Overall != schemas.Pass {
		t.Errorf("overall %s, want PASS", v.Overall)
	}
	if v.Bootstrap.Resamples != 2000 || v.Bootstrap.BaselineWindows != 20 {
		t.Errorf("bootstrap %+v", v.Bootstrap)
	}
}

func TestIdenticalIsNeverPass(t *testing.T) {
	base := synth("a", 30, 1000, 0.2, 3, 1)
	v, err := Evaluate(base, base, schemas.DefaultCriteria())
	if err != nil {
		t.Fatal(err)
	}
	c := verdictOf(v, Throughput)
	if c.Verdict != schemas.Inconclusive || *c.Ratio != 1 || !(*c.Lo < 1 && *c.Hi > 1) {
		t.Errorf("throughput of identical runs: %s ratio %v [%v, %v]; want INCONCLUSIVE, 1, lo<1<hi", c.Verdict, *c.Ratio, *c.Lo, *c.Hi)
	}
	if g := verdictOf(v, GapFraction); g.Verdict != schemas.Inconclusive {
		t.Errorf("gap_fraction of identical runs: %s, want INCONCLUSIVE", g.Verdict)
	}
	if v.Overall != schemas.Inconclusive {
		t.Errorf("overall %s, want INCONCLUSIVE", v.Overall)
	}
}

func TestSlowerFails(t *testing.T) {
	v, _ := Evaluate(synth("a", 20, 1000, 0.05, 0, 1), synth("b", 20, 700, 0.05, 0, 2), schemas.DefaultCriteria())
	if c := verdictOf(v, Throughput); c.Verdict != schemas.Fail {
		t.Errorf("throughput: %s, want FAIL: %s", c.Verdict, c.Reason)
	}
	if v.Overall != schemas.Fail {
		t.Errorf("overall %s, want FAIL", v.Overall)
	}
}

func TestSuccessRateFail(t *testing.T) {
	base := synth("a", 20, 1000, 0.05, 0, 1)
	cand := synth("b", 20, 1000, 0.05, 0, 2)
	setCounts(&base, 2000, 1800, 2000, 0, 1)
	setCounts(&cand, 2000, 1600, 2000, 0, 2)
	v, _ := Evaluate(base, cand, schemas.DefaultCriteria())
	c := verdictOf(v, SuccessRate)
	if c.Verdict != schemas.Fail || math.Abs(*c.Diff+0.1) > 1e-12 || !(*c.Hi < 0) {
		t.Errorf("success_rate 90 %% → 80 %%: %s diff=%v interval %v–%v, want FAIL, −0.1, wholly below 0: %s", c.Verdict, *c.Diff, *c.Lo, *c.Hi, c.Reason)
	}
	if v.Overall != schemas.Fail {
		t.Errorf("overall %s, want FAIL", v.Overall)
	}
	// The same drop over two windows of ten requests each cannot be told
	// from noise: one degree of freedom, an interval reaching 0.
	base, cand = synth("a", 2, 1000, 0.05, 0, 1), synth("b", 2, 1000, 0.05, 0, 2)
	setCounts(&base, 20, 18, 20, 0, 1)
	setCounts(&cand, 20, 16, 20, 0, 2)
	v, _ = Evaluate(base, cand, schemas.DefaultCriteria())
	if c := verdictOf(v, SuccessRate); c.Verdict != schemas.Pass || !strings.Contains(c.Reason, "not significantly lower") {
		t.Errorf("18/20 → 16/20 over two windows: %s %q, want PASS, not significantly lower", c.Verdict, c.Reason)
	}
	// Over one window a side there is no spread to measure at all.
	base, cand = synth("a", 1, 1000, 0.05, 0, 1), synth("b", 1, 1000, 0.05, 0, 2)
	setCounts(&base, 20, 18, 20, 0, 1)
	setCounts(&cand, 20, 16, 20, 0, 2)
	v, _ = Evaluate(base, cand, schemas.DefaultCriteria())
	const open = "Success rate 90.00 % → 80.0 % (−10.00 pp), but the runs hold too few windows (fewer than two independent blocks a side) to tell any change from noise."
	if c := verdictOf(v, SuccessRate); c.Verdict != schemas.Pass || c.Lo != nil || c.MDE != nil || c.Reason != open {
		t.Errorf("one window a side: %s %q (lo %v), want PASS %q without an interval", c.Verdict, c.Reason, ptr(c.Lo), open)
	}
}

func TestRetryRateFail(t *testing.T) {
	base := synth("a", 20, 1000, 0.05, 0, 1)
	cand := synth("b", 20, 1000, 0.05, 0, 1)
	setCounts(&cand, 1000, 999, 1100, 100, 3)
	v, _ := Evaluate(base, cand, schemas.DefaultCriteria())
	if c := verdictOf(v, RetryRate); c.Verdict != schemas.Fail {
		t.Errorf("retry_rate: %s, want FAIL: %s", c.Verdict, c.Reason)
	}
}

func TestLoadMismatchGuard(t *testing.T) {
	base := synth("a", 20, 1000, 0.1, 12, 1)
	cand := synth("b", 20, 1400, 0.1, 0, 2)
	cand.Summary.ArrivalRate = f(2.4) // under half the offered load
	v, _ := Evaluate(base, cand, schemas.DefaultCriteria())
	if v.Overall != schemas.Inconclusive {
		t.Errorf("overall %s, want INCONCLUSIVE", v.Overall)
	}
	for _, c := range v.Criteria {
		if c.Verdict != schemas.Inconclusive || !strings.Contains(c.Reason, "offered load differs by −52 % (arrival rate 5/s baseline, 2.40/s candidate; limit ±20 %)") {
			t.Errorf("%s: %s %q, want INCONCLUSIVE naming the load mismatch", c.Name, c.Verdict, c.Reason)
		}
	}
}

func TestTooFewBacklogWindows(t *testing.T) {
	// Four windows against twenty, the candidate 40 % faster: the
	// interval would decide it, the guard does not let it.
	v, _ := Evaluate(synth("a", 4, 1000, 0.01, 12, 1), synth("b", 20, 1400, 0.01, 0, 2), schemas.DefaultCriteria())
	const guard = "too few backlog windows (baseline 4, candidate 20; need 5)"
	if c := verdictOf(v, Throughput); c.Verdict != schemas.Inconclusive || !strings.Contains(c.Reason, "Inconclusive: "+guard+"; without this guard: delivered throughput under backlog rose") {
		t.Errorf("throughput: %s %q", c.Verdict, c.Reason)
	}
	if strings.Join(v.Guards, "|") != guard {
		t.Errorf("guards %q, want %q", v.Guards, guard)
	}
}

func TestModelMismatch(t *testing.T) {
	base := synth("a", 20, 1000, 0.1, 12, 1)
	cand := synth("b", 20, 1000, 0.1, 12, 1)
	cand.Summary.DataQuality.Models = []string{"qwen"}
	if _, err := Evaluate(base, cand, schemas.DefaultCriteria()); !errors.Is(err, ErrModelMismatch) {
		t.Errorf("got %v, want ErrModelMismatch", err)
	}
	c := schemas.DefaultCriteria()
	c.AllowModelMismatch = true
	v, err := Evaluate(base, cand, c)
	if err != nil || len(v.Notes) != 1 || !strings.HasPrefix(v.Notes[0], "model mismatch allowed: ") || len(v.Guards) != 0 {
		t.Errorf("allowed: err %v notes %q guards %q", err, v.Notes, v.Guards)
	}
}

func TestGapFloor(t *testing.T) {
	// 0.3 s of 60 s = 0.5 % and 0.5 s = 0.83 %: both under the 1 % floor.
	v, _ := Evaluate(synth("a", 20, 1000, 0.1, 0.3, 1), synth("b", 20, 1000, 0.1, 0.5, 2), schemas.DefaultCriteria())
	if c := verdictOf(v, GapFraction); c.Verdict != schemas.Pass || !strings.Contains(c.Reason, "floor") {
		t.Errorf("gap under the floor: %s %q", c.Verdict, c.Reason)
	}
	v, _ = Evaluate(synth("a", 20, 1000, 0.1, 3, 1), synth("b", 20, 1000, 0.1, 6, 2), schemas.DefaultCriteria())
	if c := verdictOf(v, GapFraction); c.Verdict != schemas.Fail {
		t.Errorf("gap 5%% → 10%%: %s, want FAIL", c.Verdict)
	}
}

func TestDeterministic(t *testing.T) {
	base := synth("a", 25, 1000, 0.3, 5, 1)
	cand := synth("b", 25, 1100, 0.3, 4, 2)
	var outs []string
	for range 2 {
		v, err := Evaluate(base, cand, schemas.DefaultCriteria())
		if err != nil {
			t.Fatal(err)
		}
		b, _ := json.Marshal(v)
		outs = append(outs, string(b))
	}
	if outs[0] != outs[1] {
		t.Error("two evaluations of the same inputs differ")
	}
}

func TestFormat(t *testing.T) {
	tests := []struct{ got, want string }{
		{pct(0.011), "1.10 %"},
		{pct(0.9999972), "99.9997 %"}, // visibly below 100 %
		{pct(1), "100 %"},
		{pct(0), "0 %"},
		{pct(0.00004), "0.00400 %"}, // visibly above 0 %
		{pct(-0.00001), "−0.00100 %"},
		{pp(-0.0026), "−0.26 pp"},
		{pp(0.0025), "+0.25 pp"},
		{pp(-0.3211), "−32.1 pp"},
		{pp(0.0000004), "0 pp"},       // below the digits shown: no sign
		{pp(-0.00001), "−0.00100 pp"}, // three significant digits, as the report
		{rel(0.277), "27.7 %"},
		{num(24690), "24,690"},
		{num(5.125), "5.12"},
		{num(2.4), "2.40"},
		{num(0.0001234), "0.000123"},
		{num(-3.5), "−3.50"},
		{ppRange(-0.029, 0.0005), "−2.90 to +0.05 pp"},
		{ratio(0.00643), "0.00643"}, {ratio(1.1523), "1.152"},
		{latencyPair(106.5, 0.6343), "106 s → 634 ms"}, {latencyChange(-4e-7), "0.00 %"}, {latencyChange(0.842), "+84.2 %"},
		{times(3.96), "4"},
		{times(15.2), "16"},
		{seconds(60), "60 s"},
		{moved(0.723), "fell 27.7 %"},
		{moved(1.004), "rose only 0.40 %"},
	}
	for _, tt := range tests {
		if tt.got != tt.want {
			t.Errorf("got %q, want %q", tt.got, tt.want)
		}
	}
}

// TestReasons pins the reason sentences: baseline before candidate, one
// minus sign, no exponent, and words that fit the case.
func TestReasons(t *testing.T) {
	tests := []struct {
		name       string
		base, cand Run
		criterion  string
		verdict    string
		want       string
	}{
		{"throughput fell", synth("a", 20, 1000, 0.05, 0, 1), synth("b", 20, 723, 0.05, 0, 2), Throughput, schemas.Fail,
			"Delivered throughput under backlog fell "},
		{"retry rate fell", synth("a", 20, 1000, 0.05, 0, 1), func() Run {
			r := synth("b", 20, 1000, 0.05, 0, 1)
			// 1010 attempts, 10 retries → 1000 attempts, 9 retries: 0.990 % → 0.900 %.
			setCounts(&r, 1000, 999, 1000, 9, 1)
			return r
		}(), RetryRate, schemas.Pass,
			"Retry rate 0.99 % → 0.90 % (−0.09 pp), within the 0.1 pp tolerance or lower."},
		{"retry rate rose while throughput fell", synth("a", 20, 1000, 0.05, 0, 1), func() Run {
			r := synth("b", 20, 700, 0.05, 0, 2)
			setCounts(&r, 1000, 999, 1100, 100, 2)
			return r
		}(), RetryRate, schemas.Fail,
			// Six criteria, each held to 0.05/6; the retry rate alarms only by
			// failing, in one tail of its interval: 1 − 2·0.05/6 = 98.33 %.
			"Retry rate rose from 0.99 % to 9.09 % (+8.10 pp; 98.33 % interval +"},
		{"success rate", func() Run {
			r := synth("a", 20, 1000, 0.05, 0, 1)
			setCounts(&r, 2000, 1800, 2000, 0, 1)
			return r
		}(), func() Run {
			r := synth("b", 20, 1000, 0.05, 0, 1)
			setCounts(&r, 2000, 1600, 2000, 0, 2)
			return r
		}(), SuccessRate, schemas.Fail,
			"Success rate fell from 90.00 % to 80.0 % (−10.00 pp; 98.33 % interval −"},
		{"gap zero in both", synth("a", 20, 1000, 0.1, 0, 1), synth("b", 20, 1000, 0.1, 0, 2), GapFraction, schemas.Pass,
			"Neither run had free slots while requests waited (gap_fraction 0 % in both): there was no idle time left to remove, and both are under the 1 % floor."},
		{"gap under the floor", synth("a", 20, 1000, 0.1, 0.3, 1), synth("b", 20, 1000, 0.1, 0.5, 2), GapFraction, schemas.Pass,
			"Both runs are under the 1 % floor (0.50 % → 0.83 %): there was no idle time left to remove."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v, err := Evaluate(tt.base, tt.cand, schemas.DefaultCriteria())
			if err != nil {
				t.Fatal(err)
			}
			c := verdictOf(v, tt.criterion)
			if c.Verdict != tt.verdict || !strings.HasPrefix(c.Reason, tt.want) {
				t.Errorf("got %s %q, want %s %q", c.Verdict, c.Reason, tt.verdict, tt.want)
			}
			for _, bad := range []string{"e+", "e-0", "-", "unstable", "p = 0 "} {
				if strings.Contains(strings.ReplaceAll(c.Reason, "retry_rate", ""), bad) {
					t.Errorf("reason holds %q: %s", bad, c.Reason)
				}
			}
		})
	}
}

func TestWindowWidthGuard(t *testing.T) {
	base := synth("a", 20, 1000, 0.1, 12, 1)
	cand := synth("b", 20, 1400, 0.1, 0, 2)
	base.Summary.WindowWidth, cand.Summary.WindowWidth = 60, 10
	v, err := Evaluate(base, cand, schemas.DefaultCriteria())
	if err != nil {
		t.Fatal(err)
	}
	const want = "Inconclusive: the runs were analysed with different window widths (baseline 60 s, candidate 10 s): analyse both with the same --window; without this guard: "
	for _, c := range v.Criteria {
		if c.Verdict != schemas.Inconclusive || !strings.HasPrefix(c.Reason, want) {
			t.Errorf("%s: %s %q, want INCONCLUSIVE starting %q", c.Name, c.Verdict, c.Reason, want)
		}
	}
	if v.Overall != schemas.Inconclusive || len(v.Guards) != 1 {
		t.Errorf("overall %s, guards %q; want INCONCLUSIVE and one guard", v.Overall, v.Guards)
	}
	// Equal widths, or a width unknown in one run, fire no guard.
	cand.Summary.WindowWidth = 60
	if v, _ := Evaluate(base, cand, schemas.DefaultCriteria()); len(v.Guards) != 0 {
		t.Errorf("same widths: guards %q", v.Guards)
	}
}

func TestLoadCriteria(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "acceptance.yaml")
	os.WriteFile(p, []byte("min_improvement: 0.05\nresamples: 500\n"), 0o644)
	c, err := LoadCriteria(p)
	if err != nil || c.MinImprovement != 0.05 || c.Resamples != 500 || c.GapFloor != 0.01 {
		t.Errorf("got %+v, %v", c, err)
	}
	allKeys := "allow_model_mismatch, alpha, confidence, cooldown, gap_floor, gap_tolerance, load_mismatch, min_backlog_windows, min_improvement, resamples, " +
		"retry_tolerance, slo_tolerance, success_tolerance, token_mismatch, tpot_tolerance, ttft_tolerance, warmup; " +
		"criteria, with on or off: throughput, success_rate, gap_fraction, retry_rate, ttft, tpot, slo_attainment"
	tests := []struct {
		name, yaml, want string
	}{
		{"empty", "", ""},
		{"comments only", "# nothing\n", ""},
		{"misspelt key", "resamples: 500\nmin_improvment: 0.05\n",
			"acceptance.yaml:2: unknown key \"min_improvment\" (did you mean min_improvement?); valid keys: " + allKeys},
		{"unknown key", "colour: blue\n", "acceptance.yaml:1: unknown key \"colour\"; valid keys: " + allKeys},
		{"percent string", "min_improvement: 5%\n", `acceptance.yaml:1: min_improvement: want a number such as 0.05, got "5%"`},
		{"fraction int", "resamples: 2000.5\n", `acceptance.yaml:1: resamples: want a whole number such as 2000, got "2000.5"`},
		{"bool", "allow_model_mismatch: maybe\n", `acceptance.yaml:1: allow_model_mismatch: want true or false, got "maybe"`},
		{"list", "alpha:\n  - 0.05\n", `acceptance.yaml:2: alpha: want a number such as 0.05, got a list`},
		{"null", "alpha:\n", `acceptance.yaml:1: alpha: want a number such as 0.05, got nothing`},
		{"out of range", "# strict\nconfidence: 1.5\n", "acceptance.yaml:2: confidence: 1.5: must be at least 0.5 and below 1, such as 0.95 (1 − alpha)"},
		{"negative", "gap_floor: -0.01\n", "acceptance.yaml:1: gap_floor: -0.01: must not be negative"},
		{"twice", "alpha: 0.05\nalpha: 0.01\n", "acceptance.yaml:2: alpha: set twice (first on line 1)"},
		{"not a mapping", "- alpha\n", `acceptance.yaml:1: want keys with values, such as "min_improvement: 0.05", one a line`},
		{"syntax", "alpha: 0.05\n  beta: [\n", "acceptance.yaml:2: not valid YAML: mapping values are not allowed in this context"},
		{"criterion off", "ttft: off\nthroughput: on\n", ""},
		{"criterion maybe", "ttft: maybe\n", `acceptance.yaml:1: ttft: want on or off, got "maybe"`},
		{"criterion bool", "tpot: false\n", `acceptance.yaml:1: tpot: want on or off, got "false"`},
		{"criterion twice", "ttft: off\nttft: on\n", "acceptance.yaml:2: ttft: set twice (first on line 1)"},
		{"misspelt criterion", "tpt: off\n", "acceptance.yaml:1: unknown key \"tpt\" (did you mean tpot?); valid keys: " + allKeys},
		{"warmup unit", "warmup: 2m\ncooldown: 90s\n", ""},
		{"warmup seconds", "warmup: 90.5\n", ""},
		{"warmup auto", "warmup: auto\ncooldown: auto\n", ""},
		{"warmup words", "warmup: two minutes\n", `acceptance.yaml:1: warmup: want a duration such as 2m or 90s, a number of seconds, or auto, got "two minutes"`},
		{"warmup negative", "# warm\nwarmup: -2m\n", "acceptance.yaml:2: warmup: -120: must not be negative"},
		{"cooldown negative", "cooldown: -5\n", "acceptance.yaml:1: cooldown: -5: must not be negative"},
		{"cooldown nan", "cooldown: NaN\n", "acceptance.yaml:1: cooldown: want a duration such as 2m or 90s, a number of seconds, or auto, got \"NaN\""},
		{"tolerance nan", "ttft_tolerance: .nan\n", "acceptance.yaml:1: ttft_tolerance: NaN: must be a finite number"},
		{"tolerance inf", "tpot_tolerance: .inf\n", "acceptance.yaml:1: tpot_tolerance: +Inf: must be a finite number"},
		{"confidence nan", "confidence: .nan\n", "acceptance.yaml:1: confidence: NaN: must be a finite number"},
		{"tolerance negative", "tpot_tolerance: -0.1\n", "acceptance.yaml:1: tpot_tolerance: -0.1: must not be negative"},
		{"token mismatch negative", "token_mismatch: -1\n", "acceptance.yaml:1: token_mismatch: -1: must not be negative"},
		{"slo tolerance above 1", "slo_tolerance: 1.5\n", "acceptance.yaml:1: slo_tolerance: 1.5: must be at most 1 (a fraction: 0.01 is 1 percentage point)"},
		{"slo tolerance percent", "slo_tolerance: 1%\n", `acceptance.yaml:1: slo_tolerance: want a number such as 0.01, got "1%"`},
		{"min improvement -1", "min_improvement: -1\n", "acceptance.yaml:1: min_improvement: -1: must be greater than -1 (a fraction: 0.05 is 5 %)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := parseCriteria("acceptance.yaml", []byte(tt.yaml))
			got := ""
			if err != nil {
				got = err.Error()
				var ce *CriteriaError
				if !errors.As(err, &ce) {
					t.Errorf("error %T, want *CriteriaError", err)
				}
			}
			if got != tt.want {
				t.Errorf("got  %q\nwant %q", got, tt.want)
			}
			for _, leak := range []string{"!!str", "unmarshal", "float64", "schemas.", "not found in type"} {
				if strings.Contains(got, leak) {
					t.Errorf("error leaks Go internals (%q): %s", leak, got)
				}
			}
		})
	}
}
