package schemas

import (
	"math"
	"time"
)

// Span is one attempt of one request (schemas/README.md): a row of spans.parquet and a
// line of the canonical JSONL input. Timestamps are microseconds since the Unix
// epoch, UTC. Pointer fields are optional: nil is NULL.
type Span struct {
	RunID      string  `parquet:"run_id,dict,zstd" json:"run_id"`
	Source     string  `parquet:"source,dict,zstd" json:"source"`
	SpanID     string  `parquet:"span_id,zstd" json:"span_id"`
	RequestID  string  `parquet:"request_id,zstd" json:"request_id"`
	Attempt    *int32  `parquet:"attempt,optional,zstd" json:"attempt,omitempty"` // nil: the source gave none; analyze numbers attempts by queued_at
	RetryCause *string `parquet:"retry_cause,optional,dict,zstd" json:"retry_cause,omitempty"`
	Model      *string `parquet:"model,optional,dict,zstd" json:"model,omitempty"`
	Replica    *string `parquet:"replica,optional,dict,zstd" json:"replica,omitempty"`
	QueuedAt   *int64  `parquet:"queued_at,optional,timestamp(microsecond:utc),zstd" json:"queued_at,omitempty"`
	// EngineArrivedAt is when the engine received the request, between
	// queued_at and admitted_at: a joined span waits at the gateway before it
	// and in the engine's queue after it (docs/metrics.md "Where the idle
	// time comes from"). nil: the source cannot tell.
	EngineArrivedAt *int64  `parquet:"engine_arrived_at,optional,timestamp(microsecond:utc),zstd" json:"engine_arrived_at,omitempty"`
	AdmittedAt      *int64  `parquet:"admitted_at,optional,timestamp(microsecond:utc),zstd" json:"admitted_at,omitempty"`
	FirstTokenAt    *int64  `parquet:"first_token_at,optional,timestamp(microsecond:utc),zstd" json:"first_token_at,omitempty"`
	LastTokenAt     *int64  `parquet:"last_token_at,optional,timestamp(microsecond:utc),zstd" json:"last_token_at,omitempty"`
	ReleasedAt      *int64  `parquet:"released_at,optional,timestamp(microsecond:utc),zstd" json:"released_at,omitempty"`
	InputTokens     *int64  `parquet:"input_tokens,optional,zstd" json:"input_tokens,omitempty"`
	OutputTokens    *int64  `parquet:"output_tokens,optional,zstd" json:"output_tokens,omitempty"`
	CachedTokens    *int64  `parquet:"cached_tokens,optional,zstd" json:"cached_tokens,omitempty"`
	Status          string  `parquet:"status,dict,zstd" json:"status"`
	Error           *string `parquet:"error,optional,dict,zstd" json:"error,omitempty"`
	HTTPStatus      *int32  `parquet:"http_status,optional,zstd" json:"http_status,omitempty"`

	// TimeResolutionUS is the resolution of the span's timestamps in µs when the
	// source logs them coarser than 1 µs (1000000 for vLLM's request log lines,
	// stamped to the second); nil means µs.
	TimeResolutionUS *int32 `parquet:"time_resolution_us,optional,zstd" json:"time_resolution_us,omitempty"`
	// TimeOrigin says what the timestamps count from when it is not the Unix
	// epoch: "benchmark" for vllm-bench results, whose times are seconds since
	// the benchmark's first request; "steady_clock" for TensorRT-LLM perf
	// metrics read from the server's monotonic clock; "request" for spans
	// that carry durations only (llmperf, sglang-bench), whose times count
	// from the span's own start (queued_at = 0), so that no two spans share
	// a clock; nil means wall-clock UTC.
	TimeOrigin *string `parquet:"time_origin,optional,dict,zstd" json:"time_origin,omitempty"`
}

// TimeOriginBenchmark marks spans whose times count from a benchmark's start.
const TimeOriginBenchmark = "benchmark"

// TimeOriginSteadyClock marks spans whose times are readings of a server's
// monotonic clock (seconds since it started, usually its boot), not of the
// wall clock: TensorRT-LLM's per-request perf metrics.
const TimeOriginSteadyClock = "steady_clock"

// TimeOriginRequest marks spans whose times count from their own start: the
// source records durations (TTFT, end-to-end latency) but no instants. Each
// such span has queued_at = epoch 0; its durations are exact, while windows,
// throughput and state, which need a shared clock, cannot be derived.
const TimeOriginRequest = "request"

// Sample is the scheduler state of one replica at an instant (schemas/README.md): a row
// of samples.parquet.
type Sample struct {
	RunID        string   `parquet:"run_id,dict,zstd" json:"run_id"`
	Source       string   `parquet:"source,dict,zstd" json:"source"`
	Replica      *string  `parquet:"replica,optional,dict,zstd" json:"replica,omitempty"`
	TS           int64    `parquet:"ts,timestamp(microsecond:utc),zstd" json:"ts"`
	InFlight     *int32   `parquet:"in_flight,optional,zstd" json:"in_flight,omitempty"`
	QueueDepth   *int32   `parquet:"queue_depth,optional,zstd" json:"queue_depth,omitempty"`
	Cap          *int32   `parquet:"cap,optional,zstd" json:"cap,omitempty"`
	KVCacheUsage *float64 `parquet:"kv_cache_usage,optional,zstd" json:"kv_cache_usage,omitempty"`

	// Engine counters, cumulative since the engine started (Prometheus
	// counters: they reset to 0 when it restarts); analyze counts their
	// increase per window. nil: the source does not report it.
	Preemptions        *int64 `parquet:"preemptions,optional,zstd" json:"preemptions,omitempty"`                   // requests preempted
	PrefixCacheQueries *int64 `parquet:"prefix_cache_queries,optional,zstd" json:"prefix_cache_queries,omitempty"` // prompt tokens (or blocks) looked up in the prefix cache
	PrefixCacheHits    *int64 `parquet:"prefix_cache_hits,optional,zstd" json:"prefix_cache_hits,omitempty"`       // of them, found there
	SpecDraftTokens    *int64 `parquet:"spec_draft_tokens,optional,zstd" json:"spec_draft_tokens,omitempty"`       // speculative tokens proposed
	SpecAcceptedTokens *int64 `parquet:"spec_accepted_tokens,optional,zstd" json:"spec_accepted_tokens,omitempty"` // of them, accepted
	// PrefixCacheHitRate is a hit rate as the engine reports it (0..1, over
	// its own recent queries: vLLM's stats lines, SGLang's cache_hit_rate),
	// where it gives no counters.
	PrefixCacheHitRate *float64 `parquet:"prefix_cache_hit_rate,optional,zstd" json:"prefix_cache_hit_rate,omitempty"`
}

// Span statuses (schemas/README.md). A span is successful when its status is StatusOK.
const (
	StatusOK        = "ok"
	StatusError     = "error"
	StatusTimeout   = "timeout"
	StatusAborted   = "aborted"
	StatusCancelled = "cancelled"
)

// Statuses lists the valid span statuses in a fixed order.
var Statuses = []string{StatusOK, StatusError, StatusTimeout, StatusAborted, StatusCancelled}

// ValidStatus reports whether s is one of Statuses.
func ValidStatus(s string) bool {
	switch s {
	case StatusOK, StatusError, StatusTimeout, StatusAborted, StatusCancelled:
		return true
	}
	return false
}

// Micros converts t to microseconds since the Unix epoch, rounding to the
// nearest microsecond (half away from zero) as schemas/README.md requires.
func Micros(t time.Time) int64 {
	s := t.Unix() // floor: ns below is in [0, 1e9)
	ns := int64(t.Nanosecond())
	us := s*1_000_000 + ns/1000
	// An exact half rounds up for instants from 1970 on, down before it.
	if rem := ns % 1000; rem > 500 || rem == 500 && s >= 0 {
		us++
	}
	return us
}

// SecondsMicros converts a length in seconds (an SLO bound, a latency, a
// window) to whole microseconds, rounded to the nearest: how analyze and
// compare hold seconds against the µs the spans carry.
func SecondsMicros(s float64) int64 { return int64(math.Round(s * 1e6)) }

// Time converts microseconds since the Unix epoch to a UTC time.Time.
func Time(us int64) time.Time {
	return time.UnixMicro(us).UTC()
}

// Ptr returns a pointer to v; it keeps literals of optional fields short.
func Ptr[T any](v T) *T { return &v }
