package analyze

import (
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/tpsreport/tpsreport/analyze/oracle"
	"github.com/tpsreport/tpsreport/schemas"
)

// randomStages draws the stages of up to 40 attempts: every stage kind, in
// any order and length (zero included), overlapping at times; roles prefill,
// decode, both or none; workers named and not; an attempt number or none;
// bytes on some transfers. The times fall in the 200 s after at(0).
func randomStages(r *rand.Rand) []schemas.Stage {
	var out []schemas.Stage
	reps := []string{"p0", "p1", "d0", "d1", "b0", ""}
	roles := []string{schemas.RolePrefill, schemas.RoleDecode, schemas.RoleBoth, ""}
	for range 1 + r.IntN(40) {
		id := fmt.Sprintf("r%02d", r.IntN(30))
		var attempt *int32
		if r.IntN(3) > 0 {
			attempt = i32(int32(r.IntN(2)))
		}
		t := *at(0) + r.Int64N(200_000_000)
		for range 1 + r.IntN(6) {
			st := schemas.Stage{RunID: "s", Source: "stages", RequestID: id, Attempt: attempt, Stage: schemas.Stages[r.IntN(len(schemas.Stages))]}
			if r.IntN(5) == 0 {
				t -= r.Int64N(2_000_000) // overlaps the stage before
			}
			st.StartedAt = t
			if r.IntN(6) > 0 {
				t += r.Int64N(5_000_000)
			}
			st.EndedAt = t
			if r.IntN(4) == 0 {
				t += r.Int64N(500_000) // a gap no stage covers
			}
			if st.Stage != schemas.StageGateway && st.Stage != schemas.StageRouter {
				if role := roles[r.IntN(len(roles))]; role != "" {
					st.Role = str(role)
				}
				if rep := reps[r.IntN(len(reps))]; rep != "" {
					st.Replica = str(rep)
				}
			}
			if st.Stage == schemas.StageKVTransfer && r.IntN(2) == 0 {
				st.Bytes = i64(r.Int64N(1 << 30))
			}
			out = append(out, st)
		}
	}
	return out
}

// TestStagesDifferential holds the stage statements against the oracle's
// brute force (analyze/oracle Stages) on random stages: summary.json's
// disaggregation and every row of budget.parquet and roles.parquet, to 1e-9
// relative, over the run or a --from/--to range inside it, with caps from
// samples for some workers and inferred for the others.
func TestStagesDifferential(t *testing.T) {
	cases := 12
	if testing.Short() {
		cases = 3
	}
	for i := range cases {
		seed := uint64(i + 1)
		t.Run(fmt.Sprintf("seed%d", seed), func(t *testing.T) {
			t.Parallel()
			r := rand.New(rand.NewPCG(seed, 0x57a9e))
			stages := randomStages(r)
			var samples []schemas.Sample
			for _, rep := range []string{"p0", "d0", "b0"} {
				if r.IntN(2) == 0 {
					samples = append(samples, schemas.Sample{RunID: "s", Source: "samples", Replica: str(rep), TS: *at(0), InFlight: i32(0), Cap: i32(int32(1 + r.IntN(3)))})
				}
			}
			// One span that spans the stages' time, so that the extent is
			// [at(0), at(210)] without a range.
			spans := []schemas.Span{{RunID: "s", Source: "spans", SpanID: "x", RequestID: "x", Status: "ok", QueuedAt: at(0), ReleasedAt: at(210)}}
			dir := writeDataset(t, spans, samples, nil)
			writeParquet(t, filepath.Join(dir, schemas.StagesFile), stages)
			width := []int64{7_000_003, 60_000_000}[r.IntN(2)]
			opt := Options{Window: time.Duration(width) * time.Microsecond}
			t0, t1 := *at(0), *at(210)
			if r.IntN(2) == 0 {
				t0, t1 = *at(0)+r.Int64N(50_000_000), *at(150)+r.Int64N(60_000_000)
				f, to := schemas.Time(t0), schemas.Time(t1)
				opt.From, opt.To = &f, &to
			}
			got := analyzeDir(t, dir, opt)
			want := oracle.Stages(stages, samples, t0, t1, width)
			if got.Summary.Disaggregation == nil {
				t.Fatal("no disaggregation")
			}
			diffJSON(t, "disaggregation", got.Summary.Disaggregation, want.Disaggregation)
			budget, roles, err := LoadDisagg(t.Context(), dir)
			if err != nil {
				t.Fatal(err)
			}
			diffJSON(t, "budget.parquet", budget, want.Budget)
			diffJSON(t, "roles.parquet", roles, want.Roles)
			// The gap's causes add up to it, in the run and every window.
			all := slices.Clone(got.Summary.Disaggregation.Roles)
			for _, w := range roles {
				all = append(all, w.RoleState)
			}
			for _, r := range all {
				if !closeRel(r.HeldTime+r.RouterTime, r.GapTime, 1e-9) {
					t.Errorf("%s: held %v + router %v s, gap %v s", r.Role, r.HeldTime, r.RouterTime, r.GapTime)
				}
			}
		})
	}
}
