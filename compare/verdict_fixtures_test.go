package compare

import "github.com/tpsreport/tpsreport/schemas"

// verdictFixture is a pair of hand-made runs whose whole verdict
// testdata/golden/NAME.json holds: every criterion, guard and number.
type verdictFixture struct {
	name       string
	base, cand Run
	c          schemas.Criteria
}

func verdictFixtures() []verdictFixture {
	d := schemas.DefaultCriteria()
	allowed := d
	allowed.AllowModelMismatch = true
	with := func(r Run, fn func(*Run)) Run {
		r.Windows = append([]schemas.Metrics(nil), r.Windows...)
		fn(&r)
		return r
	}
	return []verdictFixture{
		{"stall_removed", synth("stall", 20, 1000, 0.1, 12, 1), synth("fixed", 20, 1400, 0.1, 0, 2), d},
		{"identical", synth("a", 30, 1000, 0.2, 3, 1), synth("a", 30, 1000, 0.2, 3, 1), d},
		{"slower", synth("a", 20, 1000, 0.05, 0, 1), synth("b", 20, 700, 0.05, 0, 2), d},
		{"success_rate_fail", with(synth("a", 20, 1000, 0.05, 0, 1), func(r *Run) { setCounts(r, 2000, 1800, 2010, 10, 1) }),
			with(synth("b", 20, 1000, 0.05, 0, 1), func(r *Run) { setCounts(r, 2000, 1600, 2010, 10, 2) }), d},
		{"success_rate_not_significant", with(synth("a", 20, 1000, 0.05, 0, 1), func(r *Run) { setCounts(r, 20, 18, 20, 0, 1) }),
			with(synth("b", 20, 1000, 0.05, 0, 1), func(r *Run) { setCounts(r, 20, 16, 20, 0, 2) }), d},
		{"retry_rate_fail", synth("a", 20, 1000, 0.05, 0, 1),
			with(synth("b", 20, 1000, 0.05, 0, 1), func(r *Run) { setCounts(r, 1000, 999, 1100, 100, 3) }), d},
		{"retry_rate_fell", synth("a", 20, 1000, 0.05, 0, 1),
			with(synth("b", 20, 1000, 0.05, 0, 1), func(r *Run) { setCounts(r, 1000, 999, 1000, 9, 3) }), d},
		{"retry_rate_rose_throughput_fell", synth("a", 20, 1000, 0.05, 0, 1),
			with(synth("b", 20, 700, 0.05, 0, 2), func(r *Run) { setCounts(r, 1000, 999, 1100, 100, 3) }), d},
		{"load_mismatch", synth("a", 20, 1000, 0.1, 12, 1),
			with(synth("b", 20, 1400, 0.1, 0, 2), func(r *Run) { r.Summary.ArrivalRate = f(2.4) }), d},
		{"too_few_backlog_windows", synth("a", 4, 1000, 0.1, 12, 1), synth("b", 20, 1400, 0.1, 0, 2), d},
		{"model_mismatch_allowed", synth("a", 20, 1000, 0.1, 12, 1),
			with(synth("b", 20, 1000, 0.1, 12, 1), func(r *Run) { r.Summary.DataQuality.Models = []string{"qwen"} }), allowed},
		{"gap_floor", synth("a", 20, 1000, 0.1, 0.3, 1), synth("b", 20, 1000, 0.1, 0.5, 2), d},
		{"gap_zero", synth("a", 20, 1000, 0.1, 0, 1), synth("b", 20, 1000, 0.1, 0, 2), d},
		{"gap_fail", synth("a", 20, 1000, 0.1, 3, 1), synth("b", 20, 1000, 0.1, 6, 2), d},
		{"noisy", synth("a", 25, 1000, 0.3, 5, 1), synth("b", 25, 1100, 0.3, 4, 2), d},
		{"window_width", with(synth("a", 20, 1000, 0.1, 12, 1), func(r *Run) { r.Summary.WindowWidth = 60 }),
			with(synth("b", 20, 1400, 0.1, 0, 2), func(r *Run) { r.Summary.WindowWidth = 10 }), d},
	}
}
