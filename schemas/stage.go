package schemas

import "slices"

import "time"

// StagesFile holds a run's stages (Stage): written by ingest only when an
// input gives any, so that a run of one engine's logs has no such file.
const StagesFile = "stages.parquet"

// BudgetFile and RolesFile are analyze's per-window outputs of a run with
// stages: the latency budget's distributions and the worker roles' state,
// one row per window and part (or role). A run without stages has neither.
const (
	BudgetFile = "budget.parquet"
	RolesFile  = "roles.parquet"
)

// Stage is the time one attempt of a request spent in one stage of
// disaggregated serving, as the worker or the router that handled it logged
// it: a row of stages.parquet and a line of the canonical stages input
// (schemas/README.md "Stages"). Where a gateway, a router, a prefill worker
// and a decode worker each log their part of a request, its stages tell
// where its time went (docs/metrics.md "Disaggregated serving"). Times are
// microseconds since the Unix epoch, UTC.
type Stage struct {
	RunID     string `parquet:"run_id,dict,zstd" json:"run_id"`
	Source    string `parquet:"source,dict,zstd" json:"source"`
	RequestID string `parquet:"request_id,zstd" json:"request_id"`
	// Attempt is the attempt the stage belongs to, as in spans.parquet;
	// nil: the source gave none (the request's only attempt).
	Attempt *int32 `parquet:"attempt,optional,zstd" json:"attempt,omitempty"`
	// Stage is one of Stages.
	Stage string `parquet:"stage,dict,zstd" json:"stage"`
	// Role is the worker role of a worker's stage (queue, prefill,
	// kv_transfer, decode): RolePrefill, RoleDecode, or RoleBoth for a
	// worker that serves both phases; nil for the gateway's and the
	// router's stages.
	Role *string `parquet:"role,optional,dict,zstd" json:"role,omitempty"`
	// Replica is the worker that ran the stage; of a router stage, the
	// worker the router picked, where its log names it.
	Replica   *string `parquet:"replica,optional,dict,zstd" json:"replica,omitempty"`
	StartedAt int64   `parquet:"started_at,timestamp(microsecond:utc),zstd" json:"started_at"`
	EndedAt   int64   `parquet:"ended_at,timestamp(microsecond:utc),zstd" json:"ended_at"`
	// Bytes is what a kv_transfer stage moved, where the source logs it.
	Bytes *int64 `parquet:"bytes,optional,zstd" json:"bytes,omitempty"`
}

// The stages of a request (Stage.Stage), in the order a request passes
// them under disaggregated serving.
const (
	StageGateway    = "gateway"     // the gateway's own time: receipt to handing it on
	StageRouter     = "router"      // the router's queue and flow control, up to its pick
	StageQueue      = "queue"       // waiting in a worker's queue (Role says which)
	StagePrefill    = "prefill"     // the prompt's prefill, up to its KV cache
	StageKVTransfer = "kv_transfer" // the KV cache moving from the prefill worker to the decode worker
	StageDecode     = "decode"      // decoding, first output token to last
)

// Stages lists the stages in order.
var Stages = []string{StageGateway, StageRouter, StageQueue, StagePrefill, StageKVTransfer, StageDecode}

// Worker roles (Stage.Role).
const (
	RolePrefill = "prefill"
	RoleDecode  = "decode"
	RoleBoth    = "both"
)

// WorkerRoles lists the worker roles in order.
var WorkerRoles = []string{RolePrefill, RoleDecode, RoleBoth}

// ValidStage reports whether s is one of Stages.
func ValidStage(s string) bool {
	switch s {
	case StageGateway, StageRouter, StageQueue, StagePrefill, StageKVTransfer, StageDecode:
		return true
	}
	return false
}

// ValidWorkerRole reports whether r is one of WorkerRoles.
func ValidWorkerRole(r string) bool {
	return r == RolePrefill || r == RoleDecode || r == RoleBoth
}

// The parts of a request's latency budget (Disaggregation.Budget), in
// order: a worker's queue is the prefill queue on a prefill worker or one
// that serves both, the decode queue on a decode worker; unaccounted is
// the part of the request's extent that no stage covers.
const (
	BudgetGateway      = "gateway"
	BudgetRouter       = "router"
	BudgetPrefillQueue = "prefill_queue"
	BudgetPrefill      = "prefill"
	BudgetKVTransfer   = "kv_transfer"
	BudgetDecodeQueue  = "decode_queue"
	BudgetDecode       = "decode"
	BudgetUnaccounted  = "unaccounted"
)

// BudgetParts lists the parts of the latency budget in order.
var BudgetParts = []string{BudgetGateway, BudgetRouter, BudgetPrefillQueue, BudgetPrefill, BudgetKVTransfer, BudgetDecodeQueue, BudgetDecode, BudgetUnaccounted}

// Disaggregation is summary.json's account of a run's stages: the latency
// budget and the state of each worker role (docs/metrics.md "Disaggregated
// serving"). It is absent from a run without stages.
type Disaggregation struct {
	// Attempts is how many attempts have stages.
	Attempts int64 `json:"attempts"`
	// Budget holds each part's seconds per attempt, as a distribution over
	// the attempts with stages (an attempt without a part counts 0 for it).
	Budget map[string]Percentiles `json:"budget"`
	// Extent is the distribution of the attempts' extents (first stage's
	// start to last stage's end), in seconds.
	Extent Percentiles `json:"extent"`
	// Logged lists the parts (BudgetParts order, unaccounted left out) of
	// which some attempt has a stage: a part no log of the run records
	// reads 0 in Budget without having been measured.
	Logged []string `json:"logged_parts"`
	// Median and P95 are the parts of the attempts whose extent is the
	// median's and the 95th percentile's (the waterfall of the report).
	Median BudgetRequest `json:"median_request"`
	P95    BudgetRequest `json:"p95_request"`
	// KVTransferBytes is the distribution of the bytes per kv_transfer
	// stage, where logged; nil without any.
	KVTransferBytes *Percentiles `json:"kv_transfer_bytes,omitempty"`
	// Roles is the state of each worker role seen, in WorkerRoles order.
	Roles []RoleState `json:"roles"`
	// Workers is the state of each worker, by role and name.
	Workers []WorkerState `json:"workers"`
}

// PartLogged reports whether some stage of d's run logs part (Logged):
// unaccounted and the extent always are, and a summary written before
// logged_parts existed counts every part as logged.
func (d *Disaggregation) PartLogged(part string) bool {
	if part == "extent" || part == BudgetUnaccounted || d.Logged == nil {
		return true
	}
	return slices.Contains(d.Logged, part)
}

// BudgetRequest is one attempt's latency budget: its parts in seconds.
type BudgetRequest struct {
	RequestID string             `json:"request_id"`
	Attempt   int32              `json:"attempt"`
	Extent    float64            `json:"extent_seconds"`
	Parts     map[string]float64 `json:"parts"`
}

// RoleState is the state of the workers of one role over the run
// (docs/metrics.md "Disaggregated serving").
type RoleState struct {
	Role    string `json:"role"`
	Workers int64  `json:"workers"`
	Slots   int64  `json:"slots"` // the sum of the workers' caps
	// Utilization is the slot-seconds in use over the slot-seconds there
	// were (nil without slots); MeanQueue the mean of the requests queued
	// at the role's workers.
	Utilization *float64 `json:"utilization"`
	MeanQueue   float64  `json:"mean_queue"`
	// GapFraction is the share of the run when requests waited at the
	// role's workers while some worker of the role had a free slot. It
	// splits by cause, the first that applies: HeldFraction, a worker had
	// requests queued and a free slot (its scheduler held them); else
	// RouterShare, requests waited only at workers with no free slot
	// while another worker of the role had one (the router's pick put
	// them there). IdleFraction is the share when none of its workers ran
	// anything.
	GapTime      float64 `json:"gap_time_seconds"`
	GapFraction  float64 `json:"gap_fraction"`
	HeldTime     float64 `json:"held_seconds"`
	HeldFraction float64 `json:"held_fraction"`
	RouterTime   float64 `json:"router_share_seconds"`
	RouterShare  float64 `json:"router_share"`
	IdleFraction float64 `json:"idle_fraction"`
	// BacklogOtherFree is the time when requests queued at this role's
	// workers while the other role's workers (prefill's for decode,
	// decode's for prefill) had a free slot and none queued: the split
	// between the roles has too few workers of this one.
	BacklogOtherFree         float64 `json:"backlog_other_free_seconds"`
	BacklogOtherFreeFraction float64 `json:"backlog_other_free_fraction"`
}

// WorkerState is the state of one worker over the run.
type WorkerState struct {
	Replica     string   `json:"replica"`
	Role        string   `json:"role"`
	Cap         int64    `json:"cap"`
	CapSource   string   `json:"cap_source"` // samples, or inferred (the most it ran at once)
	Attempts    int64    `json:"attempts"`
	Utilization *float64 `json:"utilization"` // nil with a cap of 0
	MeanQueue   float64  `json:"mean_queue"`
	GapTime     float64  `json:"gap_time_seconds"`
}

// BudgetWindow is a row of budget.parquet: the distribution of one part of
// the latency budget (or of the extent, part "extent"), in seconds, over the
// attempts whose last stage ends in the window.
type BudgetWindow struct {
	WindowStart time.Time `json:"window_start"`
	WindowEnd   time.Time `json:"window_end"`
	Part        string    `json:"part"`
	Percentiles
}

// RoleWindow is a row of roles.parquet: one role's state over one window
// (its overlap with the run extent, WindowSeconds long).
type RoleWindow struct {
	WindowStart   time.Time `json:"window_start"`
	WindowEnd     time.Time `json:"window_end"`
	WindowSeconds float64   `json:"window_seconds"`
	RoleState
}

// DisaggChange is verdict.json's account of how two runs of disaggregated
// serving differ (both with stages): which part of the latency budget moved
// most, and which worker role. It is information, as cost is: it changes no
// verdict.
type DisaggChange struct {
	Parts []PartChange `json:"parts"` // each part of the budget, in BudgetParts order
	Roles []RoleChange `json:"roles"` // each role both runs have
	// Stage is the part whose p95 moved most (in seconds), Role the role
	// whose mean queue moved most (its utilization where no queue moved);
	// "" when nothing moved.
	Stage  string `json:"stage"`
	Role   string `json:"role"`
	Reason string `json:"reason"` // one sentence naming both
}

// PartChange is one part of the latency budget in both runs, seconds.
type PartChange struct {
	Part         string   `json:"part"`
	BaselineP50  *float64 `json:"baseline_p50"`
	CandidateP50 *float64 `json:"candidate_p50"`
	BaselineP95  *float64 `json:"baseline_p95"`
	CandidateP95 *float64 `json:"candidate_p95"`
}

// RoleChange is one worker role's state in both runs.
type RoleChange struct {
	Role      string    `json:"role"`
	Baseline  RoleState `json:"baseline"`
	Candidate RoleState `json:"candidate"`
}
