package schemas

import (
	"math"
	"reflect"
	"testing"
)

func TestParseSLO(t *testing.T) {
	f := func(v float64) *float64 { return &v }
	for _, tc := range []struct {
		in   string
		want *SLO
		err  string
	}{
		{"ttft=2s,tpot=80ms,e2e=60s", &SLO{TTFT: f(2), TPOT: f(0.08), E2E: f(60)}, ""},
		{"ttft:500 tpot:50 e2el:1000", &SLO{TTFT: f(0.5), TPOT: f(0.05), E2E: f(1)}, ""}, // vLLM's --goodput, ms
		{"tpot=1.5ms", &SLO{TPOT: f(0.0015)}, ""},
		{"", nil, "want one or more of ttft, tpot, e2e, such as ttft=2s,tpot=80ms"},
		{"itl=5ms", nil, `unknown key "itl": want ttft, tpot or e2e`},
		{"ttft=2s,ttft=3s", nil, "ttft given twice"},
		{"ttft=soon", nil, `ttft "soon": want a duration such as 2s or 80ms, or a number of milliseconds`},
		{"e2e=-1s", nil, `e2e "-1s": want a positive bound`},
		{"ttft", nil, `"ttft": want KEY=VALUE, such as ttft=2s`},
	} {
		got, err := ParseSLO(tc.in)
		if tc.err != "" {
			if err == nil || err.Error() != tc.err {
				t.Errorf("ParseSLO(%q) error %v, want %q", tc.in, err, tc.err)
			}
			continue
		}
		if err != nil || !reflect.DeepEqual(got, tc.want) {
			t.Errorf("ParseSLO(%q) = %+v, %v; want %+v", tc.in, got, err, tc.want)
		}
	}
}

// FuzzParseSLO: any --slo text gives bounds that are positive and finite,
// or an error; it never panics.
func FuzzParseSLO(f *testing.F) {
	for _, s := range []string{"ttft=2s,tpot=80ms,e2e=60s", "ttft:500 tpot:50 e2el:1000", "", "ttft", "e2e=-1s", "tpot=NaN", "ttft=1e400"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		slo, err := ParseSLO(s)
		if err != nil {
			return
		}
		for _, b := range []*float64{slo.TTFT, slo.TPOT, slo.E2E} {
			if b != nil && (!(*b > 0) || math.IsInf(*b, 0)) {
				t.Fatalf("ParseSLO(%q): bound %v", s, *b)
			}
		}
	})
}

// TestSLOMet: bounds are inclusive to the microsecond for TTFT and e2e; an
// unknown TTFT or e2e misses its bound, an unknown TPOT (one output token)
// meets it; a bound that is not part of the SLO is not checked.
func TestSLOMet(t *testing.T) {
	f := func(v float64) *float64 { return &v }
	nan := math.NaN()
	slo := SLO{TTFT: f(0.3), TPOT: f(0.05), E2E: f(10)}
	for _, tc := range []struct {
		r    RequestLatency
		want bool
	}{
		{RequestLatency{TTFT: 0.3, TPOT: 0.05, E2E: 10}, true},
		{RequestLatency{TTFT: 0.1 + 0.2, TPOT: 0.01, E2E: 9}, true}, // 0.30000000000000004 is 300,000 µs
		{RequestLatency{TTFT: 0.300001, TPOT: 0.01, E2E: 9}, false},
		{RequestLatency{TTFT: 0.2, TPOT: 0.0500001, E2E: 9}, false},
		{RequestLatency{TTFT: 0.2, TPOT: nan, E2E: 9}, true},
		{RequestLatency{TTFT: nan, TPOT: 0.01, E2E: 9}, false},
		{RequestLatency{TTFT: 0.2, TPOT: 0.01, E2E: nan}, false},
		{RequestLatency{TTFT: 0.2, TPOT: 0.01, E2E: 10.000001}, false},
	} {
		if got := slo.Met(tc.r); got != tc.want {
			t.Errorf("Met(%v, %v, %v) = %v, want %v", tc.r.TTFT, tc.r.TPOT, tc.r.E2E, got, tc.want)
		}
	}
	if !(SLO{E2E: f(1)}).Met(RequestLatency{E2E: 1}) {
		t.Error("an SLO of e2e alone checks TTFT")
	}
}
