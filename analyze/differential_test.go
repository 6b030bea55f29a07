package analyze

import (
	"cmp"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"slices"
	"sort"
	"strconv"
	"testing"
	"time"

	"github.com/tpsreport/tpsreport/analyze/oracle"
	"github.com/tpsreport/tpsreport/schemas"
)

// TestDifferential runs the SQL engine and the independent Go oracle on many
// randomized span sets (ties, zero-length streams, NULL timestamps, retries,
// hedges, duplicates, several replicas, samples with holes, window edges inside
// spans) and requires agreement to 1e-9 relative on every metric of every window,
// the run, the per-span metrics, the cap and the data-quality counts.
// DIFF_CASES sets the number of cases (default 60). -short keeps seeds 1–3,
// which still hold the SQL against the oracle on every metric, with --from
// and --to, --cap, the logs' max_num_seqs (per replica too) and windows of
// 7.000003 s and 60 s; the other seeds, each a second of DuckDB, are left
// to `make test`.
func TestDifferential(t *testing.T) {
	cases := 60
	if testing.Short() {
		cases = 3
	}
	if s := os.Getenv("DIFF_CASES"); s != "" {
		var err error
		if cases, err = strconv.Atoi(s); err != nil || cases < 1 {
			t.Fatalf("DIFF_CASES=%q: want a positive number of cases", s)
		}
	}
	for i := range cases {
		seed := uint64(i + 1)
		t.Run(fmt.Sprintf("seed%d", seed), func(t *testing.T) {
			t.Parallel()
			r := rand.New(rand.NewPCG(seed, 0x7e5))
			gen := oracle.DefaultGenOptions()
			n := 1 + r.IntN(120)
			spans, samples := oracle.RandomSpans(r, n, gen)
			oopt := oracle.RandomOptions(r, gen)
			want := oracle.Analyze(spans, samples, oopt)
			// Half the cases carry an SLO, its bounds the run's own medians
			// of the request latencies, so that some requests meet it and
			// some miss (a bound left out stays out).
			if r.IntN(2) == 0 {
				slo := &schemas.SLO{}
				for _, b := range []struct {
					dst **float64
					p   *schemas.Percentiles
				}{{&slo.TTFT, &want.Run.TTFTReq}, {&slo.TPOT, &want.Run.TPOTReq}, {&slo.E2E, &want.Run.E2EReq}} {
					if b.p.P50 != nil && r.IntN(3) > 0 {
						v := math.Round(*b.p.P50*1e6) / 1e6
						*b.dst = &v
					}
				}
				oopt.SLO = slo
				want = oracle.Analyze(spans, samples, oopt)
			}

			man := schemas.Manifest{MaxNumSeqs: oopt.MaxNumSeqs, MaxNumSeqsBy: oopt.MaxNumSeqsByReplica}
			dir := writeDataset(t, spans, samples, &man)
			opt := Options{Window: time.Duration(oopt.Width) * time.Microsecond, Cap: oopt.Cap, SLO: oopt.SLO}
			if oopt.From != nil && *oopt.To <= *oopt.From {
				t.Skip("an empty --from/--to range is a usage error")
			}
			if oopt.From != nil {
				f, to := schemas.Time(*oopt.From), schemas.Time(*oopt.To)
				opt.From, opt.To = &f, &to
			}
			got := analyzeDir(t, dir, opt)
			checkProperties(t, got)
			compareResults(t, dir, got, want)
		})
	}
}

func compareResults(t *testing.T, dir string, got *schemas.RunResult, want oracle.Result) {
	t.Helper()
	if !want.HasExtent {
		return // no instant at all: nothing to compare but that it ran
	}
	if got.Summary.CapSource != want.CapSource {
		t.Errorf("cap_source: got %q, want %q", got.Summary.CapSource, want.CapSource)
	}
	if want.Cap != nil && (got.Summary.Cap == nil || *got.Summary.Cap != *want.Cap) {
		t.Errorf("cap: got %v, want %d", fmtPtr(got.Summary.Cap), *want.Cap)
	}
	diffJSON(t, "run", got.Summary.Metrics, want.Run)
	if len(got.Windows) != len(want.Windows) {
		t.Fatalf("windows: got %d, want %d", len(got.Windows), len(want.Windows))
	}
	for i := range want.Windows {
		diffJSON(t, fmt.Sprintf("window %d", i), got.Windows[i], want.Windows[i])
	}
	q := want.Quality
	gq := got.Summary.DataQuality
	if fmt.Sprint(gq.MissingTimestamp) != fmt.Sprint(q.MissingTimestamp) ||
		gq.OutOfOrder != q.OutOfOrder || gq.DuplicateSpanIDs != q.DuplicateSpanIDs ||
		gq.UnlinkedRetries != q.UnlinkedRetries || gq.SamplingHoles != q.SamplingHoles ||
		gq.SpansOutOfState != q.SpansOutOfState || gq.SpansClipped != q.SpansClipped ||
		fmt.Sprint(gq.Models) != fmt.Sprint(q.Models) || !closeRel(gq.OverCapTime, q.OverCapTime, 1e-9) {
		t.Errorf("data quality:\n got %+v\nwant %+v", gq, q)
	}
	if len(want.Replicas) > 0 {
		diffJSON(t, "replicas", got.Summary.Replicas, want.Replicas)
	}
	// The offered load and token mix, and every delivered request's
	// latencies (latencies.parquet; ties in completion compared as a set).
	diffJSON(t, "mix", []any{got.Summary.ArrivalSpan, got.Summary.OfferedRate, got.Summary.MeanInputTokens, got.Summary.MeanOutputTokens},
		[]any{want.ArrivalSpan, want.OfferedRate, want.MeanInputTokens, want.MeanOutputTokens})
	lat, err := LoadLatencies(t.Context(), dir)
	if err != nil {
		t.Fatal(err)
	}
	sortLatencies(lat)
	wl := slices.Clone(want.Latencies)
	sortLatencies(wl)
	if len(wl) == 0 {
		wl = []schemas.RequestLatency{}
	}
	diffJSON(t, "latencies", jsonLatencies(lat), jsonLatencies(wl))
	// Per-span metrics: requests.parquet keyed by span_id; duplicates compare as a multiset.
	rows := readRequestList(t, dir)
	if len(rows) != len(want.Spans) {
		t.Fatalf("requests.parquet: %d rows, want %d", len(rows), len(want.Spans))
	}
	for i, w := range want.Spans {
		diffJSON(t, "span "+w.SpanID, pick(rows[i], spanMetricNames), spanMap(w))
	}
}

var spanMetricNames = []string{"span_id", "attempt", "t_queue", "t_first_token", "ttft", "t_stream", "t_in_flight", "t_total", "stream_tps", "end_to_end_tps", "tpot", "delivered"}

func spanMap(s oracle.SpanMetrics) map[string]any {
	return map[string]any{
		"span_id": s.SpanID, "attempt": s.Attempt, "t_queue": s.TQueue, "t_first_token": s.TFirstToken,
		"ttft": s.TTFT, "t_stream": s.TStream, "t_in_flight": s.TInFlight, "t_total": s.TTotal,
		"stream_tps": s.StreamTPS, "end_to_end_tps": s.EndToEndTPS, "tpot": s.TPOT, "delivered": s.Delivered,
	}
}

func pick(m map[string]any, keys []string) map[string]any {
	out := map[string]any{}
	for _, k := range keys {
		out[k] = m[k]
	}
	return out
}

// diffJSON compares two values through their JSON form: numbers to 1e-9
// relative, everything else exactly, and reports each differing path.
func diffJSON(t *testing.T, what string, got, want any) {
	t.Helper()
	var g, w any
	mustRoundTrip(t, got, &g)
	mustRoundTrip(t, want, &w)
	var diffs []string
	walkDiff("", g, w, &diffs)
	sort.Strings(diffs)
	for i, d := range diffs {
		if i == 12 {
			t.Errorf("%s: … %d more differences", what, len(diffs)-i)
			break
		}
		t.Errorf("%s: %s", what, d)
	}
}

func mustRoundTrip(t *testing.T, v any, out *any) {
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, out); err != nil {
		t.Fatal(err)
	}
}

func walkDiff(path string, g, w any, diffs *[]string) {
	switch wv := w.(type) {
	case map[string]any:
		gm, ok := g.(map[string]any)
		if !ok {
			*diffs = append(*diffs, fmt.Sprintf("%s: got %v, want object", path, g))
			return
		}
		for k := range wv {
			walkDiff(path+"."+k, gm[k], wv[k], diffs)
		}
		for k := range gm {
			if _, ok := wv[k]; !ok && gm[k] != nil {
				*diffs = append(*diffs, fmt.Sprintf("%s.%s: got %v, want absent", path, k, gm[k]))
			}
		}
	case []any:
		gl, ok := g.([]any)
		if !ok || len(gl) != len(wv) {
			*diffs = append(*diffs, fmt.Sprintf("%s: got %v, want %v", path, g, w))
			return
		}
		for i := range wv {
			walkDiff(fmt.Sprintf("%s[%d]", path, i), gl[i], wv[i], diffs)
		}
	case float64:
		gf, ok := g.(float64)
		if !ok || !closeRel(gf, wv, 1e-9) {
			*diffs = append(*diffs, fmt.Sprintf("%s: got %v, want %v", path, g, w))
		}
	default:
		if fmt.Sprint(g) != fmt.Sprint(w) {
			*diffs = append(*diffs, fmt.Sprintf("%s: got %v, want %v", path, g, w))
		}
	}
}

func fmtPtr(p *int64) string {
	if p == nil {
		return "NULL"
	}
	return strconv.FormatInt(*p, 10)
}

// checkProperties holds of the SQL engine's output alone: windows add up to the
// run, and fractions stay fractions.
func checkProperties(t *testing.T, res *schemas.RunResult) {
	t.Helper()
	var out, gen, deliv, in, gap, backlog, secs float64
	var attempts, requests int64
	for i, w := range res.Windows {
		out += w.OutputTokens
		gen += w.GeneratedTokens
		deliv += w.DeliveredTokens
		in += w.InputTokens
		gap += w.GapTime
		backlog += w.BacklogTime
		secs += w.WindowSeconds
		attempts += w.Attempts
		requests += w.Requests
		if w.GapTime > w.BacklogTime {
			t.Errorf("window %d: gap_time %v > backlog_time %v", i, w.GapTime, w.BacklogTime)
		}
		for name, f := range map[string]*float64{"gap_fraction": w.GapFraction, "success_rate": w.SuccessRate,
			"retry_rate": w.RetryRate, "waste_fraction": w.WasteFraction, "gap_fraction_sampled": w.GapFractionSampled} {
			if f != nil && (*f < -1e-12 || *f > 1+1e-12) {
				t.Errorf("window %d: %s = %v outside [0, 1]", i, name, *f)
			}
		}
	}
	r := res.Summary
	for name, pair := range map[string][2]float64{
		"output_tokens": {out, r.OutputTokens}, "generated_tokens": {gen, r.GeneratedTokens},
		"delivered_tokens": {deliv, r.DeliveredTokens}, "input_tokens": {in, r.InputTokens},
		"gap_time": {gap, r.GapTime}, "backlog_time": {backlog, r.BacklogTime}, "window_seconds": {secs, r.WindowSeconds},
	} {
		if !closeRel(pair[0], pair[1], 1e-9) && math.Abs(pair[0]-pair[1]) > 1e-6 {
			t.Errorf("Σ windows %s = %v, run %v", name, pair[0], pair[1])
		}
	}
	if attempts != r.Attempts || requests != r.Requests {
		t.Errorf("Σ windows attempts %d requests %d, run %d %d", attempts, requests, r.Attempts, r.Requests)
	}
	// The four causes of gap_time sum to it exactly (whole µs) in every
	// window, the run and every replica (docs/metrics.md "Where the idle
	// time comes from").
	us := func(s float64) int64 { return int64(math.Round(s * 1e6)) }
	for i, w := range append(slices.Clone(res.Windows), r.Metrics) {
		sum := us(w.EngineGapTime) + us(w.AdmissionGapTime) + us(w.ImbalanceGapTime) + us(w.UnattributedGapTime)
		if sum != us(w.GapTime) {
			t.Errorf("window %d: causes sum to %d µs, gap_time %d µs", i, sum, us(w.GapTime))
		}
	}
	for _, rs := range r.Replicas {
		if sum := us(rs.EngineGapTime) + us(rs.AdmissionGapTime) + us(rs.UnattributedGapTime); sum != us(rs.GapTime) {
			t.Errorf("replica %s: causes sum to %d µs, gap_time %d µs", rs.Replica, sum, us(rs.GapTime))
		}
	}
}

// jsonLatencies are request latencies as JSON takes them: an unknown one
// (NaN) null.
func jsonLatencies(ls []schemas.RequestLatency) []map[string]any {
	out := make([]map[string]any, len(ls))
	for i, l := range ls {
		m := map[string]any{"released": l.Released}
		for k, v := range map[string]float64{"ttft": l.TTFT, "tpot": l.TPOT, "e2e": l.E2E} {
			if !math.IsNaN(v) {
				m[k] = v
			}
		}
		out[i] = m
	}
	return out
}

// sortLatencies orders request latencies by completion, then by value, so
// that two implementations' orders of ties compare.
func sortLatencies(ls []schemas.RequestLatency) {
	key := func(v float64) float64 {
		if math.IsNaN(v) {
			return math.Inf(1)
		}
		return v
	}
	slices.SortFunc(ls, func(a, b schemas.RequestLatency) int {
		return cmp.Or(cmp.Compare(a.Released, b.Released), cmp.Compare(key(a.TTFT), key(b.TTFT)),
			cmp.Compare(key(a.E2E), key(b.E2E)), cmp.Compare(key(a.TPOT), key(b.TPOT)))
	})
}
