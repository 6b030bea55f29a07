package main

import (
	"log/slog"
	"os"
	"runtime/debug"
	"strings"
	"syscall"
	"testing"

	"github.com/tpsreport/tpsreport/schemas"
)

func TestVersionOf(t *testing.T) {
	rev := []debug.BuildSetting{{Key: "vcs.revision", Value: "0123456789abcdef0123"}, {Key: "vcs.modified", Value: "false"}}
	dirty := []debug.BuildSetting{{Key: "vcs.revision", Value: "0123456789abcdef0123"}, {Key: "vcs.modified", Value: "true"}}
	for _, tc := range []struct {
		name   string
		linked string
		bi     *debug.BuildInfo
		want   string
	}{
		{"linked wins", "v1.2.3-4-gabc", &debug.BuildInfo{Main: debug.Module{Version: "v9.9.9"}}, "v1.2.3-4-gabc"},
		{"module version", "", &debug.BuildInfo{Main: debug.Module{Version: "v0.4.0"}}, "v0.4.0"},
		{"vcs revision", "", &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: rev}, "0123456789ab"},
		{"dirty tree", "", &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: dirty}, "0123456789ab-dirty"},
		{"nothing known", "", &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}}, "dev"},
		{"no build info", "", nil, "dev"},
	} {
		if got := versionOf(tc.linked, tc.bi); got != tc.want {
			t.Errorf("%s: versionOf = %q, want %q", tc.name, got, tc.want)
		}
	}
}

func TestFmtFloat(t *testing.T) {
	for _, tc := range []struct {
		x    float64
		want string
	}{
		{24690.4, "24,690"},
		{1242.525, "1,243"},
		{5.095238, "5.095"},
		{296.5, "296.5"},
		{0.0123456, "0.01235"},
		{1234567.8, "1,234,568"},
		{-1234.6, "−1,235"},
		{0, "0"},
	} {
		if got := fmtFloat(&tc.x); got != tc.want {
			t.Errorf("fmtFloat(%v) = %q, want %q", tc.x, got, tc.want)
		}
	}
	if got := fmtFloat(nil); got != "—" {
		t.Errorf("fmtFloat(nil) = %q", got)
	}
}

func TestFmtPct(t *testing.T) {
	for _, tc := range []struct {
		x    float64
		want string
	}{
		{0.3153521907230869, "31.54 %"},
		{1, "100.00 %"},
		{0, "0.00 %"},
		{0.9999972, "99.9997 %"},
		{0.99996, "99.996 %"},
		{0.0000004, "0.00004 %"},
		{0.75, "75.00 %"},
	} {
		if got := fmtPct(&tc.x); got != tc.want {
			t.Errorf("fmtPct(%v) = %q, want %q", tc.x, got, tc.want)
		}
	}
}

func TestConsoleHandler(t *testing.T) {
	var b strings.Builder
	log := slog.New(newConsoleHandler(&b))
	log.Info("not shown")
	log.Warn("ignoring a/truth.json: no format recognises it")
	log.With("dir", "runs/r1").Warn("replacing run", "old", "baseline")
	log.Error("broken")
	want := "tpsreport: warning: ignoring a/truth.json: no format recognises it\n" +
		"tpsreport: warning: replacing run dir=runs/r1 old=baseline\n" +
		"tpsreport: error: broken\n"
	if b.String() != want {
		t.Errorf("got\n%s\nwant\n%s", b.String(), want)
	}
}

// TestRunTakesIngestAndAnalyzeFlags: the nightly job takes every setting of
// the commands it runs, declared once (ingest's --out and compare's --out
// and --candidate excepted: run chooses its directories, and its candidate
// is the night it runs).
func TestRunTakesIngestAndAnalyzeFlags(t *testing.T) {
	app := newApp(&env{})
	names := func(cmd string) map[string]bool {
		m := map[string]bool{}
		for _, f := range app.Command(cmd).Flags {
			m[f.Names()[0]] = true
		}
		return m
	}
	run := names("run")
	for _, cmd := range []string{"ingest", "analyze", "compare"} {
		for n := range names(cmd) {
			if n != "out" && n != "candidate" && !run[n] {
				t.Errorf("run lacks %s's --%s", cmd, n)
			}
		}
	}
}

func TestSignalExit(t *testing.T) {
	if got := signalExit(os.Interrupt); got != 130 {
		t.Errorf("SIGINT: exit %d, want 130", got)
	}
	if got := signalExit(syscall.SIGTERM); got != 143 {
		t.Errorf("SIGTERM: exit %d, want 143", got)
	}
}

func TestTermWriter(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"plain line\n", "plain line\n"},
		{"tab\tand newline\n", "tab\tand newline\n"},
		{"model \x1b[31mred\x1b[0m\n", `model \x1b[31mred\x1b[0m` + "\n"},
		{"over\rwrite", `over\x0dwrite`},
		{"del\x7f bell\a", `del\x7f bell\x07`},
		{"c1 \u009b31m csi", `c1 \u009b31m csi`},
		{"ünïcödé → ok", "ünïcödé → ok"},
		{"bad \xff byte", "bad \xff byte"},
		// Invisible characters that reorder or hide text (review N9).
		{"evil\u202etxt.exe", `evil\u202etxt.exe`},
		{"iso\u2066late\u2069", `iso\u2066late\u2069`},
		{"zero\u200bwidth", `zero\u200bwidth`},
		{"line\u2028sep", `line\u2028sep`},
	} {
		var b strings.Builder
		n, err := termWriter{&b}.Write([]byte(tc.in))
		if err != nil || n != len(tc.in) {
			t.Fatalf("Write(%q) = %d, %v; want %d, nil", tc.in, n, err, len(tc.in))
		}
		if b.String() != tc.want {
			t.Errorf("Write(%q) wrote %q, want %q", tc.in, b.String(), tc.want)
		}
	}
}

// TestVerdictTableCells: a model name with a newline, a carriage return and
// a bidi override stays on its line of compare's table (review N9).
func TestVerdictTableCells(t *testing.T) {
	v := schemas.Verdict{Overall: schemas.Inconclusive, Baseline: "a\nb", Candidate: "c",
		Criteria: []schemas.Criterion{{Name: "ttft", Title: "TTFT does not regress", Verdict: schemas.Pass, Reason: "x\ry"}},
		Notes:    []string{"model mismatch allowed: baseline served m\nnewline\u202eevil, candidate n"}}
	var b strings.Builder
	printVerdict(termWriter{&b}, v)
	want := "VERDICT       CRITERION              REASON\n" +
		"PASS          TTFT does not regress  x\\ry\n" +
		"note                                 model mismatch allowed: baseline served m\\nnewline\\u202eevil, candidate n\n" +
		"INCONCLUSIVE  overall                a\\nb vs c\n"
	if b.String() != want {
		t.Errorf("got\n%s\nwant\n%s", b.String(), want)
	}
}
