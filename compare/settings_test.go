package compare

import (
	"bytes"
	"errors"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/tpsreport/tpsreport/schemas"
)

func TestParseCriteriaValues(t *testing.T) {
	tests := []struct {
		yaml               string
		off                []string
		warmup, cooldown   float64
		ttftTol, sloTolTol float64
	}{
		{"", nil, 0, 0, 0.10, 0.01},
		{"ttft: off\n", []string{TTFT}, 0, 0, 0.10, 0.01},
		// Off follows report order, whatever the file's order.
		{"slo_attainment: off\nthroughput: off\nretry_rate: on\n", []string{Throughput, SLOAttainment}, 0, 0, 0.10, 0.01},
		{"warmup: 2m\ncooldown: 90s\n", nil, 120, 90, 0.10, 0.01},
		{"warmup: 90\ncooldown: 1.5\n", nil, 90, 1.5, 0.10, 0.01},
		{"warmup: 1m30s\n", nil, 90, 0, 0.10, 0.01},
		{"warmup: 500ms\n", nil, 0.5, 0, 0.10, 0.01},
		{"ttft_tolerance: 0.25\nslo_tolerance: 0.02\n", nil, 0, 0, 0.25, 0.02},
	}
	for _, tt := range tests {
		c, err := parseCriteria("a.yaml", []byte(tt.yaml))
		if err != nil {
			t.Errorf("%q: %v", tt.yaml, err)
			continue
		}
		if !slices.Equal(c.Off, tt.off) || c.Warmup != tt.warmup || c.Cooldown != tt.cooldown || c.TTFTTolerance != tt.ttftTol || c.SLOTolerance != tt.sloTolTol {
			t.Errorf("%q: got off %q warmup %v cooldown %v ttft_tolerance %v slo_tolerance %v; want %q %v %v %v %v",
				tt.yaml, c.Off, c.Warmup, c.Cooldown, c.TTFTTolerance, c.SLOTolerance, tt.off, tt.warmup, tt.cooldown, tt.ttftTol, tt.sloTolTol)
		}
	}
}

func TestParseSeconds(t *testing.T) {
	for in, want := range map[string]float64{"2m": 120, "90s": 90, "90": 90, "0": 0, "1h": 3600, "250ms": 0.25, "-1m": -60, "9e9": 9e9} {
		if got, err := ParseSeconds(in); err != nil || got != want {
			t.Errorf("ParseSeconds(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, in := range []string{"", "2 m", "soon", "1:30", "1e10", "-1e301", "NaN", "1e10s"} {
		if _, err := ParseSeconds(in); err == nil {
			t.Errorf("ParseSeconds(%q): no error", in)
		}
	}
}

// TestEvaluateRejectsSettings: settings from flags are checked like a file's.
func TestEvaluateRejectsSettings(t *testing.T) {
	tests := []struct {
		name string
		set  func(*schemas.Criteria)
		want string
	}{
		{"nan tolerance", func(c *schemas.Criteria) { c.TTFTTolerance = math.NaN() }, "ttft_tolerance: NaN: must be a finite number"},
		{"inf load", func(c *schemas.Criteria) { c.LoadMismatch = math.Inf(1) }, "load_mismatch: +Inf: must be a finite number"},
		{"nan confidence", func(c *schemas.Criteria) { c.Confidence = math.NaN() }, "confidence: NaN: must be a finite number"},
		{"negative warmup", func(c *schemas.Criteria) { c.Warmup = -1 }, "warmup: -1: must not be negative"},
		{"retry tolerance above 1", func(c *schemas.Criteria) { c.RetryTolerance = 2 }, "retry_tolerance: 2: must be at most 1 (a fraction: 0.01 is 1 percentage point)"},
		{"unknown criterion off", func(c *schemas.Criteria) { c.Off = []string{"latency"} },
			`off: "latency" is not a criterion; criteria: throughput, success_rate, gap_fraction, retry_rate, ttft, tpot, slo_attainment`},
	}
	run := synth("a", 20, 1000, 0.1, 1, 1)
	for _, tt := range tests {
		c := schemas.DefaultCriteria()
		tt.set(&c)
		_, err := Evaluate(run, run, c)
		var ce *CriteriaError
		if !errors.As(err, &ce) || err.Error() != tt.want {
			t.Errorf("%s: got %v, want *CriteriaError %q", tt.name, err, tt.want)
		}
	}
}

func TestCriteriaOff(t *testing.T) {
	base := synth("a", 20, 1000, 0.05, 0, 1)
	cand := synth("b", 20, 1000, 0.05, 0, 1)
	setCounts(&base, 2000, 1800, 2010, 10, 1)
	setCounts(&cand, 2000, 1600, 2010, 10, 2)   // success_rate FAILs
	base.Summary.SLO = &schemas.SLO{TTFT: f(2)} // only one SLO: slo_attainment INCONCLUSIVE

	names := func(v schemas.Verdict) string {
		var out []string
		for _, c := range v.Criteria {
			out = append(out, c.Name+"="+c.Verdict)
		}
		return strings.Join(out, " ")
	}
	tests := []struct {
		off     []string
		want    string
		overall string
		guards  int
	}{
		{nil, "throughput=INCONCLUSIVE success_rate=FAIL gap_fraction=PASS retry_rate=PASS ttft=PASS tpot=PASS slo_attainment=INCONCLUSIVE", schemas.Fail, 1},
		{[]string{SuccessRate}, "throughput=INCONCLUSIVE gap_fraction=PASS retry_rate=PASS ttft=PASS tpot=PASS slo_attainment=INCONCLUSIVE", schemas.Inconclusive, 1},
		// With the SLO criterion off, its guard does not fire either.
		{[]string{Throughput, SuccessRate, SLOAttainment}, "gap_fraction=PASS retry_rate=PASS ttft=PASS tpot=PASS", schemas.Pass, 0},
		{Names, "", schemas.Inconclusive, 0},
	}
	for _, tt := range tests {
		c := schemas.DefaultCriteria()
		c.Off = tt.off
		v, err := Evaluate(base, cand, c)
		if err != nil {
			t.Fatal(err)
		}
		if got := names(v); got != tt.want || v.Overall != tt.overall || len(v.Guards) != tt.guards {
			t.Errorf("off %q: got %q overall %s guards %q; want %q overall %s, %d guards", tt.off, got, v.Overall, v.Guards, tt.want, tt.overall, tt.guards)
		}
		if v.Criteria == nil {
			t.Errorf("off %q: criteria nil, want [] in verdict.json", tt.off)
		}
	}
}

func TestScopes(t *testing.T) {
	base := synth("a", 20, 1000, 0.1, 1, 1)
	base.Summary.SLO, base.Summary.SLOMet = &schemas.SLO{TTFT: f(2)}, i64(990)
	v, err := Evaluate(base, base, schemas.DefaultCriteria())
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{Throughput: ScopeBacklog, GapFraction: ScopeBacklog, SuccessRate: ScopeRun, RetryRate: ScopeRun,
		TTFT: ScopeRequests, TPOT: ScopeRequests, SLOAttainment: ScopeRun}
	if len(v.Criteria) != len(want) {
		t.Fatalf("%d criteria, want %d", len(v.Criteria), len(want))
	}
	for i, c := range v.Criteria {
		if c.Name != Names[i] || c.Scope != want[c.Name] {
			t.Errorf("criterion %d: %s scope %q; want %s scope %q", i, c.Name, c.Scope, Names[i], want[Names[i]])
		}
	}
}

func i64(v int64) *int64 { return &v }

// TestLoadCriteriaBounded: a device or an endless or huge file as --criteria
// ends with an error instead of being read forever.
func TestLoadCriteriaBounded(t *testing.T) {
	if _, err := LoadCriteria("/dev/zero"); err == nil || !strings.Contains(err.Error(), "is a device") {
		t.Errorf("/dev/zero: %v, want a device error", err)
	}
	big := filepath.Join(t.TempDir(), "big.yaml")
	if err := os.WriteFile(big, bytes.Repeat([]byte("# comment line\n"), 80_000), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadCriteria(big); err == nil || !strings.Contains(err.Error(), "larger than 1 MiB") {
		t.Errorf("1.2 MB file: %v, want a size error", err)
	}
	fifo := filepath.Join(t.TempDir(), "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skip("no FIFO here:", err)
	}
	go func() {
		w, err := os.OpenFile(fifo, os.O_WRONLY, 0)
		if err != nil {
			return
		}
		defer w.Close()
		line := []byte("# endless\n")
		for {
			if _, err := w.Write(line); err != nil {
				return
			}
		}
	}()
	if _, err := LoadCriteria(fifo); err == nil || !strings.Contains(err.Error(), "larger than 1 MiB") {
		t.Errorf("endless FIFO: %v, want a size error", err)
	}
}

// TestAlphaAndConfidence: alpha and confidence are one setting; the one not
// set follows the other, two that disagree are refused with the file's
// line, and resamples has bounds a criteria file cannot pass.
func TestAlphaAndConfidence(t *testing.T) {
	tests := []struct {
		yaml        string
		alpha, conf float64
		err         string
	}{
		{"", 0.05, 0.95, ""},
		{"alpha: 0.01\n", 0.01, 0.99, ""},
		{"confidence: 0.9\n", 0.1, 0.9, ""},
		{"alpha: 0.01\nconfidence: 0.99\n", 0.01, 0.99, ""},
		{"alpha: 0.01\nconfidence: 0.9\n", 0, 0, "a.yaml:1: alpha: 0.01 and confidence 0.9 disagree: confidence is 1 − alpha; set one of them"},
		{"resamples: 2147483648\n", 0, 0, "a.yaml:1: resamples: 2147483648: must be between 100 and 100000"},
		{"resamples: 99\n", 0, 0, "a.yaml:1: resamples: 99: must be between 100 and 100000"},
		// A confidence of 1e-300 would make every interval a point (review N10).
		{"confidence: 1e-300\n", 0, 0, "a.yaml:1: confidence: 1e-300: must be at least 0.5 and below 1, such as 0.95 (1 − alpha)"},
		{"alpha: 0.6\n", 0, 0, "a.yaml:1: alpha: 0.6: must be above 0 and at most 0.5, such as 0.05: a false-alarm rate"},
		{"min_backlog_windows: 1000000000000\n", 0, 0, "a.yaml:1: min_backlog_windows: 1000000000000: must be between 1 and 100000 (analyze makes no more windows)"},
	}
	for _, tt := range tests {
		c, err := parseCriteria("a.yaml", []byte(tt.yaml))
		switch {
		case tt.err != "":
			if err == nil || err.Error() != tt.err {
				t.Errorf("%q: got %v, want %q", tt.yaml, err, tt.err)
			}
		case err != nil:
			t.Errorf("%q: %v", tt.yaml, err)
		case math.Abs(c.Alpha-tt.alpha) > 1e-12 || math.Abs(c.Confidence-tt.conf) > 1e-12:
			t.Errorf("%q: alpha %v confidence %v, want %v and %v", tt.yaml, c.Alpha, c.Confidence, tt.alpha, tt.conf)
		}
	}
}
