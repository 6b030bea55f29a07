package schemas

import (
	"fmt"
	"math"
	"time"
)

// Manifest is manifest.json of a run dataset (schemas/README.md): what was read, by
// which ingester, and counts that reconcile: Read = Written + Rejected + Skipped.
type Manifest struct {
	RunID      string           `json:"run_id"`
	Tool       string           `json:"tool"`    // "tpsreport"
	Version    string           `json:"version"` // tool version
	Inputs     []InputFile      `json:"inputs"`
	Counts     Counts           `json:"counts"`
	RejectedBy map[string]int64 `json:"rejected_by_reason"` // reason kind -> count
	// SkippedBy breaks Counts.Skipped down by reason (blank, unused_line,
	// duplicate, not_a_request, ...): records that are not errors but carry
	// nothing to write. Its values add up to Counts.Skipped.
	SkippedBy map[string]int64 `json:"skipped_by_reason"`
	// Ignored lists the files found in directory inputs that no format
	// claims (a README, truth.json): they are not read and count nowhere.
	Ignored []IgnoredFile `json:"ignored_files,omitempty"`
	// Replaced names the run that the directory held before this ingest
	// replaced it ("" when the directory held no dataset).
	Replaced       string           `json:"replaced,omitempty"`
	TimeRange      *TimeRange       `json:"time_range"` // nil when no span has a time
	MaxNumSeqs     *int64           `json:"max_num_seqs,omitempty"`
	MaxNumSeqsBy   map[string]int64 `json:"max_num_seqs_by_replica,omitempty"`
	SamplesWritten int64            `json:"samples_written"`
	// StagesWritten counts the rows of stages.parquet, which exists only
	// when it is not 0.
	StagesWritten   int64    `json:"stages_written,omitempty"`
	FormatsDetected []string `json:"formats,omitempty"`
	// Files describes every data file of the dataset: ingest's (spans,
	// samples, rejects) and, once analysed, analyze's (DerivedFiles).
	// Readers refuse a file that does not match its entry. Datasets
	// written before it was recorded have none and are read unchecked.
	Files []DataFile `json:"files,omitempty"`
}

// DataFile is one file of a run dataset as its manifest describes it.
type DataFile struct {
	Name   string `json:"name"`
	Size   int64  `json:"size"`
	SHA256 string `json:"sha256"`
	// Rows is the row count of a Parquet file, the line count of a JSON
	// Lines file; absent for a JSON document.
	Rows *int64 `json:"rows,omitempty"`
}

// InputFile describes one input of an ingest.
type InputFile struct {
	Path   string `json:"path"`   // as given, or "-" for stdin
	Format string `json:"format"` // ingester that read it
	// Detected is true when --format auto (or no FORMAT: prefix) chose Format
	// by sniffing the input.
	Detected bool   `json:"detected,omitempty"`
	Size     int64  `json:"size"`   // bytes as stored (compressed size for .gz/.zst)
	SHA256   string `json:"sha256"` // of the stored bytes, hex
	// Counts are this input's records; the manifest's counts are their sums.
	Counts Counts `json:"counts"`
	// Unused says why the input gave no span and no sample: its first
	// reject, or what its records were, and what would have worked. Empty
	// when the input gave a span or a sample.
	Unused string `json:"unused,omitempty"`
	// Sampled lists the parts of the input whose own totals count more
	// requests than the input holds records of: its spans are a sample.
	Sampled []SampledInput `json:"sampled,omitempty"`
	// Inconsistent counts the records that were read although their own
	// fields disagree with one another, by reason.
	Inconsistent []Inconsistency `json:"inconsistent,omitempty"`
}

// Inconsistency counts the records of an input, or of a run, whose own
// fields disagree (an AIPerf record whose inter-chunk latencies do not add
// up to its request latency less its TTFT): they are read as the format's
// mapping says, and counted so that nobody takes their numbers on trust.
type Inconsistency struct {
	Reason string `json:"reason"` // a key: timing_mismatch, ttft_at_end, ...
	Count  int64  `json:"count"`
	// First says what the first such record shows, with its figures.
	First string `json:"first"`
}

// SampledInput is a part of an input (a load tool's benchmark) whose own
// totals count more requests than the input holds request records of, so
// that the latencies and success_rate read from it are of a sample.
type SampledInput struct {
	File   string `json:"file,omitempty"` // the input, in DataQuality (the manifest's entry names it)
	Scope  string `json:"scope"`          // "GuideLLM benchmark 0"
	Listed int64  `json:"listed"`         // requests the input's own totals count
	Held   int64  `json:"held"`           // request records the input holds of them
}

// String says what the sample means: "GuideLLM benchmark 0 lists 47
// requests; the file holds 1 request record: latencies and success_rate
// are of that sample".
func (s SampledInput) String() string {
	records := "records"
	if s.Held == 1 {
		records = "record"
	}
	return fmt.Sprintf("%s lists %d requests; the file holds %d request %s: latencies and success_rate are of that sample",
		s.Scope, s.Listed, s.Held, records)
}

// IgnoredFile is a file of a directory input that ingest did not read.
type IgnoredFile struct {
	Path   string `json:"path"`
	Reason string `json:"reason"`
}

// Counts reconcile: Read = Written + Rejected + Skipped.
type Counts struct {
	Read     int64 `json:"read"`
	Written  int64 `json:"written"`
	Rejected int64 `json:"rejected"`
	Skipped  int64 `json:"skipped"`
}

// TimeRange is the span of instants seen in a dataset or analysed by a run.
type TimeRange struct {
	Start time.Time `json:"start"`
	End   time.Time `json:"end"`
}

// Reject is one line of rejects.jsonl.
type Reject struct {
	File   string `json:"file"`
	Line   int64  `json:"line,omitempty"`   // 1-based; 0 when the position is a byte offset
	Offset int64  `json:"offset,omitempty"` // byte offset when lines do not apply
	Column int    `json:"column,omitempty"`
	Kind   string `json:"kind"`   // stable reason class: bad_json, bad_type, bad_timestamp, missing_field, too_long, bad_value, implausible_time
	Reason string `json:"reason"` // human-readable reason
	Raw    string `json:"raw"`    // the record cut to 1 KiB, prompt text removed
}

// Percentiles is the distribution object of docs/metrics.md. N is the number of values
// it summarises; with N = 0 every other field is nil.
type Percentiles struct {
	N    int64    `json:"n"`
	P50  *float64 `json:"p50"`
	P90  *float64 `json:"p90"`
	P95  *float64 `json:"p95"`
	P99  *float64 `json:"p99"`
	Mean *float64 `json:"mean"`
	Max  *float64 `json:"max"`
}

// Metrics are the window and run metrics of docs/metrics.md for one window (or the
// whole run). Rates and fractions are nil where their denominator is zero.
type Metrics struct {
	WindowStart   time.Time `json:"window_start"`
	WindowEnd     time.Time `json:"window_end"`
	WindowSeconds float64   `json:"window_seconds"`

	SystemTPS              *float64 `json:"system_tps"`
	GeneratedTPS           *float64 `json:"generated_tps"`
	RetryAdjustedSystemTPS *float64 `json:"retry_adjusted_system_tps"`
	WasteFraction          *float64 `json:"waste_fraction"`
	InputTPS               *float64 `json:"input_tps"`
	OutputTokens           float64  `json:"output_tokens"`        // prorated, successful spans
	GeneratedTokens        float64  `json:"generated_tokens"`     // prorated, all spans
	DeliveredTokens        float64  `json:"delivered_tokens"`     // prorated, delivered spans
	InputTokens            float64  `json:"input_tokens"`         // prorated, successful spans
	Arrivals               int64    `json:"arrivals"`             // attempt-0 spans queued in the window
	ArrivalRate            *float64 `json:"arrival_rate"`         // per second
	Requests               int64    `json:"requests"`             // logical requests completed
	SucceededRequests      int64    `json:"succeeded_requests"`   // of Requests, with a successful attempt
	Attempts               int64    `json:"attempts"`             // attempts released
	SuccessfulAttempts     int64    `json:"successful_attempts"`  // of Attempts, status ok
	RetryAttempts          int64    `json:"retry_attempts"`       // of Attempts, attempt > 0
	SuccessRate            *float64 `json:"success_rate"`         // 0..1
	AttemptSuccessRate     *float64 `json:"attempt_success_rate"` // 0..1
	RetryRate              *float64 `json:"retry_rate"`           // 0..1
	BacklogTime            float64  `json:"backlog_time"`         // seconds
	GapTime                float64  `json:"gap_time"`             // seconds
	GapFraction            *float64 `json:"gap_fraction"`         // 0..1
	BacklogGapFraction     *float64 `json:"backlog_gap_fraction"` // 0..1
	MeanInFlight           *float64 `json:"mean_in_flight"`       //
	MeanQueueDepth         *float64 `json:"mean_queue_depth"`     //
	Utilization            *float64 `json:"utilization"`          // mean_in_flight / cap
	LittleConcurrency      *float64 `json:"little_concurrency"`   // arrival_rate × mean t_total
	OverCapTime            float64  `json:"over_cap_time"`        // seconds with in_flight > cap

	// Where the idle time comes from (docs/metrics.md): every instant of
	// gap_time goes to exactly one cause, so the four times sum to gap_time.
	// Seconds, and each as a share of gap_time (nil when gap_time is 0).
	EngineGapTime        float64  `json:"engine_gap_time"`       // a replica's engine held requests with free slots
	AdmissionGapTime     float64  `json:"admission_gap_time"`    // requests held before an engine's queue (gateway, engine frontend)
	ImbalanceGapTime     float64  `json:"imbalance_gap_time"`    // every waiting request at a full replica
	UnattributedGapTime  float64  `json:"unattributed_gap_time"` // waiting requests of unknown location
	EngineGapShare       *float64 `json:"engine_gap_share"`
	AdmissionGapShare    *float64 `json:"admission_gap_share"`
	ImbalanceGapShare    *float64 `json:"imbalance_gap_share"`
	UnattributedGapShare *float64 `json:"unattributed_gap_share"`

	// Sampled state metrics (from samples.parquet); nil when no sample covers the window.
	SampledSeconds            *float64 `json:"sampled_seconds"`
	BacklogTimeSampled        *float64 `json:"backlog_time_sampled"`
	GapTimeSampled            *float64 `json:"gap_time_sampled"`
	GapFractionSampled        *float64 `json:"gap_fraction_sampled"`
	BacklogGapFractionSampled *float64 `json:"backlog_gap_fraction_sampled"`
	MeanInFlightSampled       *float64 `json:"mean_in_flight_sampled"`
	MeanQueueDepthSampled     *float64 `json:"mean_queue_depth_sampled"`
	UtilizationSampled        *float64 `json:"utilization_sampled"`

	// Engine state from samples (docs/metrics.md "Engine state"): what the
	// engines said about themselves. nil where no sample reports it.
	KVCacheUsage       *float64 `json:"kv_cache_usage"`        // time-average, 0..1
	KVCacheUsageMax    *float64 `json:"kv_cache_usage_max"`    // 0..1
	Preemptions        *int64   `json:"preemptions"`           // counter increase
	PrefixCacheHitRate *float64 `json:"prefix_cache_hit_rate"` // 0..1
	SpecAcceptanceRate *float64 `json:"spec_acceptance_rate"`  // 0..1

	// Distributions over successful spans released in the window (docs/metrics.md).
	TQueue      Percentiles `json:"t_queue"`
	TTFT        Percentiles `json:"ttft"`
	TFirstToken Percentiles `json:"t_first_token"`
	TStream     Percentiles `json:"t_stream"`
	TInFlight   Percentiles `json:"t_in_flight"`
	TTotal      Percentiles `json:"t_total"`
	TPOT        Percentiles `json:"tpot"`
	StreamTPS   Percentiles `json:"stream_tps"`
	EndToEndTPS Percentiles `json:"end_to_end_tps"`
	// GatewayOverhead is the gateway's total time minus the engine's e2e time of
	// the spans joined from a gateway and an engine log (n = 0 without a join).
	GatewayOverhead Percentiles `json:"gateway_overhead"`

	// Request-level latencies (docs/metrics.md "Requests and SLOs"), over the
	// requests completed in the window and delivered, from the request's first
	// arrival across its retries: what the user saw.
	TTFTReq Percentiles `json:"ttft_req"`
	TPOTReq Percentiles `json:"tpot_req"`
	E2EReq  Percentiles `json:"e2e_req"`

	// With an SLO (analyze --slo): the requests completed in the window that
	// were delivered within every bound (a failed request misses), per second
	// and as a share of the requests completed. nil without an SLO.
	SLOMet        *int64   `json:"slo_met"`
	Goodput       *float64 `json:"goodput"`
	SLOAttainment *float64 `json:"slo_attainment"`
}

// SLO is a latency bound per request (analyze --slo ttft=2s,tpot=80ms,e2e=60s),
// in seconds; a nil bound is not part of it.
type SLO struct {
	TTFT *float64 `json:"ttft,omitempty"`
	TPOT *float64 `json:"tpot,omitempty"`
	E2E  *float64 `json:"e2e,omitempty"`
}

// RequestLatency is one delivered request's latencies (requests.parquet's
// delivered rows): for the bootstrap of compare's latency criteria. A
// latency the request does not have is NaN (Latency), not a nil pointer, so
// that a request takes 32 bytes: a compare of 10^8 requests holds every one.
type RequestLatency struct {
	Released int64   // µs since the epoch: when the request completed
	TTFT     float64 // ttft_req, seconds; NaN when unknown
	TPOT     float64 // tpot_req, seconds; NaN when unknown (one output token)
	E2E      float64 // e2e_req, seconds; NaN when unknown
}

// Latency is a RequestLatency field's value for v: *v, or NaN when v is nil.
func Latency(v *float64) float64 {
	if v == nil {
		return math.NaN()
	}
	return *v
}

// MaxListed bounds the replicas and the models summary.json lists (and so
// the report and summary.md): a run of a million of them would make a
// summary of hundreds of megabytes and a review comment nobody can post. The
// counts of those left out are kept.
const MaxListed = 100

// ReplicaState holds the exact state metrics of one replica over the run.
type ReplicaState struct {
	Replica        string   `json:"replica"`
	Cap            *int64   `json:"cap"`
	BacklogTime    float64  `json:"backlog_time"`
	GapTime        float64  `json:"gap_time"`
	GapFraction    *float64 `json:"gap_fraction"`
	MeanInFlight   *float64 `json:"mean_in_flight"`
	MeanQueueDepth *float64 `json:"mean_queue_depth"`
	Utilization    *float64 `json:"utilization"`
	// The replica's gap_time by where its waiting requests were: in its
	// engine's queue, at the gateway (before it was sent there), or unknown.
	// They sum to GapTime; imbalance is a pool's cause, not a replica's.
	EngineGapTime       float64 `json:"engine_gap_time"`
	AdmissionGapTime    float64 `json:"admission_gap_time"`
	UnattributedGapTime float64 `json:"unattributed_gap_time"`
}

// DataQuality holds the counts of docs/metrics.md "Data quality".
type DataQuality struct {
	RecordsRead      int64            `json:"records_read"`
	SpansWritten     int64            `json:"spans_written"`
	RecordsRejected  int64            `json:"records_rejected"`
	RecordsSkipped   int64            `json:"records_skipped"`
	RejectedBy       map[string]int64 `json:"rejected_by_reason"`
	SkippedBy        map[string]int64 `json:"skipped_by_reason,omitempty"`
	MissingTimestamp map[string]int64 `json:"missing_timestamp"` // column -> spans without it
	OutOfOrder       int64            `json:"out_of_order"`      // spans whose timestamps are not monotone
	DuplicateSpanIDs int64            `json:"duplicate_span_ids"`
	OverCapTime      float64          `json:"over_cap_seconds"`         // seconds with in_flight > cap
	Models           []string         `json:"models"`                   // distinct models seen, sorted; the first MaxListed
	ModelsOmitted    int64            `json:"models_omitted,omitempty"` // distinct models past the first MaxListed
	UnlinkedRetries  int64            `json:"unlinked_retries"`         // attempt > 0 spans whose request has no attempt 0
	SamplingHoles    int64            `json:"sampling_holes"`           // gaps longer than the hold limit
	SpansOutOfState  int64            `json:"spans_outside_state"`      // spans missing a boundary for state metrics
	SpansClipped     int64            `json:"spans_clipped,omitempty"`  // spans cut by --from/--to
	CoarseTimeSpans  int64            `json:"spans_coarse_time"`        // spans with time_resolution_us > 1
	RelativeSpans    int64            `json:"spans_relative_time"`      // spans with a time_origin other than the epoch
	Join             *JoinCoverage    `json:"join,omitempty"`           // set when the run holds a gateway's and an engine's spans
	// Sampled lists the inputs whose own totals count more requests than
	// they hold records of: the run's latencies and success_rate are of a
	// sample of them.
	Sampled []SampledInput `json:"sampled_inputs,omitempty"`
	// Inconsistent counts, by reason, the records read although their own
	// fields disagree (summed over the inputs, with the first's figures).
	Inconsistent []Inconsistency `json:"inconsistent_records,omitempty"`
}

// JoinCoverage counts how a gateway's spans and an engine's spans of one run
// were joined (docs/metrics.md "Gateway and engine"). By construction
// GatewaySpans = Matched + GatewayOnly and EngineSpans = Matched + EngineOnly.
type JoinCoverage struct {
	GatewaySpans int64 `json:"gateway_spans"`
	EngineSpans  int64 `json:"engine_spans"`
	Matched      int64 `json:"matched"`
	GatewayOnly  int64 `json:"gateway_only"`
	EngineOnly   int64 `json:"engine_only"`
	// GatewayOnlyOK counts the successful gateway-only spans: answered by an
	// engine whose log lacks them (rejections and gateway timeouts never reach
	// one, so they are no sign of a bad join).
	GatewayOnlyOK int64 `json:"gateway_only_ok"`
}

// Summary is summary.json: the run window's metrics under the names of docs/metrics.md, the cap
// and its source, the extent and the data-quality counts.
type Summary struct {
	RunID       string    `json:"run_id"`
	RunStart    time.Time `json:"run_start"`
	RunEnd      time.Time `json:"run_end"`
	WindowWidth float64   `json:"window_width_seconds"` // W of the per-window table
	Cap         *int64    `json:"cap"`
	CapSource   string    `json:"cap_source"` // flag, samples, logs, inferred
	Metrics
	Replicas []ReplicaState `json:"replicas,omitempty"`
	// ReplicasOmitted counts the replicas left out of Replicas: a run of
	// more than MaxListed replicas lists those with the most gap time.
	ReplicasOmitted int64 `json:"replicas_omitted,omitempty"`

	// SLO echoes analyze --slo; nil without one.
	SLO *SLO `json:"slo,omitempty"`
	// The offered load and the token mix, for compare's guards: arrivals
	// (attempt-0 spans) over the arrival span (first to last attempt-0
	// queued_at), so that a run that drains the same traffic sooner offers
	// the same load; mean input tokens per request (attempt-0 spans) and mean
	// output tokens per delivered request.
	ArrivalSpan      float64  `json:"arrival_span_seconds"`
	OfferedRate      *float64 `json:"offered_rate"`
	MeanInputTokens  *float64 `json:"mean_input_tokens"`
	MeanOutputTokens *float64 `json:"mean_output_tokens"`
	// EngineOnly is true when no span comes from a gateway or a client (only
	// engine logs or canonical spans of an engine): queueing before the
	// engine is invisible, so t_queue and gap_fraction miss it.
	EngineOnly bool `json:"engine_only"`

	// Cost prices the run (analyze --replica-cost-per-hour); nil without a price.
	Cost *Cost `json:"cost,omitempty"`

	// Disaggregation is the run's stages read as disaggregated serving: the
	// latency budget and the worker roles' state; nil without stages.
	Disaggregation *Disaggregation `json:"disaggregation,omitempty"`

	// DurationsOnly is set when the run's spans carry durations but no
	// instants (time_origin request): the per-span and request latency
	// distributions hold, the metrics it lists are not derived (NULL, or 0
	// where the field is not nullable) and there are no per-window rows.
	DurationsOnly *DurationsOnly `json:"durations_only,omitempty"`

	DataQuality DataQuality `json:"data_quality"`
	Warnings    []string    `json:"warnings"`
}

// DurationsOnly says which metrics a durations-only run cannot derive, and why.
type DurationsOnly struct {
	Sources    []string `json:"sources"`     // the formats whose spans carry durations only
	Spans      int64    `json:"spans"`       // spans with time_origin request
	NotDerived []string `json:"not_derived"` // metric names of docs/metrics.md
	Reason     string   `json:"reason"`
}
