package ingest

import (
	"errors"
	"testing"

	"github.com/tpsreport/tpsreport/ingest/internal/scan"
	"github.com/tpsreport/tpsreport/schemas"
)

// t0 is 2026-11-20T10:00:00Z in microseconds: 1795168800 s (date -ud @1795168800).
const t0 = 1795168800_000000

// decodeQueuedAt decodes the JSON value v as the queued_at of a span.
func decodeQueuedAt(v string) (*int64, error) {
	var d spansDecoder
	var sp schemas.Span
	err := d.decode([]byte(`{"span_id":"s","status":"ok","queued_at":`+v+`}`), &sp)
	return sp.QueuedAt, err
}

func TestTimestamp(t *testing.T) {
	tests := []struct {
		in   string // JSON value
		want int64  // µs since the epoch
	}{
		// Every RFC 3339 offset form, all for the same instant.
		{`"2026-11-20T10:00:00Z"`, t0},
		{`"2026-11-20T10:00:00z"`, t0},
		{`"2026-11-20t10:00:00Z"`, t0},
		{`"2026-11-20 10:00:00Z"`, t0},
		{`"2026-11-20T10:00:00+00:00"`, t0},
		{`"2026-11-20T10:00:00-00:00"`, t0},
		{`"2026-11-20T12:00:00+02:00"`, t0},
		{`"2026-11-20T04:30:00-05:30"`, t0},
		{`"2026-11-21T09:59:00+23:59"`, t0},
		{`"2026-11-19T10:01:00-23:59"`, t0},
		{`"2026-11-20T15:45:00+05:45"`, t0},

		// 0 to 9 fraction digits, and more.
		{`"2026-11-20T10:00:00.0Z"`, t0},
		{`"2026-11-20T10:00:00.1Z"`, t0 + 100000},
		{`"2026-11-20T10:00:00.12Z"`, t0 + 120000},
		{`"2026-11-20T10:00:00.123Z"`, t0 + 123000},
		{`"2026-11-20T10:00:00.1234Z"`, t0 + 123400},
		{`"2026-11-20T10:00:00.12345Z"`, t0 + 123450},
		{`"2026-11-20T10:00:00.123456Z"`, t0 + 123456},
		{`"2026-11-20T10:00:00.1234564Z"`, t0 + 123456},
		{`"2026-11-20T10:00:00.1234565Z"`, t0 + 123457}, // half rounds up
		{`"2026-11-20T10:00:00.12345649Z"`, t0 + 123456},
		{`"2026-11-20T10:00:00.123456789Z"`, t0 + 123457},
		{`"2026-11-20T10:00:00.000000499999999999Z"`, t0},
		{`"2026-11-20T10:00:00.0000005Z"`, t0 + 1},
		{`"2026-11-20T12:00:00.123456789+02:00"`, t0 + 123457},
		{`"2026-11-20T10:00:00.123456789+02:00"`, t0 - 7200_000000 + 123457},

		// Rounding carries into seconds, minutes, days and years.
		{`"2026-11-20T09:59:59.9999995Z"`, t0},
		{`"2026-11-20T09:59:59.999999Z"`, t0 - 1},
		{`"2026-12-31T23:59:59.9999999Z"`, 1798761600_000000}, // 2027-01-01T00:00:00Z

		// Before the epoch, an exact half rounds away from zero.
		{`"1969-12-31T23:59:59.9999995Z"`, -1},
		{`"1969-12-31T23:59:59.9999996Z"`, 0},
		{`"1969-12-31T23:59:59.9999994Z"`, -1},
		{`"1969-07-20T20:17:40Z"`, -14182940_000000},

		// Calendar edges.
		{`"1970-01-01T00:00:00Z"`, 0},
		{`"2000-02-29T23:59:59Z"`, 951868799_000000},
		{`"2024-02-29T12:00:00Z"`, 1709208000_000000},
		{`"1900-03-01T00:00:00Z"`, -2203891200_000000},
		{`"0000-01-01T00:00:00Z"`, -62167219200_000000},
		{`"9999-12-31T23:59:59.999999Z"`, 253402300799_999999},

		// Epoch integers, told apart by magnitude.
		{`1795168800`, t0},
		{`1795168800123`, t0 + 123000},
		{`1795168800123456`, t0 + 123456},
		{`1795168800123456789`, t0 + 123457},
		{`1795168800123456499`, t0 + 123456},
		{`1795168800123456500`, t0 + 123457},
		{`-1795168800123456500`, -t0 - 123457},
		{`0`, 0},
		{`-1`, -1_000000},
		{`99999999999`, 99999999999_000000},         // < 1e11: seconds
		{`100000000000`, 100000000000_000},          // 1e11: milliseconds
		{`99999999999999`, 99999999999999_000},      // < 1e14: milliseconds
		{`100000000000000`, 100000000000000},        // 1e14: microseconds
		{`99999999999999999`, 99999999999999999},    // < 1e17: microseconds
		{`100000000000000000`, 100000000000000},     // 1e17: nanoseconds
		{`9223372036854775807`, 9223372036854776},   // max int64 ns, .807 rounds up
		{`12345678901234567890`, 12345678901234568}, // ns beyond int64, still in range

		// Epoch numbers with a fraction are seconds, read exactly.
		{`1795168800.123456`, t0 + 123456},
		{`1795168800.1234565`, t0 + 123457},
		{`1795168800.12345649999999`, t0 + 123456},
		{`1795168800.5`, t0 + 500000},
		{`1795168800.0`, t0},
		{`1.7951688001234565e9`, t0 + 123457},
		{`17951688001234565e-7`, t0 + 123457},
		{`1.5`, 1_500000},
		{`-1.5`, -1_500000},
		{`-0.0000005`, -1},
		{`0.0000004`, 0},
		{`1e3`, 1000_000000},

		// Numeric strings read like the number.
		{`"1795168800"`, t0},
		{`"1795168800123"`, t0 + 123000},
		{`"1795168800.123456"`, t0 + 123456},
		{`"1795168800123456789"`, t0 + 123457},
	}
	for _, tt := range tests {
		got, err := decodeQueuedAt(tt.in)
		if err != nil {
			t.Errorf("%s: got error %v, want %d", tt.in, err, tt.want)
			continue
		}
		if got == nil || *got != tt.want {
			t.Errorf("%s: got %v, want %d", tt.in, deref(got), tt.want)
		}
	}
}

func TestTimestampNull(t *testing.T) {
	got, err := decodeQueuedAt(`null`)
	if err != nil || got != nil {
		t.Errorf("null: got %v, %v; want nil, nil", deref(got), err)
	}
}

func TestTimestampBad(t *testing.T) {
	const want = "want RFC 3339 (2026-11-20T10:00:00.123Z) or epoch seconds, ms, µs or ns"
	tests := []struct {
		in   string
		kind error
		msg  string
	}{
		{`"yesterday"`, ErrBadTimestamp, `queued_at: invalid timestamp "yesterday": ` + want},
		{`""`, ErrBadTimestamp, `queued_at: invalid timestamp "": ` + want},
		{`"2026-13-01T00:00:00Z"`, ErrBadTimestamp, `queued_at: invalid timestamp "2026-13-01T00:00:00Z": month out of range`},
		{`"2026-00-01T00:00:00Z"`, ErrBadTimestamp, `queued_at: invalid timestamp "2026-00-01T00:00:00Z": month out of range`},
		{`"2026-11-31T00:00:00Z"`, ErrBadTimestamp, `queued_at: invalid timestamp "2026-11-31T00:00:00Z": day out of range`},
		{`"2023-02-29T00:00:00Z"`, ErrBadTimestamp, `queued_at: invalid timestamp "2023-02-29T00:00:00Z": day out of range`},
		{`"1900-02-29T00:00:00Z"`, ErrBadTimestamp, `queued_at: invalid timestamp "1900-02-29T00:00:00Z": day out of range`},
		{`"2026-11-20T24:00:00Z"`, ErrBadTimestamp, `queued_at: invalid timestamp "2026-11-20T24:00:00Z": hour out of range`},
		{`"2026-11-20T10:60:00Z"`, ErrBadTimestamp, `queued_at: invalid timestamp "2026-11-20T10:60:00Z": minute out of range`},
		{`"2026-11-20T10:00:60Z"`, ErrBadTimestamp, `queued_at: invalid timestamp "2026-11-20T10:00:60Z": second out of range`},
		{`"2026-11-20T10:00:00+24:00"`, ErrBadTimestamp, `queued_at: invalid timestamp "2026-11-20T10:00:00+24:00": UTC offset out of range`},
		{`"2026-11-20T10:00:00+02:60"`, ErrBadTimestamp, `queued_at: invalid timestamp "2026-11-20T10:00:00+02:60": UTC offset out of range`},
		{`"2026-11-20T10:00:00"`, ErrBadTimestamp, `queued_at: invalid timestamp "2026-11-20T10:00:00": missing UTC offset (add Z or +hh:mm)`},
		{`"2026-11-20T10:00:00.123"`, ErrBadTimestamp, `queued_at: invalid timestamp "2026-11-20T10:00:00.123": missing UTC offset (add Z or +hh:mm)`},
		{`"2026-11-20"`, ErrBadTimestamp, `queued_at: invalid timestamp "2026-11-20": ` + want},
		{`"2026-11-20T10:00Z"`, ErrBadTimestamp, `queued_at: invalid timestamp "2026-11-20T10:00Z": ` + want},
		{`"2026-11-20T10:00:00.Z"`, ErrBadTimestamp, `queued_at: invalid timestamp "2026-11-20T10:00:00.Z": ` + want},
		{`"2026-11-20T10:00:00+0200"`, ErrBadTimestamp, `queued_at: invalid timestamp "2026-11-20T10:00:00+0200": ` + want},
		{`"2026-11-20T10:00:00Z "`, ErrBadTimestamp, `queued_at: invalid timestamp "2026-11-20T10:00:00Z ": ` + want},
		{`"2026-11-20T10:00:00,5Z"`, ErrBadTimestamp, `queued_at: invalid timestamp "2026-11-20T10:00:00,5Z": ` + want},
		{`"+2026-11-20T10:00:00Z"`, ErrBadTimestamp, `queued_at: invalid timestamp "+2026-11-20T10:00:00Z": ` + want},
		{`" 1795168800"`, ErrBadTimestamp, `queued_at: invalid timestamp " 1795168800": ` + want},
		{`"1795168800."`, ErrBadTimestamp, `queued_at: invalid timestamp "1795168800.": ` + want},
		{`"0x10"`, ErrBadTimestamp, `queued_at: invalid timestamp "0x10": ` + want},
		{`"NaN"`, ErrBadTimestamp, `queued_at: invalid timestamp "NaN": ` + want},
		{`1e400`, ErrBadTimestamp, `queued_at: invalid timestamp "1e400": out of range (years 0000 to 9999)`},
		{`"1e400"`, ErrBadTimestamp, `queued_at: invalid timestamp "1e400": out of range (years 0000 to 9999)`},
		{`123456789012345678901234`, ErrBadTimestamp, `queued_at: invalid timestamp "123456789012345678901234": out of range (years 0000 to 9999)`},
		{`253402300800.0`, ErrBadTimestamp, `queued_at: invalid timestamp "253402300800.0": out of range (years 0000 to 9999)`},
		{`"9999-12-31T23:59:59.9999995Z"`, ErrBadTimestamp, `queued_at: invalid timestamp "9999-12-31T23:59:59.9999995Z": out of range (years 0000 to 9999)`},
		{`true`, ErrBadType, `queued_at: want a timestamp (string or number), found boolean`},
		{`{"s":1}`, ErrBadType, `queued_at: want a timestamp (string or number), found object`},
		{`[1]`, ErrBadType, `queued_at: want a timestamp (string or number), found array`},
	}
	for _, tt := range tests {
		got, err := decodeQueuedAt(tt.in)
		if err == nil {
			t.Errorf("%s: got %v, want error %q", tt.in, deref(got), tt.msg)
			continue
		}
		if !errors.Is(err, tt.kind) || err.Error() != tt.msg {
			t.Errorf("%s:\n got  %v (%s)\n want %s (%s)", tt.in, err, scan.KindOf(err), tt.msg, scan.KindOf(tt.kind))
		}
		var re *RecordError
		if !errors.As(err, &re) || re.Pos != len(`{"span_id":"s","status":"ok","queued_at":`) {
			t.Errorf("%s: error position %+v, want the value's offset", tt.in, re)
		}
	}
}

func deref[T any](p *T) any {
	if p == nil {
		return nil
	}
	return *p
}
