package compare

import (
	"errors"
	"testing"
)

// FuzzCriteria: any acceptance file either parses into criteria that pass
// Evaluate's validation, or fails with a *CriteriaError that names the file;
// it never panics.
func FuzzCriteria(f *testing.F) {
	for _, s := range []string{
		"min_improvement: 0.05\nresamples: 1000\n",
		"tpot: off\nttft: on\nwarmup: 2m\ncooldown: 90\n",
		"min_improvment: 0.05\n",
		"min_improvement: 5%\n",
		"- a\n- b\n",
		"confidence: .nan\n",
		"warmup: -1s\n",
		"{",
		"",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		c, err := parseCriteria("acceptance.yaml", []byte(s))
		if err != nil {
			var ce *CriteriaError
			if !errors.As(err, &ce) {
				t.Fatalf("error %T %v, want *CriteriaError", err, err)
			}
			return
		}
		if ce := checkCriteria(c); ce != nil {
			t.Fatalf("parsed criteria fail validation: %v", ce)
		}
	})
}

// FuzzParseSeconds: a duration either parses to a finite number of seconds
// or is an error; it never panics.
func FuzzParseSeconds(f *testing.F) {
	for _, s := range []string{"2m", "90s", "120", "1h30m", "-1s", "NaN", "1e400", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		v, err := ParseSeconds(s)
		if err == nil && (v != v || v > 1e300 || v < -1e300) {
			t.Fatalf("ParseSeconds(%q) = %v without an error", s, v)
		}
	})
}
