package main

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"testing"
)

// fuzzedFlags are the flags that take a number, a duration, an instant or
// an SLO, per command: every one a user can mistype.
var fuzzedFlags = []struct{ command, flag string }{
	{"analyze", "window"}, {"analyze", "cap"}, {"analyze", "from"}, {"analyze", "to"}, {"analyze", "slo"},
	{"analyze", "replica-cost-per-hour"}, {"analyze", "replicas"},
	{"compare", "min-improvement"}, {"compare", "success-tolerance"}, {"compare", "retry-tolerance"},
	{"compare", "gap-tolerance"}, {"compare", "gap-floor"}, {"compare", "min-backlog-windows"},
	{"compare", "load-mismatch"}, {"compare", "token-mismatch"}, {"compare", "ttft-tolerance"},
	{"compare", "tpot-tolerance"}, {"compare", "slo-tolerance"}, {"compare", "warmup"}, {"compare", "cooldown"},
	{"compare", "confidence"}, {"compare", "resamples"}, {"compare", "replica-cost-per-hour"}, {"compare", "replicas"},
	{"plan", "target-rpm"}, {"plan", "attainment"}, {"plan", "utilization"}, {"plan", "slo"},
	{"plan", "replica-cost-per-hour"}, {"plan", "replicas"},
	{"history", "since"}, {"history", "last"}, {"history", "alpha"}, {"history", "min-change"},
}

// goInternals are words of Go's own error texts that a user should never
// see: a flag error says what the flag wants, in the flag's terms.
var goInternals = []string{"strconv.", "invalid syntax", "parse error", "panic", "goroutine", "time: ", "ParseFloat", "ParseInt"}

// FuzzFlags feeds every numeric, duration, time and SLO flag arbitrary text.
// The runs do not exist, so a value that parses ends at that error: either
// way the command exits 2 with one line on stderr, naming no Go internals.
func FuzzFlags(f *testing.F) {
	for i, v := range []string{"1", "-1", "0", "NaN", "Inf", "1e309", "60", "1us", "2m", "abc", "", "2026-11-20T10:00:00Z",
		"ttft=2s", "ttft=NaN", "e2e=1e400", "0x10", "9223372036854775808", "1h", "-2m", " 5", "5 "} {
		f.Add(uint8(i), v)
	}
	f.Fuzz(func(t *testing.T, which uint8, value string) {
		ff := fuzzedFlags[int(which)%len(fuzzedFlags)]
		missing := filepath.Join(t.TempDir(), "no-such-run")
		args := []string{"tpsreport", ff.command, "--" + ff.flag, value}
		switch ff.command {
		case "compare":
			args = append(args, "--out", filepath.Join(t.TempDir(), "out"), missing, missing)
		case "plan":
			if ff.flag != "target-rpm" {
				args = append(args, "--target-rpm", "600")
			}
			if ff.flag == "replica-cost-per-hour" || ff.flag == "replicas" {
				args = append(args, "--replica-cost-per-hour", "2")
			}
			args = append(args, missing)
		default:
			if ff.flag == "from" {
				args = append(args, "--to", "2026-11-21T00:00:00Z")
			} else if ff.flag == "to" {
				args = append(args, "--from", "2026-11-19T00:00:00Z")
			}
			if ff.flag == "replicas" {
				args = append(args, "--replica-cost-per-hour", "2")
			}
			args = append(args, missing)
		}
		var stdout, stderr bytes.Buffer
		code := run(context.Background(), args, strings.NewReader(""), &stdout, &stderr)
		out := stderr.String()
		if code != exitUsage {
			t.Fatalf("%q: exit %d, want %d; stderr %q", args, code, exitUsage, out)
		}
		if strings.Count(out, "\n") != 1 || !strings.HasPrefix(out, "tpsreport: ") {
			t.Fatalf("%q: stderr is not one line starting tpsreport: %q", args, out)
		}
		for _, w := range goInternals {
			if strings.Contains(out, w) {
				t.Fatalf("%q: stderr names Go internals (%q): %q", args, w, out)
			}
		}
	})
}
