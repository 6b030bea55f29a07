package analyze

import (
	"database/sql"
	"encoding/json"
	"fmt"
	"path/filepath"
	"sort"

	"github.com/tpsreport/tpsreport/capacity"
	"github.com/tpsreport/tpsreport/schemas"
)

// result assembles summary.json and curves.json from what the steps
// computed, and writes them into tmpDir.
func (st *runState) result() (*schemas.RunResult, error) {
	sum := schemas.Summary{
		RunID:       st.runID,
		WindowWidth: float64(st.width) / 1e6,
		CapSource:   st.caps.Source,
		Warnings:    []string{},
	}
	engineLess := st.spans > 0 && st.engine == 0 && st.man.SamplesWritten == 0 && st.caps.Source == CapInferred
	switch {
	case st.spans == 0 && st.stagesPath != "":
		sum.Warnings = append(sum.Warnings, "the run holds stages only, no request span: their budget and roles are measured over their own time, but no request metric, throughput or gap_fraction. Try: ingest the requests' log with them (a gateway's log, the engine's request log or OTel spans)")
	case st.spans == 0:
		sum.Warnings = append(sum.Warnings, fmt.Sprintf("the run holds engine samples only (%d), no request span: no request metric, throughput or gap_fraction. Try: ingest the requests' log with them (the engine's request log or OTel spans, a gateway's log, a load tool's results)",
			st.man.SamplesWritten))
	case engineLess && st.durations == 0:
		// The cap is the engine's; records of a client or a gateway do
		// not show one, and guessing it from their in_flight says nothing.
		sum.Warnings = append(sum.Warnings, "no engine's log or samples: the requests are as a client or a gateway saw them, so latencies, throughput and success_rate hold, while the engine's cap, queue and idle slots are unseen: gap_fraction and the engine state are not measured. Try: ingest the engine's log too, or give --cap N")
	case st.caps.Warning != "" && st.durations == 0:
		sum.Warnings = append(sum.Warnings, st.caps.Warning)
	}
	sum.Cap = &st.caps.Pool
	if st.noExtent && st.spans > 0 {
		sum.Warnings = append(sum.Warnings, "no span has a timestamp: no extent to measure")
	}
	sum.SLO = st.opt.SLO
	st.mix.into(&sum)
	sum.EngineOnly = st.spans > 0 && st.engine == st.spans
	if sum.EngineOnly {
		sum.Warnings = append(sum.Warnings, "only an engine's logs: queueing before the engine (gateway, load balancer, client) is invisible, so t_queue, ttft and gap_fraction count the engine's queue and its frontend's time (tokenizing, IPC) alone. Try: ingest the gateway's log too (litellm:..., kong:..., envoy-ai:...)")
	}
	sum.RunStart, sum.RunEnd = schemas.Time(st.t0), schemas.Time(st.t1)
	sum.Metrics = st.run
	if engineLess && st.caps.Pool == 0 {
		sum.GapFraction = nil // no span has an admission: no slot was seen, so no idle one
	}
	if d := st.disagg; d != nil && len(d.Roles) > 0 && st.spans > 0 {
		sum.Warnings = append(sum.Warnings, "the run's stages show disaggregated serving: the pool's state from its spans (in_flight, gap_fraction, the cap) counts each request on one replica from admission to release, while its prefill and its decode ran on two workers. Read each worker's and each role's state in summary.json's disaggregation (roles.parquet per window)")
	}
	if sum.OverCapTime > 0 && sum.Cap != nil {
		sum.Warnings = append(sum.Warnings, fmt.Sprintf("more requests ran than the cap of %d (%s) allows, for %.3g s: the cap is below the concurrency the engine ran, so gap_time misses idle slots. Check --cap (max_num_seqs per replica)",
			*sum.Cap, sum.CapSource, sum.OverCapTime))
	}
	sum.WindowStart, sum.WindowEnd = sum.RunStart, sum.RunEnd

	sum.Replicas, sum.ReplicasOmitted = listReplicas(st.replicas)
	sum.DataQuality = st.dq
	for _, c := range st.dq.Inconsistent {
		sum.Warnings = append(sum.Warnings, fmt.Sprintf("%d %s read although %s own fields disagree (%s), the first: %s",
			c.Count, plural(c.Count, "record", "records"), plural(c.Count, "its", "their"), c.Reason, c.First))
	}
	if sampled := sampledWarnings(st.dq.Sampled); len(sampled) > 0 {
		sum.Warnings = append(sampled, sum.Warnings...) // first: it qualifies every number
	}
	if n := len(sum.DataQuality.Models); n > schemas.MaxListed {
		sum.DataQuality.Models, sum.DataQuality.ModelsOmitted = sum.DataQuality.Models[:schemas.MaxListed], int64(n-schemas.MaxListed)
	}
	if st.durations > 0 {
		st.durationsSummary(&sum)
		st.windows = []schemas.Metrics{}
		st.curves.Concurrency = []schemas.ConcurrencyPoint{}
		if st.opt.Pricing != nil {
			sum.Warnings = append(sum.Warnings, "a durations-only run has no run time to price: no cost")
		}
	} else if p := st.opt.Pricing; p != nil {
		c := capacity.Price(sum, st.windows, *p, st.namedReplicas)
		sum.Cost = &c
		if c.ReplicasSource == capacity.Assumed {
			sum.Warnings = append(sum.Warnings, "the logs name no replica: cost is priced for one (Try: --replicas N)")
		}
	}
	sum.Disaggregation = st.disagg
	sum.DataQuality.OverCapTime = sum.OverCapTime
	sum.DataQuality.Join = st.join
	sum.Warnings = append(sum.Warnings, joinWarnings(st.join)...)
	if n := sum.DataQuality.CoarseTimeSpans; n > 0 {
		sum.Warnings = append(sum.Warnings, coarseWarning(n, st.coarsestUS))
	}
	if n := sum.DataQuality.RelativeSpans - st.durations; n > 0 {
		sum.Warnings = append(sum.Warnings, fmt.Sprintf("%d spans count time from a benchmark's start, not the wall clock: their windows do not line up with other runs", n))
	}
	if dq := sum.DataQuality; len(dq.Models) > 1 {
		const named = 10 // a warning is one line
		names, more := dq.Models, dq.ModelsOmitted
		if len(names) > named {
			names, more = names[:named], more+int64(len(names)-named)
		}
		list := fmt.Sprintf("%q", names)
		if more > 0 {
			list = fmt.Sprintf("%s and %d more", list, more)
		}
		sum.Warnings = append(sum.Warnings, fmt.Sprintf("mixed models %s: token counts are tokenizer-specific", list))
	}
	res := &schemas.RunResult{Manifest: st.man, Windows: st.windows, Curves: st.curves, Summary: sum}
	if err := writeJSON(filepath.Join(st.tmpDir, schemas.SummaryFile), sum); err != nil {
		return nil, err
	}
	if err := writeJSON(filepath.Join(st.tmpDir, schemas.CurvesFile), res.Curves); err != nil {
		return nil, err
	}
	return res, nil
}

// metricRows reads the rows of the metrics table (windows or run) as
// schemas.Metrics, through their JSON (metrics_json names every column as
// the struct's tags do).
func (a *analysis) metricRows() ([]schemas.Metrics, error) {
	rows, err := a.db.QueryContext(a.ctx, query("metrics_json"))
	if err != nil {
		return nil, fmt.Errorf("analyze metrics_json: %w", err)
	}
	defer rows.Close()
	out := []schemas.Metrics{}
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			return nil, fmt.Errorf("analyze metrics_json: %w", err)
		}
		var m schemas.Metrics
		if err := json.Unmarshal([]byte(s), &m); err != nil {
			return nil, fmt.Errorf("analyze metrics_json: %w", err)
		}
		out = append(out, m)
	}
	return out, rows.Err()
}

// sampledWarnings say which inputs hold a sample of the requests their own
// totals count, the first three of them.
func sampledWarnings(ss []schemas.SampledInput) []string {
	var out []string
	for i, p := range ss {
		if i == 3 {
			out = append(out, fmt.Sprintf("%d more inputs hold a sample of their requests (summary.json data_quality.sampled_inputs)", len(ss)-3))
			break
		}
		out = append(out, filepath.Base(p.File)+": "+p.String())
	}
	return out
}

// quality counts the data-quality measures of docs/metrics.md "Data quality" that the spans table
// and the request facts show (quality_spans); sourceQuality adds the others.
func (a *analysis) quality(st *runState) error {
	man := st.man
	dq := schemas.DataQuality{
		RecordsRead:     man.Counts.Read,
		SpansWritten:    man.Counts.Written,
		RecordsRejected: man.Counts.Rejected,
		RecordsSkipped:  man.Counts.Skipped,
		RejectedBy:      man.RejectedBy,
		SkippedBy:       man.SkippedBy,
		Models:          []string{},
	}
	if dq.RejectedBy == nil {
		dq.RejectedBy = map[string]int64{}
	}
	for _, in := range man.Inputs {
		for _, p := range in.Sampled {
			p.File = in.Path
			dq.Sampled = append(dq.Sampled, p)
		}
	next:
		for _, c := range in.Inconsistent {
			for i := range dq.Inconsistent {
				if dq.Inconsistent[i].Reason == c.Reason {
					dq.Inconsistent[i].Count += c.Count
					continue next
				}
			}
			c.First = filepath.Base(in.Path) + ": " + c.First
			dq.Inconsistent = append(dq.Inconsistent, c)
		}
	}
	var mq, ma, mf, ml, mr, spansClipped int64
	err := a.db.QueryRowContext(a.ctx, query("quality_spans"), sql.Named("t0", st.t0), sql.Named("t1", st.t1)).Scan(
		&mq, &ma, &mf, &ml, &mr, &dq.OutOfOrder, &dq.UnlinkedRetries, &dq.SpansOutOfState, &spansClipped)
	if err != nil {
		return fmt.Errorf("analyze quality_spans: %w", err)
	}
	dq.MissingTimestamp = map[string]int64{
		"queued_at": mq, "admitted_at": ma, "first_token_at": mf, "last_token_at": ml, "released_at": mr,
	}
	if st.opt.From != nil {
		dq.SpansClipped = spansClipped
	}
	if err := a.db.QueryRowContext(a.ctx, query("sampling_holes")).Scan(&dq.SamplingHoles); err != nil {
		return fmt.Errorf("analyze sampling_holes: %w", err)
	}
	st.dq = dq
	return nil
}

// sourceQuality counts into dq the data-quality measures of docs/metrics.md "Data quality" read
// from span_src's columns that the spans table leaves out (quality_source).
func (a *analysis) sourceQuality(st *runState) error {
	dq := &st.dq
	var models []any
	err := a.db.QueryRowContext(a.ctx, query("quality_source")).Scan(
		&dq.DuplicateSpanIDs, &models, &dq.CoarseTimeSpans, &dq.RelativeSpans, &st.coarsestUS)
	if err != nil {
		return fmt.Errorf("analyze quality_source: %w", err)
	}
	for _, m := range models {
		if s, ok := m.(string); ok {
			dq.Models = append(dq.Models, s)
		}
	}
	return nil
}

// listReplicas bounds the per-replica states summary.json lists at
// schemas.MaxListed: those with the most gap time (ties by name), in the
// order of rs; and how many were left out.
func listReplicas(rs []schemas.ReplicaState) ([]schemas.ReplicaState, int64) {
	if len(rs) <= schemas.MaxListed {
		return rs, 0
	}
	order := make([]int, len(rs))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool {
		ra, rb := rs[order[a]], rs[order[b]]
		if ra.GapTime != rb.GapTime {
			return ra.GapTime > rb.GapTime
		}
		return ra.Replica < rb.Replica
	})
	keep := make([]bool, len(rs))
	for _, i := range order[:schemas.MaxListed] {
		keep[i] = true
	}
	out := make([]schemas.ReplicaState, 0, schemas.MaxListed)
	for i, r := range rs {
		if keep[i] {
			out = append(out, r)
		}
	}
	return out, int64(len(rs) - schemas.MaxListed)
}

func ptr(v float64) *float64 { return &v }

// plural is one when n is 1, else many.
func plural(n int64, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// coarseWarning says that n spans have timestamps coarser than a µs, the
// coarsest to coarsestUS: to the second (vLLM's and SGLang's request log
// lines), or to the millisecond (Dynamo's receipt), for instance.
func coarseWarning(n, coarsestUS int64) string {
	res := "the second"
	pm := "±1 s"
	switch {
	case coarsestUS < 1000:
		res, pm = fmt.Sprintf("%d µs", coarsestUS), fmt.Sprintf("±%d µs", coarsestUS)
	case coarsestUS < 1_000_000:
		res, pm = fmt.Sprintf("%g ms", float64(coarsestUS)/1e3), fmt.Sprintf("±%g ms", float64(coarsestUS)/1e3)
	case coarsestUS > 1_000_000:
		res, pm = fmt.Sprintf("%g s", float64(coarsestUS)/1e6), fmt.Sprintf("±%g s", float64(coarsestUS)/1e6)
	}
	if coarsestUS == 1000 {
		res = "the millisecond"
	}
	return fmt.Sprintf("%d spans have timestamps only to %s at the coarsest: their durations and proration are %s", n, res, pm)
}
