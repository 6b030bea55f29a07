package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tpsreport/tpsreport/schemas"
)

// TestCalibrationSmall is make calibrate at a small fixed size, through the
// whole pipeline: two A/A pairs per scenario and input path must alarm
// (an overall PASS or FAIL) at most as often as a method held to 5 % does
// in 95 % of such runs, and the two effects the verdict must find (+50 %
// slots, decode 60 % slower) must each be found in every pair. A method
// that treated requests or windows as independent alarmed on about half
// of these pairs; one that never decided anything fails the effects.
// -short makes one pair of each on canonical spans alone.
func TestCalibrationSmall(t *testing.T) {
	n, paths := 2, []string{pathSpans, pathJoined}
	if testing.Short() {
		n, paths = 1, paths[:1]
	}
	c := &corpus{root: t.TempDir(), effects: map[string]effect{}, log: func(string, ...any) {}}
	var effs []effect
	for _, e := range effects {
		c.effects[e.name] = e
		if e.name == "slots+50" || e.name == "tpot+60" {
			effs = append(effs, e)
		}
	}
	ps := plan(n, aaScenarios, paths, []string{pathSpans}, effs)
	var keys []runKey
	for _, p := range ps {
		keys = append(keys, p.base...)
		keys = append(keys, p.cand...)
	}
	ctx := context.Background()
	if err := c.makeAll(ctx, dedupe(keys), 2); err != nil {
		t.Fatal(err)
	}
	res, err := evaluate(ctx, c, ps, 2, schemas.DefaultCriteria())
	if err != nil {
		t.Fatal(err)
	}
	var pairs, alarms int
	found := map[string]int{}
	for _, o := range res {
		switch {
		case o.effect != nil && len(o.base) == 1:
			if o.verdicts[o.effect.criterion].Verdict == o.effect.want {
				found[o.effect.name]++
			}
		case o.effect == nil && len(o.base) == 1:
			pairs++
			if o.overall != schemas.Inconclusive {
				alarms++
				t.Logf("A/A alarm: %s %s seeds %v vs %v: %s", o.base[0].scenario, o.base[0].path, seeds(o.base), seeds(o.cand), o.overall)
			}
		}
	}
	if bound := alarmBound(pairs, 0.05); alarms > bound {
		t.Errorf("%d of %d A/A pairs alarmed; a method held to 5 %% alarms on at most %d in 95 %% of such runs", alarms, pairs, bound)
	}
	for _, e := range effs {
		if found[e.name] != n {
			t.Errorf("%s: found by %s in %d of %d pairs, want all", e.label, e.criterion, found[e.name], n)
		}
	}
	// The table names every scenario and effect, and goes between the
	// markers of a Markdown file.
	var b strings.Builder
	writeTable(&b, res, tableHeader{pairs: n, command: "go test ./tools/calibrate"})
	for _, want := range append(append([]string{}, aaScenarios...), "+50 % slots, same demand", "**all**") {
		if !strings.Contains(b.String(), "| "+want+" |") {
			t.Errorf("table lacks a row %q:\n%s", want, b.String())
		}
	}
	md := filepath.Join(t.TempDir(), "acceptance.md")
	if err := os.WriteFile(md, []byte("before\n"+beginMarker+"\nold\n"+endMarker+"\nafter\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := writeMarkdown(md, b.String()); err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(md)
	if want := "before\n" + beginMarker + "\n" + b.String() + endMarker + "\nafter\n"; string(got) != want {
		t.Errorf("markdown:\n%s\nwant\n%s", got, want)
	}
}

// TestClopperPearson against the exact binomial interval's known values.
func TestClopperPearson(t *testing.T) {
	tests := []struct {
		k, n   int
		lo, hi float64
	}{
		{0, 20, 0, 0.168433},
		{6, 240, 0.0092286, 0.0536175}, // mpmath: the roots of the regularized incomplete beta
		{10, 10, 0.691503, 1},
		{5, 10, 0.187086, 0.812914},
	}
	for _, tt := range tests {
		lo, hi := clopperPearson(tt.k, tt.n, 0.05)
		if abs(lo-tt.lo) > 2e-6 || abs(hi-tt.hi) > 2e-6 {
			t.Errorf("%d of %d: %v–%v, want %v–%v", tt.k, tt.n, lo, hi, tt.lo, tt.hi)
		}
	}
	// The bounds of the small calibration, 24 pairs at 5 % (binomial: P(X ≤ 3)
	// = 0.970, P(X ≤ 2) = 0.884), and of 36.
	if b := alarmBound(24, 0.05); b != 3 {
		t.Errorf("alarm bound of 24 pairs at 5 %%: %d, want 3", b)
	}
	if b := alarmBound(36, 0.05); b != 4 {
		t.Errorf("alarm bound of 36 pairs at 5 %%: %d, want 4", b)
	}
}

func abs(x float64) float64 {
	if x < 0 {
		return -x
	}
	return x
}

// TestCanarySmall is the canary part of make calibrate at one seed, on
// canonical spans: an unchanged canary is not judged changed, the three
// changes are each found by their criterion, a canary given half the
// traffic is INCONCLUSIVE by the traffic guard, and the table counts them.
func TestCanarySmall(t *testing.T) {
	if testing.Short() {
		t.Skip("seven canaries through the pipeline")
	}
	c := &corpus{root: t.TempDir(), log: func(string, ...any) {}}
	var b strings.Builder
	if err := runCanaries(context.Background(), c, 1, 2, []string{pathSpans}, schemas.DefaultCriteria(), "test", &b); err != nil {
		t.Fatal(err)
	}
	table := b.String()
	for _, want := range []string{
		"| no change | busy | spans | PASS 0, FAIL 0, INCONCLUSIVE 1 | – | 0.0 % (0.0–97.5) |",
		"| no change | saturated | spans | PASS 0, FAIL 0, INCONCLUSIVE 1 | – | 0.0 % (0.0–97.5) |",
		"| +25 % slots | saturated | spans | PASS 1, FAIL 0, INCONCLUSIVE 0 | throughput PASS in 1 of 1 |",
		"| decode 20 % slower (TPOT +20 %) | busy | spans | PASS 0, FAIL 1, INCONCLUSIVE 0 | tpot FAIL in 1 of 1 |",
		"| failures +2 pp | busy | spans | PASS 0, FAIL 1, INCONCLUSIVE 0 | success_rate FAIL in 1 of 1 |",
		"| half the traffic of its peers | busy | spans | PASS 0, FAIL 0, INCONCLUSIVE 1 | INCONCLUSIVE by the traffic guard in 1 of 1 |",
	} {
		if !strings.Contains(table, want) {
			t.Errorf("the table lacks %q:\n%s", want, table)
		}
	}
	// A second calibration reuses the analysed replicas: the split of
	// each is on disk, and the verdicts are the same.
	var again strings.Builder
	if err := runCanaries(context.Background(), c, 1, 2, []string{pathSpans}, schemas.DefaultCriteria(), "test", &again); err != nil {
		t.Fatal(err)
	}
	if again.String() != table {
		t.Errorf("a second calibration gave\n%s\nthe first\n%s", again.String(), table)
	}
}
