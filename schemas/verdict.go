package schemas

// Verdict outcomes (docs/acceptance.md).
const (
	Pass         = "PASS"
	Fail         = "FAIL"
	Inconclusive = "INCONCLUSIVE"
)

// Criterion is one acceptance criterion of docs/acceptance.md with the numbers behind it.
type Criterion struct {
	Name      string   `json:"name"`    // throughput, success_rate, gap_fraction, retry_rate
	Title     string   `json:"title"`   // "Throughput improves"
	Verdict   string   `json:"verdict"` // PASS, FAIL, INCONCLUSIVE
	Reason    string   `json:"reason"`  // one sentence
	Metric    string   `json:"metric"`  // the metric compared
	Baseline  *float64 `json:"baseline"`
	Candidate *float64 `json:"candidate"`
	Ratio     *float64 `json:"ratio,omitempty"` // candidate / baseline
	Diff      *float64 `json:"diff,omitempty"`  // candidate - baseline
	Lo        *float64 `json:"lo,omitempty"`    // interval on Ratio (or Diff)
	Hi        *float64 `json:"hi,omitempty"`
	// Level is the confidence of [Lo, Hi]. With k criteria judged each
	// may alarm in alpha/k of comparisons: a criterion that alarms only by
	// failing in one tail of its interval (1 − 2·alpha/k), throughput and
	// gap_fraction in both (1 − alpha/k).
	Level *float64 `json:"level,omitempty"`
	// MDE is the smallest change this comparison finds in four
	// comparisons of five, at the runs' size: relative for a ratio (0.12
	// is 12 %), absolute for a difference (0.004 is 0.4 percentage points).
	MDE *float64 `json:"mde,omitempty"`
	// MoreData, for an INCONCLUSIVE, is how many times the data (backlog
	// time, run time or runs) would decide a change of the size observed.
	MoreData *float64 `json:"more_data,omitempty"`
	// Resampling says how the interval was made.
	Resampling *Resampling `json:"resampling,omitempty"`
	// Scope says what the values are over: "backlog windows", "whole run",
	// "delivered requests"; the report labels them so.
	Scope string `json:"scope,omitempty"`
	// Cause says where the idle time came from (gap_fraction only, when a
	// run had any): the largest cause's share of each run's idle time.
	Cause string `json:"cause,omitempty"`
}

// GapCause is one cause of gap_time in both runs (docs/metrics.md "Where
// the idle time comes from"), over the backlog windows the gap_fraction
// criterion judges: the cause's time as a fraction of those windows' time
// (so the four add up to each run's gap_fraction) and as a share of the
// run's idle time (nil without idle time).
type GapCause struct {
	Cause          string   `json:"cause"` // engine_gap, admission_gap, imbalance_gap, unattributed_gap
	Baseline       float64  `json:"baseline"`
	Candidate      float64  `json:"candidate"`
	Diff           float64  `json:"diff"` // candidate − baseline
	BaselineShare  *float64 `json:"baseline_share"`
	CandidateShare *float64 `json:"candidate_share"`
}

// Verdict is verdict.json: the criteria, the guards that fired and the overall verdict.
type Verdict struct {
	Baseline  string `json:"baseline"`  // run id; several joined by ", "
	Candidate string `json:"candidate"` // run id; several joined by ", "
	// BaselineRuns and CandidateRuns list each side's runs.
	BaselineRuns  []string    `json:"baseline_runs"`
	CandidateRuns []string    `json:"candidate_runs"`
	Overall       string      `json:"overall"`
	Criteria      []Criterion `json:"criteria"`
	Guards        []string    `json:"guards"` // guard messages that made criteria INCONCLUSIVE
	// Notes say what the criteria were computed over when it is not
	// everything (warm-up and cool-down left out, a subsample's bootstrap)
	// and what was allowed (a model mismatch); none changes a verdict.
	Notes     []string  `json:"notes,omitempty"`
	Settings  Criteria  `json:"settings"`
	Bootstrap Bootstrap `json:"bootstrap"`
	// Cost compares what the two runs' throughput costs, when a price is
	// known (compare --replica-cost-per-hour, or both runs analysed with
	// one); information only.
	Cost *CostChange `json:"cost,omitempty"`
	// Disaggregation says which part of the latency budget and which
	// worker role moved, when both runs have stages (the first run of
	// each side); information only.
	Disaggregation *DisaggChange `json:"disaggregation,omitempty"`
	// Data names the data each run was compared on (its spans.parquet's
	// digest), so that a later reader can tell a verdict whose baseline was
	// re-run since (the nightly index marks it stale).
	Data []RunData `json:"data,omitempty"`
	// GapCauses is the gap_fraction criterion's idle time by cause, so that
	// a change that moves idle time from one cause to another shows; absent
	// when the criterion is off or the baseline had no backlog window.
	GapCauses []GapCause `json:"gap_causes,omitempty"`
	// Cuts say what an automatic warm-up or cool-down (warmup: auto) cut
	// from each run; absent when both are fixed.
	Cuts []RunCut `json:"cuts,omitempty"`
	// Canary describes the groups of a canary comparison (compare
	// --canary): the candidate and the baseline are replicas of one run,
	// compared window by window over the same time; absent otherwise.
	Canary *Canary `json:"canary,omitempty"`
}

// Canary is a canary comparison's groups: the replicas of one run that the
// selectors chose as the candidate (the canary) and as its baseline.
type Canary struct {
	Run       string      `json:"run"`
	Candidate CanaryGroup `json:"candidate"`
	Baseline  CanaryGroup `json:"baseline"`
	// UnassignedSpans counts the run's spans in neither group, and
	// NoReplicaSpans those of them that name no replica (a gateway's
	// rejections: no replica served them); UnassignedSamples the engine
	// samples of replicas in neither group.
	UnassignedSpans   int64 `json:"unassigned_spans"`
	NoReplicaSpans    int64 `json:"no_replica_spans"`
	UnassignedSamples int64 `json:"unassigned_samples"`
	// Renamed maps a gateway's name of a replica (its upstream host:port)
	// to the engine's, under which its spans were filed.
	Renamed map[string]string `json:"renamed,omitempty"`
	// Windows is the number of windows the groups were paired over.
	Windows int `json:"windows"`
}

// CanaryGroup is one group of a canary comparison.
type CanaryGroup struct {
	// Selectors chose the group's spans; none for a baseline that is every
	// other replica.
	Selectors []string `json:"selectors"`
	Replicas  []string `json:"replicas"`
	Spans     int64    `json:"spans"`
	Samples   int64    `json:"samples"`
	// Requests are the requests its replicas completed, and
	// RequestsPerReplica their mean per replica, which the traffic guard
	// compares.
	Requests           int64   `json:"requests"`
	RequestsPerReplica float64 `json:"requests_per_replica"`
}

// RunCut is what the steady-state rule cut from one run's windows.
type RunCut struct {
	Side            string  `json:"side"` // "baseline" or "candidate"
	Run             string  `json:"run"`
	Method          string  `json:"method"` // MSER-5, or MSER (batches of one window) in a short run
	WarmupSeconds   float64 `json:"warmup_seconds"`
	CooldownSeconds float64 `json:"cooldown_seconds"`
	WarmupWindows   int     `json:"warmup_windows"`
	CooldownWindows int     `json:"cooldown_windows"`
	// Unsteady says the rule found no steady state: the least noisy cut
	// lay at half of the run, so nothing was cut on that side (the run is
	// too short, or its load never settled).
	Unsteady string `json:"unsteady,omitempty"`
}

// Bootstrap says how the intervals were made (docs/acceptance.md "How the
// intervals are made").
type Bootstrap struct {
	Resamples        int     `json:"resamples"`
	Seed             uint64  `json:"seed"`
	BaselineRuns     int     `json:"baseline_runs"`
	CandidateRuns    int     `json:"candidate_runs"`
	BaselineWindows  int     `json:"baseline_windows"`  // windows resampled, every run's
	CandidateWindows int     `json:"candidate_windows"` // windows resampled, every run's
	Method           string  `json:"method"`
	Criteria         int     `json:"criteria"` // criteria judged: each may alarm in alpha/criteria of comparisons
	Alpha            float64 `json:"alpha"`    // the overall verdict's false-alarm rate
}

// Resampling says how one criterion's interval was made: each side's
// runs, windows and block lengths, and the change's standard error (of its
// logarithm for a ratio) and degrees of freedom.
type Resampling struct {
	Baseline         SideResampling `json:"baseline"`
	Candidate        SideResampling `json:"candidate"`
	StandardError    float64        `json:"standard_error"`
	DegreesOfFreedom float64        `json:"degrees_of_freedom"` // 0 when unbounded (no spread)
	// Paired says that the two sides were resampled together, the same
	// blocks of time on both (a canary comparison): StandardError is then
	// that of their difference, and UnpairedStandardError what it would be
	// with the sides resampled apart.
	Paired                bool    `json:"paired,omitempty"`
	UnpairedStandardError float64 `json:"unpaired_standard_error,omitempty"`
}

// Narrowing is how many times narrower the pairing made the interval than
// resampling the sides apart: UnpairedStandardError / StandardError; 0 when
// the sides were not paired or either error is unknown.
func (r *Resampling) Narrowing() float64 {
	if r == nil || !r.Paired || r.StandardError <= 0 || r.UnpairedStandardError <= 0 {
		return 0
	}
	return r.UnpairedStandardError / r.StandardError
}

// SideResampling is how one side of a comparison was resampled.
type SideResampling struct {
	Runs          int     `json:"runs"`
	Windows       int     `json:"windows"`
	BlockWindows  []int   `json:"block_windows"`  // block length, in windows, of each run
	StandardError float64 `json:"standard_error"` // of the side's value (its logarithm for a ratio)
}

// Criteria are the thresholds of docs/acceptance.md, from flags or an acceptance file.
type Criteria struct {
	MinImprovement     float64 `json:"min_improvement" yaml:"min_improvement"`
	SuccessTolerance   float64 `json:"success_tolerance" yaml:"success_tolerance"` // fraction (0.001 = 0.1 pp)
	GapTolerance       float64 `json:"gap_tolerance" yaml:"gap_tolerance"`
	GapFloor           float64 `json:"gap_floor" yaml:"gap_floor"`
	RetryTolerance     float64 `json:"retry_tolerance" yaml:"retry_tolerance"` // fraction
	MinBacklogWindows  int     `json:"min_backlog_windows" yaml:"min_backlog_windows"`
	LoadMismatch       float64 `json:"load_mismatch" yaml:"load_mismatch"` // 0.2 = 20 %
	Confidence         float64 `json:"confidence" yaml:"confidence"`       // 0.95
	Alpha              float64 `json:"alpha" yaml:"alpha"`                 // 0.05
	Resamples          int     `json:"resamples" yaml:"resamples"`
	AllowModelMismatch bool    `json:"allow_model_mismatch" yaml:"allow_model_mismatch"`

	// Latency criteria: the candidate's p95 of request TTFT (TPOT) may exceed
	// the baseline's by this fraction (0.10 = 10 %).
	TTFTTolerance float64 `json:"ttft_tolerance" yaml:"ttft_tolerance"`
	TPOTTolerance float64 `json:"tpot_tolerance" yaml:"tpot_tolerance"`
	// SLOTolerance: the SLO attainment drop allowed, as a fraction (0.01 = 1 pp).
	SLOTolerance float64 `json:"slo_tolerance" yaml:"slo_tolerance"`
	// TokenMismatch: the largest relative difference of the token mix (mean
	// input tokens per request, mean output tokens per delivered request).
	TokenMismatch float64 `json:"token_mismatch" yaml:"token_mismatch"`
	// Warmup and Cooldown, seconds: the windows that start within Warmup of
	// a run's start, or end within Cooldown of its end, count in no
	// criterion (nor do the requests completed in them).
	Warmup   float64 `json:"warmup_seconds" yaml:"warmup"`
	Cooldown float64 `json:"cooldown_seconds" yaml:"cooldown"`
	// WarmupAuto and CooldownAuto ("warmup: auto"): each run's warm-up
	// (cool-down) is found in its own windows by MSER-5, in place of a
	// fixed Warmup (Cooldown); the verdict's Cuts say what was cut.
	WarmupAuto   bool `json:"warmup_auto,omitempty" yaml:"-"`
	CooldownAuto bool `json:"cooldown_auto,omitempty" yaml:"-"`
	// Off names the criteria turned off (an acceptance file's "KEY: off",
	// KEY a criterion's name): neither judged nor listed in the verdict's
	// criteria.
	Off []string `json:"off,omitempty" yaml:"-"`
}

// DefaultCriteria returns the defaults of docs/acceptance.md.
func DefaultCriteria() Criteria {
	return Criteria{
		MinImprovement:    0,
		SuccessTolerance:  0.001,
		GapTolerance:      0.005,
		GapFloor:          0.01,
		RetryTolerance:    0.001,
		MinBacklogWindows: 5,
		LoadMismatch:      0.2,
		Confidence:        0.95,
		Alpha:             0.05,
		Resamples:         2000,
		TTFTTolerance:     0.10,
		TPOTTolerance:     0.10,
		SLOTolerance:      0.01,
		TokenMismatch:     0.2,
	}
}

// RunData names the data one run of a comparison was read from.
type RunData struct {
	Side        string `json:"side"` // "baseline" or "candidate"
	Run         string `json:"run"`  // run_id
	SpansSHA256 string `json:"spans_sha256"`
	// Name is the run's name in a nightly history (dt=2026-11-20/nightly
	// below a partition), where run ids may repeat; empty outside one.
	Name string `json:"name,omitempty"`
}
