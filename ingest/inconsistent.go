package ingest

import (
	"cmp"
	"slices"

	"github.com/tpsreport/tpsreport/schemas"
)

// Reasons of records that are read although their own fields disagree.
const (
	// InconsistentTiming: a record's latencies do not add up (AIPerf's
	// inter-chunk latencies against request latency less TTFT; LiteLLM's
	// endTime − startTime against its response_time).
	InconsistentTiming = "timing_mismatch"
	// InconsistentFirstToken: a streamed call whose first token is logged
	// at its end (LiteLLM's completionStartTime = endTime), so its TTFT is
	// unknown.
	InconsistentFirstToken = "first_token_at_end"
)

// inconsistencies counts, by reason, the records of one input whose fields
// disagree, keeping the first one's description (in input order: the
// writer counts them as it writes).
type inconsistencies struct {
	by []schemas.Inconsistency
}

// note counts one record of reason, described by first when it is the first.
func (x *inconsistencies) note(reason, first string) {
	for i := range x.by {
		if x.by[i].Reason == reason {
			x.by[i].Count++
			return
		}
	}
	x.by = append(x.by, schemas.Inconsistency{Reason: reason, Count: 1, First: first})
}

// list returns the counts by reason.
func (x *inconsistencies) list() []schemas.Inconsistency {
	out := slices.Clone(x.by)
	slices.SortFunc(out, func(a, b schemas.Inconsistency) int { return cmp.Compare(a.Reason, b.Reason) })
	return out
}

// mismatch is a span record's inconsistency, carried from the reader to
// the writer beside the span.
type mismatch struct{ reason, text string }
