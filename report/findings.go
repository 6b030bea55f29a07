package report

import (
	"strings"

	"github.com/tpsreport/tpsreport/schemas"
)

// Thresholds of a single-run report's findings. They are reading aids for a
// run without a baseline, not acceptance criteria, and each finding quotes
// the one it used.
const (
	// gapConcern: above this gap_fraction the idle slots under backlog are
	// worth chasing (admission, orchestration, the gateway).
	gapConcern = 0.05
	// failureConcern: below 1 − failureConcern success, failures matter
	// before speed does.
	failureConcern = 0.01
	// retryConcern: above this retry_rate, retried work is a visible cost.
	retryConcern = 0.05
	// rejectConcern: above this share of records rejected, the metrics may
	// miss part of the traffic.
	rejectConcern = 0.01
)

// findings says in a few sentences what a single run's numbers mean for it,
// most important first. The same run always gives the same sentences.
func findings(r *Run) []string {
	s := &r.Summary
	m := &s.Metrics
	var out []string
	// A sample qualifies every number after it: said first.
	for _, p := range s.DataQuality.Sampled {
		out = append(out, "The numbers are of a sample: "+p.String()+".")
	}
	gap, gapOK := finite(m.GapFraction)
	switch {
	case noEngine(*s):
		out = append(out, "No engine's log or samples were read: the requests are as a client or a gateway saw them, so latencies, throughput and success_rate hold, "+
			"while the engine's slots, queue and idle time are unseen. Ingest the engine's log with them to see those.")
	case m.Requests == 0 && m.Attempts == 0:
		out = append(out, "No request completed in the run window, so it says nothing about throughput or capacity.")
	case s.Cap == nil:
		out = append(out, "No cap is known, so the report cannot tell idle slots from a full engine: pass --cap (the engine's max_num_seqs) or ingest scheduler samples.")
	case m.BacklogTime <= 0:
		out = append(out, "No request waited: the run never saturated, so it says nothing about capacity.")
	case gapOK && gap > gapConcern:
		out = append(out, "Requests waited while slots were free during "+fmtPercent(gap)+" of the run (gap_fraction "+
			fmtPercent(gap)+" > "+fmtShortPercent(gapConcern)+"): look at admission, orchestration or the gateway.")
	case gapOK && m.WindowSeconds > 0:
		out = append(out, "Requests waited during "+fmtPercent(m.BacklogTime/m.WindowSeconds)+" of the run, with slots free for "+
			fmtPercent(gap)+" of the run (gap_fraction ≤ "+fmtShortPercent(gapConcern)+"): when work waited the engine was mostly full, so the run shows its capacity.")
	}
	if s.EngineOnly {
		out = append(out, "Only engine logs were read: queue time at the gateway is not seen, so t_queue, ttft and gap_fraction count the engine's queue alone, "+
			"and requests waiting at a gateway, a load balancer or the client while slots were free do not show as idle time. Ingest the gateway's log with the engine's to see them.")
	}
	if s.Cap != nil && s.CapSource == "inferred" && !noEngine(*s) {
		out = append(out, "The cap of "+fmtCount(*s.Cap)+" was inferred from the maximum in_flight seen, so gap_time and gap_fraction are lower bounds. Pass --cap or ingest scheduler samples for exact values.")
	}
	if sr, ok := finite(m.SuccessRate); ok && sr < 1-failureConcern {
		out = append(out, fmtPercent(1-sr)+" of requests failed (success_rate "+fmtPercent(sr)+" < "+fmtShortPercent(1-failureConcern)+
			"): throughput counts only successful spans, so read the errors before the speed.")
	}
	if rr, ok := finite(m.RetryRate); ok && rr > retryConcern {
		msg := fmtPercent(rr) + " of attempts were retries (retry_rate " + fmtPercent(rr) + " > " + fmtShortPercent(retryConcern) + ")"
		if w, ok := finite(m.WasteFraction); ok {
			msg += ": " + fmtPercent(w) + " of the generated tokens were never delivered"
		}
		out = append(out, msg+".")
	}
	c := r.Manifest.Counts
	if c == (schemas.Counts{}) {
		dq := &s.DataQuality
		c = schemas.Counts{Read: dq.RecordsRead, Rejected: dq.RecordsRejected}
	}
	if c.Read > 0 && float64(c.Rejected)/float64(c.Read) > rejectConcern {
		out = append(out, fmtCount(c.Rejected)+" of "+fmtCount(c.Read)+" records were rejected ("+
			fmtPercent(float64(c.Rejected)/float64(c.Read))+" > "+fmtShortPercent(rejectConcern)+"): the metrics leave them out; rejects.jsonl says why.")
	}
	return out
}

// reasonList shows counts by reason, largest first: "blank 9, unused_line 3".
func reasonList(cs []countFact) string {
	parts := make([]string, len(cs))
	for i, c := range cs {
		parts[i] = c.Name + " " + c.Text
	}
	return strings.Join(parts, ", ")
}
