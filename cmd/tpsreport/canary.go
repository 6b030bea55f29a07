package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/tpsreport/tpsreport/analyze"
	"github.com/tpsreport/tpsreport/canary"
	"github.com/tpsreport/tpsreport/compare"
	"github.com/tpsreport/tpsreport/internal/dataset"
	"github.com/tpsreport/tpsreport/report"
	"github.com/tpsreport/tpsreport/schemas"
)

// canaryOptions are a canary comparison's: the run, the selectors of its
// two groups, and how each replica is analysed.
type canaryOptions struct {
	run, name  string // the run dataset, and how the report names it
	cand, base []canary.Selector
	analyze    analyze.Options // window, cap, SLO; Dir, From and To are set per replica
	criteria   schemas.Criteria
	out        string // the report's directory
	work       string // a directory to split into, which must not exist; removed at the end
}

// parseSelectors reads the --canary and --canary-baseline selectors.
func parseSelectors(cand, base []string) ([]canary.Selector, []canary.Selector, error) {
	c, err := canary.ParseAll(cand)
	if err != nil {
		return nil, nil, err
	}
	b, err := canary.ParseAll(base)
	if err != nil {
		return nil, nil, err
	}
	return c, b, nil
}

// canaryCompare runs `compare --canary`: the run in dir is split into its
// groups' replicas, each analysed alone as dir was (its window, cap and
// SLO, when it was analysed), and the groups are compared window by
// window; verdict.json and the report land in out.
func canaryCompare(ctx context.Context, e *env, dir, out string, cand, base []canary.Selector, cr schemas.Criteria) (schemas.Verdict, error) {
	if _, err := os.Stat(dir); errors.Is(err, fs.ErrNotExist) {
		return schemas.Verdict{}, fmt.Errorf("run directory %q does not exist", dir)
	}
	outLock, err := dataset.LockDir(out, true, commandLine(e.args))
	if err != nil {
		return schemas.Verdict{}, err
	}
	defer outLock.Unlock()
	lock, err := dataset.LockDir(dir, false, commandLine(e.args))
	if err != nil {
		return schemas.Verdict{}, err
	}
	defer lock.Unlock()
	opt := analyze.Options{Log: e.log}
	// The replicas are analysed as the run was: a canary judged at another
	// window width or SLO than the run's report would disagree with it.
	if res, err := analyze.Load(ctx, dir); err == nil {
		opt.Window = time.Duration(res.Summary.WindowWidth * float64(time.Second)).Round(time.Microsecond)
		opt.SLO = res.Summary.SLO
		// --cap is per replica, as each replica is analysed here; the
		// summary's cap is the pool's.
		if res.Summary.CapSource == "flag" && len(res.Summary.Replicas) > 0 {
			opt.Cap = res.Summary.Replicas[0].Cap
		}
	}
	parent := filepath.Dir(filepath.Clean(out))
	if err := os.MkdirAll(parent, 0o777); err != nil {
		return schemas.Verdict{}, err
	}
	work, err := os.MkdirTemp(parent, ".tpsreport-canary-")
	if err != nil {
		return schemas.Verdict{}, err
	}
	defer os.RemoveAll(work)
	v, err := runCanary(ctx, e, canaryOptions{run: dir, name: dir, cand: cand, base: base, analyze: opt, criteria: cr,
		out: out, work: filepath.Join(work, "split")})
	if err != nil {
		return v, err
	}
	printVerdict(e.stdout, v)
	fmt.Fprintln(e.stdout, filepath.Join(out, "report.html"))
	return v, nil
}

// runCanary splits, analyses and compares a canary (canary.Evaluate), then
// analyses each group as one pool for the report's charts of the groups
// side by side, and writes verdict.json with the report into o.out.
func runCanary(ctx context.Context, e *env, o canaryOptions) (schemas.Verdict, error) {
	defer os.RemoveAll(o.work)
	// Every replica is analysed over the same span of time: the run's
	// extent, or the part of it --from and --to clip.
	clip := func(opt *analyze.Options, from, to time.Time) {
		if opt.From == nil {
			opt.From, opt.To = &from, &to
		}
	}
	an := func(ctx context.Context, dir string, from, to time.Time) (compare.Run, error) {
		opt := o.analyze
		opt.Dir = dir
		clip(&opt, from, to)
		if _, err := analyze.Run(ctx, opt); err != nil {
			return compare.Run{}, err
		}
		r, err := loadCompared(ctx, dir)
		return compare.Run{Summary: r.res.Summary, Windows: r.res.Windows, Requests: r.latencies}, err
	}
	res, err := canary.Evaluate(ctx, o.run, o.work, o.cand, o.base, o.criteria, an, true)
	if err != nil {
		return schemas.Verdict{}, err
	}
	v := res.Verdict
	sp := res.Split
	pool := func(dir, group string, g canary.Group) (report.Run, error) {
		opt := o.analyze
		opt.Dir = dir
		clip(&opt, sp.From, sp.To)
		r, err := analyze.Run(ctx, opt)
		if err != nil {
			return report.Run{}, fmt.Errorf("canary: analyse the %s's pool: %w", group, err)
		}
		return reportRun(fmt.Sprintf("%s, %s: %s", o.name, group, strings.Join(g.Replicas, ", ")), r), nil
	}
	bp, err := pool(sp.Baseline.Pool, "baseline", sp.Baseline)
	if err != nil {
		return v, err
	}
	cp, err := pool(sp.Candidate.Pool, "canary", sp.Candidate)
	if err != nil {
		return v, err
	}
	if b, err := os.ReadFile(filepath.Join(o.run, schemas.ManifestFile)); err == nil {
		var man schemas.Manifest
		if json.Unmarshal(b, &man) == nil {
			v.Data = append(v.Data, schemas.RunData{Side: "both", Run: sp.Run, SpansSHA256: spansDigest(&man)})
		}
	}
	var verdict bytes.Buffer
	if err := jsonEncoder(&verdict).Encode(v); err != nil {
		return v, fmt.Errorf("write %s: %w", filepath.Join(o.out, "verdict.json"), err)
	}
	if _, err := report.Write(o.out, report.Input{
		Baseline:  bp,
		Candidate: &cp,
		Verdict:   &v,
		Command:   commandLine(e.args),
		Version:   toolVersion(),
		Extra:     []report.File{{Name: "verdict.json", Data: verdict.Bytes()}},
	}); err != nil {
		return v, err
	}
	return v, nil
}
