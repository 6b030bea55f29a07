package analyze

import (
	"log/slog"
	"os"
	"testing"
)

// TestProfileQueries times every statement of an analysis of the dataset in
// $ANALYZE_PROFILE_DIR (skipped without it), to find the slow query:
//
//	ANALYZE_PROFILE_DIR=bench/out/run-1M go test -run TestProfileQueries -v ./analyze/
func TestProfileQueries(t *testing.T) {
	dir := os.Getenv("ANALYZE_PROFILE_DIR")
	if dir == "" {
		t.Skip("set ANALYZE_PROFILE_DIR to a run dataset")
	}
	log := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelDebug}))
	analyzeDir(t, dir, Options{Log: log})
}
