package ingest

import (
	"bytes"
	"math"
	"strconv"
	"strings"

	"github.com/tpsreport/tpsreport/ingest/internal/scan"
)

// What the vLLM formats (vllm-log, vllm-otel, prometheus, vllm-bench) share:
// vLLM's units, its names of engines, and the first lines a sniffer reads.
// schemas/formats/vllm.md documents how each format maps onto span and
// sample columns.

// vllmNsToMicros rounds nanoseconds to the nearest microsecond, half away from
// zero (schemas/README.md: rounded once, at ingest).
func vllmNsToMicros(ns int64) int64 { return scan.DivRound(ns, 1000) }

// vllmSecondsToNanos converts a duration in seconds, as vLLM writes it (a Python
// float), to whole nanoseconds. ok is false for NaN, ±Inf and durations
// beyond ±100 years, which no request takes.
func vllmSecondsToNanos(s float64) (int64, bool) {
	if math.IsNaN(s) || math.IsInf(s, 0) || math.Abs(s) > 100*365*86400 {
		return 0, false
	}
	return int64(math.Round(s * 1e9)), true
}

// vllmEngineReplica names the replica of a vLLM engine: the outer name (a
// container, host or Prometheus instance) joined with "engine-NNN" when the
// source names an engine index. It returns "" when neither is known.
func vllmEngineReplica(outer, engine string) string {
	if engine != "" {
		if n, err := strconv.Atoi(engine); err == nil && n >= 0 {
			engine = "engine-" + vllmPad3(n)
		} else {
			engine = "engine-" + engine
		}
	}
	switch {
	case outer == "":
		return engine
	case engine == "":
		return outer
	}
	return outer + "/" + engine
}

func vllmPad3(n int) string {
	s := strconv.Itoa(n)
	if len(s) < 3 {
		s = strings.Repeat("0", 3-len(s)) + s
	}
	return s
}

// vllmFirstLines returns up to n non-blank lines of head, the last one possibly
// cut off.
func vllmFirstLines(head []byte, n int) []string {
	var out []string
	for len(head) > 0 && len(out) < n {
		line := head
		if i := bytes.IndexByte(head, '\n'); i >= 0 {
			line, head = head[:i], head[i+1:]
		} else {
			head = nil
		}
		if s := strings.TrimSpace(string(line)); s != "" {
			out = append(out, s)
		}
	}
	return out
}
