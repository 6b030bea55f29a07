package ingest

import (
	"fmt"
	"regexp"
	"slices"
	"testing"
)

// statsFieldRE is the grammar sglangStatsFields scans, as a regexp: the
// second implementation it is checked against.
var statsFieldRE = regexp.MustCompile(`(#?[A-Za-z_]+)(?:=|\()(-?[0-9]+(?:\.[0-9]*)?(?:[eE][-+]?[0-9]+)?)(ms|GB/s|MB)?`)

func statsFieldsRE(s string) []string {
	var out []string
	for _, m := range statsFieldRE.FindAllStringSubmatchIndex(s, -1) {
		unit := ""
		if m[6] >= 0 {
			unit = s[m[6]:m[7]]
		}
		out = append(out, fmt.Sprintf("%s|%s|%s|%d", s[m[2]:m[3]], s[m[4]:m[5]], unit, m[4]))
	}
	return out
}

func statsFieldsScan(s string) []string {
	var out []string
	sglangStatsFields(s, func(name, num, unit string, at int) bool {
		out = append(out, fmt.Sprintf("%s|%s|%s|%d", name, num, unit, at))
		return true
	})
	return out
}

// FuzzSGLangStatsFields: the scanner of a Req Time Stats line's values
// finds what the regexp of the same grammar finds, in every input.
func FuzzSGLangStatsFields(f *testing.F) {
	for _, s := range []string{
		"bootstrap_queue_duration(12.50ms) = bootstrap(10.00ms) + alloc_wait(2.50ms); queue_duration=1.20ms, forward_duration=85.30ms, start=12345.678, transfer_speed=21.40GB/s, transfer_total=64.00MB, #retries=0",
		"prealloc_queue_duration(1.00ms) transfer_duration=12.00ms; queue_duration=0.30ms, forward_duration=700.70ms, start=2346.0315",
		"prealloc_duration=0.50ms, transfer_duration=8.25ms, queue_duration=0.25ms, forward_duration=300.00ms, start_time=2346.640",
		"x=1e5ms y=-2.e-3 z(3.ms #a=## b==4 c=(5) d=6GB/sMB e=7e f=8E+",
		"", "=", "#", "a", "a=", "a(", "a=-", "a=.5",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := statsFieldsScan(s), statsFieldsRE(s); !slices.Equal(got, want) {
			t.Fatalf("%q: scanner %q, regexp %q", s, got, want)
		}
	})
}
