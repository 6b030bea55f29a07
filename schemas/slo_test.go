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
