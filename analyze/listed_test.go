package analyze

import (
	"fmt"
	"strings"
	"testing"

	"github.com/tpsreport/tpsreport/schemas"
)

// TestListsAreBounded: a run of more replicas and models than
// schemas.MaxListed lists the replicas with the most gap time and the first
// models, and counts the others; the mixed-models warning names ten
// (hostile-input review N8: a million replicas made summary.json too big
// to read).
func TestListsAreBounded(t *testing.T) {
	const n = schemas.MaxListed + 23
	var spans []schemas.Span
	for i := range n {
		// Replica r-i: a request that waits i ms in its queue while its
		// replica (cap 2) runs nothing: i ms of gap time.
		q, a := float64(i), float64(i)+float64(i)/1000
		spans = append(spans, schemas.Span{RunID: "r", Source: "spans", SpanID: fmt.Sprint("s", i), RequestID: fmt.Sprint("q", i),
			Model: str(fmt.Sprintf("m-%03d", i)), Replica: str(fmt.Sprintf("r-%03d", i)), Status: "ok",
			QueuedAt: at(q), AdmittedAt: at(a), FirstTokenAt: at(a + 0.1), LastTokenAt: at(a + 0.5), ReleasedAt: at(a + 0.5),
			InputTokens: i64(10), OutputTokens: i64(5)})
	}
	res := analyzeDir(t, writeDataset(t, spans, nil, nil), Options{Cap: i64(2)})
	s := res.Summary
	if len(s.Replicas) != schemas.MaxListed || s.ReplicasOmitted != 23 {
		t.Fatalf("replicas listed %d, omitted %d; want %d and 23", len(s.Replicas), s.ReplicasOmitted, schemas.MaxListed)
	}
	// The listed are those with the most gap time: r-023 … r-122.
	for _, r := range s.Replicas {
		if r.Replica < "r-023" {
			t.Errorf("listed %s (gap %v), one of the 23 with the least gap time", r.Replica, r.GapTime)
		}
	}
	if dq := s.DataQuality; len(dq.Models) != schemas.MaxListed || dq.ModelsOmitted != 23 || dq.Models[0] != "m-000" {
		t.Errorf("models listed %d (first %q), omitted %d; want %d from m-000, and 23", len(dq.Models), dq.Models[0], dq.ModelsOmitted, schemas.MaxListed)
	}
	var warning string
	for _, w := range s.Warnings {
		if strings.HasPrefix(w, "mixed models") {
			warning = w
		}
	}
	if want := `mixed models ["m-000" "m-001" "m-002" "m-003" "m-004" "m-005" "m-006" "m-007" "m-008" "m-009"] and 113 more: token counts are tokenizer-specific`; warning != want {
		t.Errorf("warning %q, want %q", warning, want)
	}
}
