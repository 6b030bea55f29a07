package schemas

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/parquet-go/parquet-go"
)

// TestParquetSchemaGolden pins the printed Parquet schemas of spans.parquet and
// samples.parquet: a change of a column's name, type, logical type or
// optionality shows up here first. UPDATE_GOLDEN=1 regenerates; read the diff.
func TestParquetSchemaGolden(t *testing.T) {
	for name, v := range map[string]any{"span": Span{}, "sample": Sample{}} {
		t.Run(name, func(t *testing.T) {
			got := parquet.SchemaOf(v).String() + "\n"
			path := filepath.Join("testdata", name+".parquet-schema.golden")
			if os.Getenv("UPDATE_GOLDEN") != "" {
				if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if got != string(want) {
				t.Errorf("parquet schema of %s changed:\n got:\n%s\nwant:\n%s", name, got, want)
			}
		})
	}
}

func TestMicrosRounds(t *testing.T) {
	for _, tt := range []struct {
		in   time.Time
		want int64
	}{
		{time.Date(2026, 11, 20, 10, 0, 0, 123456499, time.UTC), 1795168800123456},
		{time.Date(2026, 11, 20, 10, 0, 0, 123456500, time.UTC), 1795168800123457},
		{time.Date(2026, 11, 20, 10, 0, 0, 999999500, time.UTC), 1795168801000000},
		{time.Date(1969, 12, 31, 23, 59, 59, 999999500, time.UTC), -1}, // −0.5 µs: half away from zero
		{time.Date(1969, 12, 31, 23, 59, 59, 999999501, time.UTC), 0},
		{time.Date(1969, 12, 31, 23, 59, 59, 999998600, time.UTC), -1},
	} {
		if got := Micros(tt.in); got != tt.want {
			t.Errorf("Micros(%s) = %d, want %d", tt.in.Format(time.RFC3339Nano), got, tt.want)
		}
		if got := Time(tt.want); got.Sub(tt.in).Abs() > 500*time.Nanosecond {
			t.Errorf("Time(%d) = %s, more than half a µs from %s", tt.want, got, tt.in)
		}
	}
}

func TestValidStatus(t *testing.T) {
	for _, s := range Statuses {
		if !ValidStatus(s) {
			t.Errorf("%q not valid", s)
		}
	}
	if ValidStatus("OK") || ValidStatus("success") {
		t.Error("only the five lower-case statuses are valid")
	}
}
