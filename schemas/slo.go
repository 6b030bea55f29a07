package schemas

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// ParseSLO reads an SLO as analyze --slo takes it: bounds per request as KEY=VALUE (or vLLM's
// KEY:VALUE), separated by commas or spaces. KEY is ttft, tpot or e2e (e2el,
// vLLM's name, is the same); VALUE a duration with its unit, or a bare
// number of milliseconds as vLLM's --goodput takes it.
func ParseSLO(s string) (*SLO, error) {
	var slo SLO
	fields := strings.FieldsFunc(s, func(r rune) bool { return r == ',' || r == ' ' })
	if len(fields) == 0 {
		return nil, errors.New("want one or more of ttft, tpot, e2e, such as ttft=2s,tpot=80ms")
	}
	for _, f := range fields {
		i := strings.IndexAny(f, "=:")
		if i < 0 {
			return nil, fmt.Errorf("%q: want KEY=VALUE, such as ttft=2s", f)
		}
		key, val := strings.ToLower(f[:i]), f[i+1:]
		var dst **float64
		switch key {
		case "ttft":
			dst = &slo.TTFT
		case "tpot":
			dst = &slo.TPOT
		case "e2e", "e2el":
			dst = &slo.E2E
		default:
			return nil, fmt.Errorf("unknown key %q: want ttft, tpot or e2e", key)
		}
		if *dst != nil {
			return nil, fmt.Errorf("%s given twice", key)
		}
		secs, err := sloSeconds(val)
		if err != nil {
			return nil, fmt.Errorf("%s %q: %v", key, val, err)
		}
		*dst = &secs
	}
	return &slo, nil
}

// sloSeconds reads a bound: a duration with its unit, or milliseconds.
func sloSeconds(v string) (float64, error) {
	var secs float64
	if ms, err := strconv.ParseFloat(v, 64); err == nil {
		secs = ms / 1000
	} else if d, err := time.ParseDuration(v); err == nil {
		secs = d.Seconds()
	} else {
		return 0, errors.New("want a duration such as 2s or 80ms, or a number of milliseconds")
	}
	if !(secs > 0) {
		return 0, errors.New("want a positive bound")
	}
	if secs > 1e9 {
		return 0, errors.New("want a bound of at most 1e9 s (about 31 years)")
	}
	return secs, nil
}

// Met says whether a delivered request meets every bound of s, as analyze
// counts slo_met: TTFT and e2e compared in whole microseconds (an unknown one
// misses), TPOT in seconds (an unknown one, a request of one output token,
// meets: vLLM's rule); a bound is met when the value does not exceed it.
func (s SLO) Met(r RequestLatency) bool {
	if s.TTFT != nil && (math.IsNaN(r.TTFT) || SecondsMicros(r.TTFT) > SecondsMicros(*s.TTFT)) {
		return false
	}
	if s.TPOT != nil && !math.IsNaN(r.TPOT) && r.TPOT > *s.TPOT {
		return false
	}
	if s.E2E != nil && (math.IsNaN(r.E2E) || SecondsMicros(r.E2E) > SecondsMicros(*s.E2E)) {
		return false
	}
	return true
}
