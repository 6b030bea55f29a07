package canary

import (
	"context"
	"fmt"
	"maps"
	"time"

	"github.com/tpsreport/tpsreport/compare"
	"github.com/tpsreport/tpsreport/schemas"
)

// An Analyzer analyses the replica dataset in dir over [from, to] and
// returns it as compare reads it: the caller's analyze.Run and Load, which
// this package does not link.
type Analyzer func(ctx context.Context, dir string, from, to time.Time) (compare.Run, error)

// Result is a canary comparison: the verdict, the split it was made on, and
// each group's analysed replicas in the order of its Replicas.
type Result struct {
	Verdict   schemas.Verdict
	Split     *Split
	Baseline  []compare.Run
	Candidate []compare.Run
}

// Evaluate splits the run dataset in src into its groups' replicas under
// work (which must not exist; the caller removes it), analyses each with
// an, and decides the criteria c on the groups (compare.EvaluateCanary).
// With pools, each group's pool is written too (Group.Pool), not analysed.
func Evaluate(ctx context.Context, src, work string, cand, base []Selector, c schemas.Criteria, an Analyzer, pools bool) (*Result, error) {
	sp, err := SplitRun(ctx, src, work, cand, base, pools)
	if err != nil {
		return nil, err
	}
	res := &Result{Split: sp}
	for _, g := range []struct {
		dirs []string
		out  *[]compare.Run
	}{{sp.Baseline.Dirs, &res.Baseline}, {sp.Candidate.Dirs, &res.Candidate}} {
		for _, dir := range g.dirs {
			r, err := an(ctx, dir, sp.From, sp.To)
			if err != nil {
				return nil, fmt.Errorf("canary: analyse %s: %w", dir, err)
			}
			*g.out = append(*g.out, r)
		}
	}
	res.Verdict, err = compare.EvaluateCanary(ctx, res.Baseline, res.Candidate, c, sp.Groups())
	return res, err
}

// Groups describes the split as a verdict names it.
func (sp *Split) Groups() schemas.Canary {
	group := func(g Group) schemas.CanaryGroup {
		sel := g.Selectors
		if sel == nil {
			sel = []string{}
		}
		return schemas.CanaryGroup{Selectors: sel, Replicas: g.Replicas, Spans: g.Spans, Samples: g.Samples}
	}
	out := schemas.Canary{Run: sp.Run, Candidate: group(sp.Candidate), Baseline: group(sp.Baseline),
		UnassignedSpans: sp.Unassigned, NoReplicaSpans: sp.NoReplica, UnassignedSamples: sp.UnassignedSamples}
	if len(sp.Renamed) > 0 {
		out.Renamed = maps.Clone(sp.Renamed)
	}
	return out
}
