package scan

import (
	"math/rand/v2"
	"testing"
)

// TestScaleDecimal pins the exact decimal arithmetic under the timestamps
// and whole-number checks.
func TestScaleDecimal(t *testing.T) {
	tests := []struct {
		num   string
		scale int
		want  int64
		exact bool
		ok    bool
	}{
		{"0", 0, 0, true, true},
		{"-0", 6, 0, true, true},
		{"0.000", 0, 0, true, true},
		{"0e99999999999", 0, 0, true, true},
		{"12", 0, 12, true, true},
		{"12.0", 0, 12, true, true},
		{"12.5", 0, 13, false, true},
		{"-12.5", 0, -13, false, true},
		{"12.49", 0, 12, false, true},
		{"1.2e1", 0, 12, true, true},
		{"1200e-2", 0, 12, true, true},
		{"1E+2", 0, 100, true, true},
		{"0.001", 3, 1, true, true},
		{"0.0015", 3, 2, false, true},
		{"0.00049", 3, 0, false, true},
		{"1e-99999999999", 0, 0, false, true},
		{"9223372036854775807", 0, 9223372036854775807, true, true},
		{"9223372036854775808", 0, 0, false, false},
		{"9223372036854775807.4", 0, 9223372036854775807, false, true},
		{"9223372036854775807.5", 0, 0, false, false},
		{"-9223372036854775807", 0, -9223372036854775807, true, true},
		{"1e19", 0, 0, false, false},
		{"1e18", 0, 1000000000000000000, true, true},
		{"00000000000000000000001", 0, 1, true, true},
		{"1795168800.1234565", 6, 1795168800123457, false, true},
	}
	for _, tt := range tests {
		got, exact, ok := ScaleDecimal([]byte(tt.num), tt.scale)
		if got != tt.want || exact != tt.exact || ok != tt.ok {
			t.Errorf("scaleDecimal(%s, %d) = %d, %v, %v; want %d, %v, %v",
				tt.num, tt.scale, got, exact, ok, tt.want, tt.exact, tt.ok)
		}
		checkShortDecimal(t, []byte(tt.num), tt.scale)
	}
}

// checkShortDecimal holds ScaleDecimal's short path to its digit-by-digit
// one: where the short path answers, both give the same exact value.
func checkShortDecimal(t *testing.T, num []byte, scale int) {
	t.Helper()
	v, ok := shortDecimal(num, scale)
	if !ok {
		return
	}
	if want, exact, wok := scaleDigits(num, scale); v != want || !exact || !wok {
		t.Fatalf("shortDecimal(%q, %d) = %d; scaleDigits = %d (exact %v, ok %v)", num, scale, v, want, exact, wok)
	}
}

// TestShortDecimal: the short path answers for the engines' epochs and
// latencies, and leaves to scaleDigits what needs rounding, a sign, an
// exponent or more than 18 digits.
func TestShortDecimal(t *testing.T) {
	for _, tt := range []struct {
		num   string
		scale int
		want  int64
		ok    bool
	}{
		{"1795168800.208395", 6, 1795168800208395, true},
		{"1795168800.14824", 6, 1795168800148240, true},
		{"0.722668", 6, 722668, true},
		{"0", 6, 0, true},
		{"1795168800", 0, 1795168800, true},
		{"999999999999.999999", 6, 999999999999999999, true},
		{"9999999999999.999999", 6, 0, false},
		{"1795168800.1234565", 6, 0, false},
		{"-0.5", 6, 0, false},
		{"1e3", 6, 0, false},
		{"1.5", -3, 0, false},
		{"", 6, 0, false},
		{".5", 6, 0, false},
	} {
		v, ok := shortDecimal([]byte(tt.num), tt.scale)
		if v != tt.want || ok != tt.ok {
			t.Errorf("shortDecimal(%q, %d) = %d, %v; want %d, %v", tt.num, tt.scale, v, ok, tt.want, tt.ok)
		}
		checkShortDecimal(t, []byte(tt.num), tt.scale)
	}
	rng := rand.New(rand.NewPCG(5, 6))
	const chars = "0123456789.-e"
	for range 200000 {
		b := make([]byte, 1+rng.IntN(22))
		for i := range b {
			if rng.IntN(8) == 0 {
				b[i] = chars[rng.IntN(len(chars))]
			} else {
				b[i] = '0' + byte(rng.IntN(10))
			}
		}
		checkShortDecimal(t, b, rng.IntN(12)-1)
	}
}

func FuzzShortDecimal(f *testing.F) {
	f.Add([]byte("1795168800.208395"), 6)
	f.Add([]byte("0.722668"), 9)
	f.Fuzz(func(t *testing.T, num []byte, scale int) {
		checkShortDecimal(t, num, scale%24)
	})
}

// TestParseUTCMicros: the fast path agrees with ParseRFC3339 where it
// answers, and leaves every other shape to it.
func TestParseUTCMicros(t *testing.T) {
	var day DayCache
	for _, c := range []struct {
		in string
		ok bool
	}{
		{"2026-11-20T10:00:00.123456Z", true},
		{"2026-11-20T23:59:59.999999Z", true},
		{"2026-11-21T00:00:00.000000Z", true},
		{"2026-11-20T10:00:00.123456Z", true}, // day from the cache
		{"2024-02-29T12:00:00.000001Z", true},
		{"0000-01-01T00:00:00.000000Z", true},
		{"9999-12-31T23:59:59.999999Z", true},
		{"1969-12-31T23:59:59.999999Z", true},
		{"2026-02-29T12:00:00.000001Z", false}, // not a leap year
		{"2026-11-31T10:00:00.123456Z", false},
		{"2026-00-20T10:00:00.123456Z", false},
		{"2026-13-20T10:00:00.123456Z", false},
		{"2026-11-00T10:00:00.123456Z", false},
		{"2026-11-20T24:00:00.123456Z", false},
		{"2026-11-20T10:60:00.123456Z", false},
		{"2026-11-20T10:00:60.123456Z", false},
		{"2026-11-20t10:00:00.123456Z", false}, // valid, but the general path's
		{"2026-11-20T10:00:00.123456z", false},
		{"2026-11-20 10:00:00.123456Z", false},
		{"2026-11-20T10:00:00.1234567", false},
		{"2026-11-20T10:00:00.12345aZ", false},
		{"2026-11-2aT10:00:00.123456Z", false},
		{"2026-11-20T10:00:00.123456", false},
		{"2026-11-20T10:00:00.12345Z", false},
	} {
		got, ok := ParseUTCMicros([]byte(c.in), &day)
		if ok != c.ok {
			t.Errorf("parseUTCMicros(%q) ok = %v, want %v", c.in, ok, c.ok)
			continue
		}
		if !ok {
			continue
		}
		want, err := ParseRFC3339([]byte(c.in))
		if err != nil || got != want {
			t.Errorf("parseUTCMicros(%q) = %d, want %d (%v)", c.in, got, want, err)
		}
	}
}
