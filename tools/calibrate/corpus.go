package main

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"sync"

	"github.com/tpsreport/tpsreport/analyze"
	"github.com/tpsreport/tpsreport/compare"
	"github.com/tpsreport/tpsreport/ingest"
	"github.com/tpsreport/tpsreport/schemas"
	"github.com/tpsreport/tpsreport/sim"
)

// Input paths: how a simulated run reaches the pipeline. Each is read from
// the same simulation, so the two paths of one seed see the same traffic.
const (
	pathSpans  = "spans"  // canonical spans (spans.jsonl)
	pathJoined = "joined" // LiteLLM payloads + vLLM OTel spans, joined per request
)

// pathInputs are the simulator formats a path ingests, with the ingest
// format of each.
var pathInputs = map[string][]string{
	pathSpans:  {sim.FormatSpans},
	pathJoined: {sim.FormatLiteLLM, sim.FormatVLLMOTel},
}

// calibrationSLO is the SLO every run is analysed with, so that the pairs
// judge SLO attainment too: a first token within 5 s, then 50 ms a token.
func calibrationSLO() *schemas.SLO {
	ttft, tpot := 5.0, 0.05
	return &schemas.SLO{TTFT: &ttft, TPOT: &tpot}
}

// runKey names one analysed run of the corpus: a scenario, an effect applied
// to it ("" for none), a seed and an input path.
type runKey struct {
	scenario, effect string
	seed             uint64
	path             string
}

func (k runKey) dir(root string) string {
	name := k.scenario
	if k.effect != "" {
		name += "@" + k.effect
	}
	return filepath.Join(root, name, "seed-"+strconv.FormatUint(k.seed, 10), k.path)
}

// corpus makes and loads the analysed runs the pairs compare: each run is
// simulated, ingested and analysed once into root, and read back for
// compare.
type corpus struct {
	root    string
	effects map[string]effect
	log     func(format string, a ...any)

	mu   sync.Mutex
	runs map[runKey]compare.Run
}

// scenario is the simulator scenario of k: its named scenario with k's
// effect applied.
func (c *corpus) scenario(k runKey) (sim.Scenario, error) {
	sc, err := scenario(k.scenario)
	if err != nil {
		return sc, err
	}
	if k.effect != "" {
		e, ok := c.effects[k.effect]
		if !ok {
			return sc, fmt.Errorf("unknown effect %q", k.effect)
		}
		sc = e.apply(sc)
	}
	sc.RunID = fmt.Sprintf("%s-%d", sc.Name, k.seed)
	if k.effect != "" {
		sc.RunID = fmt.Sprintf("%s@%s-%d", k.scenario, k.effect, k.seed)
	}
	return sc, nil
}

// make simulates the seed of keys (which share scenario, effect and seed)
// once and ingests and analyses each path that is not in root yet.
func (c *corpus) make(ctx context.Context, keys []runKey) error {
	var todo []runKey
	for _, k := range keys {
		if _, err := os.Stat(filepath.Join(k.dir(c.root), schemas.SummaryFile)); err != nil {
			todo = append(todo, k)
		}
	}
	if len(todo) == 0 {
		return nil
	}
	sc, err := c.scenario(todo[0])
	if err != nil {
		return err
	}
	simDir := filepath.Join(filepath.Dir(todo[0].dir(c.root)), "sim")
	var formats []string
	for _, k := range todo {
		formats = append(formats, pathInputs[k.path]...)
	}
	if _, err := sim.WriteFormats(simDir, sc, todo[0].seed, formats...); err != nil {
		return err
	}
	defer os.RemoveAll(simDir)
	for _, k := range todo {
		var inputs []string
		for _, f := range pathInputs[k.path] {
			inputs = append(inputs, sim.IngestFormat(f)+":"+filepath.Join(simDir, sim.FormatFile(f)))
		}
		dir := k.dir(c.root)
		if _, err := ingest.Run(ctx, ingest.Options{RunID: sc.RunID, OutDir: dir, Inputs: inputs, Version: "calibrate"}); err != nil {
			return fmt.Errorf("ingest %s: %w", dir, err)
		}
		if _, err := analyze.Run(ctx, analyze.Options{Dir: dir, SLO: calibrationSLO()}); err != nil {
			return fmt.Errorf("analyze %s: %w", dir, err)
		}
	}
	return nil
}

// makeAll makes every run of keys, workers at a time.
func (c *corpus) makeAll(ctx context.Context, keys []runKey, workers int) error {
	// One job per simulation: the keys that share scenario, effect and seed.
	type job struct{ keys []runKey }
	var jobs []job
	index := map[runKey]int{}
	for _, k := range keys {
		sk := runKey{scenario: k.scenario, effect: k.effect, seed: k.seed}
		i, ok := index[sk]
		if !ok {
			i = len(jobs)
			index[sk] = i
			jobs = append(jobs, job{})
		}
		jobs[i].keys = append(jobs[i].keys, k)
	}
	ch := make(chan job)
	errc := make(chan error, workers)
	var wg sync.WaitGroup
	var done, total = 0, len(jobs)
	var mu sync.Mutex
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range ch {
				if err := c.make(ctx, j.keys); err != nil {
					select {
					case errc <- err:
					default:
					}
					continue
				}
				mu.Lock()
				done++
				if done%20 == 0 || done == total {
					c.log("simulated and analysed %d of %d seeds", done, total)
				}
				mu.Unlock()
			}
		}()
	}
	for _, j := range jobs {
		select {
		case ch <- j:
		case err := <-errc:
			close(ch)
			wg.Wait()
			return err
		case <-ctx.Done():
			close(ch)
			wg.Wait()
			return ctx.Err()
		}
	}
	close(ch)
	wg.Wait()
	select {
	case err := <-errc:
		return err
	default:
	}
	return nil
}

// run loads the analysed run of k as compare reads it.
func (c *corpus) run(ctx context.Context, k runKey) (compare.Run, error) {
	c.mu.Lock()
	r, ok := c.runs[k]
	c.mu.Unlock()
	if ok {
		return r, nil
	}
	dir := k.dir(c.root)
	res, err := analyze.Load(ctx, dir)
	if errors.Is(err, fs.ErrNotExist) {
		return r, fmt.Errorf("run %s was not made", dir)
	}
	if err != nil {
		return r, err
	}
	lat, err := analyze.LoadLatencies(ctx, dir)
	if err != nil {
		return r, err
	}
	r = compare.Run{Summary: res.Summary, Windows: res.Windows, Requests: lat}
	c.mu.Lock()
	if c.runs == nil {
		c.runs = map[runKey]compare.Run{}
	}
	c.runs[k] = r
	c.mu.Unlock()
	return r, nil
}
