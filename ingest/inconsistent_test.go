package ingest

import (
	"context"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/tpsreport/tpsreport/schemas"
)

// TestInconsistentRecords: records whose own fields disagree are read as
// their format's mapping says, and counted in their input's manifest entry
// with the reason and the first one's figures, from the projects' own
// examples (testdata READMEs quote them).
func TestInconsistentRecords(t *testing.T) {
	for _, tt := range []struct {
		file string
		want []schemas.Inconsistency
	}{
		{"aiperf/docs_examples.good.jsonl", []schemas.Inconsistency{{Reason: InconsistentTiming, Count: 1,
			First: "inter_chunk_latency sums to 41.6 ms while request_latency − time_to_first_token is 292.6 ms (request 7609a2e7-aa53-4ab1-98f4-f35ecafefd25)"}}},
		{"litellm/gcs_pubsub_payload.good.json", []schemas.Inconsistency{{Reason: InconsistentTiming, Count: 1,
			First: "endTime − startTime is 4.6 ms while response_time is 7.4 ms; a streamed call (stream: true) whose completionStartTime is its endTime, so its TTFT is unknown (id chatcmpl-2299b6a2-82a3-465a-b47c-04e685a2227f)"}}},
		// Consistent payloads count none.
		{"litellm/slp_stream.good.json", nil},
		{"aiperf/profile_export.good.jsonl", nil},
	} {
		t.Run(tt.file, func(t *testing.T) {
			m, err := Run(context.Background(), Options{RunID: "r", OutDir: filepath.Join(t.TempDir(), "out"), Inputs: []string{filepath.Join("testdata", tt.file)}})
			if err != nil {
				t.Fatal(err)
			}
			if got := m.Inputs[0].Inconsistent; !reflect.DeepEqual(got, tt.want) {
				t.Errorf("inconsistent %+v, want %+v", got, tt.want)
			}
		})
	}
}
