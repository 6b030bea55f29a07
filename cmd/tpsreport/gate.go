package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"slices"

	"github.com/urfave/cli/v2"

	"github.com/tpsreport/tpsreport/history"
	"github.com/tpsreport/tpsreport/schemas"
)

// Gates of tpsreport run: what --gate judges.
const (
	gateCompare = "compare" // the comparison with the baseline (--gate)
	gateHistory = "history" // new regressions among the history's change points
	gateBoth    = "both"
)

// gateMode is run's --gate. Bare it is compare's --gate, the verdict
// against the baseline; --gate=history gates on the history's change
// points, --gate=both on both. It is a boolean flag with an optional value,
// so that `--gate` alone keeps its meaning.
type gateMode struct{ on string }

func (g *gateMode) Set(s string) error {
	switch s {
	case "true", gateCompare:
		g.on = gateCompare
	case gateHistory, gateBoth:
		g.on = s
	case "false":
		g.on = ""
	default:
		return fmt.Errorf("want --gate, --gate=history or --gate=both (not %q)", s)
	}
	return nil
}

func (g *gateMode) String() string {
	if g == nil {
		return ""
	}
	return g.on
}

func (g *gateMode) IsBoolFlag() bool { return true }

// gateFlag is --gate of run: its help shows no value, which is optional.
type gateFlag struct{ cli.GenericFlag }

func (f *gateFlag) TakesValue() bool { return false }

func (f *gateFlag) String() string { return cli.FlagStringer(f) }

// gateOnHistory judges the history of root up to run name (its own night
// and those that started before it): FAIL when that night brings a
// regression change point to light (history.Alarms), INCONCLUSIVE when the
// history is too short to hold one, else PASS. It says which on w.
func gateOnHistory(w io.Writer, root, name string) (string, error) {
	hroot := historyRoot(root)
	nights, err := historyNights(hroot)
	if err != nil {
		return "", err
	}
	own, err := ownName(hroot, root, name)
	if err != nil {
		return "", err
	}
	i := slices.IndexFunc(nights, func(n history.Night) bool { return n.Name == own })
	if i < 0 {
		return "", errors.New("history gate: the run is not among " + hroot + "'s analysed runs")
	}
	nights = nights[:i+1]
	opt := history.Options{}.WithDefaults()
	if !history.Judgeable(len(nights), opt) {
		fmt.Fprintf(w, "history gate: INCONCLUSIVE: %d %s up to %s; a change point needs %d nights a side, so %d in all\n",
			len(nights), plural(len(nights), "night", "nights"), own, opt.MinSize, 2*opt.MinSize)
		return schemas.Inconclusive, nil
	}
	alarms := history.Alarms(nights, history.Metrics, opt)
	if len(alarms) == 0 {
		fmt.Fprintf(w, "history gate: PASS: %s brings no new regression to light in %d nights\n", own, len(nights))
		return schemas.Pass, nil
	}
	fmt.Fprintf(w, "history gate: FAIL: %s brings %d %s to light in %d nights:\n", own, len(alarms), plural(len(alarms), "regression", "regressions"), len(nights))
	for _, c := range alarms {
		m, _ := history.MetricNamed(c.Metric)
		fmt.Fprintf(w, "  %s from %s: %s → %s (%s, p = %.3g, %d nights before, %d after)\n",
			c.Metric, cell(c.Night), m.Format(c.Before), m.Format(c.After), c.ChangeText(), c.P, c.NightsBefore, c.NightsAfter)
	}
	return schemas.Fail, nil
}

// worse is the overall verdict of two gates: FAIL if either fails, else
// INCONCLUSIVE if either is, else PASS.
func worse(a, b string) string {
	for _, v := range []string{schemas.Fail, schemas.Inconclusive} {
		if a == v || b == v {
			return v
		}
	}
	return schemas.Pass
}

// gateWord says whether arg, after --gate, is the gate's value: one of its
// words, and not an input of that name.
func gateWord(arg string) bool {
	if arg != gateHistory && arg != gateBoth && arg != gateCompare {
		return false
	}
	_, err := os.Stat(arg)
	return err != nil
}
