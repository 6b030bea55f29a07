package truth

import (
	"testing"

	"github.com/tpsreport/tpsreport/internal/testcrash"
)

// TestMain watches for a crash on one of DuckDB's threads, which would
// otherwise end the tests without a word.
func TestMain(m *testing.M) { testcrash.Main(m) }
