package history

import "slices"

// Alarms are the regressions the newest night brings to light: the change
// points of nights that are regressions, are the last change point of their
// metric (the series still runs at the worse level on the newest night), and
// were not found in the same history without its newest night (same metric,
// within Shift nights). A night's gate alarms on each change once, the night
// it is first found, which is MinSize nights after it at the earliest: the
// search needs that many nights on the new side.
func Alarms(nights []Night, metrics []Metric, opt Options) []Change {
	if len(nights) < 2 {
		return nil
	}
	now := Find(nights, metrics, opt)
	before := Find(nights[:len(nights)-1], metrics, opt)
	index := make(map[string]int, len(nights))
	for i, n := range nights {
		index[n.Name] = i
	}
	var out []Change
	for i, c := range now {
		if !c.Regression || slices.ContainsFunc(now[i+1:], func(d Change) bool { return d.Metric == c.Metric }) {
			continue
		}
		known := slices.ContainsFunc(before, func(d Change) bool {
			return d.Metric == c.Metric && d.Regression && abs(index[d.Night]-index[c.Night]) <= Shift
		})
		if !known {
			out = append(out, c)
		}
	}
	return out
}

// Shift is how many nights a change point may move as nights are added and
// still be the one found before: a night more on its new side can move the
// best split by a night or two.
const Shift = 2

// Judgeable says whether a history of n nights can hold a change point: at
// least MinSize nights on each side.
func Judgeable(n int, opt Options) bool {
	return n >= 2*opt.WithDefaults().MinSize
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}
