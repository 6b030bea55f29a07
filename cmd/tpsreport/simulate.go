package main

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/tpsreport/tpsreport/internal/numfmt"
	"github.com/tpsreport/tpsreport/sim"
)

func simulateCommand(e *env) *cli.Command {
	return &cli.Command{
		Name:  "simulate",
		Usage: "write synthetic serving logs in real formats, with known truth (truth.json)",
		Description: fmt.Sprintf(`A discrete-event simulation of a gateway in front of continuous-batching
engine replicas. Scenarios: %s. One simulation writes what
real systems write: spans.jsonl (canonical spans), samples.jsonl (engine stats),
vllm-otel.jsonl (vLLM OpenTelemetry spans), litellm.jsonl (LiteLLM payloads),
litellm-metrics.jsonl (LiteLLM payloads whose responses carry vLLM's per-request
metrics: read as litellm, they give the engine's times without its log),
sglang-request-metrics.log (SGLang's request metrics export) and vllm.log (vLLM
server log with stats lines); truth.json holds the run's metrics
computed from the simulator's own state, to check the pipeline against.

Disaggregated serving (scenarios %s): a gateway, a router that picks
a prefill and a decode worker per request, prefill workers, KV transfers and
decode workers. It writes spans.jsonl, samples.jsonl (every worker),
stages.jsonl (each request's stages), trtllm-perf.jsonl (TensorRT-LLM's
disaggregated perf metrics of the same requests), epp.jsonl (llm-d's endpoint
picker's log of its router stages) with stages-workers.jsonl (the other
stages), litellm.jsonl (a LiteLLM gateway in front), prefill-N.log and
decode-N.log (each worker's SGLang Req Time Stats lines), truth.json (what the spans
and stages show), truth-trtllm-perf.json and truth-litellm-trtllm-perf.json
(what TensorRT-LLM's records show, alone and joined); --seed, --run, --duration, --rate and --start apply.

Example:
   tpsreport simulate --scenario stall --seed 7 --out sim/stall
   tpsreport ingest --format spans --run stall --out runs/stall sim/stall/spans.jsonl`, strings.Join(sim.Names(), ", "), strings.Join(sim.DisaggNames, ", ")),
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "scenario", Aliases: []string{"s"}, Value: "stall", Usage: "named scenario"},
			&cli.Uint64Flag{Name: "seed", Value: 1, Usage: "random seed: the same seed gives byte-identical logs"},
			&cli.StringFlag{Name: "out", Aliases: []string{"o"}, Usage: "write into `DIR`", Required: true},
			&cli.StringFlag{Name: "run", DefaultText: "the scenario name", Usage: "run id of the spans"},
			&cli.DurationFlag{Name: "duration", DefaultText: "the scenario's", Usage: "length of the arrival window"},
			&cli.Float64Flag{Name: "rate", DefaultText: "the scenario's", Usage: "mean arrivals per second"},
			&cli.Int64Flag{Name: "max-arrivals", DefaultText: "0 = no limit", Usage: "stop after this many requests"},
			&cli.IntFlag{Name: "replicas", DefaultText: "the scenario's", Usage: "engine replicas"},
			&cli.IntFlag{Name: "max-num-seqs", DefaultText: "the scenario's", Usage: "cap of each replica"},
			&cli.Float64Flag{Name: "error-rate", DefaultText: "the scenario's", Usage: "probability that an admitted attempt fails partway"},
			&cli.Float64Flag{Name: "slowdown", DefaultText: "the scenario's", Usage: "α of a stream's decode rate DecodeRate/(1+α·(n−1)) with n streams running: how much batching slows each stream"},
			&cli.Float64Flag{Name: "decode-rate", DefaultText: "the scenario's", Usage: "tokens/s of one stream alone on its replica (DecodeRate): a slower decode raises TPOT at every batch"},
			&cli.TimestampFlag{Name: "start", Layout: "2006-01-02T15:04:05Z07:00", DefaultText: "2026-11-20T10:00:00Z", Usage: "instant of the first arrivals (RFC 3339), so that simulated nights carry their own dates"},
			&cli.StringFlag{Name: "model", DefaultText: "the scenario's", Usage: "model name of every span"},
			&cli.StringFlag{Name: "dispatch", DefaultText: "the scenario's", Usage: "how the gateway sends requests to the replicas: free (into a free slot), round-robin, random or least-loaded (each replica then queues its own)"},
			&cli.IntFlag{Name: "canary-replicas", Usage: "give the last `N` replicas the --canary-* settings below: a change deployed to some replicas (compare --canary)"},
			&cli.IntFlag{Name: "canary-max-num-seqs", DefaultText: "the scenario's", Usage: "cap of each canary replica"},
			&cli.Float64Flag{Name: "canary-decode-rate", DefaultText: "the scenario's", Usage: "tokens/s of one stream alone on a canary replica"},
			&cli.Float64Flag{Name: "canary-extra-error-rate", Usage: "added to the error rate on the canary replicas"},
			&cli.Float64Flag{Name: "canary-weight", DefaultText: "1", Usage: "share of the traffic each canary replica gets relative to another replica, with --dispatch random (0.5: half as much)"},
			&cli.DurationFlag{Name: "canary-engine-pause-every", Usage: "the canary replicas' engines pause admission about this often (with a --dispatch policy): a scheduler that holds requests with slots free"},
			&cli.DurationFlag{Name: "canary-engine-pause", Value: 3 * time.Second, Usage: "mean length of a canary engine's pause"},
		},
		Action: func(c *cli.Context) error {
			if c.NArg() != 0 {
				return usageError(c, "takes no arguments")
			}
			if slices.Contains(sim.DisaggNames, c.String("scenario")) {
				return simulateDisagg(e, c)
			}
			sc, err := sim.Named(c.String("scenario"))
			if err != nil {
				return usageError(c, "%v", err)
			}
			if err := runFlags(c, &sc.RunID, &sc.Duration, &sc.Rate, &sc.Start); err != nil {
				return err
			}
			if c.IsSet("max-arrivals") {
				sc.MaxArrivals = c.Int64("max-arrivals")
			}
			if c.IsSet("replicas") {
				sc.Replicas = c.Int("replicas")
			}
			if c.IsSet("max-num-seqs") {
				sc.MaxNumSeqs = c.Int("max-num-seqs")
			}
			if c.IsSet("error-rate") {
				sc.ErrorRate = c.Float64("error-rate")
			}
			if c.IsSet("slowdown") {
				sc.Slowdown = c.Float64("slowdown")
			}
			if c.IsSet("decode-rate") {
				sc.DecodeRate = c.Float64("decode-rate")
			}
			if c.IsSet("model") {
				sc.Model = c.String("model")
			}
			if c.IsSet("dispatch") {
				sc.Dispatch = c.String("dispatch")
				if sc.Dispatch == "free" {
					sc.Dispatch = sim.DispatchFree
				}
			}
			sc.Canary.Replicas = c.Int("canary-replicas")
			sc.Canary.MaxNumSeqs = c.Int("canary-max-num-seqs")
			sc.Canary.DecodeRate = c.Float64("canary-decode-rate")
			sc.Canary.ExtraErrorRate = c.Float64("canary-extra-error-rate")
			sc.Canary.Weight = c.Float64("canary-weight")
			if c.IsSet("canary-engine-pause-every") {
				sc.Canary.EngineStallGap, sc.Canary.EngineStallDuration = c.Duration("canary-engine-pause-every"), c.Duration("canary-engine-pause")
			}
			if err := sc.Validate(); err != nil {
				return usageError(c, "%v", err)
			}
			out := c.String("out")
			truth, err := simulate(out, sc, c.Uint64("seed"))
			if err != nil {
				return err
			}
			fmt.Fprintf(e.stdout, "%s: %d spans, %d requests; truth.json system_tps %s tok/s, gap_fraction %s\n",
				out, truth.Spans, truth.Requests, fmtFloat(truth.SystemTPS), fmtPct(truth.GapFraction))
			return nil
		},
	}
}

// runFlags applies the flags every scenario takes: --run, --duration,
// --rate and --start.
func runFlags(c *cli.Context, runID *string, duration *time.Duration, rate *float64, start *int64) error {
	if c.IsSet("run") {
		*runID = c.String("run")
	}
	if c.IsSet("duration") {
		*duration = c.Duration("duration")
	}
	if c.IsSet("rate") {
		*rate = c.Float64("rate")
	}
	if c.IsSet("start") {
		*start = c.Timestamp("start").UnixMicro()
		if *start <= 0 {
			return usageError(c, "--start %s: want an instant after 1970", c.Timestamp("start").Format(time.RFC3339))
		}
	}
	return nil
}

// simulateDisagg runs a disaggregated scenario: its own flags are few, so
// that one the scenario has no place for is refused rather than ignored.
func simulateDisagg(e *env, c *cli.Context) error {
	sc, err := sim.NamedDisagg(c.String("scenario"))
	if err != nil {
		return usageError(c, "%v", err)
	}
	for _, f := range c.Command.Flags {
		name := f.Names()[0]
		switch name {
		case "scenario", "seed", "out", "run", "duration", "rate", "start":
		default:
			if c.IsSet(name) {
				return usageError(c, "--%s: a disaggregated scenario (%s) takes --seed, --run, --duration, --rate and --start", name, sc.Name)
			}
		}
	}
	if err := runFlags(c, &sc.RunID, &sc.Duration, &sc.Rate, &sc.Start); err != nil {
		return err
	}
	out := c.String("out")
	truths, err := sim.WriteDisagg(out, sc, c.Uint64("seed"))
	if err != nil {
		return err
	}
	d := truths[sim.ViewStages].Disaggregation
	fmt.Fprintf(e.stdout, "%s: %d requests of disaggregated serving", out, d.Attempts)
	if p := d.Extent.P95; p != nil {
		fmt.Fprintf(e.stdout, "; truth.json p95 extent %s", numfmt.Seconds(*p))
	}
	for _, r := range d.Roles {
		fmt.Fprintf(e.stdout, ", %s utilization %s", r.Role, fmtPct(r.Utilization))
	}
	fmt.Fprintln(e.stdout)
	return nil
}

// simulate writes every format the simulator speaks into dir (spans.jsonl,
// samples.jsonl, vllm-otel.jsonl, litellm.jsonl, litellm-metrics.jsonl,
// sglang-request-metrics.log, vllm.log) and truth.json, each through a
// temporary name.
func simulate(dir string, sc sim.Scenario, seed uint64) (sim.Truth, error) {
	return sim.WriteFormats(dir, sc, seed)
}
