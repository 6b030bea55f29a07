package compare

import (
	"bytes"
	"encoding/json"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tpsreport/tpsreport/schemas"
)

// TestVerdictGolden pins the whole verdict of each hand-made pair:
// testdata/golden/NAME.json. UPDATE_GOLDEN=1 rewrites them; read the diff.
func TestVerdictGolden(t *testing.T) {
	for _, fx := range verdictFixtures() {
		t.Run(fx.name, func(t *testing.T) {
			v, err := Evaluate(fx.base, fx.cand, fx.c)
			if err != nil {
				t.Fatal(err)
			}
			got, _ := json.MarshalIndent(v, "", "  ")
			got = append(got, '\n')
			path := filepath.Join("testdata", "golden", fx.name+".json")
			if os.Getenv("UPDATE_GOLDEN") != "" {
				if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(path, got, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (UPDATE_GOLDEN=1 go test ./compare/ writes it)", err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("verdict changed (UPDATE_GOLDEN=1 rewrites it; read the diff):\n got %s\nwant %s", got, want)
			}
		})
	}
}

func TestOfferedLoadGuard(t *testing.T) {
	tests := []struct {
		name           string
		bArr, cArr     *float64 // arrival_rate over the run
		bOff, cOff     *float64 // offered_rate over the arrival span
		want           string   // the guard, "" when none
		allInconlusive bool
	}{
		// The same 1,000 arrivals over 200 s; the candidate drains them in a
		// 150 s run instead of 200 s: its arrival rate over the run is a
		// third higher, its offered rate the same.
		{"drained sooner", f(5), f(6.667), f(5), f(5), "", false},
		{"offered rate differs", f(5), f(5), f(5), f(2.4),
			"offered load differs by −52 % (offered rate 5/s baseline, 2.40/s candidate; limit ±20 %)", true},
		// A run analysed before offered_rate existed: both fall back to the arrival rate.
		{"fallback", f(5), f(6.667), f(5), nil,
			"offered load differs by +33 % (arrival rate 5/s baseline, 6.67/s candidate; limit ±20 %)", true},
		{"within the limit", f(5), f(5.9), f(5), f(5.9), "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			base := synth("a", 20, 1000, 0.1, 12, 1)
			cand := synth("b", 20, 1400, 0.1, 0, 2)
			base.Summary.ArrivalRate, cand.Summary.ArrivalRate = tt.bArr, tt.cArr
			base.Summary.OfferedRate, cand.Summary.OfferedRate = tt.bOff, tt.cOff
			v, err := Evaluate(base, cand, schemas.DefaultCriteria())
			if err != nil {
				t.Fatal(err)
			}
			if tt.want == "" {
				if len(v.Guards) != 0 || v.Overall != schemas.Pass {
					t.Errorf("guards %q, overall %s; want none and PASS", v.Guards, v.Overall)
				}
				return
			}
			if len(v.Guards) != 1 || v.Guards[0] != tt.want {
				t.Errorf("guards %q, want [%q]", v.Guards, tt.want)
			}
			for _, c := range v.Criteria {
				if c.Verdict != schemas.Inconclusive || !strings.HasPrefix(c.Reason, "Inconclusive: "+tt.want+"; without this guard: ") {
					t.Errorf("%s: %s %q", c.Name, c.Verdict, c.Reason)
				}
			}
		})
	}
}

func TestTokenMixGuard(t *testing.T) {
	tests := []struct {
		name       string
		bIn, cIn   *float64
		bOut, cOut *float64
		want       string
	}{
		{"same", f(512), f(512), f(200), f(200), ""},
		{"within the limit", f(512), f(600), f(200), f(170), ""}, // +17 %, −15 %
		{"unknown in one run", f(512), nil, f(200), f(200), ""},
		{"input", f(512), f(1024), f(200), f(200),
			"the token mix differs: mean input tokens per request 512 vs 1,024 (+100 %); baseline vs candidate, limit ±20 %"},
		{"output", f(512), f(512), f(200), f(150),
			"the token mix differs: mean output tokens per delivered request 200 vs 150 (−25 %); baseline vs candidate, limit ±20 %"},
		{"both", f(512), f(256), f(200), f(300),
			"the token mix differs: mean input tokens per request 512 vs 256 (−50 %), mean output tokens per delivered request 200 vs 300 (+50 %); baseline vs candidate, limit ±20 %"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			base := synth("a", 20, 1000, 0.1, 12, 1)
			cand := synth("b", 20, 1400, 0.1, 0, 2)
			base.Summary.MeanInputTokens, cand.Summary.MeanInputTokens = tt.bIn, tt.cIn
			base.Summary.MeanOutputTokens, cand.Summary.MeanOutputTokens = tt.bOut, tt.cOut
			v, err := Evaluate(base, cand, schemas.DefaultCriteria())
			if err != nil {
				t.Fatal(err)
			}
			if tt.want == "" {
				if len(v.Guards) != 0 || v.Overall != schemas.Pass {
					t.Errorf("guards %q, overall %s; want none and PASS", v.Guards, v.Overall)
				}
				return
			}
			if len(v.Guards) != 1 || v.Guards[0] != tt.want || v.Overall != schemas.Inconclusive {
				t.Errorf("guards %q overall %s, want [%q] INCONCLUSIVE", v.Guards, v.Overall, tt.want)
			}
			for _, c := range v.Criteria {
				if c.Verdict != schemas.Inconclusive || !strings.HasPrefix(c.Reason, "Inconclusive: "+tt.want+"; without this guard: ") {
					t.Errorf("%s: %s %q", c.Name, c.Verdict, c.Reason)
				}
			}
		})
	}
}

func TestSLOAttainment(t *testing.T) {
	slo := func(ttft, tpot float64) *schemas.SLO { return &schemas.SLO{TTFT: f(ttft), TPOT: f(tpot)} }
	// Seven criteria with the SLO's, each held to 0.05/7; SLO attainment
	// alarms only by failing, in one tail: 1 − 2·0.05/7 = 98.57 % intervals.
	const fell = "SLO attainment fell from 95.00 % to 90.00 % (−5.00 pp; 98.57 % interval −"
	tests := []struct {
		name       string
		bSLO, cSLO *schemas.SLO
		bMet, cMet int64  // of 1,000 completed requests each; −1: not recorded
		verdict    string // of slo_attainment; "" when the criterion is absent
		reason     string // its start
		guard      string
	}{
		{"no SLO", nil, nil, -1, -1, "", "", ""},
		{"same SLO, within tolerance", slo(2, 0.08), slo(2, 0.08), 950, 945, schemas.Pass,
			"SLO attainment 95.00 % → 94.50 % (−0.50 pp), within the 1 pp tolerance or better.", ""},
		// 50 misses of 1,000 against 100, spread at random over 20
		// windows: about 4.5 standard errors.
		{"same SLO, fell", slo(2, 0.08), slo(2, 0.08), 950, 900, schemas.Fail, fell, ""},
		{"same SLO, rose", slo(2, 0.08), slo(2, 0.08), 900, 950, schemas.Pass,
			"SLO attainment 90.00 % → 95.00 % (+5.00 pp), within the 1 pp tolerance or better.", ""},
		{"different SLOs", slo(2, 0.08), slo(1, 0.08), 950, 900, schemas.Inconclusive,
			"Inconclusive: the runs were analysed with different SLOs (baseline ttft=2s,tpot=80ms, candidate ttft=1s,tpot=80ms): analyse both with the same --slo; " +
				"without this guard: SLO attainment fell from 95.00 % to 90.00 % (−5.00 pp; 98.57 % interval −",
			"the runs were analysed with different SLOs (baseline ttft=2s,tpot=80ms, candidate ttft=1s,tpot=80ms): analyse both with the same --slo"},
		{"only the baseline has one", slo(2, 0.08), nil, 950, -1, schemas.Inconclusive,
			"Inconclusive: the runs were analysed with different SLOs (baseline ttft=2s,tpot=80ms, candidate none): analyse both with the same --slo.",
			"the runs were analysed with different SLOs (baseline ttft=2s,tpot=80ms, candidate none): analyse both with the same --slo"},
		{"slo_met missing", slo(2, 0.08), slo(2, 0.08), 950, -1, schemas.Inconclusive,
			"slo_met was not recorded for every window of one of the runs: analyse both again with --slo.", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			base := synth("a", 20, 1000, 0.1, 12, 1)
			cand := synth("b", 20, 1400, 0.1, 0, 2)
			setCounts(&base, 1000, 1000, 1010, 10, 1)
			setCounts(&cand, 1000, 1000, 1010, 10, 2)
			base.Summary.SLO, cand.Summary.SLO = tt.bSLO, tt.cSLO
			setSLOMet(&base, tt.bMet, 3)
			setSLOMet(&cand, tt.cMet, 4)
			v, err := Evaluate(base, cand, schemas.DefaultCriteria())
			if err != nil {
				t.Fatal(err)
			}
			c := verdictOf(v, SLOAttainment)
			if c.Verdict != tt.verdict || !strings.HasPrefix(c.Reason, tt.reason) {
				t.Errorf("got %s %q\nwant %s %q…", c.Verdict, c.Reason, tt.verdict, tt.reason)
			}
			wantGuards := []string{}
			if tt.guard != "" {
				wantGuards = append(wantGuards, tt.guard)
			}
			if strings.Join(v.Guards, "|") != strings.Join(wantGuards, "|") {
				t.Errorf("guards %q, want %q", v.Guards, wantGuards)
			}
			// The SLO guard touches no other criterion.
			for _, o := range v.Criteria {
				if o.Name != SLOAttainment && o.Verdict != schemas.Pass {
					t.Errorf("%s: %s %q, want PASS", o.Name, o.Verdict, o.Reason)
				}
			}
		})
	}
}

// setSLOMet spreads met requests within the SLO over a run's windows, the
// misses falling in windows drawn from seed, and sets the summary's total;
// a negative met leaves slo_met unrecorded.
func setSLOMet(r *Run, met int64, seed uint64) {
	if met < 0 {
		r.Summary.SLOMet = nil
		for i := range r.Windows {
			r.Windows[i].SLOMet = nil
		}
		return
	}
	rng := rand.New(rand.NewPCG(seed, 23))
	for i := range r.Windows {
		r.Windows[i].SLOMet = i64(r.Windows[i].Requests)
	}
	for range r.Summary.Requests - met {
		for {
			w := &r.Windows[rng.IntN(len(r.Windows))]
			if *w.SLOMet > 0 {
				*w.SLOMet--
				break
			}
		}
	}
	r.Summary.SLOMet = &met
}

func TestDeterministicWithEverything(t *testing.T) {
	base := synth("a", 25, 1000, 0.3, 5, 1)
	cand := synth("b", 25, 1100, 0.3, 4, 2)
	cand.Requests = scaled(cand.Requests, 1.3, 1.1)
	for _, r := range []*Run{&base, &cand} {
		r.Summary.SLO, r.Summary.SLOMet = &schemas.SLO{E2E: f(30)}, i64(990)
		r.Summary.RunStart, r.Summary.RunEnd = r.Windows[0].WindowStart, r.Windows[24].WindowStart.Add(60e9)
	}
	c := schemas.DefaultCriteria()
	c.Warmup, c.Cooldown = 120, 60
	var outs []string
	for range 3 {
		v, err := Evaluate(base, cand, c)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := json.Marshal(v)
		outs = append(outs, string(b))
	}
	if outs[0] != outs[1] || outs[1] != outs[2] {
		t.Error("evaluations of the same inputs differ")
	}
}

// scaled copies requests with TTFT and TPOT multiplied.
func scaled(rs []schemas.RequestLatency, ttft, tpot float64) []schemas.RequestLatency {
	out := make([]schemas.RequestLatency, len(rs))
	for i, r := range rs {
		// NaN, an unknown latency, stays NaN.
		out[i] = schemas.RequestLatency{Released: r.Released, TTFT: r.TTFT * ttft, TPOT: r.TPOT * tpot, E2E: math.NaN()}
	}
	return out
}
