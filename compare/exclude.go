package compare

import (
	"cmp"
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/tpsreport/tpsreport/internal/numfmt"
	"github.com/tpsreport/tpsreport/schemas"
)

// counts are the event counts the proportion criteria compare.
type counts struct {
	requests, succeeded int64 // completed requests; of them, with a successful attempt
	attempts, retries   int64 // attempts released; of them, with attempt > 0
	// sloMet counts the completed requests delivered within the SLO; nil
	// when the run has no SLO, or a window with completed requests lacks it.
	sloMet *int64
}

// selection is the part of a run that the criteria judge: every window
// except those of the warm-up and the cool-down, and the requests completed
// in the windows kept.
type selection struct {
	windows  []schemas.Metrics
	counts   counts
	requests []schemas.RequestLatency // nil when the run's requests were not loaded

	total, excluded  int   // windows in the run; of them, excluded
	excludedRequests int64 // requests completed in the excluded windows

	cut schemas.RunCut // what an automatic warm-up or cool-down cut
}

// selectRun drops the windows that start within c.Warmup seconds of the
// run's start or end within c.Cooldown seconds of its end (each window taken
// as its overlap with the run), the counts of those windows and the
// requests completed in them. When no window is dropped the selection is the
// run as analysed: its summary's counts, which equal its windows' sums.
func selectRun(r Run, c schemas.Criteria) selection {
	s := selection{total: len(r.Windows), windows: r.Windows, requests: r.Requests, counts: summaryCounts(r.Summary)}
	if (c.Warmup <= 0 && c.Cooldown <= 0) || len(r.Windows) == 0 {
		return s
	}
	// Windows in time order; window i holds the instants from its start to
	// the next window's start (the last one also holds the run's end).
	order := make([]int, len(r.Windows))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return r.Windows[order[a]].WindowStart.Before(r.Windows[order[b]].WindowStart) })
	start, end := runExtent(r)
	keep := make([]bool, len(order))
	kept := make([]schemas.Metrics, 0, len(order))
	for k, i := range order {
		w := r.Windows[i]
		ws, we := w.WindowStart, windowEnd(w)
		if ws.Before(start) {
			ws = start
		}
		if we.After(end) {
			we = end
		}
		// A window within 1 % of its width of a boundary starts (ends) on
		// it: a run whose first record came 18 ms after the minute loses one
		// 60 s window, not two, to a 60 s warm-up. The window at the run's
		// edge is always in it.
		slack := 0.01 * windowEnd(w).Sub(w.WindowStart).Seconds()
		within := func(d, limit float64) bool { return limit > 0 && (d <= 0 || d < limit-slack) }
		if within(ws.Sub(start).Seconds(), c.Warmup) || within(end.Sub(we).Seconds(), c.Cooldown) {
			s.excluded++
			s.excludedRequests += w.Requests
			continue
		}
		keep[k] = true
		kept = append(kept, w)
	}
	if s.excluded == 0 {
		return s
	}
	s.windows, s.counts = kept, windowCounts(kept, r.Summary.SLO != nil)
	if r.Requests != nil {
		starts := make([]int64, len(order))
		for k, i := range order {
			starts[k] = r.Windows[i].WindowStart.UnixMicro()
		}
		s.requests = make([]schemas.RequestLatency, 0, len(r.Requests))
		for _, q := range r.Requests {
			k := windowOf(starts, q.Released)
			if keep[k] {
				s.requests = append(s.requests, q)
			}
		}
	}
	return s
}

// windowOf is the window holding instant t, µs, of windows starting at
// starts (sorted): the last one starting at or before it (metrics.md:
// min(floor(t/W), last)); the first for an instant before them all.
func windowOf(starts []int64, t int64) int {
	return max(sort.Search(len(starts), func(k int) bool { return starts[k] > t })-1, 0)
}

// runExtent is the run's [start, end], from its summary, else from its windows.
func runExtent(r Run) (time.Time, time.Time) {
	start, end := r.Summary.RunStart, r.Summary.RunEnd
	if start.IsZero() || end.IsZero() {
		for i, w := range r.Windows {
			if i == 0 || w.WindowStart.Before(start) {
				start = w.WindowStart
			}
			if e := windowEnd(w); i == 0 || e.After(end) {
				end = e
			}
		}
	}
	return start, end
}

// windowEnd is a window's nominal end, or its start plus its length when the
// end is not recorded.
func windowEnd(w schemas.Metrics) time.Time {
	if !w.WindowEnd.IsZero() {
		return w.WindowEnd
	}
	return w.WindowStart.Add(time.Duration(schemas.SecondsMicros(w.WindowSeconds)) * time.Microsecond)
}

func summaryCounts(s schemas.Summary) counts {
	out := counts{requests: s.Requests, succeeded: s.SucceededRequests, attempts: s.Attempts, retries: s.RetryAttempts}
	if s.SLO != nil && s.SLOMet != nil {
		met := *s.SLOMet
		out.sloMet = &met
	}
	return out
}

// windowCounts sums the windows' counts. slo_met is summed when the run has
// an SLO and every window that completed a request recorded it.
func windowCounts(ws []schemas.Metrics, slo bool) counts {
	var out counts
	var met int64
	metKnown := slo
	for _, w := range ws {
		out.requests += w.Requests
		out.succeeded += w.SucceededRequests
		out.attempts += w.Attempts
		out.retries += w.RetryAttempts
		switch {
		case w.SLOMet != nil:
			met += *w.SLOMet
		case w.Requests > 0:
			metKnown = false
		}
	}
	if metKnown {
		out.sloMet = &met
	}
	return out
}

// exclusionNote says what the warm-up and the cool-down took out of each run.
func exclusionNote(c schemas.Criteria, b, cand []selection) string {
	var what []string
	switch {
	case c.WarmupAuto:
		what = append(what, "warm-up (auto)")
	case c.Warmup > 0:
		what = append(what, "warm-up "+seconds(c.Warmup))
	}
	switch {
	case c.CooldownAuto:
		what = append(what, "cool-down (auto)")
	case c.Cooldown > 0:
		what = append(what, "cool-down "+seconds(c.Cooldown))
	}
	run := func(sels []selection) string {
		var excluded, total int
		var requests int64
		for _, s := range sels {
			excluded, total, requests = excluded+s.excluded, total+s.total, requests+s.excludedRequests
		}
		return fmt.Sprintf("%d of %d windows (%s completed requests)", excluded, total, numfmt.Group(fmt.Sprint(requests)))
	}
	return fmt.Sprintf("%s excluded from every criterion: baseline %s, candidate %s",
		strings.Join(what, " and "), run(b), run(cand))
}

// sortedByRelease returns the requests in release order (ties keep their
// order): rs itself when it is in that order already, as latencies.parquet
// holds them.
func sortedByRelease(rs []schemas.RequestLatency) []schemas.RequestLatency {
	byRelease := func(a, b schemas.RequestLatency) int { return cmp.Compare(a.Released, b.Released) }
	if slices.IsSortedFunc(rs, byRelease) {
		return rs
	}
	out := slices.Clone(rs)
	slices.SortStableFunc(out, byRelease)
	return out
}
