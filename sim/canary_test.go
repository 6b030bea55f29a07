package sim

import (
	"math"
	"slices"
	"testing"
	"time"

	"github.com/tpsreport/tpsreport/schemas"
)

// TestCanaryReplicas: the last replica of a random-dispatch fleet, given its
// own cap, decode rate, error rate, share of traffic and engine pauses,
// shows each in its spans and its truth, and the others keep the
// scenario's.
func TestCanaryReplicas(t *testing.T) {
	sc, err := Named("fixed")
	if err != nil {
		t.Fatal(err)
	}
	sc.Replicas, sc.MaxNumSeqs, sc.Dispatch, sc.Rate, sc.Duration = 4, 16, DispatchRandom, 8, 20*time.Minute
	sc.Canary = Canary{Replicas: 1, MaxNumSeqs: 20, DecodeRate: sc.DecodeRate / 2, ExtraErrorRate: 0.09, Weight: 0.5,
		EngineStallGap: 30 * time.Second, EngineStallDuration: 5 * time.Second}
	type tally struct {
		spans, errors int
		tpot          []float64
	}
	by := map[string]*tally{}
	tr, err := Run(sc, 3, func(s schemas.Span) error {
		if s.Replica == nil || s.AdmittedAt == nil {
			return nil
		}
		t := by[*s.Replica]
		if t == nil {
			t = &tally{}
			by[*s.Replica] = t
		}
		t.spans++
		if s.Status == schemas.StatusError {
			t.errors++
		}
		if s.Status == schemas.StatusOK && s.OutputTokens != nil && *s.OutputTokens > 1 {
			t.tpot = append(t.tpot, float64(*s.LastTokenAt-*s.FirstTokenAt)/1e6/float64(*s.OutputTokens-1))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(tr.Canary, []string{"vllm-3"}) || !slices.Equal(sc.CanaryNames(), []string{"vllm-3"}) {
		t.Errorf("canary %v", tr.Canary)
	}
	if tr.Cap != 3*16+20 || tr.Replicas[3].Cap != 20 || tr.Replicas[0].Cap != 16 {
		t.Errorf("caps: pool %d, replicas %+v", tr.Cap, tr.Replicas)
	}
	c, o := by["vllm-3"], by["vllm-0"]
	// Half the traffic of a peer: 0.5 of 3.5 shares, against 1.
	if share := float64(c.spans) / float64(o.spans); math.Abs(share-0.5) > 0.08 {
		t.Errorf("the canary admitted %d spans, a peer %d: share %.2f, want about 0.5", c.spans, o.spans, share)
	}
	// 1 % of attempts fail on a peer, 10 % on the canary.
	if rc, ro := float64(c.errors)/float64(c.spans), float64(o.errors)/float64(o.spans); rc < 0.07 || rc > 0.13 || ro > 0.02 {
		t.Errorf("error rates: canary %.3f, peer %.3f; want about 0.10 and 0.01", rc, ro)
	}
	// At half the decode rate each token takes about twice as long.
	if mc, mo := median(c.tpot), median(o.tpot); math.Abs(mc/mo-2) > 0.2 {
		t.Errorf("median TPOT: canary %.4f s, peer %.4f s; want about twice", mc, mo)
	}
	// Only the canary's engine pauses.
	if tr.Replicas[3].EngineGapTime <= 0 || tr.Replicas[0].EngineGapTime != 0 || tr.Sim.EngineStalls == 0 {
		t.Errorf("engine gaps: canary %v, peer %v (%d pauses)", tr.Replicas[3].EngineGapTime, tr.Replicas[0].EngineGapTime, tr.Sim.EngineStalls)
	}
	sc.Canary.Replicas = 4
	if err := sc.Validate(); err == nil {
		t.Error("a canary of every replica has nothing to be compared with")
	}
	sc.Canary.Replicas, sc.Dispatch = 1, DispatchRoundRobin
	if err := sc.Validate(); err == nil {
		t.Error("a canary's share of traffic needs the random policy")
	}
}

func median(xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	return s[len(s)/2]
}
