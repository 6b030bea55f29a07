package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/tpsreport/tpsreport/analyze"
	"github.com/tpsreport/tpsreport/canary"
	"github.com/tpsreport/tpsreport/compare"
	"github.com/tpsreport/tpsreport/ingest"
	"github.com/tpsreport/tpsreport/schemas"
	"github.com/tpsreport/tpsreport/sim"
)

// canaryFleet is the fleet a canary comparison runs on: four replicas of
// 16 slots behind a gateway that sends each request to a replica at random,
// for half an hour; the last replica is the canary, which a case changes.
// "busy" is at about 80 % of the fleet's capacity with bursts above it;
// "saturated" at about 130 %, so that every replica always has a queue and
// delivers its capacity.
func canaryFleet(name string) sim.Scenario {
	sc, _ := sim.Named("fixed")
	sc.Name = "canary-" + name
	sc.Duration = 30 * time.Minute
	sc.Replicas = 4
	sc.MaxNumSeqs = 16
	sc.Dispatch = sim.DispatchRandom
	sc.Canary.Replicas = 1
	switch name {
	case fleetSaturated:
		sc.Rate = 20
	default:
		sc.Rate = 12
		sc.BurstEvery = 3 * time.Minute
		sc.BurstDuration = 40 * time.Second
		sc.BurstFactor = 1.6
	}
	return sc
}

// The canary fleets.
const (
	fleetBusy      = "busy"
	fleetSaturated = "saturated"
)

// A canaryCase is one change made to the canary replica of a fleet, and
// the verdict that finds it: want of criterion, "" for no change; want
// INCONCLUSIVE with no criterion is the traffic guard's.
type canaryCase struct {
	name, fleet, label string
	want, criterion    string
	apply              func(*sim.Canary, sim.Scenario)
}

func moreSlots(c *sim.Canary, sc sim.Scenario)    { c.MaxNumSeqs = sc.MaxNumSeqs * 5 / 4 }
func slowerDecode(c *sim.Canary, sc sim.Scenario) { c.DecodeRate = sc.DecodeRate / 1.2 }

var canaryCases = []canaryCase{
	{name: "none", fleet: fleetBusy, label: "no change"},
	{name: "none", fleet: fleetSaturated, label: "no change"},
	{name: "slots+25", fleet: fleetSaturated, label: "+25 % slots", want: schemas.Pass, criterion: compare.Throughput, apply: moreSlots},
	{name: "slots+25", fleet: fleetBusy, label: "+25 % slots", want: schemas.Pass, criterion: compare.Throughput, apply: moreSlots},
	{name: "tpot+20", fleet: fleetBusy, label: "decode 20 % slower (TPOT +20 %)", want: schemas.Fail, criterion: compare.TPOT, apply: slowerDecode},
	{name: "fail+2", fleet: fleetBusy, label: "failures +2 pp", want: schemas.Fail, criterion: compare.SuccessRate,
		apply: func(c *sim.Canary, sc sim.Scenario) { c.ExtraErrorRate = 0.02 }},
	{name: "half", fleet: fleetBusy, label: "half the traffic of its peers", want: schemas.Inconclusive,
		apply: func(c *sim.Canary, sc sim.Scenario) { c.Weight = 0.5 }},
}

// canaryKey names one canary comparison: a case, a seed and an input path.
type canaryKey struct {
	c    *canaryCase
	seed uint64
	path string
}

func (k canaryKey) dir(root string) string {
	return filepath.Join(root, "canary", k.c.fleet, k.c.name, fmt.Sprintf("seed-%d", k.seed), k.path)
}

// runCanaries simulates n seeds of every case, takes each through the
// pipeline on every path (ingest, the split into replicas, each analysed
// alone) and prints how often the canary verdict finds the case.
func runCanaries(ctx context.Context, c *corpus, n, workers int, paths []string, cr schemas.Criteria, command string, w *strings.Builder) error {
	type job struct {
		c    *canaryCase
		seed uint64
	}
	var jobs []job
	for i := range canaryCases {
		for s := 1; s <= n; s++ {
			jobs = append(jobs, job{&canaryCases[i], uint64(s)})
		}
	}
	results := make([][]schemas.Verdict, len(canaryCases))
	for i := range results {
		results[i] = make([]schemas.Verdict, n*len(paths))
	}
	start := time.Now()
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(workers)
	for _, j := range jobs {
		g.Go(func() error {
			vs, err := canaryJob(gctx, c.root, j.c, j.seed, paths, cr)
			if err != nil {
				return err
			}
			ci := caseIndex(j.c)
			for p, v := range vs {
				results[ci][p*n+int(j.seed)-1] = v
			}
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return err
	}
	c.log("%d canary comparisons in %s", len(jobs)*len(paths), time.Since(start).Round(time.Second))
	canaryTable(w, results, n, paths, command)
	return nil
}

func caseIndex(c *canaryCase) int {
	for i := range canaryCases {
		if &canaryCases[i] == c {
			return i
		}
	}
	panic("calibrate: unknown canary case")
}

// canaryJob simulates one seed of case cc once and compares its canary on
// every path, reusing a verdict already in root.
func canaryJob(ctx context.Context, root string, cc *canaryCase, seed uint64, paths []string, cr schemas.Criteria) ([]schemas.Verdict, error) {
	out := make([]schemas.Verdict, len(paths))
	var todo []int
	for i, p := range paths {
		v, ok, err := reuseCanary(ctx, canaryKey{cc, seed, p}.dir(root), cr)
		if err != nil {
			return nil, err
		}
		if ok {
			out[i] = v
			continue
		}
		todo = append(todo, i)
	}
	if len(todo) == 0 {
		return out, nil
	}
	sc := canaryFleet(cc.fleet)
	if cc.apply != nil {
		cc.apply(&sc.Canary, sc)
	}
	sc.RunID = fmt.Sprintf("%s@%s-%d", sc.Name, cc.name, seed)
	base := filepath.Dir(canaryKey{cc, seed, paths[0]}.dir(root))
	simDir := filepath.Join(base, "sim")
	var formats []string
	for _, i := range todo {
		formats = append(formats, pathInputs[paths[i]]...)
	}
	if _, err := sim.WriteFormats(simDir, sc, 500_000+seed, formats...); err != nil {
		return nil, err
	}
	defer os.RemoveAll(simDir)
	sels, err := canary.ParseAll(sc.CanaryNames())
	if err != nil {
		return nil, err
	}
	for _, i := range todo {
		k := canaryKey{cc, seed, paths[i]}
		dir := k.dir(root)
		var inputs []string
		for _, f := range pathInputs[k.path] {
			inputs = append(inputs, sim.IngestFormat(f)+":"+filepath.Join(simDir, sim.FormatFile(f)))
		}
		run := filepath.Join(dir, "run")
		if _, err := ingest.Run(ctx, ingest.Options{RunID: sc.RunID, OutDir: run, Inputs: inputs, Version: "calibrate"}); err != nil {
			return nil, fmt.Errorf("ingest %s: %w", run, err)
		}
		work := filepath.Join(dir, "split")
		os.RemoveAll(work)
		res, err := canary.Evaluate(ctx, run, work, sels, nil, cr, analyseReplica, false)
		os.RemoveAll(run)
		if err != nil {
			return nil, fmt.Errorf("canary %s: %w", dir, err)
		}
		// The analysed replicas stay for the next calibration, which may
		// judge them by other criteria.
		b, err := json.Marshal(res.Split)
		if err != nil {
			return nil, err
		}
		if err := os.WriteFile(filepath.Join(dir, splitFile), b, 0o644); err != nil {
			return nil, err
		}
		out[i] = res.Verdict
	}
	return out, nil
}

// splitFile records a canary's split beside its analysed replicas.
const splitFile = "split.json"

// reuseCanary judges the canary already split and analysed in dir; false
// when there is none.
func reuseCanary(ctx context.Context, dir string, cr schemas.Criteria) (schemas.Verdict, bool, error) {
	b, err := os.ReadFile(filepath.Join(dir, splitFile))
	if err != nil {
		return schemas.Verdict{}, false, nil
	}
	var sp canary.Split
	if err := json.Unmarshal(b, &sp); err != nil {
		return schemas.Verdict{}, false, nil
	}
	load := func(dirs []string) ([]compare.Run, error) {
		var out []compare.Run
		for _, d := range dirs {
			r, err := loadReplica(ctx, d)
			if err != nil {
				return nil, err
			}
			out = append(out, r)
		}
		return out, nil
	}
	base, err := load(sp.Baseline.Dirs)
	if err != nil {
		return schemas.Verdict{}, false, nil
	}
	cand, err := load(sp.Candidate.Dirs)
	if err != nil {
		return schemas.Verdict{}, false, nil
	}
	v, err := compare.EvaluateCanary(ctx, base, cand, cr, sp.Groups())
	return v, err == nil, err
}

// analyseReplica is the canary's analyzer: analyze over the run's extent,
// with the calibration SLO.
func analyseReplica(ctx context.Context, dir string, from, to time.Time) (compare.Run, error) {
	if _, err := analyze.Run(ctx, analyze.Options{Dir: dir, From: &from, To: &to, SLO: calibrationSLO()}); err != nil {
		return compare.Run{}, err
	}
	return loadReplica(ctx, dir)
}

// loadReplica reads an analysed replica as compare does.
func loadReplica(ctx context.Context, dir string) (compare.Run, error) {
	res, err := analyze.Load(ctx, dir)
	if err != nil {
		return compare.Run{}, err
	}
	lat, err := analyze.LoadLatencies(ctx, dir)
	return compare.Run{Summary: res.Summary, Windows: res.Windows, Requests: lat}, err
}

// canaryTable writes the canary table: for each case and path, how often
// the overall verdict and the case's criterion said what finds it.
func canaryTable(b *strings.Builder, results [][]schemas.Verdict, n int, paths []string, command string) {
	fmt.Fprintf(b, "Canary comparisons: %d seeds of each case on each path (%s), each one run of four replicas behind a gateway that sends each request to a replica at random, the last replica the canary, compared with the other three over the same half hour; fleet busy: about 80 %% of its capacity with bursts above it, saturated: about 130 %%. Made %s by `%s`.\n\n",
		n, strings.Join(paths, ", "), time.Now().UTC().Format("2006-01-02"), command)
	b.WriteString("| change on the canary | fleet | path | overall verdict | found by its criterion | overall PASS or FAIL | median change of its criterion | criteria that alarmed |\n|---|---|---|---|---|---|---|---|\n")
	for ci, cc := range canaryCases {
		for p, path := range paths {
			vs := results[ci][p*n : (p+1)*n]
			overall := map[string]int{}
			found, decided := 0, 0
			alarms := map[string]int{}
			var changes []float64
			for _, v := range vs {
				overall[v.Overall]++
				if v.Overall != schemas.Inconclusive {
					decided++
				}
				for _, cr := range v.Criteria {
					if cr.Name == cc.criterion && cr.Verdict == cc.want {
						found++
					}
					if cr.Name == cc.criterion && cr.Ratio != nil {
						changes = append(changes, *cr.Ratio-1)
					} else if cr.Name == cc.criterion && cr.Diff != nil {
						changes = append(changes, *cr.Diff)
					}
					if alarm(cr, v.Settings.GapFloor) {
						alarms[cr.Name]++
					}
				}
				if cc.criterion == "" && cc.want != "" && v.Overall == cc.want && len(v.Guards) > 0 {
					found++
				}
			}
			var al []string
			for _, name := range judged {
				if alarms[name] > 0 {
					al = append(al, fmt.Sprintf("%s %d", name, alarms[name]))
				}
			}
			foundText := "–"
			switch {
			case cc.want != "" && cc.criterion != "":
				foundText = fmt.Sprintf("%s %s in %d of %d", cc.criterion, cc.want, found, n)
			case cc.want != "":
				foundText = fmt.Sprintf("INCONCLUSIVE by the traffic guard in %d of %d", found, n)
			}
			fmt.Fprintf(b, "| %s | %s | %s | %s | %s | %s | %s | %s |\n", cc.label, cc.fleet, path,
				fmt.Sprintf("PASS %d, FAIL %d, INCONCLUSIVE %d", overall[schemas.Pass], overall[schemas.Fail], overall[schemas.Inconclusive]),
				foundText, rateCI(decided, n), medianOf(cc.criterion, changes), strings.Join(al, ", "))
		}
	}
}

// medianOf writes the median change of a criterion: relative for a ratio,
// in points for a difference.
func medianOf(criterion string, xs []float64) string {
	if criterion == "" || len(xs) == 0 {
		return "–"
	}
	return medianChange(criterion, xs)
}
