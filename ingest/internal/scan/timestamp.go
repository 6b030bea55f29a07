package scan

import (
	"encoding/binary"
	"errors"
	"time"

	"github.com/tpsreport/tpsreport/schemas"
)

// Timestamps are stored as int64 microseconds since the Unix epoch, UTC,
// rounded to the nearest microsecond, half away from zero (schemas/README.md). Parsing
// works on the decimal digits of the input and never goes through float64,
// so an epoch-seconds value such as 1795168800.123456 keeps every digit.
//
// The accepted range is what RFC 3339 can write: years 0000 to 9999.
const (
	MinMicros int64 = -62167219200_000000 // 0000-01-01T00:00:00Z
	MaxMicros int64 = 253402300799_999999 // 9999-12-31T23:59:59.999999Z
)

// Epoch integers are told apart by magnitude (|v| below the bound).
const (
	epochSecondsBelow = 1e11 // up to year 5138 in seconds
	epochMillisBelow  = 1e14
	epochMicrosBelow  = 1e17 // else nanoseconds
)

// Reasons a timestamp is refused; the caller quotes the value in front.
var (
	errTSSyntax     = errors.New("want RFC 3339 (2026-11-20T10:00:00.123Z) or epoch seconds, ms, µs or ns")
	errTSNoOffset   = errors.New("missing UTC offset (add Z or +hh:mm)")
	errTSMonth      = errors.New("month out of range")
	errTSDay        = errors.New("day out of range")
	errTSHour       = errors.New("hour out of range")
	errTSMinute     = errors.New("minute out of range")
	errTSSecond     = errors.New("second out of range")
	errTSOffset     = errors.New("UTC offset out of range")
	ErrTSOutOfRange = errors.New("out of range (years 0000 to 9999)")
)

// ParseTimestamp parses a timestamp given as a JSON string: RFC 3339, or
// the text of an epoch number, which is read like the number itself.
func ParseTimestamp(b []byte) (int64, error) {
	if len(b) > 0 && (b[0] == '-' || '0' <= b[0] && b[0] <= '9') && IsNumber(b) {
		return ParseEpoch(b)
	}
	return ParseRFC3339(b)
}

// ParseEpoch parses the text of a JSON number as an epoch timestamp. A number
// written with a fraction or an exponent is seconds; an integer is seconds,
// milliseconds, microseconds or nanoseconds by its magnitude.
func ParseEpoch(num []byte) (int64, error) {
	integer := true
	for _, c := range num {
		if c == '.' || c == 'e' || c == 'E' {
			integer = false
			break
		}
	}
	var us int64
	if !integer {
		v, _, ok := ScaleDecimal(num, 6)
		if !ok {
			return 0, ErrTSOutOfRange
		}
		us = v
	} else {
		v, _, ok := ScaleDecimal(num, 0)
		if !ok {
			// Beyond int64: only nanoseconds can still be in range.
			if us, _, ok = ScaleDecimal(num, -3); !ok || us < MinMicros || us > MaxMicros {
				return 0, ErrTSOutOfRange
			}
			return us, nil
		}
		abs := v
		if abs < 0 {
			abs = -abs
		}
		switch {
		case abs < epochSecondsBelow:
			us = v * 1_000_000
		case abs < epochMillisBelow:
			us = v * 1_000
		case abs < epochMicrosBelow:
			us = v
		default:
			us = DivRound(v, 1_000)
		}
	}
	if us < MinMicros || us > MaxMicros {
		return 0, ErrTSOutOfRange
	}
	return us, nil
}

// DivRound divides v by d > 0, rounding half away from zero.
func DivRound(v, d int64) int64 {
	q, r := v/d, v%d
	switch {
	case 2*r >= d:
		q++
	case 2*r <= -d:
		q--
	}
	return q
}

// ParseRFC3339 parses YYYY-MM-DDTHH:MM:SS[.fraction](Z|±hh:mm) with any
// number of fraction digits. As RFC 3339 allows, 'T' and 'Z' may be lower
// case and the 'T' may be a space.
func ParseRFC3339(b []byte) (int64, error) {
	if len(b) < 19 ||
		b[4] != '-' || b[7] != '-' ||
		(b[10] != 'T' && b[10] != 't' && b[10] != ' ') ||
		b[13] != ':' || b[16] != ':' {
		return 0, errTSSyntax
	}
	year, ok1 := Digits(b[0:4])
	month, ok2 := Digits(b[5:7])
	day, ok3 := Digits(b[8:10])
	hour, ok4 := Digits(b[11:13])
	minute, ok5 := Digits(b[14:16])
	sec, ok6 := Digits(b[17:19])
	if !(ok1 && ok2 && ok3 && ok4 && ok5 && ok6) {
		return 0, errTSSyntax
	}

	// Fraction: the first 6 digits are microseconds, the 7th decides the
	// rounding, any later non-zero digit breaks a tie.
	i := 19
	var frac int64
	var round byte // 7th fraction digit, 0 when absent
	sticky := false
	if i < len(b) && b[i] == '.' {
		i++
		start := i
		for i < len(b) && '0' <= b[i] && b[i] <= '9' {
			switch n := i - start; {
			case n < 6:
				frac = frac*10 + int64(b[i]-'0')
			case n == 6:
				round = b[i] - '0'
			default:
				sticky = sticky || b[i] != '0'
			}
			i++
		}
		n := i - start
		if n == 0 {
			return 0, errTSSyntax
		}
		for ; n < 6; n++ {
			frac *= 10
		}
	}

	var offset int64 // seconds east of UTC
	switch {
	case i == len(b):
		return 0, errTSNoOffset
	case b[i] == 'Z' || b[i] == 'z':
		i++
	case b[i] == '+' || b[i] == '-':
		if len(b)-i != 6 || b[i+3] != ':' {
			return 0, errTSSyntax
		}
		oh, ok1 := Digits(b[i+1 : i+3])
		om, ok2 := Digits(b[i+4 : i+6])
		if !ok1 || !ok2 {
			return 0, errTSSyntax
		}
		if oh > 23 || om > 59 {
			return 0, errTSOffset
		}
		offset = oh*3600 + om*60
		if b[i] == '-' {
			offset = -offset
		}
		i += 6
	default:
		return 0, errTSSyntax
	}
	if i != len(b) {
		return 0, errTSSyntax
	}

	switch {
	case month < 1 || month > 12:
		return 0, errTSMonth
	case day < 1 || day > DaysIn(year, month):
		return 0, errTSDay
	case hour > 23:
		return 0, errTSHour
	case minute > 59:
		return 0, errTSMinute
	case sec > 59:
		return 0, errTSSecond
	}

	secs := DaysFromCivil(year, month, day)*86400 + hour*3600 + minute*60 + sec - offset
	us := secs*1_000_000 + frac
	// Round half away from zero: up for an instant at or after the epoch,
	// down on an exact tie before it.
	if round > 5 || round == 5 && (sticky || us >= 0) {
		us++
	}
	if us < MinMicros || us > MaxMicros {
		return 0, ErrTSOutOfRange
	}
	return us, nil
}

// Digits parses a short run of ASCII digits.
func Digits(b []byte) (int64, bool) {
	var v int64
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		v = v*10 + int64(c-'0')
	}
	return v, true
}

func isLeap(y int64) bool { return y%4 == 0 && (y%100 != 0 || y%400 == 0) }

func DaysIn(year, month int64) int64 {
	switch month {
	case 2:
		if isLeap(year) {
			return 29
		}
		return 28
	case 4, 6, 9, 11:
		return 30
	}
	return 31
}

// DaysFromCivil returns the number of days from 1970-01-01 to the given date
// of the proleptic Gregorian calendar (Howard Hinnant's algorithm).
func DaysFromCivil(y, m, d int64) int64 {
	if m <= 2 {
		y--
	}
	era := y
	if era < 0 {
		era -= 399
	}
	era /= 400
	yoe := y - era*400
	mp := m + 9
	if m > 2 {
		mp = m - 3
	}
	doy := (153*mp+2)/5 + d - 1
	doe := yoe*365 + yoe/4 - yoe/100 + doy
	return era*146097 + doe - 719468
}

// IsNumber reports whether b is exactly one number in JSON syntax.
func IsNumber(b []byte) bool {
	s := JSON{Data: b}
	_, err := s.ReadNumber()
	return err == nil && s.Pos == len(b)
}

// ScaleDecimal returns the JSON number num multiplied by 10^scale, rounded to
// an integer half away from zero, working on its decimal digits exactly.
// exact reports that no rounding happened; ok is false when the result does
// not fit in an int64.
func ScaleDecimal(num []byte, scale int) (v int64, exact, ok bool) {
	if v, ok := shortDecimal(num, scale); ok {
		return v, true, true
	}
	return scaleDigits(num, scale)
}

// shortDecimal is ScaleDecimal for the numbers engines write most, an epoch
// in seconds or a latency with at most scale fraction digits
// (1795168800.208395, 0.722668): digits, maybe a point and more digits, no
// sign or exponent, at most 18 digits once scaled, so that the result is
// exact and fits. It reports false for anything else, which scaleDigits then
// reads; where it reports true, the value is scaleDigits'.
func shortDecimal(num []byte, scale int) (int64, bool) {
	if scale < 0 || scale > 9 {
		return 0, false
	}
	var v uint64
	i := 0
	for ; i < len(num); i++ {
		d := num[i] - '0'
		if d > 9 {
			break
		}
		v = v*10 + uint64(d)
	}
	if i == 0 || i+scale > 18 {
		return 0, false
	}
	f := 0
	if i < len(num) {
		if num[i] != '.' {
			return 0, false
		}
		for i++; i < len(num); i++ {
			d := num[i] - '0'
			if d > 9 || f == scale {
				return 0, false
			}
			v = v*10 + uint64(d)
			f++
		}
	}
	for ; f < scale; f++ {
		v *= 10
	}
	return int64(v), true
}

// scaleDigits is ScaleDecimal for any number, digit by digit.
func scaleDigits(num []byte, scale int) (v int64, exact, ok bool) {
	neg := len(num) > 0 && num[0] == '-'
	if neg {
		num = num[1:]
	}
	// Split into integer digits, fraction digits and exponent.
	i := 0
	for i < len(num) && '0' <= num[i] && num[i] <= '9' {
		i++
	}
	ip := num[:i]
	var fp []byte
	if i < len(num) && num[i] == '.' {
		j := i + 1
		for j < len(num) && '0' <= num[j] && num[j] <= '9' {
			j++
		}
		fp = num[i+1 : j]
		i = j
	}
	exp := 0
	if i < len(num) && (num[i] == 'e' || num[i] == 'E') {
		i++
		eneg := false
		if i < len(num) && (num[i] == '+' || num[i] == '-') {
			eneg = num[i] == '-'
			i++
		}
		for ; i < len(num); i++ {
			if exp < 1e8 { // saturate: beyond this the answer is 0 or overflow anyway
				exp = exp*10 + int(num[i]-'0')
			}
		}
		if eneg {
			exp = -exp
		}
	}

	// The value is 0.d1d2...dn × 10^point, digits = ip followed by fp.
	n := len(ip) + len(fp)
	digit := func(k int) byte {
		if k < len(ip) {
			return ip[k] - '0'
		}
		return fp[k-len(ip)] - '0'
	}
	point := len(ip) + exp + scale
	lead := 0
	for lead < n && digit(lead) == 0 {
		lead++
	}
	if lead == n {
		return 0, true, true
	}
	// Drop the leading zeros: each one shifts the point left.
	first := lead
	point -= lead
	if point > 19 {
		return 0, false, false
	}
	var u uint64
	for k := 0; k < point; k++ {
		var d byte
		if first+k < n {
			d = digit(first + k)
		}
		u = u*10 + uint64(d)
	}
	exact = true
	var round byte
	if point >= 0 {
		if first+point < n {
			round = digit(first + point)
		}
		for k := first + point; k < n; k++ {
			if digit(k) != 0 {
				exact = false
				break
			}
		}
	} else {
		exact = false // a non-zero digit lies wholly below the unit
	}
	if round >= 5 {
		u++
	}
	if u > 1<<63-1 {
		return 0, false, false
	}
	v = int64(u)
	if neg {
		v = -v
	}
	return v, exact, true
}

// UTCMicrosLen is the length of the timestamps the canonical writers emit,
// 2026-11-20T10:00:00.123456Z, which ParseUTCMicros reads quickly.
const UTCMicrosLen = 27

// DayCache remembers the day of the last timestamp ParseUTCMicros read:
// consecutive records mostly fall on the same day.
type DayCache struct {
	date  uint64 // bytes 0-7 of the timestamp (YYYY-MM-)
	date2 uint16 // bytes 8-9 (DD)
	days  int64
	ok    bool
}

// ParseUTCMicros is ParseRFC3339 for the one shape
// YYYY-MM-DDTHH:MM:SS.ffffffZ (6 fraction digits, upper-case T and Z). It
// reports false for anything else, or anything ParseRFC3339 would refuse,
// and the caller then takes the general path; when it reports true, the
// value is ParseRFC3339's.
func ParseUTCMicros(b []byte, c *DayCache) (int64, bool) {
	if len(b) != UTCMicrosLen || b[4] != '-' || b[7] != '-' || b[10] != 'T' ||
		b[13] != ':' || b[16] != ':' || b[19] != '.' || b[26] != 'Z' {
		return 0, false
	}
	date := binary.LittleEndian.Uint64(b)
	date2 := binary.LittleEndian.Uint16(b[8:])
	var days int64
	if c.ok && date == c.date && date2 == c.date2 {
		days = c.days
	} else {
		year, ok1 := Digits(b[0:4])
		month, ok2 := two(b[5], b[6])
		day, ok3 := two(b[8], b[9])
		if !ok1 || !ok2 || !ok3 || month < 1 || month > 12 || day < 1 || day > DaysIn(year, month) {
			return 0, false
		}
		days = DaysFromCivil(year, month, day)
		*c = DayCache{date: date, date2: date2, days: days, ok: true}
	}
	hour, ok1 := two(b[11], b[12])
	minute, ok2 := two(b[14], b[15])
	sec, ok3 := two(b[17], b[18])
	if !ok1 || !ok2 || !ok3 || hour > 23 || minute > 59 || sec > 59 {
		return 0, false
	}
	var frac int64
	for _, d := range b[20:26] {
		d -= '0'
		if d > 9 {
			return 0, false
		}
		frac = frac*10 + int64(d)
	}
	return (days*86400+hour*3600+minute*60+sec)*1_000_000 + frac, true
}

// two parses two ASCII digits.
func two(hi, lo byte) (int64, bool) {
	hi -= '0'
	lo -= '0'
	return int64(hi)*10 + int64(lo), hi <= 9 && lo <= 9
}

// Gateway logs stretch RFC 3339: LiteLLM's SpendLogs exports and many JSON
// logs (through a mapping file) write naive wall-clock times, and
// PostgreSQL's text output writes a "+hh" offset.

// parseTimestampZone is ParseTimestamp that also accepts a naive
// timestamp, read in zone (nil: UTC), and a two-digit "+hh" offset.
func parseTimestampZone(b []byte, zone *time.Location) (int64, error) {
	us, err := ParseTimestamp(b)
	if err == nil {
		return us, nil
	}
	if n := len(b); n > 19 && (b[n-3] == '+' || b[n-3] == '-') && isDigit(b[n-2]) && isDigit(b[n-1]) && b[n-4] != '-' {
		fixed := append(append([]byte(nil), b...), ":00"...)
		if us, err2 := ParseRFC3339(fixed); err2 == nil {
			return us, nil
		}
	}
	if !errors.Is(err, errTSNoOffset) {
		return 0, err
	}
	utc := append(append([]byte(nil), b...), 'Z')
	us, err = ParseRFC3339(utc)
	if err != nil {
		return 0, err
	}
	return naiveIn(us, zone), nil
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

// naiveIn reinterprets the wall-clock time us (read as if UTC) in zone. In a
// repeated hour (DST end) Go picks the first of the two instants.
func naiveIn(us int64, zone *time.Location) int64 {
	if zone == nil || zone == time.UTC {
		return us
	}
	t := time.UnixMicro(us).UTC()
	wall := time.Date(t.Year(), t.Month(), t.Day(), t.Hour(), t.Minute(), t.Second(), t.Nanosecond(), zone)
	return schemas.Micros(wall)
}
