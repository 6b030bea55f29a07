package canary

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/tpsreport/tpsreport/schemas"
)

// BenchmarkSplitRun splits a run of 200,000 spans of a gateway and an
// engine on eight replicas into one canary replica and seven others, with
// the groups' pools.
func BenchmarkSplitRun(b *testing.B) {
	src := filepath.Join(b.TempDir(), "run")
	var spans []schemas.Span
	for i := range 100_000 {
		r := fmt.Sprintf("vllm-%d", i%8)
		id := fmt.Sprintf("req-%d", i)
		q := float64(i) / 50
		spans = append(spans, span("litellm", id, str(r+":8000"), q, q+8), span("vllm-otel", id, str(r), q+0.01, q+7.9))
	}
	t := &testing.T{}
	writeRun(t, src, spans, nil, schemas.Manifest{RunID: "night", Tool: "tpsreport"})
	sel, _ := ParseAll([]string{"vllm-7"})
	b.ResetTimer()
	for i := range b.N {
		if _, err := SplitRun(context.Background(), src, filepath.Join(b.TempDir(), fmt.Sprint(i)), sel, nil, true); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(len(spans))*float64(b.N)/b.Elapsed().Seconds(), "spans/s")
}
