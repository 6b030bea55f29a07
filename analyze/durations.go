package analyze

import (
	"fmt"
	"strings"

	"github.com/tpsreport/tpsreport/schemas"
)

// A durations-only run (docs/metrics.md "Durations-only runs"): its spans
// carry durations but no instants (time_origin request; llmperf,
// sglang-bench), each counting from its own start at epoch 0. Their
// durations are exact, so the per-span and request latency distributions
// hold; what needs a clock the spans share (windows, rates, the state
// sweeps' concurrency, queueing and idle time) cannot be derived. The run is
// analysed as one window (width runWidth), windows.parquet has no row,
// summary.json lists in durations_only what is not derived, and the metrics
// it lists are NULL (0 where the field is not nullable).

// notDerived lists, in docs/metrics.md's names, the metrics a durations-only
// run cannot derive.
var notDerived = []string{
	"windows", "window_seconds", "system_tps", "generated_tps", "retry_adjusted_system_tps", "input_tps",
	"arrival_rate", "offered_rate", "little_concurrency", "goodput",
	"backlog_time", "gap_time", "gap_fraction", "backlog_gap_fraction", "over_cap_time",
	"engine_gap_time", "admission_gap_time", "imbalance_gap_time", "unattributed_gap_time",
	"mean_in_flight", "mean_queue_depth", "utilization", "cap", "sampled state", "replicas", "concurrency curve",
}

// durationsReason is why they cannot be.
const durationsReason = "the spans carry durations but no instants (time_origin request): each counts from its own start, so no two share a clock to place them in windows, rate them per second or sweep the engine's state"

// durationsOnly counts the spans that carry durations only; with any, the
// run is one window.
func (a *analysis) durationsOnly(st *runState) error {
	var sources []any
	if err := a.db.QueryRowContext(a.ctx, query("durations_only")).Scan(&st.durations, &sources); err != nil {
		return fmt.Errorf("analyze durations_only: %w", err)
	}
	for _, s := range sources {
		if v, ok := s.(string); ok {
			st.durationSources = append(st.durationSources, v)
		}
	}
	if st.durations > 0 {
		st.width = runWidth
	}
	return nil
}

// durationsSummary sets what a durations-only run cannot derive to NULL (0
// where not nullable), lists it in sum.DurationsOnly, and warns.
func (st *runState) durationsSummary(sum *schemas.Summary) {
	m := &sum.Metrics
	m.WindowSeconds = 0
	for _, p := range []**float64{&m.SystemTPS, &m.GeneratedTPS, &m.RetryAdjustedSystemTPS, &m.InputTPS,
		&m.ArrivalRate, &m.LittleConcurrency, &m.Goodput, &m.GapFraction, &m.BacklogGapFraction,
		&m.MeanInFlight, &m.MeanQueueDepth, &m.Utilization,
		&m.EngineGapShare, &m.AdmissionGapShare, &m.ImbalanceGapShare, &m.UnattributedGapShare,
		&m.SampledSeconds, &m.BacklogTimeSampled, &m.GapTimeSampled, &m.GapFractionSampled,
		&m.BacklogGapFractionSampled, &m.MeanInFlightSampled, &m.MeanQueueDepthSampled, &m.UtilizationSampled,
		&sum.OfferedRate} {
		*p = nil
	}
	for _, p := range []*float64{&m.BacklogTime, &m.GapTime, &m.OverCapTime, &m.EngineGapTime,
		&m.AdmissionGapTime, &m.ImbalanceGapTime, &m.UnattributedGapTime, &sum.ArrivalSpan} {
		*p = 0
	}
	sum.WindowWidth = 0
	sum.Replicas = nil
	if sum.CapSource != "flag" { // inferred from a state swept on no shared clock
		sum.Cap, sum.CapSource = nil, "none"
	}
	sum.DurationsOnly = &schemas.DurationsOnly{Sources: st.durationSources, Spans: st.durations,
		NotDerived: notDerived, Reason: durationsReason}
	if sum.DurationsOnly.Sources == nil {
		sum.DurationsOnly.Sources = []string{}
	}
	sum.Warnings = append(sum.Warnings, fmt.Sprintf("%s records carry durations only: windows, throughput, gap_fraction and the engine state cannot be derived (summary.json durations_only lists what is not); the latency distributions (ttft, tpot, t_total, ttft_req, tpot_req, e2e_req) and success_rate hold",
		strings.Join(st.durationSources, ", ")))
}
