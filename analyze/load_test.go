package analyze

import (
	"encoding/json"
	"testing"

	"github.com/tpsreport/tpsreport/schemas"
)

// TestLoadRoundTrip: Load reads back exactly the windows Run computed.
func TestLoadRoundTrip(t *testing.T) {
	spans := []schemas.Span{
		{RunID: "r", Source: "spans", SpanID: "a", RequestID: "a", Attempt: i32(0), Status: "ok",
			QueuedAt: at(0), AdmittedAt: at(1), FirstTokenAt: at(2), LastTokenAt: at(70), ReleasedAt: at(70),
			InputTokens: i64(100), OutputTokens: i64(101)},
	}
	dir := writeDataset(t, spans, nil, nil)
	res := analyzeDir(t, dir, Options{})
	got, err := Load(t.Context(), dir)
	if err != nil {
		t.Fatal(err)
	}
	a, _ := json.Marshal(res.Windows)
	b, _ := json.Marshal(got.Windows)
	if string(a) != string(b) {
		t.Errorf("windows after Load differ:\n%s\n%s", a, b)
	}
	if len(got.Windows) != 2 {
		t.Errorf("got %d windows, want 2", len(got.Windows))
	}
}
