package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/tpsreport/tpsreport/history"
	"github.com/tpsreport/tpsreport/schemas"
	"github.com/tpsreport/tpsreport/sim"
)

// historyNights is the length of every simulated history: 40 nights, each
// its own simulation with fresh traffic, analysed through the pipeline.
const historyNights = 40

// A historyCase is one kind of history the change-point search is held to:
// the scenario of its nights, the effect (if any) of night i (0-based), and
// what must be found.
type historyCase struct {
	name, label string
	base        string
	// night is the effect applied to night i, nil for none.
	night func(i int) *effect
	// metric is the series that must show the change ("" for a flat
	// history, where any change point is a false one).
	metric string
	// at is the night (0-based) the change starts at; −1 for none.
	at int
	// drift: the change grows a night at a time from at, and must be
	// flagged within 10 nights of it, in the history up to some night.
	drift bool
}

// historyCases are issue 61's: a flat history, a step of −12 % capacity
// and one of TPOT +20 % at night 25, and a drift of −1 % capacity a night
// from night 21.
func historyCases() []historyCase {
	capDown := slots(-0.125) // 28 of 32 slots
	tpotUp := slowDecode(0.2)
	drift := map[int]*effect{}
	for k := 1; k <= historyNights; k++ {
		f := 0.01 * float64(k)
		drift[k] = &effect{name: fmt.Sprintf("decode-%d", k), base: "saturated",
			apply: func(sc sim.Scenario) sim.Scenario {
				sc.DecodeRate *= 1 - f
				return sc
			}}
	}
	return []historyCase{
		{name: "flat", label: "flat (saturated, fresh traffic each night)", base: "saturated", night: func(int) *effect { return nil }, at: -1},
		{name: "capacity-12", label: "−12.5 % slots from night 25 (saturated)", base: "saturated", metric: "retry_adjusted_system_tps", at: 24,
			night: func(i int) *effect {
				if i >= 24 {
					return &capDown
				}
				return nil
			}},
		{name: "tpot+20", label: "decode 20 % slower from night 25 (fixed)", base: "fixed", metric: "tpot_req.p95", at: 24,
			night: func(i int) *effect {
				if i >= 24 {
					return &tpotUp
				}
				return nil
			}},
		{name: "drift-1", label: "decode 1 % slower each night from night 21 (saturated)", base: "saturated", metric: "retry_adjusted_system_tps", at: 20, drift: true,
			night: func(i int) *effect {
				if i >= 20 {
					return drift[i-19]
				}
				return nil
			}},
	}
}

// historyKeys are the runs of history h of case ci: one seed a night, apart
// from every other history's and from the A/A pairs'.
func historyKeys(c *corpus, ci, h int, hc historyCase) []runKey {
	keys := make([]runKey, historyNights)
	for i := range keys {
		k := runKey{scenario: hc.base, seed: uint64(1_000_000 + ci*100_000 + h*100 + i), path: pathSpans}
		if e := hc.night(i); e != nil {
			k.effect = e.name
			c.effects[e.name] = *e
		}
		keys[i] = k
	}
	return keys
}

// runHistories makes n histories of each case and writes the table of how
// often the change-point search finds what it must, and how often it finds
// what is not there.
func runHistories(ctx context.Context, c *corpus, n, workers int, w io.Writer) error {
	cases := historyCases()
	keys := map[string][][]runKey{}
	var all []runKey
	for ci, hc := range cases {
		for h := 0; h < n; h++ {
			ks := historyKeys(c, ci, h, hc)
			keys[hc.name] = append(keys[hc.name], ks)
			all = append(all, ks...)
		}
	}
	if err := c.makeAll(ctx, dedupe(all), workers); err != nil {
		return err
	}
	fmt.Fprintf(w, "| history (%d of %d nights each) | must find | found | within | false change points | noise a night |\n|---|---|---|---|---|---|\n", n, historyNights)
	for _, hc := range cases {
		found, falses := 0, 0
		var delays []int
		var noise []float64
		for _, ks := range keys[hc.name] {
			nights, err := readNights(c.root, ks)
			if err != nil {
				return err
			}
			noise = append(noise, nightNoise(nights, hc))
			changes := history.Find(nights, history.Metrics, history.Options{})
			// A change point is false where nothing changed: anywhere in a
			// flat history, away from the step's night (in any series: a
			// step in capacity moves the latencies too), before a drift.
			for _, ch := range changes {
				i := indexOf(nights, ch.Night)
				if hc.at < 0 || (!hc.drift && absInt(i-hc.at) > 1) || (hc.drift && i < hc.at-1) {
					falses++
					break
				}
			}
			switch {
			case hc.drift:
				m, _ := history.MetricNamed(hc.metric)
				for end := hc.at + 1; end <= historyNights; end++ {
					if len(history.Find(nights[:end], []history.Metric{m}, history.Options{})) > 0 {
						delays = append(delays, end-hc.at)
						if end-hc.at <= 10 {
							found++
						}
						break
					}
				}
			case hc.metric != "":
				for _, ch := range changes {
					if ch.Metric == hc.metric && absInt(indexOf(nights, ch.Night)-hc.at) <= 1 {
						found++
						break
					}
				}
			}
		}
		must, within := "none", ""
		switch {
		case hc.drift:
			must, within = hc.metric+" flagged", fmt.Sprintf("10 nights (flagged after %s)", intsText(delays))
		case hc.metric != "":
			must, within = hc.metric+" at night "+fmt.Sprint(hc.at+1), "± 1 night"
		}
		foundText := "—"
		if hc.metric != "" {
			foundText = fmt.Sprintf("%d of %d", found, n)
		}
		fmt.Fprintf(w, "| %s | %s | %s | %s | %d of %d | %s |\n", hc.label, must, foundText, within, falses, n, percentText(median(noise)))
	}
	return gateTable(c, cases, keys, n, w)
}

// gateTable runs the nightly job's history gate (history.Alarms, as `run
// --gate history` does) on every night of every history from the first it
// can judge, and writes how often it alarms: on nights before anything
// changed (false alarms, per night judged), once a change has begun but
// placing it elsewhere (misplaced), and how many nights after a change it
// first alarms on it.
func gateTable(c *corpus, cases []historyCase, keys map[string][][]runKey, n int, w io.Writer) error {
	opt := history.Options{}.WithDefaults()
	fmt.Fprintf(w, "\n| history (%d of %d nights each) | nights judged | false alarms (before any change) | misplaced alarms (after it) | alarmed on the change | first alarm, nights after it |\n|---|---|---|---|---|---|\n", n, historyNights)
	for _, hc := range cases {
		judged, before, falses, misplaced, found := 0, 0, 0, 0, 0
		var delays []int
		for _, ks := range keys[hc.name] {
			nights, err := readNights(c.root, ks)
			if err != nil {
				return err
			}
			first := -1
			for end := 2 * opt.MinSize; end <= len(nights); end++ {
				judged++
				changed := hc.at >= 0 && end > hc.at
				if !changed {
					before++
				}
				wrong := false
				for _, a := range history.Alarms(nights[:end], history.Metrics, opt) {
					i := indexOf(nights, a.Night)
					// An alarm is true when it places a change where there
					// is one (in any series: a step in capacity moves the
					// latencies too).
					if changed && ((!hc.drift && absInt(i-hc.at) <= 1) || (hc.drift && i >= hc.at-1)) {
						if first < 0 {
							first = end - 1
						}
						continue
					}
					wrong = true
				}
				switch {
				case wrong && changed:
					misplaced++
				case wrong:
					falses++
				}
			}
			if first >= 0 {
				found++
				delays = append(delays, first-hc.at)
			}
		}
		foundText, delayText, misplacedText := "—", "", "—"
		if hc.at >= 0 {
			foundText, delayText = fmt.Sprintf("%d of %d", found, n), intsText(delays)
			misplacedText = fmt.Sprintf("%d of %d nights", misplaced, judged-before)
		}
		fmt.Fprintf(w, "| %s | %d | %d of %d nights (%s) | %s | %s | %s |\n", hc.label, judged, falses, before, percentText(float64(falses)/float64(max(before, 1))), misplacedText, foundText, delayText)
	}
	return nil
}

// readNights reads the summaries of one history's nights, in night order.
func readNights(root string, ks []runKey) ([]history.Night, error) {
	nights := make([]history.Night, len(ks))
	for i, k := range ks {
		b, err := os.ReadFile(filepath.Join(k.dir(root), schemas.SummaryFile))
		if err != nil {
			return nil, err
		}
		var s schemas.Summary
		if err := json.Unmarshal(b, &s); err != nil {
			return nil, err
		}
		nights[i] = history.Night{Name: fmt.Sprint(i), Summary: s}
	}
	return nights, nil
}

// nightNoise is the spread a night of the case's series (the throughput's
// for a flat history): the relative standard deviation of the nights
// before the change.
func nightNoise(nights []history.Night, hc historyCase) float64 {
	name := hc.metric
	if name == "" {
		name = "retry_adjusted_system_tps"
	}
	m, _ := history.MetricNamed(name)
	end := len(nights)
	if hc.at >= 0 {
		end = hc.at
	}
	var xs []float64
	for _, n := range nights[:end] {
		if v := m.Value(&n.Summary); v != nil {
			xs = append(xs, *v)
		}
	}
	if len(xs) < 2 {
		return 0
	}
	var mean, ss float64
	for _, x := range xs {
		mean += x
	}
	mean /= float64(len(xs))
	for _, x := range xs {
		ss += (x - mean) * (x - mean)
	}
	sd := ss / float64(len(xs)-1)
	return math.Sqrt(sd) / mean
}

func indexOf(nights []history.Night, name string) int {
	for i, n := range nights {
		if n.Name == name {
			return i
		}
	}
	return -1
}

func absInt(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

func median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	return s[len(s)/2]
}

func intsText(xs []int) string {
	if len(xs) == 0 {
		return "never"
	}
	s := append([]int(nil), xs...)
	sort.Ints(s)
	var parts []string
	for _, x := range s {
		parts = append(parts, fmt.Sprint(x))
	}
	return strings.Join(parts, ", ")
}

func percentText(f float64) string { return fmt.Sprintf("%.1f %%", 100*f) }
