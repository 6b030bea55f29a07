package analyze

import (
	"math/rand/v2"
	"path/filepath"
	"testing"
	"time"

	"github.com/tpsreport/tpsreport/analyze/oracle"
	"github.com/tpsreport/tpsreport/schemas"
)

// TestOutputsStoreUTCInstants: requests.parquet and windows.parquet store
// their times as spans.parquet does (schemas/README.md), as UTC instants
// (TIMESTAMP, isAdjustedToUTC=true, µs), with the spans' instants unchanged,
// and Load reads the window bounds back as those instants.
func TestOutputsStoreUTCInstants(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 1))
	spans, samples := oracle.RandomSpans(r, 200, oracle.DefaultGenOptions())
	dir := writeDataset(t, spans, samples, nil)
	res := analyzeDir(t, dir, Options{Window: 10 * time.Second})
	db := testDB(t)

	for file, want := range map[string]int{schemas.RequestsFile: 6, schemas.WindowsFile: 2} {
		var n, utc int
		err := db.QueryRowContext(t.Context(), `
SELECT count(*), count(*) FILTER (WHERE logical_type LIKE '%isAdjustedToUTC=1%unit=%MICROS=MicroSeconds()%')
FROM parquet_schema(?) WHERE logical_type LIKE 'TimestampType%'`, filepath.Join(dir, file)).Scan(&n, &utc)
		if err != nil {
			t.Fatal(err)
		}
		if n != want || utc != n {
			t.Errorf("%s: %d timestamp columns, %d of them UTC instants in µs; want %d, all", file, n, utc, want)
		}
	}

	// Every span's instants come back as the same µs since the epoch, row i
	// of requests.parquet being span i (span_ids repeat in these spans).
	rows, err := db.QueryContext(t.Context(), `
SELECT epoch_us(queued_at), epoch_us(admitted_at), epoch_us(first_token_at),
       epoch_us(last_token_at), epoch_us(released_at)
FROM read_parquet(?, file_row_number = true) ORDER BY file_row_number`, filepath.Join(dir, schemas.RequestsFile))
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	i := 0
	for ; rows.Next(); i++ {
		var got [5]*int64
		if err := rows.Scan(&got[0], &got[1], &got[2], &got[3], &got[4]); err != nil {
			t.Fatal(err)
		}
		if i >= len(spans) {
			continue
		}
		s := spans[i]
		for j, w := range [5]*int64{s.QueuedAt, s.AdmittedAt, s.FirstTokenAt, s.LastTokenAt, s.ReleasedAt} {
			if (w == nil) != (got[j] == nil) || (w != nil && *w != *got[j]) {
				t.Errorf("row %d instant %d: got %v, want %v", i, j, deref(got[j]), deref(w))
			}
		}
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	if i != len(spans) {
		t.Errorf("requests.parquet: %d rows, want %d", i, len(spans))
	}

	// The windows read back start and end on multiples of the width, in UTC.
	loaded, err := Load(t.Context(), dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(loaded.Windows) != len(res.Windows) || len(loaded.Windows) < 2 {
		t.Fatalf("loaded %d windows, analyzed %d (want at least 2)", len(loaded.Windows), len(res.Windows))
	}
	for i, w := range loaded.Windows {
		start := w.WindowStart
		if start.Location() != time.UTC || start.UnixMicro()%10_000_000 != 0 {
			t.Errorf("window %d starts at %v: not a multiple of 10 s in UTC", i, start)
		}
		if !start.Equal(res.Windows[i].WindowStart) {
			t.Errorf("window %d: loaded start %v, analyzed %v", i, start, res.Windows[i].WindowStart)
		}
	}
}
