package scan

import (
	"errors"
	"math/big"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/tpsreport/tpsreport/schemas"
)

// rfc3339Syntax is the timestamp grammar the parser accepts, to compare it
// with the time package where both apply.
var rfc3339Syntax = regexp.MustCompile(`^[0-9]{4}-[0-9]{2}-[0-9]{2}[Tt ][0-9]{2}:[0-9]{2}:[0-9]{2}(\.[0-9]+)?([Zz]|[+-][0-9]{2}:[0-9]{2})$`)

// longFraction matches more fraction digits than time.Parse keeps.
var longFraction = regexp.MustCompile(`\.[0-9]{10,}`)

// FuzzTimestamp checks the timestamp parser against independent readings:
// time.Parse for RFC 3339 and exact rational arithmetic for epoch numbers.
func FuzzTimestamp(f *testing.F) {
	for _, s := range []string{
		"2026-11-20T10:00:00Z", "2026-11-20T10:00:00.123456789+02:00", "2026-11-20t10:00:00.9999995z",
		"1969-12-31T23:59:59.9999995Z", "9999-12-31T23:59:59.999999Z", "0000-01-01T00:00:00-23:59", "0000-01-01 00:00:00+24:00",
		"2024-02-29 12:00:00+05:45", "2026-13-01T00:00:00Z", "2026-11-20T10:00:00.123456Z", "2024-02-29T23:59:59.999999Z", "yesterday", "",
		"1795168800", "1795168800.1234565", "1795168800123456789", "-1.5e3", "1e400", "99999999999", "100000000000",
	} {
		f.Add(s)
	}
	var day DayCache // shared across inputs, as in a decoder
	f.Fuzz(func(t *testing.T, s string) {
		us, err := ParseTimestamp([]byte(s))
		if err == nil && (us < MinMicros || us > MaxMicros) {
			t.Fatalf("%q: %d out of range", s, us)
		}
		if fast, ok := ParseUTCMicros([]byte(s), &day); ok && (err != nil || fast != us) {
			t.Fatalf("%q: fast path %d, want %d, %v", s, fast, us, err)
		}
		if IsNumber([]byte(s)) {
			want, ok := refEpoch(s)
			if !ok {
				return
			}
			if want < MinMicros || want > MaxMicros {
				if err == nil {
					t.Fatalf("%q: got %d, want out of range", s, us)
				}
				return
			}
			if err != nil || us != want {
				t.Fatalf("%q: got %d, %v; want %d", s, us, err, want)
			}
			return
		}
		if !rfc3339Syntax.MatchString(s) {
			if err == nil {
				t.Fatalf("%q: accepted outside the RFC 3339 syntax: %d", s, us)
			}
			return
		}
		if longFraction.MatchString(s) {
			return // time.Parse truncates to nanoseconds; TestTimestamp covers rounding
		}
		norm := []byte(s)
		norm[10] = 'T'
		if c := norm[len(norm)-1]; c == 'z' {
			norm[len(norm)-1] = 'Z'
		}
		ref, refErr := time.Parse(time.RFC3339Nano, string(norm))
		if (err == nil) != (refErr == nil) {
			if errors.Is(err, ErrTSOutOfRange) || errors.Is(err, errTSOffset) && (s[len(s)-2] >= '6' || s[len(s)-5:len(s)-3] == "24") {
				return // time.Parse has a wider range, and takes offset hour 24 and minutes ≥ 60, which RFC 3339 does not
			}
			t.Fatalf("%q: got %d, %v; time.Parse: %v, %v", s, us, err, ref, refErr)
		}
		if err == nil && us >= 0 && us != schemas.Micros(ref) {
			t.Fatalf("%q: got %d, time.Parse gives %d", s, us, schemas.Micros(ref))
		}
	})
}

// refEpoch reads an epoch number with math/big: seconds if written with a
// fraction or exponent, else by magnitude; rounded half away from zero. It
// reports false for exponents too large to evaluate cheaply.
func refEpoch(s string) (int64, bool) {
	if i := strings.IndexAny(s, "eE"); i >= 0 {
		if len(s)-i > 5 { // exponent of 4+ digits
			return 0, false
		}
	}
	r, ok := new(big.Rat).SetString(s)
	if !ok {
		return 0, false
	}
	var scale *big.Rat
	if strings.ContainsAny(s, ".eE") {
		scale = big.NewRat(1_000_000, 1)
	} else {
		abs := new(big.Rat).Abs(r)
		switch {
		case abs.Cmp(big.NewRat(1e11, 1)) < 0:
			scale = big.NewRat(1_000_000, 1)
		case abs.Cmp(big.NewRat(1e14, 1)) < 0:
			scale = big.NewRat(1_000, 1)
		case abs.Cmp(big.NewRat(1e17, 1)) < 0:
			scale = big.NewRat(1, 1)
		default:
			scale = big.NewRat(1, 1_000)
		}
	}
	r.Mul(r, scale)
	// Round half away from zero: trunc(|r| + 1/2) with r's sign.
	neg := r.Sign() < 0
	r.Abs(r)
	r.Add(r, big.NewRat(1, 2))
	q := new(big.Int).Quo(r.Num(), r.Denom())
	if neg {
		q.Neg(q)
	}
	if !q.IsInt64() {
		return MaxMicros + 1, true // out of range either way
	}
	return q.Int64(), true
}
